import { randomBytes } from "node:crypto";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import fs from "node:fs";
import path from "node:path";
import type { Answer } from "./answer";
import type { TagChanges } from "../db/dialects/types";
import { SQLITE_PAGE_CACHE_KIB } from "../db/dialects/sqlite-connection";
import { addShown, BytesBoundedMap, unionTags, type KeptRecord, type RecordCache, type RecordStats } from "./records";
import { TagFeed } from "./tag-feed";

/**
 * Stored answers: whole anonymous GET answers of the endpoints that opt in
 * (`RestEndpoint.store`), kept on disk in a SQLite file of their own and
 * reused for as long as everything they show is unchanged.
 *
 * The in-memory response cache (response-cache.ts) keeps the few URLs that
 * everyone asks for, for a second at a time; it cannot help with reads
 * spread over every event of a large site (a crawler, a calendar app
 * subscribing to single events, links from elsewhere), where each URL is
 * asked rarely. This store keeps such answers across requests and restarts,
 * and proves each one still good before it is sent:
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
 *   Tokens are prefixed with a random nonce per process (another process's
 *   token never matches, so what it stored is proved here before it is
 *   sent), unless the revision is one every process shares (`sharedRevision`:
 *   PostgreSQL's snapshot), in which case what one process proved is reused
 *   by all of them until anything commits.
 * - a store file made for another database (every database gets a random
 *   epoch, itself a tag of every answer) or by another version of the code
 *   is emptied when opened.
 * - only the handler's own 200s are stored (not a refusal or an error that
 *   `_envelope` wraps in a 200), under a key of what the answer depends on
 *   (answer-key.ts): parameters the endpoint does not declare make no row.
 * - the file is bounded (`maxBytes`): when a store makes its answers take
 *   more, the oldest stored tenth is deleted in one statement (and further
 *   tenths until the pages in use are within the bound). Their pages are
 *   reused by later answers, so the file stays near the bound; an evicted
 *   answer is built again (and stored again) when next asked.
 *
 * It lives beside the database, not in it: storing an answer must not count
 * as a change of the data (it would defeat the revision tokens that the
 * response cache and list totals rely on), and a cache may be lost at any
 * time without harm.
 */

export interface AnswerStoreOptions {
  /** The SQLite file of stored answers (`:memory:` keeps them for this process only). */
  readonly file: string;
  /** Bound on the bytes the answers take in the file (default DEFAULT_MAX_BYTES); the oldest stored go first. */
  readonly maxBytes?: number;
  /** The database's revision token (see lib/cache/revision.ts); `null` when none can be had (nothing is stored or reused). */
  revision(): Promise<string | null>;
  /**
   * `revision()` names the database's state alone, equal in every process
   * that sees the same commits (PostgreSQL's snapshot): tokens are kept
   * without the per-process nonce, so processes sharing the file do not
   * prove and re-token each other's answers on every hit.
   */
  readonly sharedRevision?: boolean;
  /** Current versions of cache tags (absent: never bumped, version 0). */
  versions(tags: readonly number[]): Promise<Map<number, number>>;
  /** Tags every answer depends on (the site's options and users, the database epoch). */
  readonly always: readonly number[];
  /** Stored answers from another database or code version are discarded: this names the current one. */
  readonly identity: string;
  readonly logger?: { error(message: string, error?: unknown): void };
  /**
   * The site's SQLite file, when the site is on SQLite, and its cache-tags
   * table (lib/db/cache-tags.ts): the store attaches it and proves an answer
   * in the statement that reads it (no revision token, nothing to update
   * afterwards).
   */
  readonly attach?: { file: string; cacheTags: string };
  /** The database's tag changes (`Dialect.tagChanges`): kept records are proved from memory with them (tag-feed.ts). */
  readonly changes?: TagChanges;
}

/** What a build gives the store: the answer and the tags it showed. */
export interface BuiltAnswer {
  answer: Answer;
  /** The handler's own 2xx: false for refusals and errors, also where `_envelope` wrapped them in a 200. Only successes are kept. */
  success: boolean;
  /** `null`: the answer must not be stored (the handler did not name what it shows, or it is private). */
  tags: ReadonlySet<number> | null;
  /** The handler's `RestRequest.reuseWhile` check, given with `tags` only. */
  reuseWhile?: () => Promise<boolean>;
}

