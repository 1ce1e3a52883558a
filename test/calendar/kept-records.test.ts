/**
 * Kept records (lib/cache/records.ts): list pages put kept event records
 * side by side instead of building them. Checked against a second site on
 * the same database that keeps none: the answers must be byte for byte the
 * same, before and after every kind of write that changes what a record
 * shows, and the records must actually be reused.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { AnswerStore } from "../../lib/cache/answer-store";
import { BytesBoundedMap, DEFAULT_MEMORY_RECORD_BYTES, recordHole, RecordsWithParts, type KeptRecord, type RecordCache } from "../../lib/cache/records";
import type { TagChanges } from "../../lib/db/dialects/types";
import { scripted } from "../support/scripted-tags";
import { encodeJson, encodeJsonBytes, RawJson } from "../../lib/routes/json";
import { forEachDatabase, type TestDatabase } from "../support/databases";
import { startTestSite, type TestSite } from "../support/site";
import { dayAt, makeEvent } from "./events-support";

const SITE_URL = "https://calendar.example";

describe("RawJson in encodeJson", () => {
  it("pastes kept texts as they are, nested and escaped once", () => {
    const kept = encodeJson({ a: "</script>", b: [1, 2] });
    const text = encodeJson({ list: [new RawJson(kept), new RawJson("7")], tail: "</x>" });
    expect(text).to.equal(`{"list":[${kept},7],"tail":"<\\/x>"}`);
    expect(JSON.parse(text)).to.deep.equal({ list: [{ a: "</script>", b: [1, 2] }, 7], tail: "</x>" });
    // Stringified by anything else, a RawJson is its value.
    expect(JSON.stringify({ r: new RawJson('{"x":1}') })).to.equal('{"r":{"x":1}}');
    // A text that merely looks like a placeholder is left alone.
    expect(encodeJson({ s: "\u0000paste:0", r: new RawJson("1") })).to.equal('{"s":"\\u0000paste:0","r":1}');
  });

  it("pastes kept bytes as they are: the same answer as from texts, whatever the characters", () => {
    // Texturized quotes and an emoji (two-byte and surrogate pairs in JavaScript strings), a Latin-1 letter, ASCII.
    const texts = [encodeJson({ t: "“Jazz” night’s set </b>" }), encodeJson({ t: "café 🎷" }), encodeJson({ t: "plain" })];
    const value = (raw: (t: string) => RawJson): unknown => ({ events: texts.map(raw), s: "\u0000paste:0", tail: "€</x>" });
    const fromTexts = encodeJson(value((t) => new RawJson(t)));
    const fromBytes = encodeJsonBytes(value((t) => new RawJson(Buffer.from(t))));
    expect(fromBytes.toString("utf8")).to.equal(fromTexts);
    expect(encodeJsonBytes(value((t) => new RawJson(t))).equals(fromBytes)).to.equal(true);
    expect(JSON.parse(fromBytes.toString("utf8"))).to.deep.equal({ events: [{ t: "“Jazz” night’s set </b>" }, { t: "café 🎷" }, { t: "plain" }], s: "\u0000paste:0", tail: "€</x>" });
    // Pretty-printed, and with nothing pasted.
    expect(encodeJsonBytes(value((t) => new RawJson(t)), 4).toString("utf8")).to.equal(encodeJson(value((t) => new RawJson(t)), 4));
    expect(encodeJsonBytes({ a: "“b”" }).toString("utf8")).to.equal(encodeJson({ a: "“b”" }));
  });
});

describe("BytesBoundedMap", () => {
  it("past its bound lets the oldest set go first, down to 15/16 of the bound at once, and gives one touched since a second chance", () => {
    const map = new BytesBoundedMap<{ bytes: Buffer }>(1600, 400);
    const entry = (bytes = 100): { bytes: Buffer } => ({ bytes: Buffer.alloc(bytes) });
    for (let i = 0; i < 16; i++) map.set(`k${i}`, entry());
    expect(map.bytes).to.equal(1600);
    map.touch("k0");
    // 1,700 bytes: k1 and k2 go (the oldest; k0 was touched), leaving 1,500.
    map.set("k16", entry());
    expect(map.bytes).to.equal(1500);
    expect(["k0", "k1", "k2", "k3", "k16"].map((k) => map.get(k) !== undefined)).to.deep.equal([true, false, false, true, true]);
    // Below the bound again: nothing goes.
    map.set("k17", entry());
    expect(map.size).to.equal(16);
    // k0 was moved behind k16, unmarked: without another touch it goes when its turn comes, after k3..k16.
    for (let i = 18; i < 31; i++) map.set(`k${i}`, entry());
    expect(["k0", "k16", "k17"].map((k) => map.get(k) !== undefined)).to.deep.equal([true, false, true]);
    map.set("k31", entry());
    map.set("k32", entry());
    expect(["k0", "k17", "k18"].map((k) => map.get(k) !== undefined)).to.deep.equal([false, false, true]);
    // Over the bound for one entry: not kept.
    map.set("big", entry(401));
    expect(map.get("big")).to.equal(undefined);
  });
});

/** Kept records in memory where no file serves: the answer store's records on a SQLite database in memory (lib/cache/index.ts openRecords). */
async function memoryRecords(options: { revision(): Promise<string | null>; versions(tags: readonly number[]): Promise<Map<number, number>>; changes?: TagChanges }): Promise<AnswerStore> {
  return AnswerStore.open({ file: ":memory:", maxBytes: DEFAULT_MEMORY_RECORD_BYTES, always: [2], identity: "records in memory", ...options });
}

