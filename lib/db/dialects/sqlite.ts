import path from "node:path";
import type { Knex } from "knex";
import { EPOCH_TAG, POST_OWNED, SITE_TABLES, SITE_TAG, SLUGS_TAG, slugBucketSql } from "../cache-tags";
import { DbTargetError } from "../errors";
import { recordCreated } from "../ownership";
import { quoted, TABLE_BASES, type Tables } from "../tables";
import { setUpSqliteConnection } from "./sqlite-connection";
import type { CacheTagTriggers, Dialect, RevisionSource, SearchIndex, TagChanges } from "./types";

/** Connections to a SQLite file (see configFromTarget). */
const FILE_CONNECTIONS = 3;

/**
 * A path, `:memory:` or `sqlite:<path>`; null for any other URL scheme. Paths
 * are resolved against the working directory so that the CLI and a host
 * agree on the file.
 */
function configFromTarget(target: string): Knex.Config | null {
  let file = target;
  if (/^sqlite:/i.test(target)) file = target.slice("sqlite:".length).replace(/^\/\/(?=\/)/, "");
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(file)) return null;
  if (file === "") throw new DbTargetError("empty SQLite path");
  const filename = file === ":memory:" ? ":memory:" : path.resolve(file);
  return {
    // better-sqlite3: statements run on the event loop (./sqlite-connection.ts says why and how writers wait).
    client: "better-sqlite3",
    connection: { filename },
    useNullAsDefault: true,
    // An in-memory database exists once per connection: one connection.
    // A file in WAL mode: several, so that reads run side by side (each
    // sees the last commit) instead of queueing behind each other and behind
    // a writer on one connection. Writers still take turns: every
    // transaction begins IMMEDIATE (./sqlite-connection.ts), and the others
    // try again shortly.
    pool: filename === ":memory:" ? { min: 1, max: 1 } : { min: 1, max: FILE_CONNECTIONS },
  };
}

/** The `filename` of the knex connection config (the one place calpress reads knex's connection settings). */
function connectionFilename(k: Knex): string | null {
  const connection = k.client.config.connection as { filename?: unknown } | undefined;
  const filename = typeof connection === "object" && connection !== null ? connection.filename : undefined;
  return typeof filename === "string" ? filename : null;
}

// ------------------------------------------------------------------ revision

/**
 * `PRAGMA data_version`, which changes when another connection (another
 * process, another engine on the same file) commits. One connection runs
 * every statement in turn, so a read issued after a write's bump also runs
 * after that write finished.
 *
 * A SQLite file is read through several pooled connections, and
 * `data_version` is per connection (its values on two connections are not
 * comparable): the file's revision is read on one connection of its own,
 * which sees every commit made through any other, ours included.
 */
function revisionSource(k: Knex): RevisionSource {
  const filename = connectionFilename(k);
  const privateMemory = filename === ":memory:";
  const watchedFile = filename !== null && !privateMemory ? filename : null;
  let watcher: Promise<WatcherDatabase> | null = null;
  /** Tokens handed out while the watcher cannot answer: never equal, so nothing is reused. */
  let unanswered = 0;

  const watchedVersion = async (file: string): Promise<string> => {
    try {
      watcher ??= openWatcher(file, k);
      return String((await (await watcher).version()) ?? "");
    } catch {
      watcher = null;
      return `unanswered-${++unanswered}`;
    }
  };

  return {
    private: privateMemory,
    sharedAcrossProcesses: false,
    needsTagTriggers: false,
    async read() {
      if (watchedFile !== null) return watchedVersion(watchedFile);
      // A SQLite database this engine did not open (a host's knex): asked on the pool's connection.
      let connection = "";
      const rows = (await k.raw("PRAGMA data_version").on("query", (q: { __knexUid?: string }) => {
        // A new connection starts its own count: the token names the connection too.
        connection = q.__knexUid ?? "";
      })) as Array<{ data_version: number }>;
      return `${connection}:${rows[0]?.data_version ?? ""}`;
    },
    async close() {
      const open = watcher;
      watcher = null;
      if (open === null) return;
      try {
        await (await open).close();
      } catch {
        // It never opened: nothing to close.
      }
    },
  };
}

interface WatcherDatabase {
  version(): unknown;
  close(): unknown;
}