/**
 * The default bound of a store file: 512 MiB, about twice what every public
 * record of a 100k-event site takes by ID and by slug, so a large site keeps
 * all its answers, while no traffic can make the file grow past it.
 */
export const DEFAULT_MAX_BYTES = 512 * 1024 * 1024;
/**
 * Bound on the record texts held in front of the file (heap outside V8's,
 * in RSS), as packed in it where that is LZ4 (a few times smaller, and
 * unpacked in about a microsecond): every record of a 10k-event site, the
 * pages most read of a larger one.
 */
const RECORD_FRONT_BYTES = 16 * 1024 * 1024;
/** The share of the stored answers deleted, oldest first, when the bound is passed: eviction runs once per so many stores, not at each. */
const EVICT_SHARE = 0.1;

/** A record in front of the file: `bytes` as packed in the file where `lz4`, else the text itself (inflating costs more than a read). */
interface FrontRecord {
  bytes: Buffer;
  lz4: boolean;
  tags: number[];
  position: string;
}

/** A kept record's row: `token` is the tag-feed position it was marked with ("" for none). */
interface RecordRow extends StoredRow {
  id: number;
  key: string;
  token: string;
  tags: string;
}

interface StoredRow {
  /** Not read where the statement proves the answer itself (`selectValid`). */
  token?: string;
  tags?: string;
  status: number;
  no_cache: number;
  /** The header list as JSON, a newline, then the body, deflated (see `pack`). */
  answer: Buffer;
  /** How `answer` is packed: PACKED_* below. */
  packing: number;
}

/*
 * Answers are rows of a rowid table keyed by a 53-bit hash of their key
 * (the key itself is compared too: a collision is a miss, and the later
 * answer replaces the earlier). A WITHOUT ROWID table keyed by the long key
 * text would carry the rows in its own b-tree pages, with a fan-out of about
 * four: many more pages to read per lookup.
 *
 * Each answer (headers and body) is kept deflated against a preset
 * dictionary: the first answer of at least DICTIONARY_MIN bytes the store
 * kept (smaller ones share too little; answers kept before it are deflated
 * without one), which shares with every other the REST root, the field
 * names and most header values. The file's size decides the speed at
 * scale: a machine that reclaims file pages left unread turns hits on a
 * large file into disk reads, and several answers per 8 kB page make
 * SQLite's own page cache cover several times more of them.
 */
const SCHEMA = `
DROP TABLE IF EXISTS answers;
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS dictionary (id INTEGER PRIMARY KEY CHECK (id = 1), bytes BLOB NOT NULL);
`;
const ANSWERS_TABLE = `
CREATE TABLE IF NOT EXISTS stored_answers (
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL,
  token TEXT NOT NULL,
  tags TEXT NOT NULL,
  status INTEGER NOT NULL,
  no_cache INTEGER NOT NULL,
  packing INTEGER NOT NULL,
  answer BLOB NOT NULL,
  stored_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS stored_answers_age ON stored_answers(stored_at);
`;

/** `packing`: the header list as JSON, a newline and the body, deflated without a dictionary (stored before the file had one). */
const PACKED_DEFLATE = 0;
/** `packing`: as PACKED_DEFLATE, against the file's dictionary. */
const PACKED_DEFLATE_DICTIONARY = 1;
/** `packing`: a kept record's bytes alone (records have no headers), an LZ4 block against the file's dictionary. */
const PACKED_RECORD_LZ4 = 2;

/** The most of an answer kept as the dictionary (deflate looks back 32 kB at most). */
const DICTIONARY_BYTES = 32 * 1024;
/** The least an answer (headers and body) must have to become the dictionary. */
const DICTIONARY_MIN = 3 * 1024;

/**
 * The row id of a key: a 53-bit hash (a safe integer for JavaScript and
 * SQLite alike). Two 32-bit multiply-xorshift lanes over the UTF-16 code
 * units: no cryptographic strength is needed (the key is compared too, a
 * collision only costs a miss), and unlike `createHash("md5")` it allocates
 * nothing on the hit path.
 */
