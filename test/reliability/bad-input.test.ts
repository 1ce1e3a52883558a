import { expect } from "chai";
import { registerBookPlugin } from "../../examples/book-plugin";
import { CATEGORY, EVENT } from "../../lib/calendar/post-types";
import { MAX_LIST_ITEMS_PER_WRITE, MAX_NEW_TERMS_PER_WRITE } from "../../lib/calendar/events/linked";
import { forEachDatabase } from "../support/databases";
import { startTestSite, type TestSite } from "../support/site";
import { expectInvalidParam, useSite } from "../calendar/events-support";

/** Issue 19 item 9: inputs that answered 5xx (or a wrong 200) and must be a 400 that changes nothing. */

const WHEN = { start_date: "2030-05-01 10:00:00", end_date: "2030-05-01 11:00:00" };
const names = (prefix: string, n: number): string[] => Array.from({ length: n }, (_, i) => `${prefix} ${i}`);

async function rowCounts(t: TestSite): Promise<Record<string, number>> {
  const k = t.site.engine.knex;
  const count = async (table: string): Promise<number> => Number((await k(table).count({ n: "*" }).first())?.n ?? 0);
  const tables = t.site.engine.tables;
  return { posts: await count(tables.posts), terms: await count(tables.terms), term_relationships: await count(tables.termRelationships), post_links: await count(tables.postLinks) };
}

forEachDatabase("bad input: term and organizer limits of an event write", (db) => {
  const site = useSite(db);

  it(`refuses more than ${MAX_LIST_ITEMS_PER_WRITE} categories, tags or organizers (600 new category names was a 500)`, async () => {
    const t = site();
    const before = await rowCounts(t);
    const many = names("Brand new category", 600);
    expectInvalidParam(await t.post("/events", { as: "admin", json: { title: "Many", ...WHEN, categories: many } }), "categories");
    expectInvalidParam(await t.post("/events", { as: "admin", json: { title: "Many", ...WHEN, categories: many.join(",") } }), "categories");
    expectInvalidParam(await t.post("/events", { as: "admin", json: { title: "Many", ...WHEN, tags: names("tag", MAX_LIST_ITEMS_PER_WRITE + 1) } }), "tags");
    const organizers = names("Organizer", MAX_LIST_ITEMS_PER_WRITE + 1).map((organizer) => ({ organizer }));
    expectInvalidParam(await t.post("/events", { as: "admin", json: { title: "Many", ...WHEN, organizer: organizers } }), "organizer");
    expect(await rowCounts(t)).to.deep.equal(before);
  });

  it(`creates at most ${MAX_NEW_TERMS_PER_WRITE} terms by name in one write, across categories and tags; past that nothing is written`, async () => {
    const t = site();
    const before = await rowCounts(t);
    const half = MAX_NEW_TERMS_PER_WRITE / 2;
    const over = await t.post("/events", { as: "admin", json: { title: "Over", ...WHEN, categories: names("Cat over", half), tags: names("Tag over", half + 1) } });
    expectInvalidParam(over, "tags");
    expect(over.body.data.params.tags).to.match(/at most 50 new categories and tags/);
    expect(await rowCounts(t)).to.deep.equal(before);

    const created = await t.post("/events", { as: "admin", json: { title: "At the limit", ...WHEN, categories: names("Cat ok", half), tags: names("Tag ok", half) } });
    expect(created.status, created.text).to.equal(201);
    expect(created.body.categories).to.have.length(half);
    expect(created.body.tags).to.have.length(half);
    // Existing terms named again cost nothing: the same write again creates none.
    const again = await t.post("/events", { as: "admin", json: { title: "Reuses", ...WHEN, categories: names("Cat ok", half), tags: [...names("Tag ok", half), "One more"] } });
    expect(again.status, again.text).to.equal(201);
  });

  it("stores a post with 600 terms through the engine (multi-row inserts are chunked)", async () => {
    const t = site();
    const engine = t.site.engine;
    const ids: number[] = [];
    for (const name of names("Engine term", 600)) ids.push((await engine.terms.create({ taxonomy: CATEGORY, name })).id);
    const post = await engine.posts.create({
      type: EVENT,
      status: "draft",
      title: "Six hundred terms",
      terms: { [CATEGORY]: ids },
      meta: Object.fromEntries(names("meta", 600).map((key, i) => [key.replace(" ", "_"), String(i)])),
    });
    const loaded = await engine.posts.get(post.id, { terms: true });
    expect(loaded?.termIds?.[CATEGORY]).to.deep.equal(ids);
    expect(Object.keys(await engine.posts.getMeta(post.id)).filter((key) => key.startsWith("meta_"))).to.have.length(600);
  });
});

describe("bad input: integers past 2^53 (SQLite)", function () {
  this.timeout(60_000);
  let t: TestSite;
  before(async () => {
    t = await startTestSite({ fixture: "minimal" });
    // A host's own routes get the same integer rules (the fuzzer found `genre` reaching the engine).
    registerBookPlugin(t.site);
    await t.site.migrate();
  });
  after(async () => t.close());

  const HUGE = "99999999999999999999";

  function expectOutOfRange(res: { status: number; body: any; text: string }, name: string): void {
    expectInvalidParam(res, name);
    expect(res.body.data.details[name].code, res.text).to.equal("rest_out_of_bounds");
    expect(res.body.data.params[name]).to.match(/ must be between -?\d+ \(inclusive\) and 9007199254740991 \(inclusive\)$/);
  }

  it("refuses page and per_page past the safe range (was a 200 with some page), in the query and in a JSON body", async () => {
    for (const path of ["/events", "/venues", "/organizers", "/categories", "/tags"]) {
      expectOutOfRange(await t.get(path, { query: { page: HUGE } }), "page");
      expectOutOfRange(await t.get(path, { query: { per_page: HUGE } }), "per_page");
      expectOutOfRange(await t.get(path, { query: { page: "9007199254740993" } }), "page");
    }
    const body = await t.post("/events", { headers: { "x-http-method-override": "GET" }, json: { page: Number(HUGE) } });
    expectOutOfRange(body, "page");
    // The largest exact integer is still an integer: a page past the last one.
    expect((await t.get("/events", { query: { page: "9007199254740991" } })).status).to.equal(404);
  });

  it("refuses a host route's integer argument past the safe range (was a 500 from the engine)", async () => {
    // The book type's typed field `pages` filters its generated list.
    const res = await t.get("/wp-json/library/v1/books", { query: { pages: HUGE } });
    expect(res.status, res.text).to.equal(400);
    expect(res.body.data.details.pages.code).to.equal("rest_out_of_bounds");
  });

  it("refuses an event ID past the safe range in the path", async () => {
    expectOutOfRange(await t.get(`/events/${HUGE}`), "id");
    expectOutOfRange(await t.request("DELETE", `/events/${HUGE}`, { as: "admin" }), "id");
  });
});
