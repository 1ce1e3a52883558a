/**
 * The answer store's own rules (lib/cache/answer-store.ts), with the
 * database replaced by counters the test controls: what is stored, when a
 * stored answer is sent as it is, proved against tag versions, or rebuilt.
 */
import { expect } from "chai";
import Sqlite from "better-sqlite3";
import { randomBytes } from "node:crypto";
import { deflateRawSync } from "node:zlib";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { AnswerStore, keyId, type BuiltAnswer } from "../../lib/cache/answer-store";
import type { Answer } from "../../lib/cache/answer";

function response(text: string, status = 200): Answer {
  return { status, headers: [["Content-Type", "application/json"]], body: Buffer.from(text), noCache: false };
}

describe("routes: answer store", () => {
  let revision = 0;
  const versions = new Map<number, number>();
  let versionReads = 0;
  const stores: AnswerStore[] = [];
  const open = async (identity = "one"): Promise<AnswerStore> => {
    const store = await AnswerStore.open({
      file: ":memory:",
      revision: async () => String(revision),
      versions: async (tags) => {
        versionReads++;
        return new Map(tags.filter((t) => versions.has(t)).map((t) => [t, versions.get(t) ?? 0]));
      },
      always: [2],
      identity,
    });
    stores.push(store);
    return store;
  };
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
    versions.clear();
    revision = 0;
  });
  const built = (text: string, tags: number[] | null = [4], status = 200): (() => Promise<BuiltAnswer>) => async () => ({ answer: response(text, status), success: status < 300, tags: tags === null ? null : new Set(tags) });
  const bodyOf = async (p: Promise<Answer>): Promise<string> => (await p).body?.toString() ?? "";

  it("sends a stored answer as it is while nothing committed, and proves it against the tags after a commit", async () => {
    const store = await open();
    expect(await bodyOf(store.answer("k", built("v1")))).to.equal("v1");
    await store.flush();
    expect(await bodyOf(store.answer("k", built("never")))).to.equal("v1");
    expect(store.stats()).to.include({ hits: 1, built: 1, stored: 1 });
    // A commit that touched other tags: proved, still sent.
    revision++;
    versions.set(99, 5);
    const reads = versionReads;
    expect(await bodyOf(store.answer("k", built("never")))).to.equal("v1");
    expect(versionReads).to.equal(reads + 1);
    expect(store.stats().proved).to.equal(1);
    // Proved under this token: the next one needs no versions.
    await store.flush();
    expect(await bodyOf(store.answer("k", built("never")))).to.equal("v1");
    expect(versionReads).to.equal(reads + 1);
    // Its own tag moved (or the site's): rebuilt.
    revision++;
    versions.set(4, 1);
    expect(await bodyOf(store.answer("k", built("v2")))).to.equal("v2");
    await store.flush();
    revision++;
    versions.set(2, 1);
    expect(await bodyOf(store.answer("k", built("v3")))).to.equal("v3");
  });

  it("does not store an answer built while something committed", async () => {
    const store = await open();
    const racing = async (): Promise<BuiltAnswer> => {
      revision++; // a write commits while the answer is built
      versions.set(4, (versions.get(4) ?? 0) + 1);
      return { answer: response("old"), success: true, tags: new Set([4]) };
    };
    expect(await bodyOf(store.answer("k", racing))).to.equal("old");
    await store.flush();
    expect(store.stats()).to.include({ stored: 0, skipped: 1 });
    expect(await bodyOf(store.answer("k", built("new")))).to.equal("new");
  });

  it("stores only 200s with named tags", async () => {
    const store = await open();
    await store.answer("a", built("x", null));
    await store.answer("b", built("x", [4], 404));
    await store.flush();
    expect(store.stats().stored).to.equal(0);
    expect(await bodyOf(store.answer("a", built("y", null)))).to.equal("y");
  });

  it("never keeps a refusal an _envelope wrapped in a 200", async () => {
    const store = await open();
    await store.answer("e", async () => ({ answer: response('{"status":403}'), success: false, tags: new Set([4]) }));
    expect(store.stats().stored).to.equal(0);
    expect(await bodyOf(store.answer("e", built("open")))).to.equal("open");
  });

  it("stays within maxBytes: past it the oldest stored answers go, and are built again when asked", async () => {
    const maxBytes = 256 * 1024;
    const store = await AnswerStore.open({ file: ":memory:", maxBytes, revision: async () => "r", versions: async () => new Map(), always: [2], identity: "bound" });
    stores.push(store);
    // Incompressible answers of ~2 kB with long keys: ~6 MB offered in all.
    const answer = (i: number): string => `${i}:${randomBytes(1024).toString("hex")}`;
    for (let i = 0; i < 2000; i++) await store.answer(`key-${i}-${"k".repeat(1000)}`, built(answer(i)));
    const { answers, bytes } = store.size();
    expect(bytes).to.be.at.most(maxBytes);
    expect(answers).to.be.greaterThan(20).and.lessThan(2000);
    expect(store.stats().evicted).to.equal(2000 - answers);
    // The newest is still there; the oldest was evicted and is built again.
    expect(await bodyOf(store.answer(`key-1999-${"k".repeat(1000)}`, built("rebuilt")))).to.match(/^1999:/);
    expect(await bodyOf(store.answer(`key-0-${"k".repeat(1000)}`, built("rebuilt")))).to.equal("rebuilt");
  });

  it("builds every time when there is no revision token", async () => {
    const store = await AnswerStore.open({ file: ":memory:", revision: async () => null, versions: async () => new Map(), always: [], identity: "x" });
    stores.push(store);
    await store.answer("k", built("a"));
    await store.flush();
    expect(await bodyOf(store.answer("k", built("b")))).to.equal("b");
    expect(store.stats().stored).to.equal(0);
  });

  describe("in a file", () => {
    const file = path.join(os.tmpdir(), `calpress-store-unit-${process.pid}.sqlite`);
    const remove = (): void => {
      for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });
    };
    beforeEach(remove);
    after(remove);
    const openFile = async (identity = "one"): Promise<AnswerStore> => {
      const store = await AnswerStore.open({ file, revision: async () => String(revision), versions: async () => new Map(), always: [2], identity });
      stores.push(store);
      return store;
    };

    it("keeps SQLite's small page cache for its file and the attached site file (the operating system caches both)", async () => {
      expect((await openFile()).pageCacheKib()).to.deep.equal({ main: 2000 });
      const siteFile = `${file}-site`;
      const site = new Sqlite(siteFile);
      try {
        site.exec("CREATE TABLE IF NOT EXISTS cp_cache_tags (tag INTEGER PRIMARY KEY, version INTEGER NOT NULL)");
        const attached = await AnswerStore.open({ file: `${file}-2`, revision: async () => "1", versions: async () => new Map(), always: [2], identity: "one", attach: { file: siteFile, cacheTags: "cp_cache_tags" } });
        stores.push(attached);
        expect(attached.pageCacheKib()).to.deep.equal({ main: 2000, site: 2000 });
      } finally {
        site.close();
        for (const f of [siteFile, `${file}-2`]) for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(f + suffix, { force: true });
      }
    });

    it("a shared revision: another process reuses what one proved, without proving it again, until the revision moves", async () => {
      let proofs = 0;
      const openShared = async (): Promise<AnswerStore> => {
        const store = await AnswerStore.open({
          file,
          revision: async () => `snapshot ${revision}`,
          sharedRevision: true,
          versions: async () => {
            proofs++;
            return new Map();
          },
          always: [2],
          identity: "shared",
        });
        stores.push(store);
        return store;
      };
      const a = await openShared();
      const b = await openShared();
      await a.answer("k", built("from a"));
      const stored = proofs;
      expect(await bodyOf(b.answer("k", built("never")))).to.equal("from a");
      expect(await bodyOf(a.answer("k", built("never")))).to.equal("from a");
      expect(await bodyOf(b.answer("k", built("never")))).to.equal("from a");
      expect({ a: a.stats().hits, b: b.stats().hits, proved: a.stats().proved + b.stats().proved, proofs: proofs - stored }).to.deep.equal({ a: 1, b: 2, proved: 0, proofs: 0 });
      revision++;
      // Something committed: proved once (versions unchanged), then shared again under the new token.
      expect(await bodyOf(b.answer("k", built("never")))).to.equal("from a");
      expect(b.stats().proved).to.equal(1);
      expect(await bodyOf(a.answer("k", built("never")))).to.equal("from a");
      expect(a.stats().proved).to.equal(0);
      expect(a.stats().hits).to.equal(2);
    });

    it("gives back exactly the headers and bytes it kept, deflated, to another process on the same file", async () => {
      const a = await openFile();
      // Too small to be the dictionary: kept deflated without one.
      await a.answer("tiny", built("tiny answer"));
      const body = Buffer.concat([Buffer.from(JSON.stringify({ title: "Zürich \u2014 «Nacht»", text: "x".repeat(4000) })), Buffer.from([0, 10, 255, 10])]);
      const headers: Array<[string, string]> = [["Content-Type", "application/json; charset=UTF-8"], ["ETag", '"abc"'], ["Link", '<http://h/wp-json/>; rel="https://api.w.org/"']];
      await a.answer("k", async () => ({ answer: { status: 200, headers, body, noCache: false }, success: true, tags: new Set([4]) }));
      await a.answer("k2", async () => ({ answer: { status: 200, headers, body: Buffer.from("second"), noCache: false }, success: true, tags: new Set([4]) }));
      const b = await openFile();
      const again = await b.answer("k", async () => ({ answer: response("rebuilt"), success: true, tags: new Set([4]) }));
      expect(b.stats().proved).to.equal(1);
      expect(again.body?.equals(body)).to.equal(true);
      expect(again.headers).to.deep.equal(headers);
      expect((await b.answer("k2", built("never"))).body?.toString()).to.equal("second");
      expect((await b.answer("tiny", built("never"))).body?.toString()).to.equal("tiny answer");
      const reader = new Sqlite(file, { readonly: true });
      try {
        const row = reader.prepare("SELECT length(answer) AS n FROM stored_answers WHERE key = 'k'").get() as { n: number };
        expect(row.n).to.be.lessThan(body.length / 4);
        const packings = reader.prepare("SELECT key, packing FROM stored_answers ORDER BY key").all();
        expect(packings).to.deep.equal([{ key: "k", packing: 1 }, { key: "k2", packing: 1 }, { key: "tiny", packing: 0 }]);
      } finally {
        reader.close();
      }
    });

    it("keeps records as LZ4 blocks against the dictionary, and still reads records an earlier version deflated", async () => {
      const a = await openFile();
      // The first answer large enough becomes the file's dictionary; records share most of their bytes with it.
      const record = (n: number): Buffer => Buffer.from(JSON.stringify({ id: n, title: `Nacht \u2014 «${n}» 𝄞`, description: "<p>Jazz in the hall.</p>".repeat(160) }));
      await a.answer("single", async () => ({ answer: { status: 200, headers: [["Content-Type", "application/json"]], body: record(0), noCache: false }, success: true, tags: new Set([4]) }));
      const token = (await a.records.token()) as string;
      await a.records.keep(token, [1, 2].map((n) => ({ key: `event ${n}`, bytes: record(n), tags: [4 * n] })));
      // Given back from the front of the file, where they are held as packed in it: the same bytes.
      const fromFront = await a.records.get(["event 1", "event 2"]);
      for (const n of [1, 2]) expect(fromFront.get(`event ${n}`)?.equals(record(n)), `front, event ${n}`).to.equal(true);
      const reader = new Sqlite(file);
      try {
        const rows = reader.prepare("SELECT key, packing, length(answer) AS n FROM stored_answers WHERE key LIKE 'record %' ORDER BY key").all() as Array<{ key: string; packing: number; n: number }>;
        expect(rows.map((r) => [r.key, r.packing])).to.deep.equal([["record event 1", 2], ["record event 2", 2]]);
        for (const r of rows) expect(r.n).to.be.lessThan(record(1).length / 4);
        // A record as an earlier version kept it: headers "[]", a newline and the bytes, deflated against the dictionary.
        const dictionary = (reader.prepare("SELECT bytes FROM dictionary").get() as { bytes: Buffer }).bytes;
        const deflated = deflateRawSync(Buffer.concat([Buffer.from("[]\n"), record(3)]), { dictionary });
        const row = reader.prepare("SELECT token, tags FROM stored_answers WHERE key = 'record event 2'").get() as { token: string; tags: string };
        reader.prepare("INSERT INTO stored_answers(id, key, token, tags, status, no_cache, packing, answer, stored_at) VALUES (?, 'record event 3', ?, ?, 200, 0, 1, ?, 0)").run(keyId("record event 3"), row.token, row.tags.replace("[8,", "[12,"), deflated);
      } finally {
        reader.close();
      }
      const c = await openFile();
      // Read from the file, then from the front the first read filled.
      for (const from of ["file", "front"]) {
        const got = await c.records.get(["event 1", "event 2", "event 3"]);
        expect([...got.keys()].sort(), from).to.deep.equal(["event 1", "event 2", "event 3"]);
        for (const n of [1, 2, 3]) expect(got.get(`event ${n}`)?.equals(record(n)), `${from}, event ${n}`).to.equal(true);
      }
    });

    it("replaces the table of a file written in an earlier format", async () => {
      const old = new Sqlite(file);
      old.exec(`CREATE TABLE stored_answers (id INTEGER PRIMARY KEY, key TEXT NOT NULL, token TEXT NOT NULL, tags TEXT NOT NULL, status INTEGER NOT NULL, headers TEXT NOT NULL, no_cache INTEGER NOT NULL, body BLOB);
        CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO meta VALUES ('identity', 'format 3; one');
        INSERT INTO stored_answers VALUES (1, 'k', 't', '[]', 200, '[]', 0, x'00');`);
      old.close();
      const store = await openFile();
      expect(await bodyOf(store.answer("k", built("fresh")))).to.equal("fresh");
      expect(await bodyOf(store.answer("k", built("never")))).to.equal("fresh");
    });
  });
});