export function keyId(key: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/**
 * Bumped when the rows' meaning changes (how ids are derived, what a column
 * holds): a store file written under another format is emptied when opened.
 */
const STORE_FORMAT = 5;

/**
 * A stored answer still good under the current tag versions of the attached
 * site database, in one statement: what the tags are now is read in the
 * same snapshot as the answer, so nothing can commit in between.
 */
function selectValid(cacheTags: string): string {
  return `SELECT status, no_cache, packing, answer FROM stored_answers a WHERE a.id = ? AND a.key = ? AND ${provedHere(cacheTags)}`;
}

/** Which of many rows (ids as a JSON array) are still good, as `selectValid` proves one. */
function provedManyHere(cacheTags: string): string {
  return `SELECT a.id FROM stored_answers a WHERE a.id IN (SELECT value FROM json_each(?)) AND ${provedHere(cacheTags)}`;
}

/** Without the database's tag changes every sync starts over: a record is then proved again whenever the revision moved. */
const EVERYTHING_CHANGES: TagChanges = {
  since: (() => {
    let n = 0;
    return async () => ({ position: `all ${++n}`, all: true as const });
  })(),
};

/** The condition that every tag of row `a` still has the version it was stored with. */
function provedHere(cacheTags: string): string {
  // better-sqlite3 cannot bind a name: `cacheTags` is the site's cache-tags table (lib/db/tables.ts admits only letters, digits and `_`).
  if (!/^[a-z0-9_]+$/.test(cacheTags)) throw new Error(`not a table name: ${cacheTags}`);
  return `NOT EXISTS (SELECT 1 FROM json_each(a.tags) j
    WHERE coalesce((SELECT t.version FROM site."${cacheTags}" t WHERE t.tag = json_extract(j.value, '$[0]')), 0) <> json_extract(j.value, '$[1]'))`;
}

/**
 * The output chunk kept records are inflated into. Node's synchronous
 * inflate allocates its chunk size (16 kB by default) for every call and
 * hands back a slice of it; a list page inflates 20 to 50 records of 1 to
 * 4 kB, and with the default ~0.8 MB of buffers per page kept the garbage
 * collector busy. Larger records take more than one chunk, as before.
 */
const RECORD_CHUNK = 4096;

/** Kept records (records.ts) share the file with answers: their keys are kept apart by this prefix (an answer key starts with its URL). */
const RECORD_KEY = "record ";

interface Lz4 {
  compressSync(data: Buffer, dict?: Buffer): Buffer;
  uncompressSync(data: Uint8Array, dict?: Uint8Array): Buffer;
}
let lz4Module: Lz4 | null | undefined;

/**
 * LZ4 for kept records, where its prebuilt native module loads (lz4-napi;
 * elsewhere records are deflated as answers are). A list page reads back 20
 * to 50 records of ~4 kB: inflating one took ~12 µs (most of it setting up
 * a zlib stream, which Node's synchronous API cannot reuse), an LZ4 block
 * ~3.5 µs, for ~4× smaller against the dictionary instead of ~7×. Single
 * answers, one per request, stay deflated: the file's size matters more.
 */
function lz4(): Lz4 | null {
  if (lz4Module === undefined) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      lz4Module = require("lz4-napi") as Lz4;
    } catch {
      lz4Module = null;
    }
  }
  return lz4Module;
}

/**
 * How long a store write may wait for another process's write to end. The
 * store is read and written synchronously (better-sqlite3, below), so a
 * wait holds up this process's event loop: short, and an answer that could
 * not be stored in time is simply not stored. Reads never wait in WAL mode.
 */
const WRITE_WAIT_MS = 50;

/*
 * The store is read synchronously, with better-sqlite3 (calpress's one
 * SQLite driver, as for the site's own SQLite files). A read is a single
 * indexed row, cheaper than a hand-off to a driver's thread pool, whose
 * threads would also compete with the event loop for the cores.
 */
type SqliteDatabase = import("better-sqlite3").Database;
type SqliteStatement = import("better-sqlite3").Statement;

