import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { ComposedResponse } from "./response-cache";

/**
 * Stored answers: whole anonymous GET answers of the endpoints that opt in
 * (`RestEndpoint.store`), kept on disk in a SQLite file of their own and
 * reused for as long as everything they show is unchanged.
 *
 * The in-memory response cache (response-cache.ts) keeps the few URLs that
 * everyone asks for, for a second at a time; it cannot help with reads
 * spread over every event of a large site (a crawler, a calendar app
 * subscribing to single events, links from elsewhere), where each URL is
 * asked rarely and building its answer costs ~0.5 ms of CPU. This store
 * keeps such answers across requests and restarts, and proves each one
 * still good before it is sent:
 *
 * - while building, the handler names the cache tags its answer shows
 *   (`RestRequest.dependsOn`: the post, its linked venue and organizers,
 *   their images, the terms; lib/db/cache-tags.ts), and the store records
 *   their versions with the answer. Database triggers bump a tag in the
 *   transaction of any write that changes it, whoever writes.
 * - an answer built while anything committed (the revision token read
 *   before the build differs from the one read after the versions) is not
 *   stored: its content and its versions could disagree.
 * - reuse: when the revision token is the one the answer was last proved
 *   under (nothing committed since), it is sent at once; otherwise the
 *   versions of its tags are read again (one indexed statement) and compared.
 *   Tokens are prefixed with a random nonce per process: another process's
 *   token never matches, so what it stored is proved here before it is sent.
 * - a store file made for another database (every database gets a random
 *   epoch, itself a tag of every answer) or by another version of the code
 *   is emptied when opened.
 *
 * It lives beside the database, not in it: storing an answer must not count
 * as a change of the data (it would defeat the revision tokens that the
 * response cache and list totals rely on), and a cache may be lost at any
 * time without harm.
 */

export interface AnswerStoreOptions {
  /** The SQLite file of stored answers (`:memory:` keeps them for this process only). */
  readonly file: string;
  /** The database's revision token (see lib/db/revision.ts); `null` when none can be had (nothing is stored or reused). */
  revision(): Promise<string | null>;
  /** Current versions of cache tags (absent: never bumped, version 0). */
  versions(tags: readonly number[]): Promise<Map<number, number>>;
  /** Tags every answer depends on (the site's options and users, the database epoch). */
  readonly always: readonly number[];
  /** Stored answers from another database or code version are discarded: this names the current one. */
  readonly identity: string;
  readonly logger?: { error(message: string, error?: unknown): void };
  /**
   * The site's SQLite file, when the site is on SQLite: the store attaches
   * it and proves an answer in the statement that reads it (no revision
   * token, nothing to update afterwards).
   */
  readonly attach?: string;
}

/** What a build gives the store: the answer and the tags it showed. */
export interface BuiltAnswer {
  response: ComposedResponse;
  /** `null`: the answer must not be stored (the handler did not name what it shows, or it is private). */
  tags: ReadonlySet<number> | null;
}

interface StoredRow {
  /** Not read where the statement proves the answer itself (SELECT_VALID). */
  token?: string;
  tags?: string;
  status: number;
  headers: string;
  no_cache: number;
  body: Buffer | null;
}

type RowsCallback = (err: Error | null, rows?: StoredRow[]) => void;
interface Statement {
  all(params: unknown[], cb: RowsCallback): unknown;
  run(params: unknown[], cb: (err: Error | null) => void): unknown;
  finalize(cb?: (err: Error | null) => void): unknown;
}
interface Database {
  exec(sql: string, cb: (err: Error | null) => void): unknown;
  prepare(sql: string, cb: (err: Error | null) => void): Statement;
  get(sql: string, params: unknown[], cb: (err: Error | null, row?: { value: string }) => void): unknown;
  run(sql: string, params: unknown[], cb: (err: Error | null) => void): unknown;
  close(cb: (err: Error | null) => void): unknown;
}

const SCHEMA = `
PRAGMA journal_mode = WAL;
PRAGMA synchronous = NORMAL;
PRAGMA busy_timeout = 5000;
CREATE TABLE IF NOT EXISTS answers (
  key TEXT PRIMARY KEY,
  token TEXT NOT NULL,
  tags TEXT NOT NULL,
  status INTEGER NOT NULL,
  headers TEXT NOT NULL,
  no_cache INTEGER NOT NULL,
  body BLOB
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
`;

function promisify<T>(run: (cb: (err: Error | null, value?: T) => void) => unknown): Promise<T | undefined> {
  return new Promise((resolve, reject) => {
    run((err, value) => (err ? reject(err) : resolve(value)));
  });
}