describe("kept records in memory", () => {
  it("keeps nothing built while anything committed, and drops what a write changed", async () => {
    let revision = 1;
    const versions = new Map<number, number>();
    const store = await memoryRecords({ revision: async () => String(revision), versions: async (tags) => new Map(tags.map((t) => [t, versions.get(t) ?? 0])) });
    const records = store.records;
    const token = await records.token();
    if (token === null) throw new Error("no token");
    revision++;
    await records.keep(token, [{ key: "a", bytes: Buffer.from('"a"'), tags: [5] }]);
    expect((await records.get(["a"])).size, "built across a commit").to.equal(0);
    const now = String(revision);
    await records.keep(now, [{ key: "a", bytes: Buffer.from('"a"'), tags: [5] }, { key: "b", bytes: Buffer.from('"b"'), tags: [6] }]);
    expect([...(await records.get(["a", "b", "c"])).keys()]).to.deep.equal(["a", "b"]);
    // A commit that leaves tag 5 alone: "a" is proved again and reused; one that bumps 6 drops "b".
    revision++;
    versions.set(6, 1);
    expect([...(await records.get(["a", "b"])).keys()]).to.deep.equal(["a"]);
    expect(records.stats().proved).to.equal(1);
    // The site's own tag (always) voids every record.
    revision++;
    versions.set(2, 1);
    expect((await records.get(["a"])).size).to.equal(0);
    await store.close();
  });

  it("with a tag feed, proves texts from memory after a commit (no versions read) and drops those whose tags changed", async () => {
    const db = scripted();
    let versionReads = 0;
    const store = await memoryRecords({
      revision: db.revision,
      versions: async (tags) => {
        versionReads++;
        return new Map(tags.map((t) => [t, 0]));
      },
      changes: db.changes,
    });
    const records = store.records;
    const token = await records.token();
    if (token === null) throw new Error("no token");
    // Built across a commit: not kept.
    db.commit(99);
    await records.keep(token, [{ key: "a", bytes: Buffer.from('"a"'), tags: [5] }]);
    expect((await records.get(["a"])).size, "built across a commit").to.equal(0);
    const now = await records.token();
    if (now === null) throw new Error("no token");
    await records.keep(now, [{ key: "a", bytes: Buffer.from('"a"'), tags: [5] }, { key: "b", bytes: Buffer.from('"b"'), tags: [6] }]);
    const keptReads = versionReads;
    // A commit that changes tag 6 (and one the records do not show): "a" is proved from the feed, "b" is dropped.
    db.commit(6, 40);
    expect([...(await records.get(["a", "b"])).keys()]).to.deep.equal(["a"]);
    // The site's own tag voids every text.
    db.commit(2);
    expect((await records.get(["a"])).size).to.equal(0);
    expect(versionReads - keptReads, "proved from the feed: no versions read").to.equal(0);
    // A new epoch: the feed cannot tell, so what was kept before is proved against its tags' versions.
    const t3 = await records.token();
    if (t3 === null) throw new Error("no token");
    await records.keep(t3, [{ key: "c", bytes: Buffer.from('"c"'), tags: [7] }]);
    const beforeEpoch = versionReads;
    db.newEpoch();
    db.commit(1);
    expect([...(await records.get(["c"])).keys()], "unchanged versions").to.deep.equal(["c"]);
    expect(versionReads - beforeEpoch, "the feed cannot tell: versions read").to.equal(1);
    await store.close();
  });
});