export class AnswerStore {
  private readonly nonce = randomBytes(6).toString("hex");
  private readonly always: readonly number[];
  private readonly counters = { hits: 0, early: 0, proved: 0, built: 0, stored: 0, skipped: 0, evicted: 0 };
  /** Kept records (records.ts) are counted apart from answers. */
  private readonly recordCounters = { hits: 0, proved: 0, kept: 0, skipped: 0 };
  private readonly maxBytes: number;
  /** Proves kept records from memory (see getRecords). */
  private readonly feed: TagFeed;
  /**
   * Record texts lately read or kept, in front of the file: a list page's
   * records without a statement (`FrontRecord`). Each keeps the feed
   * position its row was proved at and is proved from it as the row would
   * be (so it is never good where the row would not be). Least recently
   * used first out past RECORD_FRONT_BYTES.
   */
  private readonly front = new BytesBoundedMap<FrontRecord>(RECORD_FRONT_BYTES, RECORD_FRONT_BYTES / 64);
  /** The preset dictionary of every answer in the file (see SCHEMA); read when first needed, chosen by the first answer stored. */
  private dictionary: Buffer | undefined;

  private constructor(
    private readonly db: SqliteDatabase,
    private readonly select: SqliteStatement,
    private readonly upsert: SqliteStatement,
    private readonly retoken: SqliteStatement,
    private readonly options: AnswerStoreOptions,
    private readonly dictionarySelect: SqliteStatement = db.prepare("SELECT bytes FROM dictionary WHERE id = 1"),
    private readonly dictionaryInsert: SqliteStatement = db.prepare("INSERT OR IGNORE INTO dictionary(id, bytes) VALUES (1, ?)"),
    private readonly pageCount: SqliteStatement = db.prepare("SELECT (SELECT page_count FROM pragma_page_count()) - (SELECT freelist_count FROM pragma_freelist_count()) AS pages"),
    private readonly rowCount: SqliteStatement = db.prepare("SELECT count(*) AS n FROM stored_answers"),
    private readonly recordCount: SqliteStatement = db.prepare("SELECT count(*) AS n FROM stored_answers WHERE substr(key, 1, ?) = ?"),
    private readonly evictOldest: SqliteStatement = db.prepare("DELETE FROM stored_answers WHERE id IN (SELECT id FROM stored_answers ORDER BY stored_at LIMIT ?)"),
    private readonly selectRecords: SqliteStatement = db.prepare("SELECT id, key, token, tags, packing, answer FROM stored_answers WHERE id IN (SELECT value FROM json_each(?))"),
    /** Attached site file: which of the rows (ids as a JSON array) are still good, proved in the statement. */
    private readonly proveRecords: SqliteStatement | undefined = options.attach !== undefined ? db.prepare(provedManyHere(options.attach.cacheTags)) : undefined,
  ) {
    this.feed = new TagFeed(options.changes ?? EVERYTHING_CHANGES, { revision: options.revision });
    this.always = [...new Set(options.always)];
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    this.pageSize = Number(db.pragma("page_size", { simple: true }));
  }

  private readonly pageSize: number;

  static async open(options: AnswerStoreOptions): Promise<AnswerStore> {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const Sqlite = require("better-sqlite3") as typeof import("better-sqlite3");
    if (options.file !== ":memory:") fs.mkdirSync(path.dirname(path.resolve(options.file)), { recursive: true });
    const db = new Sqlite(options.file, { timeout: WRITE_WAIT_MS });
    try {
      // The page size only takes on a new file, and must come before WAL.
      db.pragma("page_size = 8192");
      if (options.file !== ":memory:") db.pragma("journal_mode = WAL");
      db.pragma("synchronous = NORMAL");
      db.exec(SCHEMA);
      const identity = `format ${STORE_FORMAT}; ${options.identity}`;
      const stored = db.prepare("SELECT value FROM meta WHERE name = 'identity'").get() as { value: string } | undefined;
      if (stored?.value !== identity) {
        // Dropped, not emptied: an earlier format's table has other columns.
        db.transaction(() => {
          db.exec("DROP TABLE IF EXISTS stored_answers; DELETE FROM dictionary;");
          db.prepare("INSERT OR REPLACE INTO meta(name, value) VALUES ('identity', ?)").run(identity);
        })();
      }
      db.exec(ANSWERS_TABLE);
      if (options.attach !== undefined) db.prepare("ATTACH DATABASE ? AS site").run(options.attach.file);
      // Each attached file has a page cache of its own.
      for (const schema of options.attach !== undefined ? ["main", "site"] : ["main"]) db.pragma(`${schema}.cache_size = -${SQLITE_PAGE_CACHE_KIB}`);
      return new AnswerStore(
        db,
        db.prepare(options.attach !== undefined ? selectValid(options.attach.cacheTags) : "SELECT token, tags, status, no_cache, packing, answer FROM stored_answers WHERE id = ? AND key = ?"),
        db.prepare("INSERT OR REPLACE INTO stored_answers(id, key, token, tags, status, no_cache, packing, answer, stored_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"),
        db.prepare("UPDATE stored_answers SET token = ? WHERE id = ? AND key = ?"),
        options,
      );
    } catch (err) {
      db.close();
      throw err;
    }
  }

