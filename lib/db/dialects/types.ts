import type { Knex } from "knex";
import type { PgExtension } from "../extensions";
import type { Tables } from "../tables";

/**
 * Everything that differs between the databases calpress runs on, behind
 * one interface, as knex keeps its dialects. The engine holds the dialect of
 * its database (`engine.dialect`); code outside lib/db asks it what the
 * database does (capabilities named for what they mean) and never compares
 * database names.
 *
 * To add a database: write `lib/db/dialects/<name>.ts` exporting one object
 * that implements `Dialect` (the other three files show every member), add
 * its name to `DialectName` and the object to `DIALECTS` in ./index.ts.
 * Nothing outside lib/db/dialects changes: its `<target>` URL scheme, driver
 * package, schema details, locking and triggers are all members here.
 */
export type DialectName = "sqlite" | "postgres" | "mysql";

export interface PreparedStatements {
  /** The knex query options (`.options()`) that run a statement under this name. */
  options(name: string): Record<string, unknown>;
  /**
   * What a named run's error says about named statements: "stale", the kept
   * statement no longer fits the tables (a column added since; run it
   * unnamed from now on); "unavailable", the connections do not keep them
   * (a pooler between calpress and the server that hands each statement to
   * any server connection; run every statement unnamed); null, neither (the
   * error is the statement's own).
   */
  failure(err: unknown): "stale" | "unavailable" | null;
}

export interface Dialect {
  /** For messages, reports and the test suites; never compared outside lib/db. */
  readonly name: DialectName;
  /** Whether a knex `client` name (`sqlite3`, `pg`, `mysql2`…) speaks this dialect. */
  matchesClient(client: string): boolean;
  /** The knex config for a trimmed, non-empty `<target>` string (CONTRACT §3) in this dialect's URL scheme; null: not this dialect's. */
  configFromTarget(target: string): Knex.Config | null;
  /** The driver a host installs itself (an optional peer dependency, lib/db/drivers.ts), with the knex clients that load it; null: calpress depends on it. */
  readonly optionalDriver: { pkg: string; clients: readonly string[]; database: string } | null;

  // ---------------------------------------------------------------- connections and storage

  /** Run on each new pooled connection before it is used (pragmas, statement cache); absent: nothing to do. */
  readonly setUpConnection?: (conn: unknown, done: (err: Error | null) => void) => void;
  /** Refreshes planner statistics that went stale (before closing, after migrating); a no-op where the database keeps its own. */
  optimizeStorage(k: Knex): Promise<void>;
  /** The database's file (resolved path), for a file-backed database opened by path; null otherwise. */
  filePath(k: Knex): string | null;
  /** Whether calpress's tables can live in a schema of their own (`EngineOptions.schema`). */
  readonly hasSchemas: boolean;

  // ---------------------------------------------------------------- transactions and locking

  /** One writer at a time on the whole database: row locks and name locks are not needed. */
  readonly serialisesWriters: boolean;
  /** A failed statement aborts the whole transaction: a statement that may fail runs in a savepoint. */
  readonly errorAbortsTransaction: boolean;
  /**
   * Locks the selected rows against concurrent updates but not against
   * inserts of rows that reference them (foreign-key checks do not wait);
   * nothing where writers are serialised.
   */
  lockRowsKeepingKeys(q: Knex.QueryBuilder): void;
  /** Makes a read inside a transaction see the latest committed rows, not the transaction's older snapshot. */
  readLatestCommitted(q: Knex.QueryBuilder): void;

  // ---------------------------------------------------------------- statements

  /** INSERT … RETURNING; without it the driver reports an inserted row's id itself (and knex warns when asked to return). */
  readonly hasReturning: boolean;
  /** SQL appended to a text expression in ORDER BY so that it sorts by code point ("" where columns already do). */
  readonly codePointCollation: string;
  /** A boolean as a SQL literal. */
  booleanLiteral(value: boolean): string;
  /** The rows of a `knex.raw` select, which each driver shapes its own way. */
  rawRows<T>(result: unknown): T[];
  /**
   * Statements the driver keeps parsed and planned on each connection under a
   * name (PostgreSQL's named prepared statements), for texts run again and
   * again; null where the driver has no such thing or gains nothing from it.
   */
  readonly preparedStatements: PreparedStatements | null;

  // ---------------------------------------------------------------- planner hints

  /** A page of a list sorted on an indexed field is best read by walking that index (`NOT INDEXED` on posts). */
  readonly prefersIndexOrderedPages: boolean;
  /** The planner may pick a bad join order without statistics: joins whose order matters are written as CROSS JOIN. */
  readonly needsJoinOrderHints: boolean;
  /**
   * A UNION ALL derived table joined on a key is read for each key
   * (PostgreSQL appends its members, SQLite flattens them). False: it is
   * made whole before the join (MariaDB pushes the WHERE into it but not the
   * join key), so lists of instances are written as a union of whole
   * statements instead, each member parenthesised with its own ORDER BY and
   * LIMIT.
   */
  readonly readsJoinedUnionsByKey: boolean;

  // ---------------------------------------------------------------- schema