/**
 * A stored answer still good under the current tag versions of the attached
 * site database, in one statement: what the tags are now is read in the
 * same snapshot as the answer, so nothing can commit in between.
 */
const SELECT_VALID = `SELECT status, headers, no_cache, body FROM answers a WHERE a.key = ?
  AND NOT EXISTS (SELECT 1 FROM json_each(a.tags) j
    WHERE coalesce((SELECT t.version FROM site.cache_tags t WHERE t.tag = json_extract(j.value, '$[0]')), 0) <> json_extract(j.value, '$[1]'))`;

/** Connections reading the store (reads in flight at once; SQLite's thread pool has 4 threads). */
const READERS = 4;

export class AnswerStore {
  private readonly nonce = randomBytes(6).toString("hex");
  private readonly always: readonly number[];
  private writes = 0;
  private readonly idle: number[];
  private readonly waiting: Array<{ key: string; resolve: (row: StoredRow | undefined) => void }> = [];
  private readonly counters = { hits: 0, proved: 0, built: 0, stored: 0, skipped: 0 };

  private constructor(
    private readonly dbs: Database[],
    private readonly selects: Statement[],
    private readonly upsert: Statement,
    private readonly retoken: Statement,
    private readonly options: AnswerStoreOptions,
  ) {
    this.always = [...new Set(options.always)];
    this.idle = selects.map((_, i) => i);
  }

  static async open(options: AnswerStoreOptions): Promise<AnswerStore> {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const sqlite3 = require("sqlite3") as typeof import("sqlite3");
    if (options.file !== ":memory:") fs.mkdirSync(path.dirname(path.resolve(options.file)), { recursive: true });
    // A private in-memory store has one connection (each would have its own
    // database); a file has a writer of its own beside the readers, so that
    // storing never holds up a read (see `read`).
    const count = options.file === ":memory:" ? 1 : READERS + 1;
    const dbs: Database[] = [];
    try {
      for (let i = 0; i < count; i++) {
        dbs.push(
          await new Promise<Database>((resolve, reject) => {
            const opened = new sqlite3.Database(options.file, (err) => (err ? reject(err) : resolve(opened as unknown as Database)));
          }),
        );
      }
      const [db] = dbs;
      await promisify<void>((cb) => db.exec(SCHEMA, cb));
      const stored = await promisify<{ value: string }>((cb) => db.get("SELECT value FROM meta WHERE name = 'identity'", [], cb));
      if (stored?.value !== options.identity) {
        await promisify<void>((cb) => db.exec("DELETE FROM answers", cb));
        await promisify<void>((cb) => db.run("INSERT OR REPLACE INTO meta(name, value) VALUES ('identity', ?)", [options.identity], cb));
      }
      const prepare = (on: Database, sql: string): Promise<Statement> =>
        new Promise((resolve, reject) => {
          const stmt = on.prepare(sql, (err) => (err ? reject(err) : resolve(stmt)));
        });
      const selects: Statement[] = [];
      for (const reader of dbs.length > 1 ? dbs.slice(1) : dbs) {
        if (options.attach !== undefined) {
          await promisify<void>((cb) => reader.exec("PRAGMA busy_timeout = 5000", cb));
          await promisify<void>((cb) => reader.run("ATTACH DATABASE ? AS site", [options.attach], cb));
        }
        selects.push(await prepare(reader, options.attach !== undefined ? SELECT_VALID : "SELECT token, tags, status, headers, no_cache, body FROM answers WHERE key = ?"));
      }
      return new AnswerStore(
        dbs,
        selects,
        await prepare(db, "INSERT OR REPLACE INTO answers(key, token, tags, status, headers, no_cache, body) VALUES (?, ?, ?, ?, ?, ?, ?)"),
        await prepare(db, "UPDATE answers SET token = ? WHERE key = ?"),
        options,
      );
    } catch (err) {
      for (const db of dbs) await promisify<void>((cb) => db.close(cb)).catch(() => undefined);
      throw err;
    }
  }

  /** How answers were given since the store opened (tests, diagnostics). */
  stats(): { hits: number; proved: number; built: number; stored: number; skipped: number } {
    return { ...this.counters };
  }

