import type { Knex } from "knex";
import { openDb, optimizeStorage } from "./db/connect";
import { dialectFor, type Dialect, type SearchIndexMissing, type TriggersRefused } from "./db/dialects";
import { PublishedIndex } from "./posts/published-index";
import { pgExtensionList, type PgExtension } from "./db/extensions";
import { coreTables, migrateCacheTags, migrateCore, migrateFieldTableTags, migrateSearchIndex } from "./db/migrations";
import { checkOwnership } from "./db/ownership";
import { tableNames, TableNameError, type Tables } from "./db/tables";
import { DataRevision, ReadCache } from "./cache/revision";
import { checkWriteGuard, currentWriteGuard } from "./cache/write-guard";
import type { DbOption } from "./db/target";
import type { EngineApi } from "./engine-api";
import { isRetryableTransactionError } from "./engine-errors";
import { Options, OptionsCache } from "./options/options";
import { migrateFieldTable } from "./posts/fields";
import { Posts } from "./posts/posts";
import { Occurrences } from "./posts/occurrences";
import { Registry } from "./posts/registry";
import type { PostTypeConfig } from "./posts/types";
import { isTransaction } from "./posts/sql";
import { Terms } from "./taxonomy/terms";
import type { TaxonomyConfig } from "./taxonomy/types";
import { Users } from "./users/users";
import { HookBus } from "./hooks/bus";
import { ChangeJournal } from "./hooks/journal";
import { WEBHOOK_URL_OPTION, writeOutbox } from "./hooks/outbox";
import { CHANGES_KEEP_DAYS_OPTION, DEFAULT_CHANGES_KEEP_DAYS, PRUNE_EVERY_MS, readChangeLog, writeChangeLog, type ChangeLogPage } from "./hooks/change-log";
import type { Change } from "./hooks/types";

export interface EngineOptions {
  /** The clock for post dates and scheduling (tests pin it); default the real time. */
  now?: () => Date;
  /** How long a cached option is served before the revision row is re-read; default 1000 ms. */
  optionsRecheckMs?: number;
  /**
   * Key material for application-password hashes and nonces kept outside the
   * database (as WordPress's salts); default a random key stored in the options.
   */
  secret?: string;
  /** Prefix of every table, index, trigger and function calpress creates (lib/db/tables.ts); default `cp_`. */
  tablePrefix?: string;
  /** PostgreSQL only: the schema calpress's tables live in (created when missing); default the connection's current schema. */
  schema?: string;
  /**
   * PostgreSQL only: the extensions calpress may create, in its schema, when
   * they are missing (lib/db/extensions.ts: `pg_trgm` for the search index).
   * Default none: one already installed is used, none is created.
   */
  pgExtensions?: readonly PgExtension[];
  /**
   * Whether post types that ask for it (`PostTypeConfig.publishedIndex`)
   * answer anonymous lists from memory (lib/posts/published-index.ts);
   * default true. Off, every list is a statement (the tests compare both).
   */
  publishedIndex?: boolean;
}

/** What an engine and its transaction-bound views share. */
interface Shared {
  root: Knex;
  dialect: Dialect;
  tables: Tables;
  registry: Registry;
  optionsCache: OptionsCache;
  clock: () => Date;
  /** Read results reused while the database is unchanged (SQLite and PostgreSQL; see lib/cache/revision.ts). */
  readCache: ReadCache;
  /** Whether the search index table the query can join is there (null: not looked yet). */
  searchIndex: boolean | null;
  /** Where committed changes go (lib/hooks). */
  hooks: HookBus;
  /** `EngineOptions.secret`. */
  secret: string | undefined;
  /** A migration found no core table and created them all. */
  createdSchema: boolean;
  /** Published-post indexes by post type, null for a type without one (the map null: off); decided on first use. */
  publishedIndexes: Map<string, PublishedIndex | null> | null;
  /** When this engine last pruned the change log (epoch ms; lib/hooks/change-log.ts). */
  changesPrunedAt: number;
  /** What the last migration found of the cache-tag triggers: in place ("kept"), or why the server refused them; null before one. */
  tagTriggers: "kept" | TriggersRefused | null;
  /** `EngineOptions.pgExtensions`. */
  pgExtensions: readonly PgExtension[];
  /** Why the last migration could not make the search index the host allowed; null: made, left out, or no migration yet. */
  searchIndexMissing: SearchIndexMissing | null;
}

/** Attempts of an internal write transaction that hit a deadlock / busy database. */
const MAX_WRITE_ATTEMPTS = 8;