  /**
   * Whether `peek` can answer: the store proves answers in the statement
   * that reads them (SQLite sites). Elsewhere proving needs the database's
   * revision, which is asked asynchronously, inside `answer`.
   */
  get synchronous(): boolean {
    return this.options.attach !== undefined;
  }

  /**
   * The stored answer for `key` if it is still good, read and proved
   * synchronously (`synchronous` stores only; `undefined` otherwise): the
   * HTTP layer sends it before doing any other work for the request.
   */
  peek(key: string): Answer | undefined {
    if (this.options.attach === undefined) return undefined;
    const valid = this.read(keyId(key), key);
    const response = valid === undefined ? undefined : this.unpack(valid);
    if (response === undefined) return undefined;
    this.counters.hits++;
    this.counters.early++;
    return response;
  }

  /** How answers were given since the store opened (tests, diagnostics); `early`: the hits that `peek` gave; `evicted`: answers deleted at the bound. */
  stats(): { hits: number; early: number; proved: number; built: number; stored: number; skipped: number; evicted: number } {
    return { ...this.counters };
  }

  /** SQLite's page cache of the store's file and of the attached site file, in KiB (tests, diagnostics). */
  pageCacheKib(): { main: number; site?: number } {
    const kib = (schema: string): number => -Number(this.db.pragma(`${schema}.cache_size`, { simple: true }));
    return this.options.attach !== undefined ? { main: kib("main"), site: kib("site") } : { main: kib("main") };
  }

  /** Stored answers, kept records and the bytes of the file's pages in use (tests, diagnostics). */
  size(): { answers: number; records: number; bytes: number } {
    const rows = (this.rowCount.get() as { n: number }).n;
    const records = (this.recordCount.get(RECORD_KEY.length, RECORD_KEY) as { n: number }).n;
    return { answers: rows - records, records, bytes: this.usedBytes() };
  }

  private usedBytes(): number {
    return (this.pageCount.get() as { pages: number }).pages * this.pageSize;
  }

  /** Past the bound, the oldest stored share of the answers goes (see the class comment). */
  private evictPastBound(): void {
    // Deleted rows free whole pages only once their neighbours on a page go
    // too: delete further tenths until the pages in use are within the bound.
    while (this.usedBytes() > this.maxBytes) {
      const rows = (this.rowCount.get() as { n: number }).n;
      if (rows === 0) return;
      this.counters.evicted += this.evictOldest.run(Math.max(1, Math.ceil(rows * EVICT_SHARE))).changes;
    }
  }

  /**
   * The stored answer for `key` when it is still good, else `build()`'s,
   * stored when it may be (a 200 whose tags are known, built while nothing
   * committed). `peeked`: the caller has just had a miss from `peek` for
   * this key, which is not read again.
   */
  async answer(key: string, build: () => Promise<BuiltAnswer>, peeked = false): Promise<Answer> {
    const id = keyId(key);
    if (this.options.attach !== undefined) {
      // The statement itself proves the answer (see `selectValid`): no token needed.
      const valid = peeked ? undefined : this.read(id, key);
      const response = valid === undefined ? undefined : this.unpack(valid);
      if (response !== undefined) {
        this.counters.hits++;
        return response;
      }
      return this.buildAndStore(id, key, build, await this.options.revision());
    }
    const revision = await this.options.revision();
    if (revision === null) return (await build()).answer;
    const token = this.tokenOf(revision);
    const row = this.read(id, key);
    const response = row === undefined ? undefined : this.unpack(row);
    if (row !== undefined && response !== undefined) {
      if (row.token === token) {
        this.counters.hits++;
        return response;
      }
      if (await this.stillGood(row)) {
        this.counters.proved++;
        this.write("updating a token", () => this.retoken.run(token, id, key));
        return response;
      }
    }
    return this.buildAndStore(id, key, build, revision);
  }

