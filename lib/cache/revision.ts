import type { Knex } from "knex";
import type { Dialect, RevisionSource } from "../db/dialects/types";
import { isReadStatement } from "../db/read-statement";
import { FreshRuns } from "./fresh-runs";

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
 * - the database's own word on commits by anyone (`Dialect.revisionSource`:
 *   SQLite's `PRAGMA data_version`, PostgreSQL's `txid_current_snapshot()`;
 *   see lib/db/dialects). MariaDB has no such statement, so nothing is
 *   cached there and every read asks the database.
 */
export class DataRevision {
  private local = 0;
  readonly enabled: boolean;
  /** Null where the database has no word on commits (then `enabled` is false). */
  private readonly source: RevisionSource | null;

  constructor(knex: Knex, dialect: Dialect) {
    this.source = dialect.revisionSource(knex);
    this.enabled = this.source !== null;
    if (this.enabled) {
      knex.on("query", (q: { sql?: unknown }) => {
        if (!isReadStatement(q.sql)) this.local++;
      });
    }
  }

  /** Whether the database part of the token is the same in every process (PostgreSQL's snapshot; SQLite's `data_version` is per connection). */
  get sharedAcrossProcesses(): boolean {
    return this.source?.sharedAcrossProcesses ?? false;
  }

  /** Closes what the source holds open (a SQLite file's watcher connection; the engine's close). */
  async close(): Promise<void> {
    await this.source?.close();
  }

  /** Checks batched without giving up freshness (fresh-runs.ts): under load one statement serves many requests. */
  private readonly checks = new FreshRuns(() => this.check());

  /**
   * The current token. Read before the cached value is used or computed: a
   * value computed after a later write began is stored under the older
   * token and so never served once that write is done.
   */
  current(): Promise<string> {
    if (this.source === null || this.source.private) return Promise.resolve(String(this.local));
    return this.checks.after();
  }

  private async check(): Promise<string> {
    const local = this.local;
    return `${local}:${this.source === null ? "" : await this.source.read()}`;
  }
}

/** The most rows one of `sharedUnder`'s maps holds for one token: past it, the map starts again empty. */
const MAX_SHARED_ROWS = 5000;

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
    // Entries are mostly totals and pages of ids (a few numbers each, under a
    // key of the statement's text): thousands of distinct list URLs (months ×
    // categories, venues, search words) keep theirs while nothing changes.
    private readonly maxEntries = 1000,
    private readonly maxHeld = 5000,
  ) {}

  get enabled(): boolean {
    return this.revision.enabled;
  }

  /**
   * Rows by id as they were under `token` (null: no such row), shared by
   * every request that holds the same token, one map per `kind`: the posts
   * every event embeds (a few thousand venues and organizers), the terms
   * lists filter by and records show. A new token starts a new map; a value
   * is only ever stored under a token read before it was loaded. Read-only
   * for callers. Bounded: emptied when full.
   */
  sharedUnder<T>(kind: "posts" | "terms", token: string): Map<number, T | null> {
    let shared = this.shared.get(kind);
    if (shared === undefined || shared.token !== token || shared.byId.size > MAX_SHARED_ROWS) {
      shared = { token, byId: new Map() };
      this.shared.set(kind, shared);
    }
    return shared.byId as Map<number, T | null>;
  }

  private readonly shared = new Map<string, { token: string; byId: Map<number, unknown> }>();

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
  async get<T>(token: string, query: Knex.QueryBuilder | Knex.Raw | ReadKey, compute: () => Promise<T>, size: (value: T) => number): Promise<T> {
    const key = query instanceof ReadKey ? query.key : sqlKey(query);
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

/** The read cache's name for a statement: its SQL and bindings. */
export function sqlKey(query: Knex.QueryBuilder | Knex.Raw): string {
  const { sql, bindings } = query.toSQL();
  return `${sql}\u0000${JSON.stringify(bindings)}`;
}

/**
 * A read named without its SQL, for a result computed by several statements
 * or whose statement costs more to build than the name: `what` says what was
 * read, `of` its arguments (JSON). It never equals an SQL key (those start
 * with a statement, these with a U+0001).
 */
export class ReadKey {
  readonly key: string;
  constructor(what: string, of: unknown) {
    this.key = `\u0001${what}\u0000${JSON.stringify(of)}`;
  }
}