/**
 * The posts-and-taxonomies engine. Everything it knows (registrations, the
 * options cache, the knex handle) lives on the instance, so two engines on two
 * databases in one process are independent.
 *
 * An engine bound to a transaction (from `transaction()`) shares the
 * registrations and caches of its parent and runs every statement on the
 * transaction. Inside `transaction(work)`, use the engine handed to `work`:
 * on SQLite (one connection) a call on the outer engine would wait for the
 * transaction's own connection.
 */
export class Engine implements EngineApi {
  readonly knex: Knex;
  /** What the database can do (lib/db/dialects): the one place its differences are decided. */
  readonly dialect: Dialect;
  /** The names of calpress's tables in this database (`knex(engine.tables.posts)`). */
  readonly tables: Tables;
  readonly registry: Registry;
  readonly inTransaction: boolean;
  readonly options: Options;
  readonly users: Users;
  readonly posts: Posts;
  readonly terms: Terms;
  readonly occurrences: Occurrences;
  /** The changes of this engine's transaction (null outside one). */
  private readonly journal: ChangeJournal | null;
  /** Records whose visible form this engine's transaction changed without a change of their own (the change log names them). */
  private readonly noted = { posts: new Set<number>(), terms: new Set<number>() };
  private readonly shared: Shared;

  constructor(knex: Knex, options: EngineOptions = {}, parent?: Engine) {
    const dialect = parent ? parent.dialect : dialectFor(knex);
    if (!parent && options.schema !== undefined && !dialect.hasSchemas) throw new TableNameError("schema is for PostgreSQL databases");
    const tables = parent ? parent.tables : tableNames(options.tablePrefix, options.schema ?? null);
    this.shared = parent
      ? parent.shared
      : {
          root: knex,
          dialect,
          tables,
          registry: new Registry(tables),
          optionsCache: new OptionsCache(options.optionsRecheckMs ?? 1000),
          clock: options.now ?? (() => new Date()),
          readCache: new ReadCache(new DataRevision(knex, dialect, tables), dialect.tagChanges(knex, tables)),
          searchIndex: null,
          hooks: new HookBus(),
          secret: options.secret,
          createdSchema: false,
          publishedIndexes: options.publishedIndex === false ? null : new Map(),
          changesPrunedAt: 0,
          tagTriggers: null,
          pgExtensions: pgExtensionList(options.pgExtensions),
          searchIndexMissing: null,
        };
    this.knex = knex;
    this.dialect = this.shared.dialect;
    this.tables = this.shared.tables;
    this.registry = this.shared.registry;
    this.inTransaction = isTransaction(knex);
    this.options = new Options(knex, this.tables, this.shared.optionsCache);
    // The engine is its repositories' EngineContext: checked here, where they
    // are built, rather than by `implements` (the published declarations
    // leave out its @internal members).
    this.users = new Users(this, this.shared.secret);
    this.posts = new Posts(this);
    this.terms = new Terms(this);
    this.occurrences = new Occurrences(this);
    this.journal = this.inTransaction ? new ChangeJournal() : null;
  }

  /** Change hooks: `engine.hooks.on("event.created", …)`; listeners run after the change commits. */
  get hooks(): HookBus {
    return this.shared.hooks;
  }

  /**
   * @internal The engine's write operations report each change here: kept
   * with the transaction until it commits (then to the hooks), dropped if it
   * rolls back.
   */
  recordChange(change: Change): void {
    if (this.journal) this.journal.record(change);
    else this.shared.hooks.committed([change], false);
  }

  /** @internal Records whose visible form changed in this transaction without a change of their own (the change log names them; no hook fires). */
  noteChanged(kind: "post" | "term", ids: readonly number[]): void {
    if (!this.inTransaction) return;
    const into = kind === "post" ? this.noted.posts : this.noted.terms;
    for (const id of ids) into.add(id);
  }

  /** The change log after `since` (lib/hooks/change-log.ts): at most `limit` rows, in commit order. */
  readChanges(since: number, limit: number): Promise<ChangeLogPage> {
    return readChangeLog(this.knex, this.tables, since, limit);
  }

  now(): Date {
    return this.shared.clock();
  }

  registerPostType(name: string, config: PostTypeConfig): void {
    this.registry.registerPostType(name, config);
  }

  postType(name: string): PostTypeConfig | undefined {
    return this.registry.postTypes.get(name)?.config;
  }

  postTypeNames(): string[] {
    return [...this.registry.postTypes.keys()];
  }

  registerTaxonomy(name: string, config: TaxonomyConfig): void {
    this.registry.registerTaxonomy(name, config);
  }

  taxonomy(name: string): TaxonomyConfig | undefined {
    return this.registry.taxonomies.get(name)?.config;
  }