  private async buildAndStore(id: number, key: string, build: () => Promise<BuiltAnswer>, revision: string | null): Promise<Answer> {
    if (revision === null) return (await build()).answer;
    const token = this.tokenOf(revision);
    this.counters.built++;
    const built = await build();
    const { answer: response, tags } = built;
    if (tags === null || !built.success || response.status !== 200 || response.noCache) return response;
    const all = [...new Set([...this.always, ...tags])].sort((a, b) => a - b);
    const versions = await this.options.versions(all);
    if ((await this.options.revision()) !== revision) {
      this.counters.skipped++;
      return response;
    }
    const pairs = all.map((tag) => [tag, versions.get(tag) ?? 0]);
    // Where the statement proves answers (attach) the token is never read: not kept.
    const kept = this.options.attach !== undefined ? "" : token;
    const stored = this.write("storing an answer", () => {
      const { packing, answer } = this.pack(response);
      this.upsert.run(id, key, kept, JSON.stringify(pairs), response.status, response.noCache ? 1 : 0, packing, answer, Date.now());
      this.evictPastBound();
    });
    if (stored) this.counters.stored++;
    return response;
  }

  /** Kept records in this file, beside the answers (records.ts). */
  readonly records: RecordCache & { stats(): RecordStats } = {
    stats: () => ({ ...this.recordCounters }),
    token: () => this.options.revision(),
    get: (keys, _parts, shown) => this.getRecords(keys, shown),
    keep: (token, records) => this.keepRecords(token, records),
  };

  /*
   * Kept records are proved by the tag feed (tag-feed.ts) where it can: a
   * record row's `token` is the feed position of the state it was built
   * from (or proved at), and the record is still good while none of its
   * tags changed after it, which the feed answers from memory. Rows the
   * feed cannot answer for (kept by another process, before this one
   * started, or longer ago than it remembers) are proved as answers are,
   * against their tag versions, and marked with the current position.
   */
  private async getRecords(keys: readonly string[], shown?: Set<number>): Promise<Map<string, Buffer>> {
    const out = new Map<string, Buffer>();
    if (keys.length === 0) return out;
    // Read before the rows: the feed's answers then cover every commit the rows could have missed.
    const token = await this.feed.current();
    if (token === null) return out;
    const wanted = new Map<number, string>();
    for (const key of keys) {
      const front = this.front.get(key);
      if (front !== undefined) {
        // Proved as the row it was read from is: by the feed, from its position.
        const text = this.feed.unchangedSince(front.position, front.tags) === true ? this.frontText(front) : undefined;
        if (text !== undefined) {
          this.front.touch(key);
          out.set(key, text);
          addShown(shown, front.tags);
          continue;
        }
        this.front.delete(key);
      }
      wanted.set(keyId(RECORD_KEY + key), RECORD_KEY + key);
    }
    if (wanted.size === 0) {
      this.recordCounters.hits += out.size;
      return out;
    }
    let rows: RecordRow[];
    try {
      rows = this.selectRecords.all(JSON.stringify([...wanted.keys()])) as RecordRow[];
    } catch (err) {
      this.options.logger?.error("stored answers: reading records failed", err);
      return out;
    }
    const texts = (row: RecordRow, tags: number[], position: string | null): void => {
      const bytes = this.unpackRecord(row);
      if (bytes === undefined) return;
      const key = row.key.slice(RECORD_KEY.length);
      out.set(key, bytes);
      if (position !== null) this.front.set(key, row.packing === PACKED_RECORD_LZ4 ? { bytes: row.answer, lz4: true, tags, position } : { bytes, lz4: false, tags, position });
    };
    const wantedKeys = new Set(wanted.values());
    const unproved: Array<RecordRow & { pairs: Array<[number, number]>; tagIds: number[] }> = [];
    for (const row of rows) {
      if (!wantedKeys.has(row.key)) continue;
      let pairs: Array<[number, number]>;
      try {
        pairs = JSON.parse(row.tags) as Array<[number, number]>;
      } catch {
        continue; // Unreadable tags: a miss.
      }
      const tags = pairs.map(([tag]) => tag);
      const unchanged = row.token === "" ? undefined : this.feed.unchangedSince(row.token, tags);
      if (unchanged === true) {
        texts(row, tags, row.token);
        addShown(shown, tags);
      } else if (unchanged === undefined && pairs.length > 0) unproved.push({ ...row, pairs, tagIds: tags });
    }
    this.recordCounters.hits += out.size;
    if (unproved.length === 0) return out;
    let proved: typeof unproved;
    if (this.proveRecords !== undefined) {
      // Proved in the statement itself, against the attached site file.
      const good = new Set((this.proveRecords.all(JSON.stringify(unproved.map((r) => r.id))) as Array<{ id: number }>).map((r) => r.id));
      proved = unproved.filter((row) => good.has(row.id));
    } else {
      const all = new Set<number>();
      for (const row of unproved) for (const tag of row.tagIds) all.add(tag);
      const current = await this.options.versions([...all]);
      proved = unproved.filter((row) => row.pairs.every(([tag, version]) => (current.get(tag) ?? 0) === version));
    }
    // Good at the state the feed was synced for before they were read (versions only grow): marked with its position.
    const position = await this.feed.markFor(token);
    for (const row of proved) {
      texts(row, row.tagIds, position);
      addShown(shown, row.tagIds);
    }
    this.recordCounters.proved += proved.length;
    if (position !== null && proved.length > 0) {
      this.write("marking records", () => this.db.transaction(() => {
        for (const row of proved) this.retoken.run(position, row.id, row.key);
      })());
    }
    return out;
  }

