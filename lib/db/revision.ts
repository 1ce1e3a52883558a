import type { Knex } from "knex";
import { dialectOf, type Dialect } from "./target";

/**
 * "Has the database changed?" for read caches that must never serve a value
 * the database no longer holds (list totals, whole anonymous answers; see
 * `ReadCache` and the REST layer's response cache).
 *
 * Two sources make up the revision token:
 * - every statement through this knex instance that is not a read (inserts,
 *   updates, deletes, DDL, BEGIN/COMMIT/ROLLBACK; transactions included, as
 *   knex reports their statements on the root instance) bumps a counter
 *   before it runs;
 * - the database's own word on commits by anyone:
 *   - SQLite: `PRAGMA data_version`, which changes when another connection
 *     (another process, another engine on the same file) commits. One
 *     connection runs every statement in turn, so a read issued after a
 *     write's bump also runs after that write finished.
 *   - PostgreSQL: `txid_current_snapshot()`, whose text (xmin: the oldest
 *     transaction still running; xmax: one past the newest finished one;
 *     the ids below xmax still in progress) changes whenever a transaction
 *     that wrote ends, committed or rolled back, anywhere in the cluster
 *     (read-only transactions get no id; one that has written but not
 *     ended leaves it as it is: test/engine/read-cache.test.ts). A commit
 *     between two checks either advanced xmax (its id was at or above the
 *     first check's xmax) or left the in-progress list (it was below), so
 *     equal tokens mean that nothing was committed in between. Writes to
 *     other databases of the cluster also change it: that costs reuse,
 *     never correctness.
 * MariaDB has no such statement, so nothing is cached there and every read
 * asks the database.
 */
export class DataRevision {
  private local = 0;
  readonly enabled: boolean;
  private readonly dialect: Dialect;
  /** A private in-memory database: no other connection can change it. */
  private readonly privateMemory: boolean;

  constructor(private readonly knex: Knex) {
    this.dialect = dialectOf(knex);
    this.enabled = this.dialect === "sqlite" || this.dialect === "postgres";
    const connection = knex.client.config.connection as { filename?: unknown } | undefined;
    this.privateMemory = typeof connection === "object" && connection !== null && connection.filename === ":memory:";
    const filename = typeof connection === "object" && connection !== null ? connection.filename : undefined;
    this.watchedFile = this.dialect === "sqlite" && typeof filename === "string" && !this.privateMemory ? filename : null;
    if (this.enabled) {
      knex.on("query", (q: { sql?: unknown }) => {
        if (!isReadStatement(q.sql)) this.local++;
      });
    }
  }

  /**
   * A SQLite file is read through several pooled connections, and
   * `data_version` is per connection (its values on two connections are
   * not comparable): the file's revision is read on one connection of its
   * own, which sees every commit made through any other, ours included.
   */
  private readonly watchedFile: string | null;
  private watcher: Promise<WatcherDatabase> | null = null;
  /** Tokens handed out while the watcher cannot answer: never equal, so nothing is reused. */
  private unanswered = 0;

  /** Whether the database part of the token is the same in every process (PostgreSQL's snapshot; SQLite's `data_version` is per connection). */
  get sharedAcrossProcesses(): boolean {
    return this.dialect === "postgres";
  }

  /** Closes the watcher connection (the engine's close). */
  async close(): Promise<void> {
    const watcher = this.watcher;
    this.watcher = null;
    if (watcher === null) return;
    try {
      const db = await watcher;
      await new Promise<void>((resolve) => db.close(() => resolve()));
    } catch {
      // It never opened: nothing to close.
    }
  }

  private async watchedVersion(file: string): Promise<string> {
    try {
      this.watcher ??= openWatcher(file);
      const db = await this.watcher;
      const row = await new Promise<{ data_version?: number } | undefined>((resolve, reject) =>
        db.get("PRAGMA data_version", (err, r) => (err ? reject(err) : resolve(r as { data_version?: number } | undefined))),
      );
      return String(row?.data_version ?? "");
    } catch {
      this.watcher = null;
      return `unanswered-${++this.unanswered}`;
    }
  }

  /** The check running now, if any. */
  private running: Promise<string> | null = null;
  /** The check that starts when the running one ends: it serves everyone who asked meanwhile. */
  private next: Promise<string> | null = null;

  /**
   * The current token. Read before the cached value is used or computed: a
   * value computed after a later write began is stored under the older
   * token and so never served once that write is done.
   *
   * Checks are batched without giving up freshness: a caller never gets the
   * result of a check that started before it asked (a commit could have
   * landed in between); it waits for the next check, which starts when the
   * running one ends and answers every caller that arrived meanwhile. Under
   * load one statement serves many requests.
   */
  current(): Promise<string> {
    if (this.privateMemory) return Promise.resolve(String(this.local));
    if (this.next !== null) return this.next;
    if (this.running === null) return this.start();
    const after = this.running;
    const next = after.then(
      () => this.start(),
      () => this.start(),
    );
    this.next = next;
    return next;
  }

  private start(): Promise<string> {
    this.next = null;
    const check = this.check();
    this.running = check;
    const clear = (): void => {
      if (this.running === check) this.running = null;
    };
    check.then(clear, clear);
    return check;
  }

  private async check(): Promise<string> {
    const local = this.local;
    if (this.dialect === "postgres") {
      const result = (await this.knex.raw("select txid_current_snapshot()::text as s")) as { rows: Array<{ s: string }> };
      return `${local}:${result.rows[0]?.s ?? ""}`;
    }
    if (this.watchedFile !== null) return `${local}:${await this.watchedVersion(this.watchedFile)}`;
    // A SQLite database this engine did not open (a host's knex): asked on the pool's connection.
    let connection = "";
    const rows = (await this.knex.raw("PRAGMA data_version").on("query", (q: { __knexUid?: string }) => {
      // A new connection starts its own count: the token names the connection too.
      connection = q.__knexUid ?? "";
    })) as Array<{ data_version: number }>;
    return `${local}:${connection}:${rows[0]?.data_version ?? ""}`;
  }
}

