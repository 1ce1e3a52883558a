import { isReadStatement } from "../read-statement";

/**
 * A new SQLite connection (better-sqlite3, calpress's own, or node-sqlite3,
 * a host's knex): WAL keeps readers from blocking the writer; foreign_keys
 * is off by default in SQLite; a second writer waits its turn. `optimize` (0x10002: look at every table) runs
 * ANALYZE where the statistics are missing or stale: without them SQLite
 * guesses that `type = ? AND status = ?` picks a handful of posts and plans
 * the event lists and the venue filters around that index (tens of ms to
 * seconds at 100k events instead of well under a millisecond).
 */
export function setUpSqliteConnection(conn: unknown, done: (err: Error | null) => void): void {
  if (isSyncDriver(conn)) {
    try {
      setUpSyncConnection(conn);
      done(null);
    } catch (err) {
      done(err as Error);
    }
    return;
  }
  const db = conn as { exec(sql: string, cb: (err: Error | null) => void): void };
  // The busy timeout first: `optimize` may have to wait for another connection's write.
  db.exec(`PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; ${COMMON_PRAGMAS} ${OPTIMIZE_PRAGMA}`, (err) => {
    if (!err && isStatementDriver(conn)) cacheReadStatements(conn);
    done(err);
  });
}

/**
 * SQLite's own page cache per connection, in KiB (SQLite's default;
 * better-sqlite3 builds with 16 MB). The file's pages are in the operating
 * system's cache anyway, which every connection and process shares, while a
 * connection's own cache copies them, up to 16 MB each: a server with stored
 * answers has five (the site's pool, the store's file and the site file
 * attached to it, lib/cache/answer-store.ts).
 */
export const SQLITE_PAGE_CACHE_KIB = 2000;

const COMMON_PRAGMAS = `PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA cache_size = -${SQLITE_PAGE_CACHE_KIB};`;
/** ANALYZE where the statistics are missing or stale (see above); it writes, so it may find the file locked. */
const OPTIMIZE_PRAGMA = "PRAGMA optimize = 0x10002;";

// ------------------------------------------------------------------ better-sqlite3 (the default)

/** What the set-up uses of a better-sqlite3 Database and Statement. */
interface SyncStatement {
  readonly reader: boolean;
  all(...params: unknown[]): unknown[];
  run(...params: unknown[]): unknown;
  safeIntegers(on?: boolean): SyncStatement;
}
interface SyncDatabase {
  readonly memory: boolean;
  prepare(sql: string): SyncStatement;
  exec(sql: string): unknown;
  pragma(sql: string, options?: { simple?: boolean }): unknown;
}

function isSyncDriver(conn: unknown): conn is SyncDatabase {
  const c = conn as Partial<Record<"pragma" | "prepare", unknown>>;
  return typeof c.pragma === "function" && typeof c.prepare === "function";
}

/** Prepared statements kept per better-sqlite3 connection (reads and writes: preparing is a third of a short statement's time). */
const SYNC_STATEMENT_CACHE_SIZE = 128;
/** How long a statement waits for another writer (the busy timeout of the node-sqlite3 path), in ms. */
const BUSY_WAIT_MS = 5000;

/**
 * The site's own SQLite connections run on better-sqlite3: a statement runs
 * on the event loop, with no hop through the thread pool (on a busy 2-core
 * machine the hop, not SQLite, was most of a short statement's cost, and
 * the revision check ran on every request).
 *
 * Being synchronous, a connection must never *wait* for a lock inside
 * SQLite: a writer holding a transaction on another pooled connection of
 * this process can only finish once the event loop is free, so SQLite's
 * own busy wait would stall both until it timed out. The busy timeout is
 * therefore 0, and a statement that finds the database locked
 * (SQLITE_BUSY: only BEGIN IMMEDIATE and writes outside a transaction can,
 * WAL readers never wait) is tried again after a short asynchronous pause,
 * for up to BUSY_WAIT_MS in all, then fails as before. knex awaits what
 * `run`/`all` return, so the retry is a promise only when one is needed.
 *
 * Every transaction begins IMMEDIATE, as on the node-sqlite3 path below.
 */
function setUpSyncConnection(db: SyncDatabase): void {
  // Under better-sqlite3's own busy wait (5 s, on the event loop): only a file not yet in WAL needs a lock here, which only
  // another process starting on it at the same moment can hold. Everything after runs with no wait (see above).
  if (!db.memory) db.pragma("journal_mode = WAL");
  db.exec(`PRAGMA busy_timeout = 0; ${COMMON_PRAGMAS}`);
  try {
    db.exec(OPTIMIZE_PRAGMA);
  } catch (err) {
    // The pool opens a connection while another holds a write: ANALYZE would have to wait, and cannot here (see above). A later connection runs it.
    if (!isBusy(err)) throw err;
  }
  const cache = new Map<string, SyncStatement>();
  const prepare = db.prepare.bind(db);
  const cached = (sql: string): SyncStatement => {
    const hit = cache.get(sql);
    if (hit) {
      // Most recently used last.
      cache.delete(sql);
      cache.set(sql, hit);
      return hit;
    }
    const stmt = prepare(sql);
    cache.set(sql, stmt);
    if (cache.size > SYNC_STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
    return stmt;
  };
  db.prepare = (sql: string): SyncStatement => {
    const stmt = cached(sql === "BEGIN;" ? "BEGIN IMMEDIATE;" : sql);
    // A fresh facade per call: knex may set safeIntegers on what it is given; the kept statement is shared.
    return {
      reader: stmt.reader,
      safeIntegers(on?: boolean) {
        stmt.safeIntegers(on);
        return this;
      },
      all: (...params: unknown[]) => whenFree(() => stmt.all(...params)) as unknown[],
      run: (...params: unknown[]) => whenFree(() => stmt.run(...params)),
    };
  };
}

function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

/** `work()` now, or, when the database is locked by another writer, a promise of it tried again shortly. */
function whenFree<T>(work: () => T): T | Promise<T> {
  try {
    return work();
  } catch (err) {
    if (!isBusy(err)) throw err;
    return retryWhenFree(work);
  }
}

async function retryWhenFree<T>(work: () => T): Promise<T> {
  const deadline = Date.now() + BUSY_WAIT_MS;
  for (let pause = 1; ; pause = Math.min(pause * 2, 20)) {
    await new Promise((resolve) => setTimeout(resolve, pause));
    try {
      return work();
    } catch (err) {
      if (!isBusy(err) || Date.now() >= deadline) throw err;
    }
  }
}

// ------------------------------------------------------------------ node-sqlite3 (a host's own knex)

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

