/**
 * SQLite through its two drivers: calpress opens its own files with
 * better-sqlite3 (statements run on the event loop, so a writer that finds
 * the file locked must wait asynchronously: lib/db/dialects/sqlite-connection.ts),
 * and a host may hand over its own knex on node-sqlite3.
 */
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import Database from "better-sqlite3";
import knexFactory, { type Knex } from "knex";
import sqlite3 from "sqlite3";
import { startTestSite, type StartOptions, type TestSite } from "../support/site";
import { removeSqliteFile } from "../support/databases";

let n = 0;
function tempFile(): string {
  n += 1;
  return path.join(os.tmpdir(), `calpress_drivers_${process.pid}_${n}.sqlite`);
}
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A site on a fresh SQLite file for the enclosing describe: `target` makes
 * the site's database option from the file (default: the path, calpress's
 * own driver); `cleanup` runs after the site closes, before the file goes.
 */
function siteOnFile(target: (file: string) => StartOptions["target"] = (file) => file, cleanup?: () => Promise<void>): { readonly file: string; readonly t: TestSite } {
  const file = tempFile();
  let site: TestSite | undefined;
  before(async () => {
    site = await startTestSite({ target: target(file), fixture: "minimal" });
  });
  after(async () => {
    await site?.close();
    await cleanup?.();
    removeSqliteFile(file);
  });
  return {
    file,
    get t(): TestSite {
      if (site === undefined) throw new Error("the site starts in before()");
      return site;
    },
  };
}

