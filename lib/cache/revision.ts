import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import type { Knex } from "knex";
import type { Dialect, RevisionSource, TagChanges } from "../db/dialects/types";
import type { Tables } from "../db/tables";
import { isReadStatement } from "../db/read-statement";
import { FreshRuns } from "./fresh-runs";
import { TagFeed } from "./tag-feed";

/** A token read in a reading request, for its later reads: while this process has written nothing since and for at most this long. */
const REQUEST_TOKEN_MS = 1000;

interface RequestToken {
  token: Promise<string>;
  /** `DataRevision.local` when it was read. */
  local: number;
  at: number;
}

/** The tokens read in one reading request, by revision (`withRequestRevision`). */
const requestTokens = new AsyncLocalStorage<Map<DataRevision, RequestToken>>();

/**
 * Runs `serve`, the whole of a request that only reads (GET or HEAD with no
 * method override), so that every layer it goes through (stored answer,
 * response cache, list statements, published index, kept records) shares
 * one revision token: the first read in the request. A token read after the
 * request arrived shows every commit made before it, which is all a
 * reader may ask (each layer alone asked for one as new as its own call,
 * one statement each on PostgreSQL and MariaDB). A write by this process
 * (the local counter) or a second past the read (work the request left
 * running) reads a new one.
 */
export function withRequestRevision<T>(serve: () => T): T {
  return requestTokens.run(new Map(), serve);
}

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
 *   SQLite's `PRAGMA data_version`, PostgreSQL's `txid_current_snapshot()`,
 *   MariaDB/MySQL's commit slots bumped by the tag triggers; see
 *   lib/db/dialects).
 */
export class DataRevision {
  private local = 0;
  readonly enabled: boolean;
  /** Null where the database has no word on commits (then `enabled` is false). */
  private readonly source: RevisionSource | null;

  constructor(knex: Knex, dialect: Dialect, tables: Tables) {
    this.source = dialect.revisionSource(knex, tables);
    this.enabled = this.source !== null;
    if (this.enabled) {
      knex.on("query", (q: { sql?: unknown }) => {
        if (!isReadStatement(q.sql)) this.local++;
      });
    }
  }

  private distrusted = false;

  /**
   * The database's word can no longer be trusted (its triggers were
   * refused, `needsTagTriggers`): from now on every token is new.
   */
  distrust(): void {
    this.distrusted = true;
  }

  /** Whether the token is made by the cache-tag triggers (MariaDB/MySQL): nothing may be cached by it until a migration found them. */
  get needsTagTriggers(): boolean {
    return this.source?.needsTagTriggers ?? false;
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
    // A new token at every read: nothing is ever reused under it.
    if (this.distrusted) return Promise.resolve(`${this.local}:${randomUUID()}`);
    if (this.source === null || this.source.private) return Promise.resolve(String(this.local));
    const request = requestTokens.getStore();
    if (request === undefined) return this.checks.after();
    const kept = request.get(this);
    const now = Date.now();
    if (kept !== undefined && kept.local === this.local && now - kept.at <= REQUEST_TOKEN_MS) return kept.token;
    const read: RequestToken = { token: this.checks.after(), local: this.local, at: now };
    request.set(this, read);
    read.token.catch(() => {
      if (request.get(this) === read) request.delete(this);
    });
    return read.token;
  }

  private async check(): Promise<string> {
    const local = this.local;
    return `${local}:${this.source === null ? "" : await this.source.read()}`;
  }
}

/** The most rows one of `shared`'s maps holds: past it, the map starts again empty. */
const MAX_SHARED_ROWS = 5000;

/** A row of `ReadCache.shared`. */
interface SharedRow<T> {
  value: T | null;
  /** The token the row was loaded or last proved under. */
  token: string;
  /** The tag feed's position for a state no newer than the row (null: no feed, reused under `token` only). */
  position: string | null;
}

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

  /** Proves shared rows across tokens (`shared`); null without the database's tag changes. */
  private readonly feed: TagFeed | null;
  /** `shared`'s rows, one map per kind. */
  private readonly sharedRows = new Map<string, Map<number, SharedRow<unknown>>>();
  /** The feed's position for the last token asked (`positionFor`). */
  private marked: { token: string; position: string | null } | null = null;

  constructor(
    private readonly revision: DataRevision,
    changes: TagChanges | null,
    // Entries are mostly totals and pages of ids (a few numbers each, under a
    // key of the statement's text): thousands of distinct list URLs (months ×
    // categories, venues, search words) keep theirs while nothing changes.
    private readonly maxEntries = 1000,
    private readonly maxHeld = 5000,
  ) {
    this.feed = changes === null || !revision.enabled ? null : new TagFeed(changes, { revision: () => this.token() });
  }

  get enabled(): boolean {
    return this.revision.enabled;
  }

  /** `DataRevision.needsTagTriggers`. */
  get needsTagTriggers(): boolean {
    return this.revision.needsTagTriggers;
  }

  /** `DataRevision.distrust`. */
  distrustRevision(): void {
    this.revision.distrust();
  }

  /** The feed of the database's tag changes this cache proves shared rows with (kept records in memory use it too); null without one. */
  get tagFeed(): TagFeed | null {
    return this.feed;
  }

  /**
   * Rows by id (null: no such row) shared by every request, one map per
   * `kind`: the posts every event embeds (a few thousand venues and
   * organizers), the terms lists filter by and records show. A row is
   * reused under the token it was loaded or last proved under; under a new
   * token, where the tag feed can tell, while its tag (`tagOf`) is unchanged
   * since (after a write most rows are: sites that write keep them too), as
   * `renew(row)` (a new object: whatever callers keep by a row's identity
   * lives for one token, as before). Rows are labelled with the feed's
   * position for the token read before they were loaded: a row that a
   * later commit changed is newer than its label, never older. Read-only
   * for callers. Bounded: emptied when full.
   */
  async shared<T>(
    kind: "posts" | "terms",
    ids: readonly number[],
    tagOf: (id: number) => number,
    load: (missing: number[]) => Promise<Map<number, T>>,
    renew: (row: T) => T = (row) => row,
  ): Promise<Map<number, T | null>> {
    const token = await this.token();
    const position = await this.positionFor(token);
    let rows = this.sharedRows.get(kind) as Map<number, SharedRow<T>> | undefined;
    if (rows === undefined || rows.size > MAX_SHARED_ROWS) this.sharedRows.set(kind, (rows = new Map()));
    const out = new Map<number, T | null>();
    const missing: number[] = [];
    for (const id of ids) {
      const row = rows.get(id);
      if (row !== undefined && row.token !== token) {
        const unchanged = position !== null && row.position !== null && this.feed?.unchangedSince(row.position, [tagOf(id)]) === true;
        if (unchanged) {
          row.token = token;
          row.position = position;
          if (row.value !== null) row.value = renew(row.value);
        } else rows.delete(id);
      }
      const found = rows.get(id);
      if (found !== undefined) out.set(id, found.value);
      else if (!out.has(id)) missing.push(id);
    }
    if (missing.length > 0) {
      const loaded = await load(missing);
      for (const id of missing) {
        const value = loaded.get(id) ?? null;
        rows.set(id, { value, token, position });
        out.set(id, value);
      }
    }
    return out;
  }

  /** The feed's position for `token`, asked once per token (on PostgreSQL the check after the sync is a statement). */
  private async positionFor(token: string): Promise<string | null> {
    if (this.feed === null) return null;
    if (this.marked?.token !== token) this.marked = { token, position: await this.feed.markFor(token) };
    return this.marked.token === token ? this.marked.position : null;
  }

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
