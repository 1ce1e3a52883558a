import fs from "node:fs";
import path from "node:path";
import knexFactory, { Knex } from "knex";
import { requireDriver } from "./drivers";
import { isReadStatement } from "./revision";
import { configFromTarget, DbConnectError, DbOption, DbTargetError, describeTarget, dialectOf } from "./target";

export interface OpenDb {
  knex: Knex;
  /** Whether calpress created the knex instance (and so must destroy it on close). */
  owned: boolean;
}

function isKnex(db: DbOption): db is Knex {
  return typeof db === "function" && typeof (db as Knex).schema === "object";
}

export async function openDb(db: DbOption): Promise<OpenDb> {
  if (isKnex(db)) {
    try {
      await prepareConnection(db);
    } catch (err) {
      throw connectError(db, err);
    }
    return { knex: db, owned: false };
  }
  const config = typeof db === "string" ? configFromTarget(db) : db;
  requireDriver(config);
  const conn = config.connection as { filename?: string } | undefined;
  if (typeof conn === "object" && conn && typeof conn.filename === "string" && conn.filename !== ":memory:") {
    // SQLite creates the file, never its directory: a path with a typo must
    // not silently become a new directory tree with an empty site in it.
    const dir = path.dirname(path.resolve(conn.filename));
    if (!fs.existsSync(dir)) throw new DbTargetError(`the directory of the SQLite file ${conn.filename} does not exist: create ${dir} first`);
  }
  const opening = { done: false };
  const knex = knexFactory({
    ...config,
    log: quietWhileOpening(config.log, opening),
    pool: {
      ...(config.pool ?? {}),
      afterCreate: sqliteAfterCreate(config),
    },
  });
  try {
    await prepareConnection(knex);
  } catch (err) {
    await knex.destroy().catch(() => undefined);
    throw connectError(db, err);
  }
  opening.done = true;
  return { knex, owned: true };
}

function connectError(db: DbOption, err: unknown): DbConnectError {
  return new DbConnectError(`cannot open the database ${describeTarget(db)}: ${(err as Error).message}`, { cause: err });
}

type KnexLog = NonNullable<Knex.Config["log"]>;

/**
 * knex reports every failed connection attempt with its stack (on stdout)
 * before the attempt's error reaches us; while opening, that error is
 * reported once, as DbConnectError, so those reports are dropped. Later ones
 * (a server that goes away) go to the caller's logger, else to stderr.
 */
function quietWhileOpening(log: Knex.Config["log"], opening: { done: boolean }): KnexLog {
  const warn = log?.warn ?? ((message: unknown) => console.warn(message));
  return {
    ...log,
    warn(message: string) {
      if (!opening.done && typeof message === "string" && message.startsWith("Acquire connection error")) return;
      warn(message);
    },
  };
}

type AfterCreate = (conn: unknown, done: (err: Error | null, conn: unknown) => void) => void;

function sqliteAfterCreate(config: Knex.Config): AfterCreate | undefined {
  const prior = (config.pool as { afterCreate?: AfterCreate } | undefined)?.afterCreate;
  if (!String(config.client ?? "").includes("sqlite")) return prior;
  return (conn, done) => {
    const db = conn as { exec(sql: string, cb: (err: Error | null) => void): void };
    // WAL keeps readers from blocking the writer; foreign_keys is off by
    // default in SQLite; busy_timeout lets a second process wait its turn.
    // `optimize` (0x10002: look at every table) runs ANALYZE where the
    // statistics are missing or stale: without them SQLite guesses that
    // `type = ? AND status = ?` picks a handful of posts and plans the event
    // lists and the venue filters around that index (tens of ms to seconds
    // at 100k events instead of well under a millisecond).
    db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000; PRAGMA optimize = 0x10002;", (err) => {
      if (!err && isStatementDriver(conn)) cacheReadStatements(conn);
      if (err || !prior) return done(err, conn);
      prior(conn, done);
    });
  };
}

type RowsCallback = (this: unknown, err: Error | null, rows: unknown[]) => void;