/**
 * A connection of its own for `data_version`, through the very driver module
 * the site's connections use (knex's `client.driver`): two SQLite libraries
 * in one process do not see each other's file locks (and closing one's file
 * drops the other's), so a file is only ever opened through one of them.
 * That also leaves node-sqlite3 to hosts that use it: calpress never loads
 * it itself (it is an optional peer dependency, see `optionalDriver`).
 * better-sqlite3 (calpress's own connections): a plain call on a statement
 * prepared once; node-sqlite3 (a host's knex): a query on its thread pool.
 */
async function openWatcher(file: string, k: Knex): Promise<WatcherDatabase> {
  const driver: unknown = k.client.driver;
  if (driver === undefined || driver === null) throw new Error("the knex instance has no SQLite driver loaded");
  if (String(k.client.config.client ?? "") === "better-sqlite3") {
    const Database = driver as typeof import("better-sqlite3");
    const db = new Database(file, { fileMustExist: true, timeout: 0 });
    const dataVersion = db.prepare("PRAGMA data_version").pluck();
    return { version: () => dataVersion.get(), close: () => db.close() };
  }
  const sqlite3 = driver as typeof import("sqlite3");
  const db = await new Promise<import("sqlite3").Database>((resolve, reject) => {
    const opened = new sqlite3.Database(file, sqlite3.OPEN_READWRITE, (err) => (err ? reject(err) : resolve(opened)));
  });
  return {
    version: () =>
      new Promise((resolve, reject) => db.get("PRAGMA data_version", (err, row: { data_version?: number } | undefined) => (err ? reject(err) : resolve(row?.data_version)))),
    close: () => new Promise<void>((resolve) => db.close(() => resolve())),
  };
}

// ------------------------------------------------------------------ bulk loads

/**
 * Runs `work` with SQLite tuned for one long writer, and restores the
 * connection's settings afterwards (SQLite has one connection here, the
 * engine's own):
 * - a bigger page cache: the default 2 MB is far smaller than the indexes a
 *   large load updates, and re-reading index pages for every batch is slow;
 * - no automatic WAL checkpoints during the load, one at the end: otherwise
 *   every commit of a large batch copies the same hot index pages back into
 *   the database file again (measured: a third of a 100,000-event load).
 *   The WAL grows to about the size of the new data meanwhile.
 */
async function withBulkSettings<T>(k: Knex, work: () => Promise<T>): Promise<T> {
  const cache = (await k.raw("PRAGMA cache_size")) as Array<{ cache_size: number }>;
  const auto = (await k.raw("PRAGMA wal_autocheckpoint")) as Array<{ wal_autocheckpoint: number }>;
  await k.raw("PRAGMA cache_size = -131072");
  await k.raw("PRAGMA wal_autocheckpoint = 0");
  try {
    return await work();
  } finally {
    await k.raw(`PRAGMA wal_autocheckpoint = ${Number(auto[0]?.wal_autocheckpoint ?? 1000)}`);
    // TRUNCATE also gives the grown WAL file back; with a reader elsewhere it just reports busy.
    await k.raw("PRAGMA wal_checkpoint(TRUNCATE)");
    await k.raw(`PRAGMA cache_size = ${Number(cache[0]?.cache_size ?? -2000)}`);
  }
}

// ------------------------------------------------------------------ cache tags (lib/db/cache-tags.ts)

/*
 * Trigger bodies cannot take bindings: the names in them are quoted with
 * `quoted` (and come from `Tables`, which admits only safe identifiers).
 */
type SqliteTrigger = { name: string; sql: string };

/**
 * A tag's new version, and its `stamp`: one more than the highest so far.
 * Writers are serialised, so stamps grow in commit order (tagChanges).
 */
function bump(knex: Knex, tables: Tables, expr: string): string {
  const t = quoted(knex, tables.cacheTags);
  return `INSERT INTO ${t}(tag, version, stamp) VALUES (${expr}, 1, (SELECT coalesce(max(stamp), 0) + 1 FROM ${t})) ON CONFLICT(tag) DO UPDATE SET version = version + 1, stamp = excluded.stamp;`;
}

/** `slugTag` in SQLite (`unicode` gives a character's code point). */
function slugBucket(s: string): string {
  return slugBucketSql(s, {
    length: (x) => `length(${x})`,
    codePoint: (x, at) => `unicode(substr(${x}, ${at}, 1))`,
  });
}

