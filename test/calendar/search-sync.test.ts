/**
 * `GET /events?search=` follows every write path: the REST writes, the
 * trash, and the bulk fixture loader (which writes rows with multi-row
 * INSERTs, not through the engine). On SQLite the trigram table is kept by
 * triggers; FTS5's integrity check confirms it holds exactly the posts' text.
 */
import { expect } from "chai";
import { createSite } from "../../lib/site";
import { generateFixture, loadFixture } from "../../lib/fixtures";
import { forEachDatabase } from "../support/databases";
import { ids, makeEvent, useSite } from "./events-support";

forEachDatabase("GET /events?search= follows writes", (db) => {
  const site = useSite(db);

  const found = async (search: string, as?: string): Promise<number[]> => {
    const res = await site().get("/events", { query: { search, per_page: 50 }, ...(as ? { as } : {}) });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return ids(res.body.events);
  };

  it("finds an event after create and update, and no longer after trash", async () => {
    const t = site();
    const event = await makeEvent(t, { title: "Zephyrine recital", status: "publish", description: "harpsichord evening" });
    expect(await found("zephyr")).to.deep.equal([event.id]);
    expect(await found("HARPSICHORD")).to.deep.equal([event.id]);

    const updated = await t.post(`/events/${event.id}`, { as: "editor", json: { title: "Obsidian recital", excerpt: "lute night" } });
    expect(updated.status).to.equal(200);
    expect(await found("zephyr")).to.deep.equal([]);
    expect(await found("obsidian")).to.deep.equal([event.id]);
    expect(await found("lute")).to.deep.equal([event.id]);

    const trashed = await t.request("DELETE", `/events/${event.id}`, { as: "editor" });
    expect(trashed.status).to.equal(200);
    expect(await found("obsidian")).to.deep.equal([]);
    expect(await found("obsidian", "editor")).to.deep.equal([]);
    if (db.name === "sqlite") await t.site.engine.knex.raw("INSERT INTO ??(??, rank) VALUES ('integrity-check', 1)", [t.site.engine.tables.postsSearch, t.site.engine.tables.postsSearch]);
  });
});

forEachDatabase("search after a bulk fixture load", (db) => {
  it("finds what a scan finds in a bulk-loaded site", async function () {
    this.timeout(120_000);
    const database = await db.create();
    const site = await createSite({ db: database.target, timezone: "UTC" });
    try {
      const engine = site.engine;
      await loadFixture(engine, generateFixture({ events: 120, seed: 5 }), { quiet: true, mode: "bulk" });
      if (db.name === "sqlite") await engine.knex.raw("INSERT INTO ??(??, rank) VALUES ('integrity-check', 1)", [engine.tables.postsSearch, engine.tables.postsSearch]);
      const titles = (await engine.posts.find({ type: "event", perPage: 0 })).posts.map((p) => p.title);
      const word = (titles.join(" ").toLowerCase().match(/[a-z]{5,}/g) ?? [])[0];
      if (!word) throw new Error("the generated titles have no word to search for");
      // A substring from inside the word, so that a word index could not find it.
      const part = word.slice(1, 5);
      const expected = (await engine.posts.find({ type: "event", perPage: 0, orderBy: [{ field: "id", dir: "asc" }] })).posts
        .filter((p) => [p.title, p.excerpt, p.content].some((f) => f.toLowerCase().includes(part)))
        .map((p) => p.id);
      const got = (await engine.posts.find({ type: "event", search: part, perPage: 0, orderBy: [{ field: "id", dir: "asc" }] })).posts.map((p) => p.id);
      expect(got).to.deep.equal(expected);
      expect(got.length).to.be.greaterThan(0);
    } finally {
      await site.close();
      await database.drop();
    }
  });
});
