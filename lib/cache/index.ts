import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { EngineContext } from "../engine-context";
import { describeConnection } from "../db/target";
import { EPOCH_TAG, readTagVersions, SITE_TAG } from "../db/cache-tags";
import { cacheTagsMaintained } from "../db/dialects";
import { CALPRESS_VERSION, codeFingerprint } from "../version";
import { AnswerStore } from "./answer-store";
import { DEFAULT_MEMORY_RECORD_BYTES, RecordsWithParts, type RecordCache, type RecordStats } from "./records";
import type { ResponseCacheOptions } from "./response-cache";
import { runGuarded, snapshotTags, type WriteGuards } from "./write-guard";

/**
 * The caching of one site, wired in one place (README.md in this folder).
 * What `createSite` hands the REST server, from the engine and the site's
 * `responseCache` / `answerStore` settings.
 */
export interface CachingOptions {
  /** `SiteOptions.responseCache`: `false` turns the memory layer off. */
  readonly responseCache?: { maxBytes?: number; maxAgeMs?: number } | false;
  /** `SiteOptions.answerStore`: the stored-answer file; off when absent or `false`. */
  readonly answerStore?: { file: string; version?: string; maxBytes?: number } | false;
  /** `SiteOptions.records`: `false` keeps none; in the answer store's file when there is one, else in `file` (default `defaultRecordFile`), in memory where no file can serve. */
  readonly records?: { maxBytes?: number; file?: string | null } | false;
  readonly logger?: { error(message: string, err?: unknown): void };
}

export interface Caching {
  /** `RestServerOptions.responseCache`: undefined where the database gives no revision token, or when turned off. */
  readonly responseCache: ResponseCacheOptions | undefined;
  /** `RestServerOptions.writeGuards`: undefined where the dialect has no tag triggers; their snapshots are null where the server refused them. */
  readonly writeGuards: WriteGuards | undefined;
  /**
   * Opens the answer store (`RestServer.answerStore`), or undefined when
   * there is none to open. Call it after the migrations: the store's
   * identity includes the epoch tag they make.
   */
  openStore(): Promise<AnswerStore | undefined>;
  /**
   * Opens the kept records (`RouteTable.records`): in the opened answer
   * store's file, else in a file of their own (`defaultRecordFile`), else in
   * memory; undefined where tags are not kept or when turned off. `close`
   * closes a file of their own.
   */
  openRecords(store: AnswerStore | undefined): Promise<KeptRecords | undefined>;
}

export interface KeptRecords {
  readonly records: RecordCache;
  /** The file they are kept in, null in memory (diagnostics, tests). */
  readonly file: string | null;
  close(): Promise<void>;
}

/** The part of the engine caching reads: its database, tables and read cache, and whether its tags are kept (`Engine.cacheTagsKept`, known after the migration). */
export type CachedEngine = Pick<EngineContext, "knex" | "dialect" | "tables" | "readCache" | "options"> & { readonly cacheTagsKept: boolean };

export function createCaching(engine: CachedEngine, options: CachingOptions): Caching {
  return {
    responseCache: responseCacheOptions(engine, options.responseCache),
    // Made before the migration, which says whether the server let it create the triggers: asked per snapshot.
    writeGuards:
      engine.dialect.cacheTagTriggers !== null
        ? {
            snapshot: async (tags) => (engine.cacheTagsKept ? snapshotTags(engine.knex, engine.tables, tags) : null),
            run: (snapshot, stale, work) => runGuarded(snapshot, stale, work),
          }
        : undefined,
    openStore: () => openAnswerStore(engine, options),
    openRecords: (store) => openRecords(engine, options, store),
  };
}

/**
 * Kept records live outside the heap by default, in a file every process of
 * the site reads (records.ts): a record built by one worker is reused by the
 * others and after a restart, and the heap stays bounded whatever the number
 * of events. Where that file cannot be had they are kept in memory, by the
 * same store on a SQLite database in memory (16 MiB unless `maxBytes` says).
 */
async function openRecords(engine: CachedEngine, options: CachingOptions, store: AnswerStore | undefined): Promise<KeptRecords | undefined> {
  if (options.records === false || engine.readCache === null || !engine.cacheTagsKept) return undefined;
  // Whole texts and their parts (embedded terms) in one store, proved alike.
  const kept = (texts: RecordCache & { stats(): RecordStats }): RecordCache & { stats(): RecordStats } => withFreshOptions(new RecordsWithParts(texts), engine);
  if (store !== undefined) return { records: kept(store.records), file: null, close: async () => undefined };
  const setting = options.records;
  const logger = options.logger ?? console;
  const file = setting?.file !== undefined ? setting.file : defaultRecordFile(engine, options.logger);
  if (file !== null) {
    try {
      const own = await openStoreFile(engine, { file, version: "records", maxBytes: setting?.maxBytes }, options.logger);
      return { records: kept(own.records), file, close: () => own.close() };
    } catch (err) {
      logger.error(`calpress: kept records cannot use ${file}; they are kept in memory`, err);
    }
  }
  // The same store on a SQLite database in this process's memory: one implementation of kept records, bounded by bytes.
  try {
    const memory = await openStoreFile(engine, { file: ":memory:", version: "records", maxBytes: setting?.maxBytes ?? DEFAULT_MEMORY_RECORD_BYTES }, options.logger);
    return { records: kept(memory.records), file: null, close: () => memory.close() };
  } catch (err) {
    logger.error("calpress: kept records cannot be kept in memory either; every record is built", err);
    return undefined;
  }
}