describe("SQLite drivers", () => {
  describe("calpress's own connections (better-sqlite3)", () => {
    const site = siteOnFile();
    const file = site.file;

    it("keeps SQLite's own small page cache on every pooled connection, not better-sqlite3's 16 MB (the operating system caches the file for all of them)", async () => {
      const knex = site.t.site.engine.knex;
      // Held at once, so that the pool opens as many connections as it may.
      const caches = await knex.transaction(async (trx) => Promise.all([trx.raw("PRAGMA cache_size"), knex.raw("PRAGMA cache_size"), knex.raw("PRAGMA cache_size")]));
      for (const rows of caches) expect((rows as Array<{ cache_size: number }>)[0].cache_size).to.equal(-2000);
    });

    it("a write that finds the file locked by another connection (as by another process) waits without blocking the event loop, then lands", async () => {
      const other = new Database(file);
      try {
        other.exec("BEGIN IMMEDIATE");
        let ticks = 0;
        const timer = setInterval(() => ticks++, 10);
        let settled = false;
        const pending = site.t.post("/venues", { as: "admin", json: { venue: "Locked Hall" } }).finally(() => (settled = true));
        await sleep(300);
        clearInterval(timer);
        // A synchronous busy wait would have frozen this process (the test's timers included) until SQLite gave up.
        expect(ticks, "timer ticks while the write waited").to.be.greaterThan(10);
        expect(settled, "the write waits for the lock").to.equal(false);
        other.exec("COMMIT");
        const res = await pending;
        expect(res.status, res.text).to.equal(201);
        expect((await site.t.get(`/venues/${res.body.id}`)).body.venue).to.equal("Locked Hall");
      } finally {
        if (other.inTransaction) other.exec("ROLLBACK");
        other.close();
      }
    });

    it("a write waits for a transaction held open on another connection of the same process", async () => {
      const k = site.t.site.engine.knex;
      const venues = site.t.site.engine.tables.posts;
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let inside!: () => void;
      const started = new Promise<void>((resolve) => (inside = resolve));
      const transaction = k.transaction(async (trx) => {
        await trx(venues).where({ type: "tribe_venue" }).update({ menu_order: 0 });
        inside();
        await held;
      });
      await started;
      const pending = site.t.post("/venues", { as: "admin", json: { venue: "Second Writer Hall" } });
      await sleep(100);
      release();
      await transaction;
      const res = await pending;
      expect(res.status, res.text).to.equal(201);
    });
  });

  describe("a connection the pool opens while another holds a write", () => {
    const site = siteOnFile();

    it("is set up at once, leaving ANALYZE (which would wait for the lock) to a later connection", async () => {
      const knex = site.t.site.engine.knex;
      // No statistics: a new connection's `PRAGMA optimize` wants to ANALYZE, which writes.
      await knex.raw("DELETE FROM sqlite_stat1");
      // Before: better-sqlite3's own 5 s busy wait froze the event loop, then the read failed with "database is locked".
      const reads = await knex.transaction(async (trx) => {
        await trx.raw("UPDATE cp_options SET value = value WHERE name = 'blogname'");
        // The transaction holds one connection: reads at once take every other the pool may open.
        return Promise.all([1, 2, 3].map(() => knex.raw("SELECT 1 AS one") as Promise<Array<{ one: number }>>));
      });
      for (const rows of reads) expect(rows).to.deep.equal([{ one: 1 }]);
    });
  });

  describe("a host's knex config naming node-sqlite3", () => {
    const site = siteOnFile((filename) => ({ client: "sqlite3", connection: { filename }, useNullAsDefault: true }));
    const file = site.file;

    it("a write waits in SQLite's busy timeout (on the driver's threads) for another connection's lock, then lands", async () => {
      expect(site.t.site.engine.knex.client.config.client).to.equal("sqlite3");
      // Through node-sqlite3 too: two SQLite libraries in one process do not see each other's locks.
      const other = await new Promise<sqlite3.Database>((resolve, reject) => {
        const db = new sqlite3.Database(file, (err) => (err ? reject(err) : resolve(db)));
      });
      const exec = (sql: string): Promise<void> => new Promise((resolve, reject) => other.exec(sql, (err) => (err ? reject(err) : resolve())));
      try {
        await exec("BEGIN IMMEDIATE");
        const pending = site.t.post("/venues", { as: "admin", json: { venue: "Patient Hall" } });
        // Longer than the engine's own retries of a busy transaction last: only the busy timeout bridges it.
        await sleep(1500);
        await exec("COMMIT");
        const res = await pending;
        expect(res.status, res.text).to.equal(201);
      } finally {
        await new Promise<void>((resolve) => other.close(() => resolve()));
      }
    });
  });

  describe("a host's knex on node-sqlite3", () => {
    let host: Knex | undefined;
    const site = siteOnFile(
      (filename) => (host = knexFactory({ client: "sqlite3", connection: { filename }, useNullAsDefault: true })),
      async () => {
        await host?.destroy();
      },
    );

    it("creates, lists, updates and reads events, each write visible to the next read", async () => {
      const created = await site.t.post("/events", {
        as: "admin",
        json: { title: "Host Driver Night", status: "publish", start_date: "2030-05-01 19:00:00", end_date: "2030-05-01 21:00:00" },
      });
      expect(created.status, created.text).to.equal(201);
      const listed = await site.t.get("/events", { query: { start_date: "2030-05-01", end_date: "2030-05-02" } });
      expect(listed.body.events.map((e: { id: number }) => e.id)).to.include(created.body.id);
      const updated = await site.t.post(`/events/${created.body.id}`, { as: "admin", json: { title: "Host Driver Night, Again" } });
      expect(updated.status, updated.text).to.equal(200);
      expect((await site.t.get(`/events/${created.body.id}`)).body.title).to.equal("Host Driver Night, Again");
      const again = await site.t.get("/events", { query: { start_date: "2030-05-01", end_date: "2030-05-02" } });
      expect(again.body.events.find((e: { id: number }) => e.id === created.body.id).title).to.equal("Host Driver Night, Again");
    });

    it("is the host's client, not calpress's own", () => {
      expect(site.t.site.engine.knex.client.config.client).to.equal("sqlite3");
    });
  });
});