interface WatcherDatabase {
  get(sql: string, cb: (err: Error | null, row: unknown) => void): unknown;
  close(cb: (err: Error | null) => void): unknown;
}

function openWatcher(file: string): Promise<WatcherDatabase> {
  return new Promise((resolve, reject) => {
    // Loaded here: only SQLite files need it, and it is a dependency of calpress either way.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const sqlite3 = require("sqlite3") as typeof import("sqlite3");
    const db = new sqlite3.Database(file, sqlite3.OPEN_READWRITE, (err) => (err ? reject(err) : resolve(db)));
  });
}

/** SELECT/EXPLAIN, or a PRAGMA that only reads (no `=`, no argument): statements that change nothing. */
export function isReadStatement(sql: unknown): boolean {
  if (typeof sql !== "string") return false;
  return /^\s*(select|explain)\b/i.test(sql) || /^\s*pragma\s+[a-z_]+\s*;?\s*$/i.test(sql);
}

/** The most posts `postsUnder` holds for one token: past it, the map starts again empty. */
const MAX_SHARED_POSTS = 5000;

/**
 * Results of read statements (list totals, list pages and the relations of
 * their posts), keyed by the statement and its bindings and valid for one
 * revision token. The totals matter most (COUNT(*) reads every matching
 * row); a page read again while nothing changed is served without its
 * statements too. The cached rows are shared and must be treated as
 * read-only. Bounded by entries and by rows held: least recently used first
 * out.
 */
export class ReadCache {
  private readonly entries = new Map<string, { token: string; value: unknown; size: number }>();
  private held = 0;
  /**
   * Statements being run, by key and token. Concurrent requests for the
   * same result under the same revision share one statement: after a write
   * invalidates a busy list's total, sixteen clients would otherwise queue
   * sixteen identical COUNT(*)s on SQLite's one connection.
   */
  private readonly pending = new Map<string, { token: string; value: Promise<unknown> }>();

  constructor(
    private readonly revision: DataRevision,
    private readonly maxEntries = 500,
    private readonly maxHeld = 5000,
  ) {}

  get enabled(): boolean {
    return this.revision.enabled;
  }

  /**
   * Posts by id as they were under `token` (null: no such post), shared by
   * every request that holds the same token: linked venues and organizers,
   * a few thousand posts embedded by every event. A new token starts a new
   * map; a value is only ever stored under a token read before it was
   * loaded. Read-only for callers. Bounded: emptied when full.
   */
  postsUnder<T>(token: string): Map<number, T | null> {
    if (this.posts === null || this.posts.token !== token || this.posts.byId.size > MAX_SHARED_POSTS) {
      this.posts = { token, byId: new Map() };
    }
    return this.posts.byId as Map<number, T | null>;
  }

  private posts: { token: string; byId: Map<number, unknown> } | null = null;

  /** Releases the revision's own connection, if it opened one. */
  close(): Promise<void> {
    return this.revision.close();
  }

  /**
   * The revision now (one cheap statement on a SQLite file). A caller takes
   * it once, before its reads, and passes it to `get` for each of them.
   */
  token(): Promise<string> {
    return this.revision.current();
  }

  /** Whether `sharedToken` gives tokens (PostgreSQL). */
  get sharesTokens(): boolean {
    return this.revision.sharedAcrossProcesses;
  }

  /**
   * The revision as every process on the database sees it, where there is
   * one (`null` elsewhere): on PostgreSQL the snapshot text alone. Without
   * this process's statement counter it still changes with every commit,
   * ours included (see DataRevision), and a write not yet committed is
   * seen by no other connection. Two processes that read equal tokens have
   * seen the same committed data, so what one proved the other may reuse.
   */
  async sharedToken(): Promise<string | null> {
    if (!this.revision.sharedAcrossProcesses) return null;
    const token = await this.revision.current();
    return token.slice(token.indexOf(":") + 1);
  }

  /**
   * The result of `query` (run by `compute`) as it was under `token`: reused
   * when stored under that token, else computed and stored. `size` is what
   * the value holds (rows), for the bound.
   */
  async get<T>(token: string, query: Knex.QueryBuilder | Knex.Raw, compute: () => Promise<T>, size: (value: T) => number): Promise<T> {
    const { sql, bindings } = query.toSQL();
    const key = `${sql}\u0000${JSON.stringify(bindings)}`;
    const hit = this.entries.get(key);
    if (hit && hit.token === token) {
      // Most recently used last.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.value as T;
    }
    const running = this.pending.get(key);
    // Started under this same revision: its result is what this caller would compute.
    if (running && running.token === token) return running.value as Promise<T>;
    const value = compute();
    this.pending.set(key, { token, value });
    try {
      const result = await value;
      this.store(key, token, result, size(result));
      return result;
    } finally {
      if (this.pending.get(key)?.value === value) this.pending.delete(key);
    }
  }

  /** A COUNT(*) statement's value, under the revision now. */
  async count(query: Knex.QueryBuilder, compute: () => Promise<number>): Promise<number> {
    return this.get(await this.token(), query, compute, () => 1);
  }

  private store(key: string, token: string, value: unknown, size: number): void {
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.held -= old.size;
    }
    if (size > this.maxHeld) return;
    this.entries.set(key, { token, value, size });
    this.held += size;
    while (this.entries.size > this.maxEntries || this.held > this.maxHeld) {
      const oldest = this.entries.entries().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest[0]);
      this.held -= oldest[1].size;
    }
  }
}