describe("RecordsWithParts", () => {
  /** A database of tag versions and a revision token that any write moves, and texts with holes kept over it. */
  const setup = async (): Promise<{ records: RecordsWithParts; write(tag: number): void; token(): Promise<string> }> => {
    let revision = 1;
    const versions = new Map<number, number>();
    const store = await memoryRecords({
      revision: async () => String(revision),
      versions: async (tags: readonly number[]) => new Map(tags.map((t) => [t, versions.get(t) ?? 0])),
    });
    return {
      records: new RecordsWithParts(store.records),
      write: (tag) => {
        versions.set(tag, (versions.get(tag) ?? 0) + 1);
        revision++;
      },
      token: async () => String(revision),
    };
  };
  const text = (...parts: string[]): Buffer => Buffer.from(encodeJson({ id: 1, terms: parts.map((p) => new RawJson(recordHole(p))) }));
  /** Builds parts "a" and "b" from `shown` (a part absent there cannot be built), counting the builds. */
  const source = (shown: Map<string, string>, built: string[]) => async (keys: readonly string[]): Promise<KeptRecord[]> => {
    built.push(...keys);
    return keys.filter((k) => shown.has(k)).map((k) => ({ key: k, bytes: Buffer.from(JSON.stringify(shown.get(k))), tags: [k === "a" ? 5 : 9] }));
  };

  it("pastes each hole's part in, builds only the parts missing or changed, and keeps the text while only a part changed", async () => {
    const { records, write, token } = await setup();
    await records.keep(await token(), [{ key: "r", bytes: text("a", "b", "a"), tags: [4] }]);
    const shown = new Map([["a", "A1"], ["b", "B1"]]);
    const built: string[] = [];
    const first = await records.get(["r", "none"], source(shown, built));
    expect(first.get("r")?.toString()).to.equal('{"id":1,"terms":["A1","B1","A1"]}');
    expect(first.has("none")).to.equal(false);
    expect(built).to.deep.equal(["a", "b"]);
    // Kept: nothing built again.
    await records.get(["r"], source(shown, built));
    expect(built).to.deep.equal(["a", "b"]);
    // Part "a" changes (its tag moves): only it is built again, the text stays.
    shown.set("a", "A2");
    write(5);
    const second = await records.get(["r"], source(shown, built));
    expect(second.get("r")?.toString()).to.equal('{"id":1,"terms":["A2","B1","A2"]}');
    expect(built).to.deep.equal(["a", "b", "a"]);
    // Kept: the text once, and its parts as they were built ("a", "b", then "a" again), in the same store.
    expect(records.stats().kept).to.equal(4);
  });

  it("gives no text whose parts cannot all be had, nor one with a hole left open, and passes texts without holes through", async () => {
    const { records, token } = await setup();
    const open = Buffer.concat([Buffer.from('{"x":['), Buffer.from([0]), Buffer.from("a]}")]);
    await records.keep(await token(), [
      { key: "r", bytes: text("a", "gone"), tags: [4] },
      { key: "open", bytes: open, tags: [4] },
      { key: "plain", bytes: Buffer.from('{"p":1}'), tags: [4] },
    ]);
    const built: string[] = [];
    const got = await records.get(["r", "open", "plain"], source(new Map([["a", "A"]]), built));
    expect([...got.keys()]).to.deep.equal(["plain"]);
    expect(got.get("plain")?.toString()).to.equal('{"p":1}');
    // Without a source, missing parts are not built.
    expect((await records.get(["r"])).has("r")).to.equal(false);
    expect(() => recordHole("a\u0000b")).to.throw();
  });
});

