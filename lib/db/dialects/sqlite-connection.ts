import { isReadStatement } from "../read-statement";

/**
 * A new SQLite connection: WAL keeps readers from blocking the writer;
 * foreign_keys is off by default in SQLite; busy_timeout lets a second
 * process wait its turn. `optimize` (0x10002: look at every table) runs
 * ANALYZE where the statistics are missing or stale: without them SQLite
 * guesses that `type = ? AND status = ?` picks a handful of posts and plans
 * the event lists and the venue filters around that index (tens of ms to
 * seconds at 100k events instead of well under a millisecond).
 */
export function setUpSqliteConnection(conn: unknown, done: (err: Error | null) => void): void {
  const db = conn as { exec(sql: string, cb: (err: Error | null) => void): void };
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000; PRAGMA optimize = 0x10002;", (err) => {
    if (!err && isStatementDriver(conn)) cacheReadStatements(conn);
    done(err);
  });
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

