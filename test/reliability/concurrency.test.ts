/**
 * Concurrency, on every database: parallel creates with one title get
 * distinct slugs, parallel updates of one record lose no field, parallel
 * term changes leave exact counts, and none of it answers 500.
 */
import { expect } from "chai";
import { forEachDatabase, type TestDatabase } from "../support/databases";
import { startTestSite, type ApiResponse, type TestSite } from "../support/site";

const WHEN = { start_date: "2031-05-01 10:00:00", end_date: "2031-05-01 12:00:00" };

function failures(list: ApiResponse[], ok: number): string[] {
  return list.filter((r) => r.status !== ok).map((r) => `${r.status} ${r.text.slice(0, 200)}`);
}

/** Published events with the term, counted in the database: what `count` must equal. */
async function publishedWithTerm(t: TestSite, termId: number): Promise<number> {
  const rows = (await t.site.engine
    .knex(`${t.site.engine.tables.termRelationships} as r`)
    .join(`${t.site.engine.tables.posts} as p`, "p.id", "r.object_id")
    .where({ "r.term_id": termId, "p.status": "publish" })
    .count({ n: "*" })) as Array<{ n: number | string }>;
  return Number(rows[0]?.n);
}

async function storedCount(t: TestSite, termId: number): Promise<number> {
  const row = (await t.site.engine.knex(t.site.engine.tables.terms).where({ id: termId }).first("count")) as { count: number | string };
  return Number(row.count);
}