forEachDatabase("calendar: kept records", (db) => {
  let database: TestDatabase | undefined;
  let kept: TestSite | undefined;
  let plain: TestSite | undefined;
  let stored: TestSite | undefined;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "calpress-kept-"));
  const site = (): TestSite => {
    if (!kept) throw new Error("not started");
    return kept;
  };

  before(async function () {
    this.timeout(60_000);
    database = await db.create();
    // Three sites on one database, with one site URL so that their answers can be compared byte for byte.
    kept = await startTestSite({ fixture: "minimal", timezone: "UTC", target: database.target, siteUrl: SITE_URL, responseCache: false });
    plain = await startTestSite({ timezone: "UTC", target: database.target, siteUrl: SITE_URL, responseCache: false, records: false });
    stored = await startTestSite({ timezone: "UTC", target: database.target, siteUrl: SITE_URL, responseCache: false, answerStore: { file: path.join(dir, "answers.sqlite") } });
  });
  after(async function () {
    this.timeout(60_000);
    await kept?.close();
    await plain?.close();
    await stored?.close();
    await database?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const records = (t: TestSite): RecordCache & { stats(): { hits: number; proved: number; kept: number } } => {
    const r = t.site.rest.records as (RecordCache & { stats?: () => { hits: number; proved: number; kept: number } }) | undefined;
    if (r === undefined || r.stats === undefined) throw new Error("no kept records");
    return r as RecordCache & { stats(): { hits: number; proved: number; kept: number } };
  };
  const reused = (t: TestSite): number => records(t).stats().hits + records(t).stats().proved;

  /** The answer text of `query` on a site. */
  const text = async (t: TestSite, query: string): Promise<string> => {
    const res = await fetch(`${t.ns}/events${query}`);
    expect(res.status, query).to.equal(200);
    return res.text();
  };

  /** The status and text of a read by id on a site. */
  const single = async (t: TestSite, id: number): Promise<string> => {
    const res = await fetch(`${t.ns}/events/${id}`);
    return `${res.status} ${await res.text()}`;
  };

  const QUERIES = ["", "?per_page=2", "?per_page=2&page=2", "?categories=music", "?search=gala", `?start_date=${dayAt(0, "00:00:00").slice(0, 10)}&end_date=${dayAt(60, "00:00:00").slice(0, 10)}&per_page=50`];

  /** Every query answers the same on the three sites; the kept ones reuse records the second time. */
  const sameEverywhere = async (): Promise<void> => {
    if (!kept || !plain || !stored) throw new Error("not started");
    for (const q of QUERIES) {
      const expected = await text(plain, q);
      expect(await text(kept, q), `kept, first ${q}`).to.equal(expected);
      expect(await text(kept, q), `kept, again ${q}`).to.equal(expected);
      expect(await text(stored, q), `stored, ${q}`).to.equal(expected);
    }
  };

  describe("where tags are kept", function () {
    let gala: { id: number; venue: { id: number }; organizer: Array<{ id: number }> };
    before(async () => {
      const t = site();
      const venue = (await t.get("/venues")).body.venues[0].id;
      const organizer = (await t.get("/organizers")).body.organizers[0].id;
      gala = await makeEvent(t, { title: "Kept Gala", status: "publish", venue, organizer: [organizer], categories: ["music"], tags: ["free"], start_date: dayAt(2, "19:00:00"), end_date: dayAt(2, "21:00:00") });
    });

    it("answers lists byte for byte as they are built, and reuses the records", async () => {
      await sameEverywhere();
      const before = reused(site());
      expect(await text(site(), "")).to.equal(await text(plain as TestSite, ""));
      expect(reused(site())).to.be.greaterThan(before);
    });

    it("a page whose records are kept is its ids, its total and the kept texts: no statement loads posts, terms or links", async () => {
      const t = site();
      // Another page of the same filter than one already read: ids and total are read, the records are not.
      await text(t, "?per_page=1&page=1");
      await text(t, "?per_page=1&page=2");
      // A write that changes nothing the page shows (a draft of its own): ids and total are read again, records proved.
      await makeEvent(t, { title: "Unrelated Draft", status: "draft" });
      await text(t, "?per_page=1&page=2");
      const seen: string[] = [];
      const onQuery = (q: { sql: string }): void => {
        if (!/\boptions\b/.test(q.sql)) seen.push(q.sql);
      };
      t.site.engine.knex.on("query", onQuery);
      try {
        expect(await text(t, "?per_page=1&page=1")).to.equal(await text(plain as TestSite, "?per_page=1&page=1"));
      } finally {
        t.site.engine.knex.removeListener("query", onQuery);
      }
      const loads = seen.filter((sql) => /select .p.\.\*|term_relationships|post_links/.test(sql) && !/^select .p.\..id. from/.test(sql));
      expect(loads, seen.join("\n")).to.deep.equal([]);
      // Proved by the tag feed (the changed tags, read once per revision), not by reading each kept record's tag versions.
      expect(t.site.engine.readCache?.tagFeed).to.not.equal(null);
      const versions = seen.filter((sql) => /select .tag., .version. from/i.test(sql));
      expect(versions, seen.join("\n")).to.deep.equal([]);
    });

    it("shows every change of what a record shows at once: the event, its venue, organizer, category and tag, and the site's options", async () => {
      const t = site();
      const writes: Array<[string, () => Promise<unknown>]> = [
        ["event title", () => t.post(`/events/${gala.id}`, { as: "editor", json: { title: "Kept Gala Renamed" } })],
        ["venue name", () => t.post(`/venues/${gala.venue.id}`, { as: "editor", json: { venue: "Renamed Hall" } })],
        ["organizer name", () => t.post(`/organizers/${gala.organizer[0].id}`, { as: "editor", json: { organizer: "Renamed Org" } })],
        ["category count", () => makeEvent(t, { title: "Another Music Night", status: "publish", categories: ["music"] })],
        ["tag name", async () => {
          const tag = (await t.get("/tags", { query: { slug: "free" } })).body.tags[0];
          return t.post(`/tags/${tag.id}`, { as: "editor", json: { name: "Gratis" } });
        }],
        [
          "time zone option",
          async () => {
            await t.site.engine.options.set("timezone", "Europe/Rome");
            // The other sites read options again at most once a second (their own cache, not what is tested here).
            await new Promise((r) => setTimeout(r, 1100));
          },
        ],
        // By SQL on another connection: the tags (and so the feed the kept records are proved by) see it as any write.
        ["event excerpt (SQL elsewhere)", () => (plain as TestSite).site.engine.knex(t.site.engine.tables.posts).where({ id: gala.id }).update({ excerpt: "Changed by SQL" })],
        ["event trashed", () => t.request("DELETE", `/events/${gala.id}`, { as: "editor" })],
      ];
      for (const [what, write] of writes) {
        // Kept first, then changed: the next answer must show the change (and equal a built one).
        // The stored site's records are kept and proved by its own process: the writes come from another connection.
        for (const q of QUERIES) await text(stored as TestSite, q);
        await text(t, "");
        await single(t, gala.id);
        const res = (await write()) as { status?: number } | undefined;
        if (res && typeof res.status === "number") expect(res.status, what).to.be.below(300);
        for (const q of QUERIES) {
          const expected = await text(plain as TestSite, q);
          expect(await text(t, q), `${what}: ${q}`).to.equal(expected);
          expect(await text(stored as TestSite, q), `stored, ${what}: ${q}`).to.equal(expected);
        }
        const expected = await single(plain as TestSite, gala.id);
        expect(await single(t, gala.id), `${what}: read by id`).to.equal(expected);
        expect(await single(stored as TestSite, gala.id), `stored, ${what}: read by id`).to.equal(expected);
      }
    });

    it("answers a read by id from the kept record and its own part (kept by a list too), byte for byte, and never an event a single read refuses", async () => {
      const t = site();
      const open = await makeEvent(t, { title: "Kept Open", status: "publish", categories: ["music"], tags: ["free"], start_date: dayAt(6, "19:00:00"), end_date: dayAt(6, "21:00:00") });
      const series = await makeEvent(t, { title: "Kept Weekly", status: "publish", start_date: dayAt(8, "18:00:00"), end_date: dayAt(8, "19:00:00"), recurrence: ["RRULE:FREQ=WEEKLY;COUNT=3"] });
      // The site's first series: the other sites list the type by its occurrences once their options cache has seen it (1 s).
      await new Promise((resolve) => setTimeout(resolve, 1100));
      // Lists keep every record on them: the fixture's event with a password too (shown masked), and the occurrences'.
      const q = `?start_date=${dayAt(5, "00:00:00").slice(0, 10)}&end_date=${dayAt(30, "00:00:00").slice(0, 10)}&per_page=50`;
      const listed = JSON.parse(await text(t, q)) as { events: Array<{ id: number; title: string }> };
      const occurrence = listed.events.find((e) => e.title === "Kept Weekly" && e.id !== series.id);
      const locked = listed.events.find((e) => e.title === "Protected Event");
      expect(occurrence, "an occurrence listed").to.not.equal(undefined);
      expect(locked, "the event with a password listed").to.not.equal(undefined);
      const ids = [open.id, occurrence?.id ?? 0];
      const expected = await Promise.all(ids.map((id) => single(plain as TestSite, id)));
      // Read by id after the list: answered from the record and the part the list kept, no post loaded.
      const statements: string[] = [];
      const onQuery = (x: { sql: string }): void => void statements.push(x.sql);
      t.site.engine.knex.on("query", onQuery);
      try {
        for (const [i, id] of ids.entries()) expect(await single(t, id), `event ${id}, first read`).to.equal(expected[i]);
      } finally {
        t.site.engine.knex.removeListener("query", onQuery);
      }
      const posts = t.site.engine.tables.posts;
      expect(statements.filter((sql) => sql.includes(posts)), statements.join("\n")).to.deep.equal([]);
      for (const id of [...ids, locked?.id ?? 0]) {
        const expected = await single(plain as TestSite, id);
        for (let i = 0; i < 3; i++) expect(await single(t, id), `event ${id}, read ${i + 1}`).to.equal(expected);
      }
      // Listed (its record kept, masked), yet refused when read by id.
      expect(await single(t, locked?.id ?? 0)).to.match(/^403 /);
    });

    it("reads of single events keep the records lists show (with a stored-answer file)", async () => {
      const s = stored as TestSite;
      const e = await makeEvent(site(), { title: "Kept Single", status: "publish", start_date: dayAt(1, "08:00:00"), end_date: dayAt(1, "09:00:00") });
      const before = records(s).stats().kept;
      const single = await fetch(`${s.ns}/events/${e.id}`);
      expect(single.status).to.equal(200);
      // The record lists show, and the single read's own part (its json_ld).
      expect(records(s).stats().kept).to.equal(before + 2);
      const hits = reused(s);
      const list = JSON.parse(await text(s, "?per_page=50")) as { events: Array<{ id: number; json_ld?: unknown }> };
      const mine = list.events.find((x) => x.id === e.id);
      expect(mine).to.not.equal(undefined);
      expect(mine).to.not.have.property("json_ld");
      expect(reused(s)).to.be.greaterThan(hits);
      expect(await text(s, "?per_page=50")).to.equal(await text(plain as TestSite, "?per_page=50"));
    });

    it("a term's count moving (an event published in it) builds the term's part again, not the records of its other events", async () => {
      for (const t of [site(), stored as TestSite]) {
        const made = async (title: string, day: number): Promise<void> => {
          await makeEvent(site(), { title, status: "publish", categories: ["theatre"], tags: ["free"], start_date: dayAt(day, "19:00:00"), end_date: dayAt(day, "21:00:00") });
        };
        await made(`Counted One ${t === site() ? "k" : "s"}`, 3);
        await made(`Counted Two ${t === site() ? "k" : "s"}`, 4);
        const q = "?categories=theatre&per_page=50";
        const first = JSON.parse(await text(t, q)) as { events: unknown[] };
        expect(first.events.length).to.be.at.least(2);
        const kept = records(t).stats().kept;
        await made(`Counted Three ${t === site() ? "k" : "s"}`, 5);
        const after = await text(t, q);
        expect(after).to.equal(await text(plain as TestSite, q));
        // The new event's record, what a read by id adds to it, and the parts of its two terms (theatre, free: their
        // counts moved), kept in the same store; the others' texts stay good with the terms' new counts pasted in.
        expect(records(t).stats().kept - kept).to.equal(4);
        expect((JSON.parse(after) as { events: unknown[] }).events.length).to.equal(first.events.length + 1);
      }
    });

    it("is not used for logged-in readers, passwords, _fields or _pretty", async () => {
      const t = site();
      await text(t, "");
      const before = reused(t);
      await t.get("/events", { as: "editor" });
      await t.get("/events", { query: { _fields: "id,title" } });
      await t.get("/events", { query: { password: "x" } });
      await t.get("/events", { query: { _pretty: 1 } });
      expect(reused(t)).to.equal(before);
    });
  });
});