  taxonomyNames(): string[] {
    return [...this.registry.taxonomies.keys()];
  }

  /** Whether a migration of this engine created the core schema, i.e. found a new database (the CLI's `migrate` says so). */
  get createdSchema(): boolean {
    return this.shared.createdSchema;
  }

  async migrate(): Promise<void> {
    const tables = this.tables;
    const types = [...this.registry.postTypes.values()];
    // Before anything is changed: a table of ours by name that calpress did not create stops the migration.
    await checkOwnership(this.knex, tables, [
      ...coreTables(tables),
      tables.unqualified(tables.cacheTags),
      ...(this.dialect.searchIndex?.tables(tables) ?? []),
      ...types.flatMap((type) => (type.fieldsTable ? [tables.unqualified(type.fieldsTable)] : [])),
    ]);
    if (await migrateCore(this.knex, tables)) this.shared.createdSchema = true;
    this.shared.searchIndexMissing = await migrateSearchIndex(this.knex, tables, this.shared.pgExtensions);
    let refused = await migrateCacheTags(this.knex, tables);
    for (const type of types) {
      await migrateFieldTable(this.knex, tables, type);
      if (type.fieldsTable) refused = (await migrateFieldTableTags(this.knex, tables, type.name)) ?? refused;
    }
    this.shared.tagTriggers = refused ?? "kept";
    // What was made before this migration (the response cache) holds the read cache itself: its tokens must say nothing now.
    if (refused !== null && this.shared.readCache.needsTagTriggers) this.shared.readCache.distrustRevision();
    this.shared.searchIndex = null;
    // A new index on an analysed table has no statistics of its own, which
    // is enough for SQLite to misjudge that table's other indexes: analyse it now.
    await optimizeStorage(this.knex);
  }

  /** @internal Refreshes planner statistics that went stale (SQLite; see db/connect.ts). */
  optimizeStorage(): Promise<void> {
    return optimizeStorage(this.knex);
  }

  /**
   * @internal Whether the database keeps its cache tags (lib/db/cache-tags.ts):
   * the dialect has triggers for them and the last migration did not find
   * them refused (before any migration, as the dialect says).
   */
  get cacheTagsKept(): boolean {
    return this.dialect.cacheTagTriggers !== null && (this.shared.tagTriggers === null || this.shared.tagTriggers === "kept");
  }

  /** Why the server refused the cache-tag triggers at the last migration (MariaDB/MySQL without the privileges), or null. */
  get cacheTagTriggersRefused(): TriggersRefused | null {
    const found = this.shared.tagTriggers;
    return found === null || found === "kept" ? null : found;
  }

  /** Why the last migration could not make the search index although `pgExtensions` allowed what it needs (search then scans), or null. */
  get searchIndexMissing(): SearchIndexMissing | null {
    return this.shared.searchIndexMissing;
  }

  /** Closes what the read cache holds open (a SQLite file's revision connection). */
  releaseCaches(): Promise<void> {
    return this.shared.readCache.close();
  }

  /**
   * @internal The cache of list totals, for reads outside a transaction
   * (inside one, reads must see the transaction's own uncommitted writes and,
   * on SQLite, must not wait for the connection the transaction holds).
   */
  get readCache(): ReadCache | null {
    if (this.inTransaction || !this.shared.readCache.enabled) return null;
    // A token made by the tag triggers (MariaDB/MySQL) says nothing where a migration found them refused.
    if (this.shared.readCache.needsTagTriggers && this.cacheTagTriggersRefused !== null) return null;
    return this.shared.readCache;
  }

  /**
   * @internal The in-memory index of a post type's published posts, where
   * the type asks for one and it can be kept exact: outside transactions,
   * with a read cache (its revision token says when to look for changes)
   * and tag changes (which posts to read again).
   */
  publishedIndex(type: string): PublishedIndex | null {
    const indexes = this.shared.publishedIndexes;
    if (indexes === null || this.readCache === null) return null;
    let index = indexes.get(type);
    if (index === undefined) {
      // Decided once per type: list queries of other types ask on every call.
      const registered = this.registry.postType(type);
      const changes = registered.config.publishedIndex === true ? this.dialect.tagChanges(this.shared.root, this.tables) : null;
      index = changes === null ? null : new PublishedIndex(this.shared.root, this.tables, registered, changes, this.dialect.searchCaseFolding);
      indexes.set(type, index);
    }
    return index;
  }

  /** @internal Whether search can narrow its candidates by joining the search index table (db/search-index.ts). */
  async hasSearchIndex(): Promise<boolean> {
    const index = this.dialect.searchIndex;
    if (index === null) return false;
    if (this.shared.searchIndex === null) this.shared.searchIndex = await index.joinable(this.knex, this.tables);
    return this.shared.searchIndex;
  }