/** The three triggers of `base` (a table's base name, as TABLE_BASES gives it): `<prefix>cache_tag_<base>_ins` and so on. */
function rowTriggers(knex: Knex, tables: Tables, base: string, tagOf: (row: "new" | "old") => string): SqliteTrigger[] {
  const on = quoted(knex, tables.qualify(tables.name(base)));
  const name = (op: string): string => tables.name(`cache_tag_${base}_${op}`);
  return [
    { name: name("ins"), sql: `AFTER INSERT ON ${on} BEGIN ${bump(knex, tables, tagOf("new"))} END` },
    { name: name("upd"), sql: `AFTER UPDATE ON ${on} BEGIN ${bump(knex, tables, tagOf("new"))} END` },
    { name: name("del"), sql: `AFTER DELETE ON ${on} BEGIN ${bump(knex, tables, tagOf("old"))} END` },
  ];
}

const SLUG_CHANGED =
  "new.slug IS NOT old.slug OR new.status IS NOT old.status OR new.type IS NOT old.type OR new.language IS NOT old.language OR new.translation_group IS NOT old.translation_group";

function coreTagTriggers(knex: Knex, tables: Tables): SqliteTrigger[] {
  const posts = quoted(knex, tables.posts);
  const bumpOf = (expr: string): string => bump(knex, tables, expr);
  return [
    ...rowTriggers(knex, tables, TABLE_BASES.posts, (r) => `${r}.id * 4`),
    ...rowTriggers(knex, tables, TABLE_BASES.terms, (r) => `${r}.id * 4 + 1`),
    ...POST_OWNED.flatMap(({ table, column }) => rowTriggers(knex, tables, TABLE_BASES[table], (r) => `${r}.${column} * 4`)),
    ...SITE_TABLES.flatMap((table) => rowTriggers(knex, tables, TABLE_BASES[table], () => String(SITE_TAG))),
    { name: tables.name("cache_tag_slugs_ins"), sql: `AFTER INSERT ON ${posts} BEGIN ${bumpOf(String(SLUGS_TAG))} END` },
    { name: tables.name("cache_tag_slugs_del"), sql: `AFTER DELETE ON ${posts} BEGIN ${bumpOf(String(SLUGS_TAG))} END` },
    {
      name: tables.name("cache_tag_slugs_upd"),
      sql: `AFTER UPDATE OF slug, status, type, language, translation_group ON ${posts} WHEN ${SLUG_CHANGED} BEGIN ${bumpOf(String(SLUGS_TAG))} END`,
    },
    { name: tables.name("cache_tag_slug_bucket_ins"), sql: `AFTER INSERT ON ${posts} BEGIN ${bumpOf(slugBucket("new.slug"))} END` },
    { name: tables.name("cache_tag_slug_bucket_del"), sql: `AFTER DELETE ON ${posts} BEGIN ${bumpOf(slugBucket("old.slug"))} END` },
    {
      name: tables.name("cache_tag_slug_bucket_upd"),
      sql: `AFTER UPDATE OF slug, status, type, language, translation_group ON ${posts} WHEN ${SLUG_CHANGED} BEGIN ${bumpOf(slugBucket("old.slug"))} ${bumpOf(slugBucket("new.slug"))} END`,
    },
  ];
}

/** Creates the missing triggers, and makes again those whose SQL is not the one defined here (a database from an older calpress). */
async function createTriggers(knex: Knex, triggers: SqliteTrigger[]): Promise<void> {
  const rows = (await knex("sqlite_master").where("type", "trigger").whereIn("name", triggers.map((t) => t.name)).select("name", "sql")) as Array<{ name: string; sql: string }>;
  const present = new Map(rows.map((r) => [r.name, r.sql]));
  for (const trigger of triggers) {
    const create = knex.raw(`CREATE TRIGGER IF NOT EXISTS ?? ${trigger.sql}`, [trigger.name]).toQuery();
    const sql = present.get(trigger.name);
    if (sql === create.replace(" IF NOT EXISTS", "")) continue;
    if (sql === undefined) {
      await knex.raw(create);
      continue;
    }
    await knex.transaction(async (trx) => {
      await trx.raw("DROP TRIGGER IF EXISTS ??", [trigger.name]);
      await trx.raw(create);
    });
  }
}