/**
 * Records are built after `token()` and kept under it: the options they
 * show must be at least as new as that token, so the options cache (which
 * notices another process's write only after up to a second) is checked
 * again right after the token is read. Without it a record built from
 * options another process had just replaced would carry the new site tag
 * and be proved good until the next write.
 */
function withFreshOptions(records: RecordsWithParts, engine: Pick<CachedEngine, "options">): RecordCache & { stats(): RecordStats } {
  // Once per token: under an unchanged token nothing was written since the last check.
  let checked: string | null = null;
  return {
    token: async () => {
      const token = await records.token();
      if (token !== null && token !== checked) {
        await engine.options.recheck();
        checked = token;
      }
      return token;
    },
    get: (keys, parts, shown) => records.get(keys, parts, shown),
    keep: (token, kept) => records.keep(token, kept),
    stats: () => records.stats(),
  };
}

/**
 * Where a site's records are kept when nobody says: beside its SQLite file
 * (`<file>.records`); for a database server (PostgreSQL, MariaDB), in a file of this machine named
 * after the database and the table prefix, in a directory of this user's
 * only (another local user must not be able to plant records); null for a
 * SQLite database in memory (one process: memory serves).
 *
 * One file per machine, not a table in the database: a list reads its 20 to
 * 50 records in one local statement, LZ4-packed, instead of ~200 kB over the
 * wire, and a process on another machine keeps its own file, proved by the
 * same tags.
 */
export function defaultRecordFile(engine: Pick<CachedEngine, "knex" | "dialect" | "tables" | "readCache">, logger?: CachingOptions["logger"]): string | null {
  const file = engine.dialect.filePath(engine.knex);
  if (file !== null) return `${file}.records`;
  if (engine.readCache === null || !engine.readCache.sharesTokens) return null;
  const where = `${describeConnection(engine.knex)} ${engine.tables.cacheTags}`;
  const dir = path.join(os.tmpdir(), `calpress-${process.getuid?.() ?? "user"}`);
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = fs.statSync(dir);
    if ((process.getuid !== undefined && st.uid !== process.getuid()) || (st.mode & 0o022) !== 0) {
      (logger ?? console).error(`calpress: ${dir} is not this user's alone; kept records are kept in memory`);
      return null;
    }
  } catch (err) {
    (logger ?? console).error(`calpress: cannot create ${dir}; kept records are kept in memory`, err);
    return null;
  }
  return path.join(dir, `records-${createHash("sha256").update(where).digest("hex").slice(0, 20)}.sqlite`);
}

function responseCacheOptions(engine: CachedEngine, setting: CachingOptions["responseCache"]): ResponseCacheOptions | undefined {
  const reads = engine.readCache;
  if (setting === false || reads === null) return undefined;
  // With the tag feed, answers whose handler named their tags and a check (`reuseWhile`) outlive writes that change nothing they show.
  const feed = cacheTagsMaintained(engine.knex) ? reads.tagFeed : null;
  return { ...setting, revision: () => reads.token(), feed, always: [SITE_TAG, EPOCH_TAG] };
}

async function openAnswerStore(engine: CachedEngine, options: CachingOptions): Promise<AnswerStore | undefined> {
  const setting = options.answerStore;
  if (setting === undefined || setting === false || engine.readCache === null || !engine.cacheTagsKept) return undefined;
  return openStoreFile(engine, setting, options.logger);
}

/** An answer store's file (`store.records` alone serves a file of kept records). */
async function openStoreFile(
  engine: CachedEngine,
  setting: { file: string; version?: string; maxBytes?: number },
  logger: CachingOptions["logger"],
): Promise<AnswerStore> {
  const reads = engine.readCache;
  if (reads === null) throw new Error("no revision token: nothing can be kept");
  const epoch = (await readTagVersions(engine.knex, engine.tables, [EPOCH_TAG])).get(EPOCH_TAG) ?? 0;
  // Processes on one PostgreSQL database share a store file's proofs (see sharedToken).
  const shared = reads.sharesTokens;
  return AnswerStore.open({
    file: setting.file,
    maxBytes: setting.maxBytes,
    revision: shared ? () => reads.sharedToken() : () => reads.token(),
    sharedRevision: shared,
    versions: (tags) => readTagVersions(engine.knex, engine.tables, tags),
    always: [SITE_TAG, EPOCH_TAG],
    identity: `calpress ${CALPRESS_VERSION} ${codeFingerprint()}; epoch ${epoch}; site ${setting.version ?? ""}`,
    logger,
    attach: sqliteAttachment(engine),
    changes: engine.dialect.tagChanges(engine.knex, engine.tables) ?? undefined,
  });
}

/** The SQLite file of the site's database, if it is one (not `:memory:`), and its cache-tags table. */
function sqliteAttachment(engine: CachedEngine): { file: string; cacheTags: string } | undefined {
  const file = engine.dialect.filePath(engine.knex);
  return file === null ? undefined : { file, cacheTags: engine.tables.cacheTags };
}
