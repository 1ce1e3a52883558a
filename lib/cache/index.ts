import type { EngineContext } from "../engine-context";
import { EPOCH_TAG, readTagVersions, SITE_TAG } from "../db/cache-tags";
import { cacheTagsMaintained } from "../db/dialects";
import { CALPRESS_VERSION, codeFingerprint } from "../version";
import { AnswerStore } from "./answer-store";
import { MemoryRecords, RecordsWithParts, type RecordCache } from "./records";
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
  /** `SiteOptions.records`: `false` keeps none; in memory without an answer store. */
  readonly records?: { maxBytes?: number } | false;
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
  /** The kept records (`RouteTable.records`): in the opened store's file, else in memory; undefined where tags are not kept or when turned off. */
  records(store: AnswerStore | undefined): RecordCache | undefined;
}

/** The part of the engine caching reads: its database, tables and read cache, and whether its tags are kept (`Engine.cacheTagsKept`, known after the migration). */
export type CachedEngine = Pick<EngineContext, "knex" | "dialect" | "tables" | "readCache"> & { readonly cacheTagsKept: boolean };

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
    records: (store) => keptRecords(engine, options, store),
  };
}

function keptRecords(engine: CachedEngine, options: CachingOptions, store: AnswerStore | undefined): RecordCache | undefined {
  const reads = engine.readCache;
  if (options.records === false || reads === null || !engine.cacheTagsKept) return undefined;
  const proofs = {
    revision: () => reads.token(),
    versions: (tags: readonly number[]) => readTagVersions(engine.knex, engine.tables, tags),
    always: [SITE_TAG],
    feed: reads.tagFeed,
  };
  // Whole texts in the store's file or in memory; their parts (embedded terms) in memory either way.
  const texts = store !== undefined ? store.records : new MemoryRecords({ ...proofs, maxBytes: options.records?.maxBytes });
  return new RecordsWithParts(texts, { ...proofs, always: [SITE_TAG, EPOCH_TAG] });
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
  const reads = engine.readCache;
  if (setting === undefined || setting === false || reads === null || !engine.cacheTagsKept) return undefined;
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
    logger: options.logger,
    attach: sqliteAttachment(engine),
    changes: engine.dialect.tagChanges(engine.knex, engine.tables) ?? undefined,
  });
}

/** The SQLite file of the site's database, if it is one (not `:memory:`), and its cache-tags table. */
function sqliteAttachment(engine: CachedEngine): { file: string; cacheTags: string } | undefined {
  const file = engine.dialect.filePath(engine.knex);
  return file === null ? undefined : { file, cacheTags: engine.tables.cacheTags };
}