  /**
   * The stored answer for `key` when it is still good, else `build()`'s,
   * stored when it may be (a 200 whose tags are known, built while nothing
   * committed).
   */
  async answer(key: string, build: () => Promise<BuiltAnswer>): Promise<ComposedResponse> {
    if (this.options.attach !== undefined) {
      // The statement itself proves the answer (see SELECT_VALID): no token needed.
      const valid = await this.read(key);
      if (valid !== undefined) {
        this.counters.hits++;
        return toResponse(valid);
      }
      return this.buildAndStore(key, build, await this.options.revision());
    }
    const [revision, row] = await Promise.all([this.options.revision(), this.read(key)]);
    if (revision === null) return (await build()).response;
    const token = `${this.nonce}:${revision}`;
    if (row !== undefined) {
      if (row.token === token) {
        this.counters.hits++;
        return toResponse(row);
      }
      if (await this.stillGood(row)) {
        this.counters.proved++;
        this.writes++;
        this.retoken.run([token, key], (err) => {
          this.writes--;
          if (err) this.options.logger?.error("stored answers: updating a token failed", err);
        });
        return toResponse(row);
      }
    }
    return this.buildAndStore(key, build, revision);
  }

  private async buildAndStore(key: string, build: () => Promise<BuiltAnswer>, revision: string | null): Promise<ComposedResponse> {
    if (revision === null) return (await build()).response;
    const token = `${this.nonce}:${revision}`;
    this.counters.built++;
    const built = await build();
    const { response, tags } = built;
    if (tags === null || response.status !== 200 || response.noCache) return response;
    const all = [...new Set([...this.always, ...tags])].sort((a, b) => a - b);
    const versions = await this.options.versions(all);
    if ((await this.options.revision()) !== revision) {
      this.counters.skipped++;
      return response;
    }
    const pairs = all.map((tag) => [tag, versions.get(tag) ?? 0]);
    this.writes++;
    this.upsert.run(
      [key, token, JSON.stringify(pairs), response.status, JSON.stringify(response.headers), response.noCache ? 1 : 0, response.body],
      (err) => {
        this.writes--;
        if (err) this.options.logger?.error("stored answers: storing an answer failed", err);
        else this.counters.stored++;
      },
    );
    return response;
  }

  /** Waits for the writes under way (tests; a warm-up that reports what it stored). */
  async flush(): Promise<void> {
    while (this.writes > 0) await new Promise((resolve) => setTimeout(resolve, 5));
  }

  async close(): Promise<void> {
    await this.flush();
    for (const stmt of [...this.selects, this.upsert, this.retoken]) await promisify<void>((cb) => stmt.finalize(cb)).catch(() => undefined);
    for (const db of this.dbs) await promisify<void>((cb) => db.close(cb));
  }

  /**
   * One read at a time per connection, on an idle one (else queued here):
   * node-sqlite3 binds a statement's parameters on the main thread, under
   * the connection's mutex, so a second read sent to a connection busy on
   * the thread pool would block the event loop until the first one ends.
   */
  private read(key: string): Promise<StoredRow | undefined> {
    return new Promise((resolve) => {
      this.waiting.push({ key, resolve });
      this.pump();
    });
  }

  private pump(): void {
    while (this.waiting.length > 0 && this.idle.length > 0) {
      const i = this.idle.pop() as number;
      const { key, resolve } = this.waiting.shift() as { key: string; resolve: (row: StoredRow | undefined) => void };
      // `all`, not `get`: a statement stepped once and not run to its end
      // keeps its read transaction open, and this connection would go on
      // seeing the store as it was then (other processes' answers missing).
      this.selects[i].all([key], (err, rows) => {
        this.idle.push(i);
        // An unreadable store is a miss, never a failed request.
        if (err) this.options.logger?.error("stored answers: reading failed", err);
        resolve(err ? undefined : rows?.[0]);
        this.pump();
      });
    }
  }

  private async stillGood(row: StoredRow): Promise<boolean> {
    let pairs: Array<[number, number]>;
    try {
      pairs = JSON.parse(row.tags ?? "[]") as Array<[number, number]>;
    } catch {
      return false;
    }
    if (!Array.isArray(pairs) || pairs.length === 0) return false;
    const current = await this.options.versions(pairs.map(([tag]) => tag));
    return pairs.every(([tag, version]) => (current.get(tag) ?? 0) === version);
  }
}

/**
 * Parsed header lists by their stored text: answers of one endpoint share
 * the same few header sets, so most reads parse nothing and allocate no
 * new arrays (the lists are never changed by the writer).
 */
const parsedHeaders = new Map<string, Array<[string, string]>>();

function toResponse(row: StoredRow): ComposedResponse {
  let headers = parsedHeaders.get(row.headers);
  if (headers === undefined) {
    headers = JSON.parse(row.headers) as Array<[string, string]>;
    if (parsedHeaders.size >= 256) parsedHeaders.clear();
    parsedHeaders.set(row.headers, headers);
  }
  return { status: row.status, headers, body: row.body, noCache: row.no_cache === 1 };
}