  /** Runs `work` in one transaction; nested calls (on a bound engine) reuse it. */
  async transaction<T>(work: (tx: Engine) => Promise<T>): Promise<T> {
    if (this.inTransaction) return work(this);
    try {
      return await this.runTransaction(work);
    } catch (err) {
      // Option writes of the rolled-back work may sit in the cache.
      this.shared.optionsCache.invalidate();
      throw err;
    }
  }

  /**
   * The engine's own multi-statement writes: one transaction (or the current
   * one), run again from the start when the database reports a deadlock or a
   * busy file, which concurrent inserts on one unique index can cause on
   * MariaDB and several processes can cause on SQLite. Safe because the
   * failed attempt was rolled back whole and `work` only touches the
   * database. A caller's own transaction is never re-run.
   */
  async write<T>(work: (tx: Engine) => Promise<T>): Promise<T> {
    if (this.inTransaction) return work(this);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.runTransaction(work);
      } catch (err) {
        this.shared.optionsCache.invalidate();
        if (attempt >= MAX_WRITE_ATTEMPTS || !isRetryableTransactionError(err)) throw err;
        await new Promise((resolve) => setTimeout(resolve, 5 * attempt + Math.random() * 20 * attempt));
      }
    }
  }

  private async runTransaction<T>(work: (tx: Engine) => Promise<T>): Promise<T> {
    let bound: Engine | undefined;
    let wroteOutbox = false;
    // Read here, in the caller's async context (knex may run the callback in another's).
    const guard = currentWriteGuard();
    const result = await this.knex.transaction(async (trx) => {
      if (guard) await checkWriteGuard(trx, this.dialect, this.tables, guard);
      bound = new Engine(trx, {}, this);
      const out = await work(bound);
      await bound.writeChangeLog();
      wroteOutbox = await bound.writeOutbox();
      return out;
    });
    if (guard) guard.spent = true;
    // A committed option write: readers that cached the old value meanwhile must not wait for the recheck.
    if (bound?.options.wroteInTransaction) this.shared.optionsCache.invalidate();
    if (bound?.journal) this.shared.hooks.committed(bound.journal.changes(), wroteOutbox);
    return result;
  }

  /** The change log rows of this transaction's changes, numbered last but for the outbox (see change-log.ts). */
  private async writeChangeLog(): Promise<void> {
    const changes = this.journal?.changes() ?? [];
    if (changes.length === 0 && this.noted.posts.size === 0 && this.noted.terms.size === 0) return;
    const now = this.now();
    let pruneBefore: number | null = null;
    if (now.getTime() - this.shared.changesPrunedAt >= PRUNE_EVERY_MS) {
      // Marked before the write commits: a rolled-back prune waits for the next period, which is harmless.
      this.shared.changesPrunedAt = now.getTime();
      const days = Number(await this.options.get(CHANGES_KEEP_DAYS_OPTION));
      pruneBefore = now.getTime() - (Number.isFinite(days) && days > 0 ? days : DEFAULT_CHANGES_KEEP_DAYS) * 86_400_000;
    }
    await writeChangeLog(this.knex, this.dialect, this.tables, changes, this.noted, now, pruneBefore);
  }

  /**
   * The webhook rows of this transaction's changes, written last in it, so
   * that a change and its delivery commit together or not at all. Only when
   * the site has a `webhook_url`.
   */
  private async writeOutbox(): Promise<boolean> {
    if (!this.journal || this.journal.empty) return false;
    const url = await this.options.get(WEBHOOK_URL_OPTION);
    if (url === undefined || url.trim() === "") return false;
    await writeOutbox(this.knex, this.tables, this.journal.changes(), url.trim(), this.now());
    return true;
  }
}


export async function createEngine(db: DbOption, options: EngineOptions = {}): Promise<{ engine: Engine; close(): Promise<void> }> {
  // Checked before the database is opened.
  pgExtensionList(options.pgExtensions);
  const { knex, owned } = await openDb(db);
  let engine: Engine;
  try {
    engine = new Engine(knex, options);
  } catch (err) {
    if (owned) await knex.destroy();
    throw err;
  }
  return {
    engine,
    async close() {
      await engine.releaseCaches();
      if (!owned) return;
      try {
        // Statistics for the next process: a bulk load (fixture generate) is
        // followed by a server that plans its lists with them.
        await optimizeStorage(knex);
      } catch {
        // Only statistics: closing must not fail over them.
      }
      await knex.destroy();
    },
  };
}