  /** A text column for post content (longer than 64 KiB). */
  longText(t: Knex.CreateTableBuilder | Knex.AlterTableBuilder, name: string): Knex.ColumnBuilder;
  /** Table options every calpress table gets (engine, charset, collation). */
  configureTable(t: Knex.CreateTableBuilder): void;
  /** Whether `index` exists on `table` (unqualified name). */
  indexExists(k: Knex, tables: Tables, table: string, index: string): Promise<boolean>;
  /** The triggers that keep the cache tags (lib/db/cache-tags.ts); null: none, so nothing relies on tags here. */
  readonly cacheTagTriggers: CacheTagTriggers | null;
  /** Which tags changed since a position (their stamps, lib/db/cache-tags.ts); null where there are no tag triggers. */
  tagChanges(k: Knex, tables: Tables): TagChanges | null;
  /** The index behind post search (lib/db/search-index.ts); null: search scans. */
  readonly searchIndex: SearchIndex | null;
  /**
   * How search's `LOWER(text) LIKE LOWER('%word%')` folds case: "ascii"
   * (ASCII letters only), "unicode" (each character to its own lowercase,
   * nothing more), or null where the comparison equates more than case
   * (MariaDB's `_ci` collations match `cafe` in `Café`), which no word list
   * kept in memory can reproduce (lib/posts/word-index.ts).
   */
  readonly searchCaseFolding: SearchCaseFolding | null;

  // ---------------------------------------------------------------- revision

  /** The database's word on commits by anyone (lib/cache/revision.ts); null: it has none, so nothing is cached. */
  revisionSource(k: Knex, tables: Tables): RevisionSource | null;

  // ---------------------------------------------------------------- bulk loads (lib/fixtures/bulk.ts)

  /** Runs a long single-writer load with settings tuned for it, restored afterwards. */
  withBulkSettings<T>(k: Knex, work: () => Promise<T>): Promise<T>;
  /** The first of a run of fresh ids of `table`: after the highest id ever used. */
  firstFreeId(k: Knex, tables: Tables, table: string): Promise<number>;
  /** After rows were inserted with explicit ids: later inserts must not collide with them. */
  afterExplicitIds(k: Knex, table: string): Promise<void>;
  /** Fresh planner statistics for tables a bulk load filled (where the planner would otherwise misjudge them). */
  analyzeAfterBulk(k: Knex, tables: readonly string[]): Promise<void>;
}

/**
 * Where a server may refuse a user the right to create triggers (MariaDB/MySQL:
 * the TRIGGER privilege, and SUPER or `log_bin_trust_function_creators` with
 * binary logging), the creators answer why instead of failing the migration:
 * the database then works as before, but nothing may rely on its tags.
 */
export type TriggersRefused = string;

export interface CacheTagTriggers {
  /** Creates the missing triggers of the core tables; idempotent and tolerant of a concurrent migrator. Null once all are in place. */
  createCore(k: Knex, tables: Tables): Promise<TriggersRefused | null>;
  /** The same for a post type's typed-field table (its rows belong to `post_id`). */
  createForFieldTable(k: Knex, tables: Tables, postType: string): Promise<TriggersRefused | null>;
}

/**
 * The tags changed by commits since a position. A position names every
 * commit before it was read; `since` reads the position first, then the tags
 * whose stamp is past the old one, so the tags may include commits after the
 * new position (read again next time, which is harmless) but never miss one
 * before it. A database made again from scratch has another epoch: `since`
 * then answers `all`, and the caller starts over.
 */
export interface TagChanges {
  since(from: string | null): Promise<{ position: string; tags: number[] } | { position: string; all: true }>;
}

export type SearchCaseFolding = "ascii" | "unicode";

/**
 * Why the search index could not be made although the host allowed what it
 * needs (an extension the role may not create or use), said once per
 * migration; search then works without it (lib/db/search-index.ts).
 */
export type SearchIndexMissing = string;

export interface SearchIndex {
  /**
   * Creates the index when missing; idempotent and tolerant of a concurrent
   * migrator. `extensions`: those the host allows it to create (lib/db/extensions.ts).
   * Null when the index is in place or left out as the host chose; else why it is missing.
   */
  migrate(k: Knex, tables: Tables, extensions: readonly PgExtension[]): Promise<SearchIndexMissing | null>;
  /** The tables it creates (unqualified), for the ownership check. */
  tables(tables: Tables): string[];
  /** Whether the search query can narrow its candidates by joining the index table (it and its triggers exist). */
  joinable(k: Knex, tables: Tables): Promise<boolean>;
}

/** See DataRevision. */
export interface RevisionSource {
  /** No other connection can change the database (a private in-memory one): the local statement count is the whole token. */
  readonly private: boolean;
  /** Whether `read` gives the same value in every process on the database. */
  readonly sharedAcrossProcesses: boolean;
  /** The value is made by the cache-tag triggers (MariaDB/MySQL): it says nothing until a migration found them in place. */
  readonly needsTagTriggers: boolean;
  /** The database's part of the revision token now. */
  read(): Promise<string>;
  /** Releases what `read` holds open. */
  close(): Promise<void>;
}
