/**
 * The published index (lib/posts/published-index.ts): anonymous event lists
 * answered from memory must be exactly the lists SQL gives, before and
 * after every kind of write, including writes by another site on the same
 * database (another process, as far as the index can tell), seen at once.
 */
import { expect } from "chai";
import { SLUGS_TAG } from "../../lib/db/cache-tags";
import { forEachDatabase, type TestDatabase } from "../support/databases";
import { startTestSite, type TestSite } from "../support/site";
import { dayAt, makeEvent } from "./events-support";

const SITE_URL = "https://calendar.example";
/** One key for both sites, so that the fixture's application passwords log in on either. */
const SECRET = "published-index-test-key";

forEachDatabase("calendar: published index", (db) => {
  let database: TestDatabase | undefined;
  let indexed: TestSite | undefined;
  let plain: TestSite | undefined;
  const sites = (): { indexed: TestSite; plain: TestSite } => {
    if (!indexed || !plain) throw new Error("not started");
    return { indexed, plain };
  };

  before(async function () {
    this.timeout(120_000);
    database = await db.create();
    indexed = await startTestSite({ fixture: "demo", timezone: "UTC", target: database.target, siteUrl: SITE_URL, responseCache: false, records: false, secret: SECRET });
    plain = await startTestSite({ timezone: "UTC", target: database.target, siteUrl: SITE_URL, responseCache: false, records: false, publishedIndex: false, secret: SECRET });
    // A database just loaded has no planner statistics until autovacuum gets to it: PostgreSQL
    // then plans the SQL lists badly (~45 ms each here, 7 s a round of the ~180 lists compared).
    // The answers do not depend on the plan; the time does, so the test gathers them itself.
    if (db.name === "postgres") await plain.site.engine.knex.raw("ANALYZE");
  });
  after(async function () {
    this.timeout(60_000);
    await indexed?.close();
    await plain?.close();
    await database?.drop();
  });

  const answer = async (t: TestSite, query: string): Promise<{ status: number; total: string | null; text: string }> => {
    // A query, or a whole path of another route (starting with "/").
    const res = await fetch(query.startsWith("/") ? `${t.ns}${query}` : `${t.ns}/events${query}`);
    return { status: res.status, total: res.headers.get("x-wp-total"), text: await res.text() };
  };

  let queries: string[] = [];
  before(async function () {
    this.timeout(60_000);
    const t = sites().indexed;
    const categories = (await t.get("/categories", { query: { per_page: 50 } })).body.categories as Array<{ id: number; slug: string; parent: number }>;
    const tags = (await t.get("/tags", { query: { per_page: 50 } })).body.tags as Array<{ id: number; slug: string }>;
    const venues = (await t.get("/venues", { query: { per_page: 50 } })).body.venues as Array<{ id: number }>;
    const organizers = (await t.get("/organizers", { query: { per_page: 50 } })).body.organizers as Array<{ id: number }>;
    const events = (await t.get("/events", { query: { per_page: 50 } })).body.events as Array<{ id: number; title: string; series_id: number | null }>;
    // The demo's series (issue 22): listed once per occurrence, from memory as from SQL.
    const series = [...new Set(events.flatMap((e) => (e.series_id === null ? [] : [e.series_id])))];
    if (series.length === 0) throw new Error("the demo fixture lists no occurrences");
    const titleWords = [...new Set(events.flatMap((e) => e.title.toLowerCase().split(/[^a-z]+/)).filter((w) => w.length > 3))];
    const parent = categories.find((c) => categories.some((d) => d.parent === c.id));
    const day = (n: number): string => dayAt(n, "00:00:00").slice(0, 10);
    queries = [
      "",
      "?per_page=3",
      "?per_page=3&page=2",
      "?per_page=50&page=2",
      "?page=99",
      "?featured=1",
      "?featured=0&per_page=5",
      `?start_date=${day(-400)}&end_date=${day(400)}&per_page=50`,
      `?start_date=${day(3)}&end_date=${day(40)}&per_page=7`,
      `?strict_dates=1&starts_after=${day(2)}%2012:00:00`,
      `?ends_before=${day(30)}&per_page=50`,
      `?starts_before=${day(10)}&ends_after=${day(1)}`,
      `?include=${events.slice(0, 4).map((e) => e.id).join(",")}`,
      `?include=${series.join(",")}&per_page=50`,
      `?include=${[...series, ...events.slice(0, 3).map((e) => e.id)].join(",")}&start_date=${day(0)}&end_date=${day(30)}`,
      `?start_date=${day(-400)}&end_date=${day(800)}&per_page=50&page=3`,
      "?status=publish",
      `?post_parent=${events[0]?.id ?? 1}`,
      ...categories.slice(0, 4).map((c) => `?categories=${c.slug}&per_page=50`),
      ...(parent ? [`?categories=${parent.id}`, `?categories=${parent.id}&start_date=${day(0)}&end_date=${day(60)}`] : []),
      ...tags.slice(0, 3).map((g) => `?tags=${g.id}`),
      tags.length > 1 ? `?tags=${tags[0].slug},${tags[1].slug}` : "?tags=none-such",
      ...venues.slice(0, 4).map((v) => `?venue=${v.id}&per_page=20`),
      ...organizers.slice(0, 3).map((o) => `?organizer=${o.id}`),
      categories.length > 0 && venues.length > 0 ? `?categories=${categories[0].id}&venue=${venues[0].id}` : "?venue=1",
      // Searches: of ASCII words from the index's words (lib/posts/word-index.ts), others' ids from one statement, the rest from the index.
      "?search=a",
      "?search=NIGHT",
      "?search=igh",
      "?search=night%20index",
      "?search=zzqxv%20-night",
      "?search=doors%20-index",
      "?search=the",
      "?search=kelvin",
      "?search=2%20-zzqxv",
      "?search=%22index%20night%22",
      "?search=caf%C3%A9",
      "?search=rock%27n",
      "?search=night",
      "?search=index%20night",
      "?search=night%20-index",
      "?search=zzqxv",
      ...titleWords.slice(0, 4).map((w) => `?search=${w}&per_page=3`),
      titleWords.length > 1 ? `?search=${titleWords[1]}&per_page=1&page=2` : "?search=e&page=2",
      categories.length > 0 ? `?search=e&categories=${categories[0].id}&per_page=50` : "?search=e",
      `?search=e&start_date=${day(-400)}&end_date=${day(400)}&per_page=50`,
      // Venues and organizers from their own index, linkedBy from the events' index (lib/posts/query.ts linkTargetsFromIndex).
      "/venues?only_with_upcoming=1&per_page=50",
      "/venues?only_with_upcoming=1&per_page=2&page=2",
      "/organizers?only_with_upcoming=1&per_page=50",
      "/organizers?only_with_upcoming=1&per_page=1&page=3",
      "/venues?per_page=50",
      "/venues?per_page=3&page=2",
      "/organizers",
      "/venues?has_events=1&per_page=50",
      "/venues?has_events=0&per_page=50",
      "/venues?search=lounge",
      "/venues?only_with_upcoming=1&search=a",
    ];
  });

  /** Every query answers the same, byte for byte, on both sites. */
  const sameAnswers = async (what: string): Promise<void> => {
    const { indexed: a, plain: b } = sites();
    for (const q of queries) {
      const expected = await answer(b, q);
      const got = await answer(a, q);
      expect(got, `${what}: ${q}`).to.deep.equal(expected);
    }
  };

  describe("where tags are kept (every database)", function () {
    it("answers every list exactly as SQL does, and answers them from memory", async () => {
      await sameAnswers("start");
      const index = sites().indexed.site.engine.publishedIndex("event");
      expect(index, "an index").to.not.equal(null);
      expect(index?.size ?? 0).to.be.greaterThan(10);
      // A list from memory: no statement counts or pages the events (the revision and term lookups may run).
      const t = sites().indexed;
      const category = (await t.get("/categories")).body.categories[0].id as number;
      const seen: string[] = [];
      const onQuery = (q: { sql: string }): void => {
        seen.push(q.sql);
      };
      t.site.engine.knex.on("query", onQuery);
      try {
        await answer(t, "?per_page=5&page=2");
        await answer(t, `?categories=${category}&per_page=50`);
        // A search of plain words from the index's words: no statement searches.
        await answer(t, "?search=Night%20-index&per_page=5");
        // Venues with upcoming events: the venues' index, the events' index names them.
        await answer(t, "/venues?only_with_upcoming=1&per_page=5");
      } finally {
        t.site.engine.knex.removeListener("query", onQuery);
      }
      // Where the database's comparison equates more than case (MariaDB), a search is one statement for the matching ids: no order, page or count.
      const wordsFromIndex = t.site.engine.dialect.searchCaseFolding !== null;
      const lists = seen.filter((sql) => /count\(\*\)/i.test(sql) || /order by .*start_local/i.test(sql) || (wordsFromIndex && /like/i.test(sql)));
      expect(lists, seen.join("\n")).to.deep.equal([]);
      const searches = seen.filter((sql) => /like/i.test(sql));
      if (!wordsFromIndex) for (const sql of searches) expect(sql).to.match(/^select `p`\.`id` from/).and.not.match(/order by|limit/i);
    });

    it("shows every write at once, made by this site or by another on the same database", async function () {
      // ~25 writes, each followed by ~80 lists on both sites (PostgreSQL: ~5 s a round).
      this.timeout(300_000);
      const { indexed: a, plain: b } = sites();
      const venue = (await a.get("/venues")).body.venues[0].id as number;
      const category = (await a.get("/categories")).body.categories[0] as { id: number; slug: string };
      // The demo fixture keeps no application passwords: the editor gets one.
      const editor = await a.site.engine.users.byLogin("editor");
      if (!editor) throw new Error("no editor");
      const { secret } = await a.site.engine.users.addAppPassword(editor.id, "published-index test");
      a.users.editor = { login: "editor", password: secret };
      const made = await makeEvent(a, { title: "Index Night", status: "publish", venue, categories: [category.slug], start_date: dayAt(5, "19:00:00"), end_date: dayAt(5, "21:00:00") });
      await sameAnswers("created");
      const own = await makeEvent(a, { title: "Own Night", status: "draft", start_date: dayAt(6, "19:00:00"), end_date: dayAt(6, "20:00:00") });
      await sameAnswers("draft created");
      const weekly = await makeEvent(a, {
        title: "Index Weekly",
        status: "publish",
        venue,
        categories: [category.slug],
        start_date: dayAt(2, "18:00:00"),
        end_date: dayAt(2, "19:00:00"),
        recurrence: ["RRULE:FREQ=WEEKLY;COUNT=6"],
      });
      await sameAnswers("series created");
      // Writes through the other site's connection, as SQL of another process or a tool would make them:
      // the triggers bump the tags, and the index reads the posts again.
      const k = b.site.engine.knex;
      const tables = b.site.engine.tables;
      const sql = (run: () => Promise<unknown>) => async (): Promise<{ status: number }> => {
        await run();
        return { status: 200 };
      };
      const writes: Array<[string, () => Promise<{ status: number }>]> = [
        ["draft published", () => a.post(`/events/${own.id}`, { as: "editor", json: { status: "publish" } })],
        ["retitled (SQL elsewhere)", sql(() => k(tables.posts).where({ id: own.id }).update({ title: "Zzqxv Night" }))],
        ["excerpt with a searched word", () => a.post(`/events/${made.id}`, { as: "editor", json: { excerpt: "Zzqxv and more" } })],
        // KELVIN SIGN lowers to `k` where the database folds every character (PostgreSQL): "kelvin" finds it there only.
        ["a title the database may fold (SQL elsewhere)", sql(() => k(tables.posts).where({ id: made.id }).update({ title: "\u212aelvin Index Night" }))],
        ["content with a searched word", () => a.post(`/events/${made.id}`, { as: "editor", json: { content: "Café Rock'n'roll: doors at 7" } })],
        ["dates moved (SQL elsewhere)", sql(() => k(tables.fields("event")).where({ post_id: made.id }).update({ start_local: dayAt(45, "10:00:00"), end_local: dayAt(45, "11:00:00") }))],
        ["category dropped", () => a.post(`/events/${made.id}`, { as: "editor", json: { categories: [] } })],
        ["a series' rule changed", () => a.post(`/events/${weekly.id}`, { as: "editor", json: { recurrence: ["RRULE:FREQ=DAILY;COUNT=9"] } })],
        [
          "an occurrence removed (SQL elsewhere)",
          sql(async () => {
            const last = (await k(tables.occurrences).where({ post_id: weekly.id }).orderBy("id", "desc").first("id")) as { id: number };
            await k(tables.occurrences).where({ id: last.id }).delete();
          }),
        ],
        ["a single event made a series", () => a.post(`/events/${made.id}`, { as: "editor", json: { recurrence: ["RRULE:FREQ=WEEKLY;COUNT=3"] } })],
        ["a series' category dropped", () => a.post(`/events/${weekly.id}`, { as: "editor", json: { categories: [] } })],
        ["a series made a single event again", () => a.post(`/events/${made.id}`, { as: "editor", json: { recurrence: [] } })],
        ["a series trashed", () => a.request("DELETE", `/events/${weekly.id}`, { as: "editor" })],
        ["category added (SQL elsewhere)", sql(() => k(tables.termRelationships).insert({ object_id: own.id, term_id: category.id, term_order: 0 }))],
        ["venue dropped", () => a.post(`/events/${made.id}`, { as: "editor", json: { venue: 0 } })],
        ["venue made a draft (SQL elsewhere)", sql(() => k(tables.posts).where({ id: venue }).update({ status: "draft" }))],
        ["venue published again", () => a.post(`/venues/${venue}`, { as: "editor", json: { status: "publish" } })],
        ["featured (SQL elsewhere)", sql(() => k(tables.fields("event")).where({ post_id: own.id }).update({ featured: true }))],
        ["hidden from listings", () => a.post(`/events/${own.id}`, { as: "editor", json: { hide_from_listings: true } })],
        ["password (SQL elsewhere)", sql(() => k(tables.posts).where({ id: made.id }).update({ password: "pw" }))],
        ["trashed", () => a.request("DELETE", `/events/${made.id}`, { as: "editor" })],
        ["made private (SQL elsewhere)", sql(() => k(tables.posts).where({ id: own.id }).update({ status: "private" }))],
        ["deleted (SQL elsewhere)", sql(() => k(tables.posts).where({ id: made.id }).delete())],
      ];
      const base = [...queries];
      for (const [i, [what, write]] of writes.entries()) {
        const res = await write();
        expect(res.status, what).to.be.below(300);
        // Filters not asked before (another first day each time): found afresh from the sorted views the writes changed, not patched.
        queries = [...base, `?categories=${category.id}&start_date=${dayAt(-30 - i, "00:00:00").slice(0, 10)}&end_date=${dayAt(90, "00:00:00").slice(0, 10)}&per_page=50`];
        await sameAnswers(what);
      }
      queries = base;
    });

    it("grows the venues with upcoming events by the venue of an event added (they are kept with the events' match list)", async () => {
      const { indexed: a, plain: b } = sites();
      // "Upcoming" is as of the engine's clock, to the second: pinned, so that the kept match list is the one patched.
      type Clocked = { shared: { clock: () => Date } };
      const clocks = [a, b].map((t) => (t.site.engine as unknown as Clocked).shared);
      const real = clocks.map((c) => c.clock);
      const at = new Date();
      for (const c of clocks) c.clock = () => at;
      if (a.users.editor === undefined) {
        const editor = await a.site.engine.users.byLogin("editor");
        if (!editor) throw new Error("no editor");
        a.users.editor = { login: "editor", password: (await a.site.engine.users.addAppPassword(editor.id, "published-index test")).secret };
      }
      try {
        const lists = ["/venues?only_with_upcoming=1&per_page=50", "/organizers?only_with_upcoming=1&per_page=50"];
        for (const q of lists) expect(await answer(a, q), `before: ${q}`).to.deep.equal(await answer(b, q));
        const fresh = await a.post("/venues", { as: "editor", json: { venue: "Fresh Index Hall", status: "publish" } });
        expect(fresh.status).to.equal(201);
        await makeEvent(a, { title: "Fresh Hall Night", status: "publish", venue: fresh.body.id, start_date: dayAt(8, "19:00:00"), end_date: dayAt(8, "21:00:00") });
        for (const q of lists) expect(await answer(a, q), `after: ${q}`).to.deep.equal(await answer(b, q));
        expect((await answer(a, lists[0])).text).to.include("Fresh Index Hall");
      } finally {
        clocks.forEach((c, i) => (c.clock = real[i]));
      }
    });

    it("a database whose triggers predate stamps gets them replaced by the next migration (SQLite, MariaDB)", async function () {
      // PostgreSQL's trigger functions stamped from the start.
      if (db.name === "postgres") this.skip();
      const { indexed: a } = sites();
      const k = a.site.engine.knex;
      const tables = a.site.engine.tables;
      const name = tables.name("cache_tag_posts_upd");
      // The trigger as calpress wrote it before stamps.
      await k.raw("DROP TRIGGER ??", [name]);
      if (db.name === "sqlite") {
        await k.raw(`CREATE TRIGGER ?? AFTER UPDATE ON ?? BEGIN INSERT INTO ??(tag, version) VALUES (new.id * 4, 1) ON CONFLICT(tag) DO UPDATE SET version = version + 1; END`, [name, tables.posts, tables.cacheTags]);
      } else {
        await k.raw(`CREATE TRIGGER ?? AFTER UPDATE ON ?? FOR EACH ROW BEGIN INSERT INTO ?? (tag, version) VALUES (NEW.id * 4, 1) ON DUPLICATE KEY UPDATE version = version + 1; END`, [name, tables.posts, tables.cacheTags]);
      }
      const id = ((await a.get("/events")).body.events[0] as { id: number }).id;
      const stampOf = async (): Promise<number | null> => ((await k(tables.cacheTags).where({ tag: id * 4 }).first("stamp")) as { stamp: number | null }).stamp;
      await k(tables.cacheTags).where({ tag: id * 4 }).update({ stamp: null });
      await k(tables.posts).where({ id }).update({ menu_order: 3 });
      expect(await stampOf(), "the old trigger sets no stamp").to.equal(null);
      await a.site.migrate();
      await k(tables.posts).where({ id }).update({ menu_order: 4 });
      expect(await stampOf(), "the replaced trigger stamps").to.be.a("number");
      await sameAnswers("after the migration");
    });

    it("starts over when the database is made again (another epoch)", async () => {
      const { indexed: a } = sites();
      const index = a.site.engine.publishedIndex("event");
      await answer(a, "");
      // A new epoch, as a fresh fixture in the same file gives.
      await a.site.engine.knex(a.site.engine.tables.cacheTags).where({ tag: 10 }).update({ version: 424242 });
      await a.site.engine.knex(a.site.engine.tables.cacheTags).where({ tag: SLUGS_TAG }).increment("version", 1);
      await sameAnswers("new epoch");
      expect(index?.size ?? 0).to.be.greaterThan(10);
    });
  });
});