/** Positions are `<epoch>:<highest stamp>`; stamps grow in commit order (see `bump`). */
function tagChanges(k: Knex, tables: Tables): TagChanges {
  return {
    async since(from) {
      const [now] = (await k.raw("SELECT (SELECT coalesce(max(stamp), 0) FROM ??) AS s, (SELECT version FROM ?? WHERE tag = ?) AS e", [
        tables.cacheTags,
        tables.cacheTags,
        EPOCH_TAG,
      ])) as Array<{ s: number; e: number | null }>;
      const position = `${now.e ?? ""}:${now.s}`;
      const [epoch, stamp] = (from ?? "").split(":");
      if (from === null || epoch !== String(now.e ?? "")) return { position, all: true };
      if (Number(stamp) === Number(now.s)) return { position, tags: [] };
      const tags = (await k(tables.cacheTags).where("stamp", ">", Number(stamp)).pluck("tag")) as Array<number | string>;
      return { position, tags: tags.map(Number) };
    },
  };
}

/* Failures throw: SQLite has no privileges to refuse them. */
const tagTriggers: CacheTagTriggers = {
  async createCore(k, tables) {
    await createTriggers(k, coreTagTriggers(k, tables));
    return null;
  },
  async createForFieldTable(k, tables, postType) {
    await createTriggers(k, rowTriggers(k, tables, `fields_${postType}`, (r) => `${r}.post_id * 4`));
    return null;
  },
};

// ------------------------------------------------------------------ search index (lib/db/search-index.ts)

/* An FTS5 trigram table over `posts` (external content), kept in sync by triggers; see lib/db/search-index.ts. */

/** The search table's triggers: `<prefix>posts_search_insert` and so on. */
function searchTriggers(knex: Knex, tables: Tables): SqliteTrigger[] {
  const search = quoted(knex, tables.postsSearch);
  const posts = quoted(knex, tables.posts);
  const name = (op: string): string => tables.name(`posts_search_${op}`);
  return [
    {
      name: name("insert"),
      sql: `AFTER INSERT ON ${posts} BEGIN
      INSERT INTO ${search}(rowid, title, excerpt, content) VALUES (new.id, new.title, new.excerpt, new.content);
    END`,
    },
    {
      name: name("delete"),
      // External content: FTS5 removes a row's tokens given the values it indexed, which are the old row's.
      sql: `AFTER DELETE ON ${posts} BEGIN
      INSERT INTO ${search}(${search}, rowid, title, excerpt, content) VALUES ('delete', old.id, old.title, old.excerpt, old.content);
    END`,
    },
    {
      name: name("update"),
      // Only updates that set one of the indexed columns (status changes, trash and slug claims do not).
      sql: `AFTER UPDATE OF title, excerpt, content ON ${posts} BEGIN
      INSERT INTO ${search}(${search}, rowid, title, excerpt, content) VALUES ('delete', old.id, old.title, old.excerpt, old.content);
      INSERT INTO ${search}(rowid, title, excerpt, content) VALUES (new.id, new.title, new.excerpt, new.content);
    END`,
    },
  ];
}

async function searchObjects(k: Knex, tables: Tables): Promise<Set<string>> {
  const names = [tables.postsSearch, ...searchTriggers(k, tables).map((t) => t.name)];
  const rows: Array<{ name: string }> = await k("sqlite_master").whereIn("name", names).select("name");
  return new Set(rows.map((r) => r.name));
}

/** Whether the search table and all its triggers exist (the search uses the table only then). */
async function searchIndexReady(k: Knex, tables: Tables): Promise<boolean> {
  return (await searchObjects(k, tables)).size === searchTriggers(k, tables).length + 1;
}