  private async keepRecords(revision: string, records: readonly KeptRecord[]): Promise<void> {
    if (records.length === 0) return;
    const all = unionTags(this.always, records);
    const versions = await this.options.versions(all);
    // Built from the state under `revision` (read before the posts were loaded): its position, unless something committed since.
    const position = await this.feed.markFor(revision);
    if (position === null) {
      this.recordCounters.skipped += records.length;
      return;
    }
    const now = Date.now();
    const packed = records.map((r) => this.packRecord(r.bytes));
    const stored = this.write("keeping records", () => this.db.transaction(() => {
      records.forEach((r, i) => {
        const pairs = unionTags(this.always, [r]).map((tag) => [tag, versions.get(tag) ?? 0]);
        const key = RECORD_KEY + r.key;
        this.upsert.run(keyId(key), key, position, JSON.stringify(pairs), 200, 0, packed[i].packing, packed[i].answer, now);
      });
      this.evictPastBound();
    })());
    if (stored) {
      this.recordCounters.kept += records.length;
      records.forEach((r, i) => {
        const lz4 = packed[i].packing === PACKED_RECORD_LZ4;
        this.front.set(r.key, { bytes: lz4 ? packed[i].answer : r.bytes, lz4, tags: unionTags(this.always, [r]), position });
      });
    }
  }

  /** The token an answer proved under `revision` is kept with. */
  private tokenOf(revision: string): string {
    return this.options.sharedRevision === true ? `shared:${revision}` : `${this.nonce}:${revision}`;
  }

  /** Writes are synchronous: nothing is ever under way between calls (kept for callers that wait for stores). */
  async flush(): Promise<void> {}

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  /** A store that cannot be read (damaged, locked for recovery) answers a miss, never a failed request. */
  private read(id: number, key: string): StoredRow | undefined {
    try {
      return this.select.get(id, key) as StoredRow | undefined;
    } catch (err) {
      this.options.logger?.error("stored answers: reading failed", err);
      return undefined;
    }
  }

  /** A write that fails (another process holding the store longer than WRITE_WAIT_MS) leaves the answer unstored. */
  private write(what: string, run: () => unknown): boolean {
    try {
      return run() !== false;
    } catch (err) {
      this.options.logger?.error(`stored answers: ${what} failed`, err);
      return false;
    }
  }

