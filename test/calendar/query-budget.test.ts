/**
 * Statements per request on the read paths the benchmark measures. The
 * budgets are the current counts: a change that adds a query per request
 * (or per event of a page) fails here, before it shows in the benchmark.
 */
import { expect } from "chai";
import type { Knex } from "knex";
import { forEachDatabase } from "../support/databases";
import type { TestSite } from "../support/site";
import { dayAt, makeEvent, useSite } from "./events-support";

/** Statements one request runs, leaving out the options revision check (at most once a second, not per request). */
async function queriesOf(t: TestSite, run: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const onQuery = (q: { sql: string }): void => {
    if (!/\boptions\b/.test(q.sql)) seen.push(q.sql);
  };
  const knex: Knex = t.site.engine.knex;
  knex.on("query", onQuery);
  try {
    await run();
  } finally {
    knex.removeListener("query", onQuery);
  }
  return seen;
}

forEachDatabase("query budget per request", (db) => {
  // The budgets are those of building an answer (no kept records or published index either); reusing one is tested in
  // test/routes/response-cache.test.ts, kept records below and in test/calendar/kept-records.test.ts,
  // lists from memory in test/calendar/published-index.test.ts.
  const site = useSite(db, { responseCache: false, records: false, publishedIndex: false });
  let event: { id: number; slug: string };
  let category: number;

  before(async () => {
    const t = site();
    const music = await t.site.engine.terms.bySlug("calendar_events_cat", "music");
    if (!music) throw new Error("the minimal fixture has a music category");
    category = music.id;
    const body = await makeEvent(t, {
      title: "Budget Gala",
      status: "publish",
      venue: (await t.get("/venues")).body.venues[0].id,
      organizer: [(await t.get("/organizers")).body.organizers[0].id],
      categories: [category],
      tags: ["free"],
      start_date: dayAt(3, "19:00:00"),
      end_date: dayAt(3, "21:00:00"),
    });
    event = { id: body.id, slug: body.slug };
    expect(body.venue).to.have.property("id");
    expect(body.organizer).to.have.length(1);
    expect(body.categories).to.have.length(1);
  });

  it("GET /events/{id}: the event with its fields, terms, venue and organizer in 3 statements", async () => {
    const t = site();
    await t.get(`/events/${event.id}`);
    const sql = await queriesOf(t, async () => {
      const res = await t.get(`/events/${event.id}`);
      expect(res.status).to.equal(200);
      expect(res.body.venue.id).to.be.a("number");
      expect(res.body.organizer[0].id).to.be.a("number");
      expect(res.body.categories[0].id).to.equal(category);
    });
    expect(sql, sql.join("\n")).to.have.length.at.most(3);
  });

  it("GET /events/by-slug/{slug}: the slug check, the read and Allow share one lookup (3 statements)", async () => {
    const t = site();
    const sql = await queriesOf(t, async () => {
      const res = await t.get(`/events/by-slug/${event.slug}`);
      expect(res.status).to.equal(200);
      expect(res.body.id).to.equal(event.id);
    });
    expect(sql, sql.join("\n")).to.have.length.at.most(3);
    // Logged in, the permission checks behind Allow need the event too: still one lookup (plus the two of the password check).
    const asEditor = await queriesOf(t, async () => {
      const res = await t.get(`/events/by-slug/${event.slug}`, { as: "editor" });
      expect(res.status).to.equal(200);
      expect(res.headers.get("allow")).to.contain("DELETE");
    });
    expect(asEditor, asEditor.join("\n")).to.have.length.at.most(5);
  });

  it("GET /events: a page with its total, terms, venues and organizers in 4 statements, whatever its size", async () => {
    const t = site();
    for (const perPage of [1, 2, 10]) {
      // The first full page after a write counts the total (one statement more on SQLite, where it is then kept).
      await t.get("/events", { query: { per_page: perPage } });
      const sql = await queriesOf(t, async () => {
        const res = await t.get("/events", { query: { per_page: perPage } });
        expect(res.status).to.equal(200);
        expect(res.body.events.length).to.be.at.least(1);
      });
      expect(sql, sql.join("\n")).to.have.length.at.most(4);
    }
  });

  it("GET /events on SQLite: the page is read in start order from the start index and stops there (no sort of every match)", async function () {
    if (db.name !== "sqlite") this.skip();
    const t = site();
    const knex: Knex = t.site.engine.knex;
    const pages: Array<{ sql: string; bindings: readonly unknown[] }> = [];
    const onQuery = (q: { sql: string; bindings?: readonly unknown[] }): void => {
      if (/^select `p`\.(\*|`id`)/.test(q.sql) && /order by/.test(q.sql)) pages.push({ sql: q.sql, bindings: q.bindings ?? [] });
    };
    knex.on("query", onQuery);
    try {
      // The upcoming list and a date window (with a category, SQLite may rather start from the category's events: a small set).
      const queries: Array<Record<string, string | number>> = [{}, { start_date: dayAt(0, "00:00:00").slice(0, 10), end_date: dayAt(40, "00:00:00").slice(0, 10), per_page: 50 }];
      for (const query of queries) {
        // A write first, so that the page is read again rather than taken from the read cache.
        await t.site.engine.options.set("plan_test_bump", String(pages.length));
        const res = await t.get("/events", { query });
        expect(res.status).to.equal(200);
      }
    } finally {
      knex.removeListener("query", onQuery);
    }
    expect(pages).to.have.length(2);
    for (const page of pages) {
      const plan = (await knex.raw(`EXPLAIN QUERY PLAN ${page.sql}`, page.bindings as Knex.RawBinding[])) as Array<{ detail: string }>;
      const steps = plan.map((r) => r.detail);
      expect(steps[0], steps.join(" | ")).to.match(/^SEARCH f USING INDEX \S*start_local\S* \(start_local>\?/);
      expect(steps.join(" | ")).to.not.contain("TEMP B-TREE");
    }
  });

  it("GET /events with a category and a month window: the category is looked up once (5 statements)", async () => {
    const t = site();
    const sql = await queriesOf(t, async () => {
      const res = await t.get("/events", { query: { categories: category, start_date: dayAt(0, "00:00:00").slice(0, 10), end_date: dayAt(40, "00:00:00").slice(0, 10), per_page: 50 } });
      expect(res.status).to.equal(200);
      expect(res.body.events.map((e: { id: number }) => e.id)).to.include(event.id);
    });
    // On PostgreSQL and MariaDB the revision is a statement: the term rows shared between requests (next test) cost one the first time.
    expect(sql, sql.join("\n")).to.have.length.at.most(db.name === "sqlite" ? 5 : 6);
  });

  it("GET /events with a category: the term is read once while nothing changes, not by every request", async function () {
    const t = site();
    const window = (from: number): Record<string, string | number> => ({ categories: category, start_date: dayAt(from, "00:00:00").slice(0, 10), end_date: dayAt(from + 40, "00:00:00").slice(0, 10), per_page: 50 });
    await t.get("/events", { query: window(0) });
    const sql = await queriesOf(t, async () => {
      const res = await t.get("/events", { query: window(1) });
      expect(res.status).to.equal(200);
      expect(res.body.events.map((e: { id: number }) => e.id)).to.include(event.id);
    });
    const termReads = sql.filter((q) => /from [`"]\w*terms[`"] where [`"]id[`"] in/i.test(q));
    expect(termReads, sql.join("\n")).to.deep.equal([]);
  });

  it("GET /events?venue=: the venue is read again only when it changes, not after any write", async function () {
    // Rows are proved across writes by the tag feed (every database).
    const t = site();
    const venue = (await t.get("/venues")).body.venues[0].id as number;
    await t.get("/events", { query: { venue, per_page: 5 } });
    // A write elsewhere: the revision moves, the venue does not.
    await t.site.engine.posts.create({ type: "event", status: "draft", title: "Unrelated draft" });
    const sql = await queriesOf(t, async () => {
      const res = await t.get("/events", { query: { venue, per_page: 6 } });
      expect(res.status).to.equal(200);
      expect(res.body.events.length).to.be.greaterThan(0);
    });
    const venueReads = sql.filter((q) => /address/.test(q));
    expect(venueReads, sql.join("\n")).to.deep.equal([]);
  });

  it("_fields that leave out terms, venue, organizer and JSON-LD skip the statements that load them", async () => {
    const t = site();
    // A write before each request, so that the read cache does not hide the statements.
    const counted = async (path: string, query: Record<string, string | number>): Promise<{ sql: string[]; body: any }> => {
      await t.site.engine.options.set("fields_budget_bump", `${path}?${JSON.stringify(query)}`);
      let body: any;
      const sql = await queriesOf(t, async () => {
        const res = await t.get(path, { query });
        expect(res.status).to.equal(200);
        body = res.body;
      });
      return { sql, body };
    };
    for (const [path, fields] of [
      ["/events", "id,title"],
      ["/events", "total,total_pages"],
      [`/events/${event.id}`, "id,title"],
      [`/events/by-slug/${event.slug}`, "id,title,start_date"],
    ] as const) {
      const full = await counted(path, {});
      const part = await counted(path, { _fields: fields });
      expect(part.sql.length, `${path}?_fields=${fields}\n${part.sql.join("\n")}\n--- full:\n${full.sql.join("\n")}`).to.be.below(full.sql.length);
      expect(part.sql.join("\n")).to.not.contain("term_relationships");
      // WordPress filters a list answer's own members: `id,title` keeps nothing of /events (rest-conventions.md §9).
      if (path === "/events" && fields === "id,title") expect(part.body).to.deep.equal({});
      else for (const name of fields.split(",")) expect(part.body, name).to.have.property(name);
    }
    // Asking for the venue loads the links again (and only that much more).
    const venueOnly = await counted(`/events/${event.id}`, { _fields: "id,venue.venue" });
    expect(venueOnly.body.venue).to.have.property("venue");
    expect(venueOnly.sql.join("\n")).to.contain("post_links");
  });

  it("GET /events?search=: 4 statements once the total is known", async () => {
    const t = site();
    await t.get("/events", { query: { search: "gala" } });
    const sql = await queriesOf(t, async () => {
      const res = await t.get("/events", { query: { search: "gala" } });
      expect(res.body.events.map((e: { id: number }) => e.id)).to.deep.equal([event.id]);
    });
    expect(sql, sql.join("\n")).to.have.length.at.most(4);
  });
});

forEachDatabase("one revision read per reading request", (db) => {
  // Every layer on, as npm start serves: response cache, kept records, published index, read cache.
  const site = useSite(db);
  /** The statements that read the revision token on a server database (SQLite reads its own per connection). */
  const TOKEN = /txid_current_snapshot|sum\(version\)/i;

  it("shares the token of the request's first read across every layer, and reads a new one for the next request", async function () {
    if (db.name === "sqlite") this.skip();
    const t = site();
    const venue = (await t.get("/venues")).body.venues[0].id as number;
    const paths: Array<[string, Record<string, string | number>]> = [
      ["/events", { per_page: 7 }],
      ["/events", { venue, per_page: 3 }],
      ["/events", { search: "a", per_page: 2 }],
      ["/venues", { only_with_upcoming: 1 }],
    ];
    for (const [path, query] of paths) {
      // A write by another connection first: the request must see it (a new token, not one from before).
      await t.site.engine.knex(t.site.engine.tables.options).where({ name: "blogdescription" }).update({ value: `Changed for ${path} ${JSON.stringify(query)}` });
      const sql = await queriesOf(t, async () => {
        const res = await t.get(path, { query });
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
      });
      expect(sql.filter((q) => TOKEN.test(q)), `${path} ${JSON.stringify(query)}\n${sql.join("\n")}`).to.have.length(1);
    }
  });

  it("a write, and a read after it in the same request's work, reads the token again", async () => {
    const t = site();
    const made = await makeEvent(t, { title: "Budget Written", status: "publish", start_date: dayAt(3, "10:00:00"), end_date: dayAt(3, "11:00:00") });
    const read = await t.get(`/events/${made.id}`);
    expect(read.body.title).to.equal("Budget Written");
    expect((await t.post(`/events/${made.id}`, { as: "editor", json: { title: "Budget Rewritten" } })).body.title).to.equal("Budget Rewritten");
    expect((await t.get(`/events/${made.id}`)).body.title).to.equal("Budget Rewritten");
    expect((await t.get("/events", { query: { search: "Budget Rewritten" } })).body.events.map((e: { title: string }) => e.title)).to.deep.equal(["Budget Rewritten"]);
  });
});