/* Part of the database file: nothing to ask of the host, and nothing to report (a SQLite without FTS5 simply scans). */
async function migrateSearchIndex(knex: Knex, tables: Tables): Promise<null> {
  if (await searchIndexReady(knex, tables)) return null;
  const triggers = searchTriggers(knex, tables);
  try {
    await knex.transaction(async (trx) => {
      const present = await searchObjects(trx, tables);
      if (present.size === triggers.length + 1) return;
      if (!present.has(tables.postsSearch)) {
        await recordCreated(trx, tables, [tables.postsSearch]);
        // detail=none: the index keeps which rows hold each trigram, not where;
        // a quarter of the size of detail=full and faster to fill. The search
        // asks for every trigram of a word (not the phrase), a superset of
        // the rows holding the word, and checks the word itself afterwards.
        // (Its shadow tables are named after it: `<prefix>posts_search_data` and so on.)
        // FTS5 takes the content table as a string (a `Tables` name: a safe identifier).
        await trx.raw(`CREATE VIRTUAL TABLE ?? USING fts5(title, excerpt, content, content='${tables.posts}', content_rowid='id', tokenize='trigram', detail=none)`, [
          tables.postsSearch,
        ]);
      }
      for (const trigger of triggers) await trx.raw(`CREATE TRIGGER IF NOT EXISTS ?? ${trigger.sql}`, [trigger.name]);
      // Filled from the rows already there; also repairs an index whose triggers were missing.
      await trx.raw("INSERT INTO ??(??) VALUES ('rebuild')", [tables.postsSearch, tables.postsSearch]);
    });
  } catch (err) {
    if (await searchIndexReady(knex, tables)) return null;
    // A SQLite built without FTS5 or older than 3.34 (no trigram tokenizer): search scans, as it always did.
    if (/no such (module|tokenizer)/i.test(String((err as Error).message))) return null;
    throw err;
  }
  return null;
}

const searchIndex: SearchIndex = {
  migrate: migrateSearchIndex,
  tables: (tables) => [tables.unqualified(tables.postsSearch)],
  joinable: searchIndexReady,
};

// ------------------------------------------------------------------ the dialect

/**
 * SQLite: one writer at a time (every transaction begins IMMEDIATE, see
 * ./sqlite-connection.ts), so nothing is locked by row; columns compare
 * BINARY already; the planner needs hints where statistics may be missing.
 */
export const sqlite: Dialect = {
  name: "sqlite",
  matchesClient: (client) => client.includes("sqlite"),
  configFromTarget,
  // calpress's own SQLite connections use better-sqlite3 (a dependency); a host's knex config on node-sqlite3 needs that package.
  optionalDriver: { pkg: "sqlite3", clients: ["sqlite3", "sqlite"], database: 'SQLite through knex\'s "sqlite3" client' },

  setUpConnection: setUpSqliteConnection,
  /**
   * Refreshes the planner statistics of tables that changed a lot (SQLite's
   * advice: before closing a connection, and now and then on a long-lived one).
   */
  async optimizeStorage(k) {
    await k.raw("PRAGMA optimize = 0x10002");
  },
  filePath(k) {
    const filename = connectionFilename(k);
    return filename !== null && filename !== ":memory:" && !filename.startsWith("file:") ? path.resolve(filename) : null;
  },
  hasSchemas: false,

  serialisesWriters: true,
  errorAbortsTransaction: false,
  lockRowsKeepingKeys: () => undefined,
  readLatestCommitted: () => undefined,

  hasReturning: true,
  codePointCollation: "",
  booleanLiteral: (value) => (value ? "1" : "0"),
  rawRows: <T>(result: unknown) => result as T[],
  preparedStatements: null,

  prefersIndexOrderedPages: true,
  needsJoinOrderHints: true,
  readsJoinedUnionsByKey: true,

  longText: (t, name) => t.text(name),
  configureTable: () => undefined,
  async indexExists(k, _tables, _table, index) {
    const rows = await k("sqlite_master").where({ type: "index", name: index }).select("name");
    return rows.length > 0;
  },
  cacheTagTriggers: tagTriggers,
  tagChanges,
  searchIndex,
  searchCaseFolding: "ascii",

  revisionSource,

  withBulkSettings,
  async firstFreeId(k, tables, table) {
    // AUTOINCREMENT never reuses ids, even of deleted rows: start after sqlite_sequence.
    const seq: { seq?: number } | undefined = await k("sqlite_sequence").where({ name: tables.unqualified(table) }).first("seq");
    const max: { m?: number | null } | undefined = await k(table).max({ m: "id" }).first();
    return Math.max(Number(seq?.seq ?? 0), Number(max?.m ?? 0)) + 1;
  },
  afterExplicitIds: async () => undefined,
  analyzeAfterBulk: async () => undefined,
};
