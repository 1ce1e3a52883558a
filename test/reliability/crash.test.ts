/**
 * Crash safety: `kill -9` of `calpress serve` (a child process on a SQLite
 * file) in the middle of a stream of writes. Afterwards the file passes
 * SQLite's own integrity and foreign-key checks, counts and relationships
 * are consistent, every write that was answered 2xx is there, and the
 * server starts again on the same file and keeps working. Two rounds: the
 * second crash hits a database that already survived one.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import knexFactory, { type Knex } from "knex";
import { call, startServer, type Reply, type Server } from "./cli-process";
import { tableNames } from "../../lib/db/tables";

/** The names of the CLI's tables (its default prefix). */
const T = tableNames();

const ADMIN = "admin:admin-pass";
const EDITOR = "editor:editor-pass";
const WHEN = { start_date: "2031-06-01 10:00:00", end_date: "2031-06-01 12:00:00" };

/** What the client knows about one record: its acknowledged state, and a write whose answer never came. */
interface Known {
  id: number;
  title: string;
  trashed: boolean;
  pending?: { title?: string; trash?: boolean };
}

interface Stream {
  known: Map<number, Known>;
  acknowledged: number;
  /** Requests that got an HTTP answer ≥ 500 before the crash (there must be none). */
  serverErrors: string[];
}

/** Pseudo-random but repeatable choices per worker. */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
}

/**
 * Workers write until the connection fails (the crash). Each works on its
 * own records, one request at a time, so "the last acknowledged write" of
 * a record is well defined.
 */
async function writeUntilCrash(server: Server, round: number, workers: number, stream: Stream): Promise<void> {
  const worker = async (w: number): Promise<void> => {
    const random = rng(round * 100 + w + 1);
    const mine: number[] = [];
    const auth = w % 2 === 0 ? ADMIN : EDITOR;
    for (let n = 0; ; n++) {
      const roll = random();
      let reply: Reply;
      try {
        if (mine.length < 3 || roll < 0.45) {
          const title = `crash r${round} w${w} n${n}`;
          const body = {
            title,
            ...WHEN,
            categories: [`Crash cat ${n % 3}`],
            tags: `crash-tag-${w % 2}`,
            venue: n % 4 === 0 ? { venue: `Crash venue r${round} w${w} n${n}`, city: "Rome" } : undefined,
            organizer: n % 5 === 0 ? [{ organizer: `Crash org r${round} w${w} n${n}` }] : undefined,
            status: n % 7 === 0 ? "draft" : "publish",
          };
          reply = await call(server.port, "POST", "/events", { auth, json: body });
          if (reply.status === 201) {
            const id = (reply.body as { id: number }).id;
            mine.push(id);
            stream.known.set(id, { id, title, trashed: false });
          }
        } else {
          const id = mine[Math.floor(random() * mine.length)] as number;
          const rec = stream.known.get(id) as Known;
          if (rec.trashed) continue;
          if (roll < 0.85) {
            const title = `updated r${round} w${w} n${n}`;
            rec.pending = { title };
            reply = await call(server.port, "PATCH", `/events/${id}`, { auth, json: { title, categories: [`Crash cat ${(n + 1) % 3}`], tags: "" } });
            if (reply.status === 200) rec.title = title;
          } else {
            rec.pending = { trash: true };
            reply = await call(server.port, "DELETE", `/events/${id}`, { auth });
            if (reply.status === 200) rec.trashed = true;
          }
          if (reply.status < 500) delete rec.pending;
        }
      } catch {
        return; // The server is gone: this worker's last request has an unknown outcome.
      }
      if (reply.status >= 500) stream.serverErrors.push(`${reply.status} ${reply.text.slice(0, 200)}`);
      else if (reply.status < 300) stream.acknowledged++;
    }
  };
  await Promise.all(Array.from({ length: workers }, (_, w) => worker(w)));
}

function openFile(file: string): Knex {
  return knexFactory({ client: "sqlite3", connection: { filename: file }, useNullAsDefault: true, pool: { min: 1, max: 1 } });
}

async function all<T>(k: Knex, sql: string): Promise<T[]> {
  return (await k.raw(sql)) as T[];
}