forEachDatabase("reliability: concurrency", (db) => {
  let t: TestSite;
  let database: TestDatabase;

  before(async () => {
    database = await db.create();
    t = await startTestSite({ fixture: "minimal", target: database.target });
  });
  after(async () => {
    await t?.close();
    await database?.drop();
  });

  it("50 parallel creates with one title give 50 events with 50 distinct slugs", async () => {
    const results = await Promise.all(Array.from({ length: 50 }, () => t.post("/events", { as: "admin", json: { title: "Same Title Everywhere", ...WHEN } })));
    expect(failures(results, 201)).to.deep.equal([]);
    const slugs = results.map((r) => (r.body as { slug: string }).slug);
    expect(new Set(slugs).size).to.equal(50);
    expect(slugs).to.include("same-title-everywhere");
    for (const slug of slugs) expect(slug).to.match(/^same-title-everywhere(-\d+)?$/);
    const stored = (await t.site.engine.knex(t.site.engine.tables.posts).where({ title: "Same Title Everywhere", type: "event" }).select("slug")) as { slug: string }[];
    expect(new Set(stored.map((r) => r.slug)).size).to.equal(50);
    // Every event has its fields row (start and end stored).
    const ids = results.map((r) => (r.body as { id: number }).id);
    const fields = (await t.site.engine.knex(t.site.engine.tables.fields("event")).whereIn("post_id", ids).select("post_id", "start_local")) as { start_local: string }[];
    expect(fields.length).to.equal(50);
  });

  // Was BUG-5: parallel creates of one name each found no existing record
  // and each inserted one (check-then-insert race) on PostgreSQL and MariaDB.
  it("20 parallel venue and organizer creates with one name follow the duplicate rule: one record each", async () => {
    for (const [kind, field, name] of [["venues", "venue", "Parallel Hall"], ["organizers", "organizer", "Parallel Org"]] as const) {
      const results = await Promise.all(Array.from({ length: 20 }, () => t.post(`/${kind}`, { as: "editor", json: { [field]: name } })));
      expect(failures(results, 201)).to.deep.equal([]);
      const ids = new Set(results.map((r) => (r.body as { id: number }).id));
      // calendar-api.md §5.3: a second create of the same name answers the existing record.
      const stored = (await t.site.engine.knex(t.site.engine.tables.posts).where({ title: name }).whereNot("status", "trash").select("id")) as unknown[];
      expect(stored.length, `${kind}: ids answered ${[...ids].join(",")}`).to.equal(1);
      expect(ids.size, kind).to.equal(1);
    }
  });

  it("parallel updates of one event, each sending one field, lose no field and never answer 500", async () => {
    const venue = (await t.post("/venues", { as: "admin", json: { venue: "Update Venue" } })).body as { id: number };
    const org = (await t.post("/organizers", { as: "admin", json: { organizer: "Update Org" } })).body as { id: number };
    const cat = (await t.post("/categories", { as: "admin", json: { name: "Update Cat" } })).body as { id: number };
    const tag = (await t.post("/tags", { as: "admin", json: { name: "update-tag" } })).body as { id: number };
    const event = (await t.post("/events", { as: "admin", json: { title: "Before", ...WHEN } })).body as { id: number };
    for (let round = 1; round <= 3; round++) {
      const fields: Record<string, unknown> = {
        title: `Title ${round}`,
        description: `Description ${round}`,
        excerpt: `Excerpt ${round}`,
        cost: `${round}0$`,
        slug: `slug-round-${round}`,
        venue: venue.id,
        organizer: [org.id],
        categories: [cat.id],
        tags: [tag.id],
      };
      const methods = ["POST", "PUT", "PATCH"];
      const results = await Promise.all(
        Object.entries(fields).map(([name, value], i) => t.request(methods[i % 3] as string, `/events/${event.id}`, { as: "admin", json: { [name]: value } })),
      );
      expect(failures(results, 200), `round ${round}`).to.deep.equal([]);
      const rec = (await t.get(`/events/${event.id}`, { as: "admin" })).body as Record<string, unknown>;
      expect(rec.title).to.equal(`Title ${round}`);
      expect(rec.description).to.equal(`<p>Description ${round}</p>`);
      expect(rec.excerpt).to.equal(`<p>Excerpt ${round}</p>`);
      expect(rec.cost).to.equal(`${round}0$`);
      expect(rec.slug).to.equal(`slug-round-${round}`);
      expect((rec.venue as { id: number }).id).to.equal(venue.id);
      expect((rec.organizer as Array<{ id: number }>).map((o) => o.id)).to.deep.equal([org.id]);
      expect((rec.categories as Array<{ id: number }>).map((c) => c.id)).to.deep.equal([cat.id]);
      expect((rec.tags as Array<{ id: number }>).map((c) => c.id)).to.deep.equal([tag.id]);
      // Unlink between rounds, so the next round really writes the links again.
      const unlink = await t.post(`/events/${event.id}`, { as: "admin", json: { venue: "", organizer: [], categories: "", tags: "" } });
      expect(unlink.status).to.equal(200);
    }
  });

  it("parallel updates of one venue, each sending one field, lose no field", async () => {
    const venue = (await t.post("/venues", { as: "admin", json: { venue: "Field Venue" } })).body as { id: number };
    const fields: Record<string, string> = { address: "1 Road", city: "Rome", province: "RM", zip: "00100", phone: "555", country: "Italy", description: "Desc", website: "https://venue.example" };
    const results = await Promise.all(Object.entries(fields).map(([k, v]) => t.post(`/venues/${venue.id}`, { as: "admin", json: { [k]: v } })));
    expect(failures(results, 200)).to.deep.equal([]);
    const rec = (await t.get(`/venues/${venue.id}`)).body as Record<string, unknown>;
    for (const [k, v] of Object.entries(fields)) expect(rec[k], k).to.equal(k === "description" ? `<p>${v}</p>` : v);
  });

  // Was BUG-6: on PostgreSQL the recount of a term missed relationships
  // committed while it waited for the term row (READ COMMITTED).
  it("parallel creates with one category leave its count exact", async () => {
    const cat = (await t.post("/categories", { as: "admin", json: { name: "Counted Parallel" } })).body as { id: number };
    const created = await Promise.all(
      Array.from({ length: 20 }, (_, i) => t.post("/events", { as: "admin", json: { title: `Counted ${i}`, ...WHEN, categories: [cat.id] } })),
    );
    expect(failures(created, 201)).to.deep.equal([]);
    expect(await publishedWithTerm(t, cat.id)).to.equal(20);
    expect(await storedCount(t, cat.id)).to.equal(20);
    expect(((await t.get(`/categories/${cat.id}`)).body as { count: number }).count).to.equal(20);
  });

  // Was BUG-6 (PostgreSQL) and BUG-7: on MariaDB parallel term changes
  // deadlocked and the deadlock was answered 500 instead of being retried.
  it("parallel unlinks, trashes, drafts, creates and re-saves leave exact counts and never answer 500", async () => {
    const cat = (await t.post("/categories", { as: "admin", json: { name: "Counted Mixed" } })).body as { id: number };
    const ids: number[] = [];
    for (let i = 0; i < 15; i++) {
      const res = await t.post("/events", { as: "admin", json: { title: `Mixed ${i}`, ...WHEN, categories: [cat.id] } });
      expect(res.status).to.equal(201);
      ids.push((res.body as { id: number }).id);
    }
    expect(await storedCount(t, cat.id)).to.equal(15);
    // At once: unlink 4, trash 3, draft 2, create 5 more with it, re-save 2 unchanged.
    const mixed = await Promise.all([
      ...ids.slice(0, 4).map((id) => t.post(`/events/${id}`, { as: "admin", json: { categories: "" } })),
      ...ids.slice(4, 7).map((id) => t.request("DELETE", `/events/${id}`, { as: "admin" })),
      ...ids.slice(7, 9).map((id) => t.post(`/events/${id}`, { as: "admin", json: { status: "draft" } })),
      ...Array.from({ length: 5 }, (_, i) => t.post("/events", { as: "admin", json: { title: `Mixed more ${i}`, ...WHEN, categories: [cat.id] } })),
      ...ids.slice(9, 11).map((id) => t.post(`/events/${id}`, { as: "admin", json: { categories: [cat.id] } })),
    ]);
    expect(mixed.filter((r) => r.status >= 300).map((r) => `${r.status} ${r.text.slice(0, 150)}`)).to.deep.equal([]);
    const expected = 15 - 4 - 3 - 2 + 5;
    expect(await publishedWithTerm(t, cat.id)).to.equal(expected);
    expect(await storedCount(t, cat.id)).to.equal(expected);
    expect(((await t.get(`/categories/${cat.id}`)).body as { count: number }).count).to.equal(expected);
  });

  // Was BUG-8: parallel creates naming one new category each created their
  // own term (`born-in-parallel`, `-2`, …) on PostgreSQL and MariaDB.
  it("parallel creates naming one new category create it once and count every event", async () => {
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => t.post("/events", { as: "admin", json: { title: `New term ${i}`, ...WHEN, categories: "Born In Parallel", tags: "born-in-parallel" } })),
    );
    expect(failures(results, 201)).to.deep.equal([]);
    for (const taxonomy of ["calendar_events_cat", "post_tag"]) {
      const terms = (await t.site.engine.knex(t.site.engine.tables.terms).where({ taxonomy }).whereIn("name", ["Born In Parallel", "born-in-parallel"]).select("id")) as { id: number }[];
      expect(terms.length, taxonomy).to.equal(1);
      const id = Number(terms[0]?.id);
      expect(await storedCount(t, id), taxonomy).to.equal(12);
      expect(await publishedWithTerm(t, id), taxonomy).to.equal(12);
    }
  });
});