/** What the statement cache uses of node-sqlite3's Database and Statement. */
interface DriverStatement {
  all(params: unknown[], cb: RowsCallback): unknown;
  finalize(cb?: (err: Error | null) => void): unknown;
}
interface DriverDatabase {
  all(sql: string, params: unknown[], cb: RowsCallback): unknown;
  prepare(sql: string, cb: (err: Error | null) => void): DriverStatement;
  close(cb?: (err: Error | null) => void): unknown;
}

function isStatementDriver(conn: unknown): conn is DriverDatabase {
  const c = conn as Partial<Record<"all" | "prepare" | "close", unknown>>;
  return typeof c.all === "function" && typeof c.prepare === "function" && typeof c.close === "function";
}

/** Prepared statements kept per connection. */
const STATEMENT_CACHE_SIZE = 64;

/**
 * Keeps the prepared statements of reads. knex hands every statement to
 * node-sqlite3's `Database#all`, which prepares it anew each time; for the
 * list and record reads (joins of the typed-field tables, a UNION of the
 * relations) preparing costs about as much as running, on the one
 * connection every request waits for. Here a read reuses its statement:
 * node-sqlite3 resets and rebinds it on each call, and runs it to the end
 * (so no statement is left holding a read transaction). Writes, DDL and
 * transaction statements take the ordinary path. A statement whose prepare
 * fails is not kept, and the call is repeated the ordinary way, so errors
 * read exactly as before.
 */
function cacheReadStatements(db: DriverDatabase): void {
  const cache = new Map<string, DriverStatement>();
  const plainAll = db.all.bind(db);
  const plainClose = db.close.bind(db);
  const run = (sql: string, stmt: DriverStatement, params: unknown[], cb: RowsCallback): void => {
    stmt.all(params, function (err, rows) {
      if (err && cache.get(sql) === stmt) {
        cache.delete(sql);
        stmt.finalize();
      }
      cb.call(this, err, rows);
    });
  };
  db.all = (sql, params, cb) => {
    // knex begins every transaction with a deferred BEGIN, which takes the
    // write lock only at the first write: two connections that both read
    // first then fail with SQLITE_BUSY at once (no busy wait can resolve
    // it). IMMEDIATE takes the lock up front, so a second writer waits its
    // turn (busy_timeout) instead.
    if (sql === "BEGIN;") return plainAll("BEGIN IMMEDIATE;", params, cb);
    if (!isReadStatement(sql)) return plainAll(sql, params, cb);
    const bound = Array.isArray(params) ? params : [];
    const cached = cache.get(sql);
    if (cached) {
      // Most recently used last.
      cache.delete(sql);
      cache.set(sql, cached);
      run(sql, cached, bound, cb);
      return db;
    }
    const stmt = db.prepare(sql, (err) => {
      if (err) {
        plainAll(sql, params, cb);
        return;
      }
      cache.set(sql, stmt);
      if (cache.size > STATEMENT_CACHE_SIZE) {
        const [oldest, old] = cache.entries().next().value as [string, DriverStatement];
        cache.delete(oldest);
        // One statement at a time runs on a connection (knex hands it out per statement): the oldest is idle.
        old.finalize();
      }
      run(sql, stmt, bound, cb);
    });
    return db;
  };
  db.close = (cb) => {
    // SQLite refuses to close a connection with statements still prepared.
    const open = [...cache.values()];
    cache.clear();
    let left = open.length;
    if (left === 0) return plainClose(cb);
    for (const stmt of open) {
      stmt.finalize(() => {
        left -= 1;
        if (left === 0) plainClose(cb);
      });
    }
    return db;
  };
}

async function prepareConnection(knex: Knex): Promise<void> {
  // Fail fast with the driver's own message when the database is unreachable.
  await knex.raw("select 1");
  void dialectOf(knex);
}

/**
 * Refreshes the SQLite planner statistics of tables that changed a lot
 * (SQLite's advice: before closing a connection, and now and then on a
 * long-lived one). A no-op elsewhere: PostgreSQL and MariaDB keep their own.
 */
export async function optimizeStorage(knex: Knex): Promise<void> {
  if (dialectOf(knex) !== "sqlite") return;
  await knex.raw("PRAGMA optimize = 0x10002");
}