/** Every consistency rule the database must keep, whatever moment the crash hit. */
async function checkDatabase(file: string, stream: Stream): Promise<void> {
  const k = openFile(file);
  try {
    expect(await all(k, "PRAGMA integrity_check")).to.deep.equal([{ integrity_check: "ok" }]);
    expect(await all(k, "PRAGMA foreign_key_check")).to.deep.equal([]);

    const wrongCounts = await all(
      k,
      `SELECT t.id, t.name, t.count, (SELECT COUNT(*) FROM ${T.termRelationships} r JOIN ${T.posts} p ON p.id = r.object_id
         WHERE r.term_id = t.id AND p.status = 'publish') AS actual FROM ${T.terms} t`,
    );
    expect(wrongCounts.filter((r) => Number((r as { count: number }).count) !== Number((r as { actual: number }).actual))).to.deep.equal([]);

    expect(await all(k, `SELECT * FROM ${T.termRelationships} WHERE object_id NOT IN (SELECT id FROM ${T.posts}) OR term_id NOT IN (SELECT id FROM ${T.terms})`)).to.deep.equal([]);
    expect(await all(k, `SELECT * FROM ${T.postLinks} WHERE from_id NOT IN (SELECT id FROM ${T.posts}) OR to_id NOT IN (SELECT id FROM ${T.posts})`)).to.deep.equal([]);
    expect(await all(k, `SELECT * FROM ${T.postmeta} WHERE post_id NOT IN (SELECT id FROM ${T.posts})`)).to.deep.equal([]);
    const fieldTables = (await all<{ name: string }>(k, `SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '${T.name("fields\\_")}%' ESCAPE '\\'`)).map((r) => r.name);
    expect(fieldTables).to.include(T.fields("event"));
    for (const table of fieldTables) {
      expect(await all(k, `SELECT post_id FROM "${table}" WHERE post_id NOT IN (SELECT id FROM ${T.posts})`), table).to.deep.equal([]);
    }
    // Every event has its fields row, with a start and an end.
    expect(
      await all(k, `SELECT p.id FROM ${T.posts} p LEFT JOIN ${T.fields("event")} f ON f.post_id = p.id WHERE p.type = 'event' AND (f.post_id IS NULL OR f.start_utc IS NULL OR f.end_utc IS NULL)`),
    ).to.deep.equal([]);
    // Venue and organizer links point at venues and organizers.
    expect(
      await all(k, `SELECT l.* FROM ${T.postLinks} l JOIN ${T.posts} p ON p.id = l.to_id WHERE (l.relation = 'venue' AND p.type <> 'venue') OR (l.relation = 'organizer' AND p.type <> 'organizer')`),
    ).to.deep.equal([]);

    // Every acknowledged write is there; a write whose answer never came may or may not be.
    const rows = new Map(
      (await k(T.posts).whereIn("id", [...stream.known.keys()]).select("id", "title", "status")).map((r: { id: number; title: string; status: string }) => [Number(r.id), r]),
    );
    const missing: string[] = [];
    for (const rec of stream.known.values()) {
      const row = rows.get(rec.id);
      if (!row) {
        missing.push(`${rec.id} (${rec.title}) is gone`);
        continue;
      }
      const titles = [rec.title, ...(rec.pending?.title ? [rec.pending.title] : [])];
      if (!titles.includes(row.title)) missing.push(`${rec.id}: title ${row.title}, acknowledged ${rec.title}`);
      const trashed = row.status === "trash";
      if (rec.trashed && !trashed) missing.push(`${rec.id}: acknowledged trash, status ${row.status}`);
      if (!rec.trashed && trashed && !rec.pending?.trash) missing.push(`${rec.id}: trashed without an acknowledged delete`);
    }
    expect(missing).to.deep.equal([]);
  } finally {
    await k.destroy();
  }
}

describe("reliability: crash safety (kill -9 during writes, SQLite file)", function () {
  this.timeout(120_000);
  let dir: string;
  let file: string;
  const servers: Server[] = [];

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "calpress-crash-"));
    file = path.join(dir, "crash.sqlite");
  });
  after(async () => {
    for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill("SIGKILL");
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("survives two crashes mid-write: integrity, consistent counts and links, every acknowledged write kept, restarts cleanly", async () => {
    const stream: Stream = { known: new Map(), acknowledged: 0, serverErrors: [] };
    for (const round of [1, 2]) {
      const server = await startServer(round === 1 ? ["--db", file, "--fixture", "minimal"] : ["--db", file]);
      servers.push(server);
      const writing = writeUntilCrash(server, round, 6, stream);
      // Crash once a good number of writes went through, at a moment the workers do not know about.
      const target = stream.acknowledged + 40 + round * 7;
      const started = Date.now();
      while (stream.acknowledged < target && Date.now() - started < 20_000) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, 37 * round));
      server.child.kill("SIGKILL");
      const { signal } = await server.exit;
      expect(signal).to.equal("SIGKILL");
      await writing;
      expect(stream.serverErrors, server.stderr()).to.deep.equal([]);
      expect(stream.acknowledged).to.be.greaterThan(target - 1);
      await checkDatabase(file, stream);
    }

    // The file serves again: reads, a write, and a clean stop.
    const server = await startServer(["--db", file]);
    servers.push(server);
    const list = await call(server.port, "GET", "/events?per_page=50&start_date=2031-01-01&end_date=2032-01-01");
    expect(list.status).to.equal(200);
    expect((list.body as { total: number }).total).to.be.greaterThan(20);
    const created = await call(server.port, "POST", "/events", { auth: ADMIN, json: { title: "After the crashes", ...WHEN, categories: ["Crash cat 0"] } });
    expect(created.status, created.text).to.equal(201);
    server.child.kill("SIGTERM");
    expect((await server.exit).code).to.equal(0);
    await checkDatabase(file, stream);
  });
});