  /**
   * The file's dictionary, if it has one yet. `candidate`, when large
   * enough, becomes it if none was chosen; another process may have chosen
   * first, so what is in the file wins.
   */
  private dictionaryFor(candidate?: Buffer): Buffer | undefined {
    if (this.dictionary !== undefined) return this.dictionary;
    if (candidate !== undefined && candidate.length >= DICTIONARY_MIN) this.dictionaryInsert.run(candidate.subarray(0, DICTIONARY_BYTES));
    const row = this.dictionarySelect.get() as { bytes: Buffer } | undefined;
    this.dictionary = row?.bytes;
    return this.dictionary;
  }

  /** Headers (JSON, which has no raw newline), a newline and the body, deflated: see SCHEMA. */
  private pack(response: Answer): { packing: number; answer: Buffer } {
    const plain = Buffer.concat([Buffer.from(`${JSON.stringify(response.headers)}\n`), response.body ?? Buffer.alloc(0)]);
    const dictionary = this.dictionaryFor(plain);
    return dictionary === undefined ? { packing: PACKED_DEFLATE, answer: deflateRawSync(plain) } : { packing: PACKED_DEFLATE_DICTIONARY, answer: deflateRawSync(plain, { dictionary }) };
  }

  /** A kept record: LZ4 against the dictionary where both are at hand, else as an answer. */
  private packRecord(bytes: Buffer): { packing: number; answer: Buffer } {
    const fast = lz4();
    // The dictionary is chosen among answers as they are packed (headers, a newline, the body).
    const dictionary = fast === null ? undefined : (this.dictionary ?? this.dictionaryFor(Buffer.concat([Buffer.from("[]\n"), bytes])));
    if (fast === null || dictionary === undefined) return this.pack({ status: 200, headers: [], body: bytes, noCache: false });
    return { packing: PACKED_RECORD_LZ4, answer: fast.compressSync(bytes, dictionary) };
  }

  /** A front record's text (`FrontRecord`); `undefined` (a miss) when it cannot be unpacked. */
  private frontText(front: FrontRecord): Buffer | undefined {
    return front.lz4 ? this.unpackRecord({ packing: PACKED_RECORD_LZ4, answer: front.bytes, status: 200, no_cache: 0 }) : front.bytes;
  }

  /** A kept record's bytes; `undefined` (a miss) when they cannot be read back (an LZ4 row where LZ4 cannot load). */
  private unpackRecord(row: StoredRow): Buffer | undefined {
    if (row.packing !== PACKED_RECORD_LZ4) {
      const answer = this.unpack(row, RECORD_CHUNK);
      return answer === undefined ? undefined : (answer.body ?? Buffer.alloc(0));
    }
    const fast = lz4();
    try {
      const dictionary = this.dictionaryFor();
      if (fast !== null && dictionary !== undefined) return fast.uncompressSync(row.answer, dictionary);
    } catch (err) {
      this.options.logger?.error("stored answers: a kept record could not be read back", err);
    }
    return undefined;
  }

  private unpack(row: StoredRow, chunkSize?: number): Answer | undefined {
    let dictionary: Buffer | undefined;
    try {
      if (row.packing === PACKED_DEFLATE_DICTIONARY) dictionary = this.dictionaryFor();
    } catch (err) {
      this.options.logger?.error("stored answers: reading the dictionary failed", err);
    }
    const response = row.packing === PACKED_DEFLATE_DICTIONARY && dictionary === undefined ? undefined : unpackAnswer(row, dictionary, chunkSize);
    if (response === undefined) this.options.logger?.error("stored answers: a stored answer could not be read back");
    return response;
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

/** A stored answer as it was composed; `undefined` (a miss) when it cannot be read back. */
function unpackAnswer(row: StoredRow, dictionary: Buffer | undefined, chunkSize: number | undefined): Answer | undefined {
  try {
    const plain = inflateRawSync(row.answer, { ...(dictionary === undefined ? {} : { dictionary }), ...(chunkSize === undefined ? {} : { chunkSize }) });
    const newline = plain.indexOf(10);
    if (newline < 0) return undefined;
    const headers = JSON.parse(plain.toString("utf8", 0, newline)) as Array<[string, string]>;
    return { status: row.status, headers, body: plain.subarray(newline + 1), noCache: row.no_cache === 1 };
  } catch {
    return undefined;
  }
}
