import type { Knex } from "knex";
import { EPOCH_TAG, POST_OWNED, SITE_TABLES, SITE_TAG, SLUGS_TAG, slugBucketSql } from "../cache-tags";
import { quoted, type Tables } from "../tables";
import type { PgExtension } from "../extensions";
import type { CacheTagTriggers, Dialect, RevisionSource, SearchIndex, SearchIndexMissing, TagChanges } from "./types";

// ------------------------------------------------------------------ cache tags (lib/db/cache-tags.ts)

/**
 * The bump in a trigger function. The cache-tags table is named with its
 * schema: a function resolves unqualified names through the search_path of
 * whoever writes, which need not include calpress's schema.
 */
function bump(cacheTags: string): string {
  // `stamp`: the writing transaction's id, which tagChanges compares with a snapshot.
  return `INSERT INTO ${cacheTags} AS c (tag, version, stamp) VALUES (t, 1, pg_current_xact_id()::text::bigint) ON CONFLICT (tag) DO UPDATE SET version = c.version + 1, stamp = excluded.stamp`;
}

/** `slugTag` in PostgreSQL (`ascii` gives a character's code point in a UTF-8 database). */
function slugBucket(s: string): string {
  return slugBucketSql(s, {
    length: (x) => `length(${x})::bigint`,
    codePoint: (x, at) => `ascii(substr(${x}, ${at}, 1))::bigint`,
  });
}

/** One trigger function per way of finding the tag (base names, prefixed); `TG_ARGV[0]` is the column, `TG_ARGV[1]` the kind. */
function tagFunctions(cacheTags: string): Array<{ name: string; body: string }> {
  const b = bump(cacheTags);
  return [
    {
      name: "calpress_tag_row",
      body: `DECLARE r jsonb; t bigint;
BEGIN
  IF TG_OP = 'DELETE' THEN r := to_jsonb(OLD); ELSE r := to_jsonb(NEW); END IF;
  t := (r ->> TG_ARGV[0])::bigint * 4 + TG_ARGV[1]::int;
  ${b};
  RETURN NULL;
END;`,
    },
    {
      name: "calpress_tag_site",
      body: `DECLARE t bigint := ${SITE_TAG};
BEGIN
  ${b};
  RETURN NULL;
END;`,
    },
    {
      // Posts carry their content: the row is not turned into JSON here.
      name: "calpress_tag_post",
      body: `DECLARE t bigint;
BEGIN
  IF TG_OP = 'DELETE' THEN t := OLD.id * 4; ELSE t := NEW.id * 4; END IF;
  ${b};
  RETURN NULL;
END;`,
    },
    {
      // Runs at commit (a deferred constraint trigger, below): SLUGS_TAG is
      // one row every post create, delete and slug or status change bumps.
      // Locked in the middle of a transaction, it made concurrent writers of
      // different posts wait on each other while they held post and term rows,
      // and PostgreSQL found deadlocks (parallel trashes and creates with one
      // category). Locked last, at commit, nobody holding it waits for anything else.
      name: "calpress_tag_slugs",
      body: `DECLARE t bigint := ${SLUGS_TAG};
BEGIN
  IF TG_OP <> 'UPDATE' OR NEW.slug IS DISTINCT FROM OLD.slug OR NEW.status IS DISTINCT FROM OLD.status
     OR NEW.type IS DISTINCT FROM OLD.type OR NEW.language IS DISTINCT FROM OLD.language
     OR NEW.translation_group IS DISTINCT FROM OLD.translation_group THEN
    ${b};
    IF TG_OP <> 'INSERT' THEN
      t := ${slugBucket("OLD.slug")};
      ${b};
    END IF;
    IF TG_OP <> 'DELETE' THEN
      t := ${slugBucket("NEW.slug")};
      ${b};
    END IF;
  END IF;
  RETURN NULL;
END;`,
    },
  ];
}

type PgTrigger = { table: string; fn: string; args: string };

function coreTagTriggers(tables: Tables): PgTrigger[] {
  return [
    { table: tables.posts, fn: "calpress_tag_post", args: "" },
    { table: tables.terms, fn: "calpress_tag_row", args: "'id', '1'" },
    ...POST_OWNED.map(({ table, column }) => ({ table: tables[table], fn: "calpress_tag_row", args: `'${column}', '0'` })),
    ...SITE_TABLES.map((table) => ({ table: tables[table], fn: "calpress_tag_site", args: "" })),
  ];
}

/** The triggers named `name` on tables of the tables' schema, by table. */
async function triggersNamed(knex: Knex, tables: Tables, name: string): Promise<Set<string>> {
  const r = (await knex.raw(
    "select c.relname from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace where n.nspname = coalesce(?::text, current_schema()) and t.tgname = ?",
    [tables.schema, name],
  )) as { rows: Array<{ relname: string }> };
  return new Set(r.rows.map((row) => row.relname));
}

/** The deferred SLUGS_TAG trigger of posts (see calpress_tag_slugs). */
async function createSlugsTrigger(knex: Knex, tables: Tables): Promise<void> {
  const name = tables.name("cache_tag_slugs");
  if ((await triggersNamed(knex, tables, name)).has(tables.unqualified(tables.posts))) return;
  try {
    await knex.raw("CREATE CONSTRAINT TRIGGER ?? AFTER INSERT OR UPDATE OR DELETE ON ?? DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ??()", [
      name,
      tables.posts,
      tables.qualify(tables.name("calpress_tag_slugs")),
    ]);
  } catch (err) {
    if (!/already exists/i.test(String((err as Error).message))) throw err;
  }
}

async function createTriggers(knex: Knex, tables: Tables, triggers: PgTrigger[]): Promise<void> {
  const name = tables.name("cache_tag");
  const present = await triggersNamed(knex, tables, name);
  for (const { table, fn, args } of triggers) {
    if (present.has(tables.unqualified(table))) continue;
    try {
      // `args` are literals of this module, never input.
      await knex.raw(`CREATE TRIGGER ?? AFTER INSERT OR UPDATE OR DELETE ON ?? FOR EACH ROW EXECUTE FUNCTION ??(${args})`, [name, table, tables.qualify(tables.name(fn))]);
    } catch (err) {
      // A concurrent migrator created it first.
      if (!/already exists/i.test(String((err as Error).message))) throw err;
    }
  }
}

async function createFunctions(knex: Knex, tables: Tables): Promise<void> {
  const schema = tables.schema ?? ((await knex.raw("select current_schema() as s")) as { rows: Array<{ s: string }> }).rows[0].s;
  const cacheTags = quoted(knex, `${schema}.${tables.unqualified(tables.cacheTags)}`);
  for (const { name, body } of tagFunctions(cacheTags)) {
    const fn = tables.name(name);
    const source = ` ${body} `;
    const found = ((await knex.raw("select p.prosrc from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = ? and p.proname = ?", [schema, fn])) as {
      rows: Array<{ prosrc: string }>;
    }).rows;
    if (found.length > 0 && found[0].prosrc === source) continue;
    // A function from an older calpress (before stamps) is replaced in place: its triggers keep pointing at it.
    const verb = found.length > 0 ? "CREATE OR REPLACE FUNCTION" : "CREATE FUNCTION";
    try {
      await knex.raw(`${verb} ??() RETURNS trigger LANGUAGE plpgsql AS $calpress$${source}$calpress$`, [`${schema}.${fn}`]);
    } catch (err) {
      if (!/already exists|tuple concurrently updated/i.test(String((err as Error).message))) throw err;
    }
  }
}

/**
 * Positions are `<epoch>:<snapshot>`. Stamps are the ids of the writing
 * transactions, which do not commit in their order: what changed since a
 * snapshot is what it did not see, `NOT pg_visible_in_snapshot`, among
 * stamps from its oldest running transaction on (the index's range).
 */
function tagChanges(k: Knex, tables: Tables): TagChanges {
  return {
    async since(from) {
      const now = (
        (await k.raw("SELECT pg_current_snapshot()::text AS s, (SELECT version FROM ?? WHERE tag = ?)::text AS e", [tables.cacheTags, EPOCH_TAG])) as {
          rows: Array<{ s: string; e: string | null }>;
        }
      ).rows[0];
      const position = `${now.e ?? ""}:${now.s}`;
      const cut = (from ?? "").indexOf(":");
      if (from === null || cut < 0 || from.slice(0, cut) !== (now.e ?? "")) return { position, all: true };
      const snapshot = from.slice(cut + 1);
      if (snapshot === now.s) return { position, tags: [] };
      const rows = (
        (await k.raw("SELECT tag FROM ?? WHERE stamp >= pg_snapshot_xmin(?::pg_snapshot)::text::bigint AND NOT pg_visible_in_snapshot(stamp::text::xid8, ?::pg_snapshot)", [
          tables.cacheTags,
          snapshot,
          snapshot,
        ])) as { rows: Array<{ tag: string }> }
      ).rows;
      return { position, tags: rows.map((r) => Number(r.tag)) };
    },
  };
}

/* Failures throw: the tables' owner may always create triggers on them. */
const tagTriggers: CacheTagTriggers = {
  async createCore(k, tables) {
    await createFunctions(k, tables);
    await createTriggers(k, tables, coreTagTriggers(tables));
    await createSlugsTrigger(k, tables);
    return null;
  },
  async createForFieldTable(k, tables, postType) {
    await createTriggers(k, tables, [{ table: tables.fields(postType), fn: "calpress_tag_row", args: "'post_id', '0'" }]);
    return null;
  },
};

// ------------------------------------------------------------------ search index (lib/db/search-index.ts)

/* pg_trgm GIN indexes on the lowered text columns, which the planner uses for the search's own LIKEs; see lib/db/search-index.ts. */
const TRIGRAM_INDEXES: Array<{ name: string; column: string }> = [
  { name: "posts_title_trgm", column: "title" },
  { name: "posts_excerpt_trgm", column: "excerpt" },
  { name: "posts_content_trgm", column: "content" },
];

async function trigramIndexesPresent(knex: Knex, tables: Tables): Promise<Set<string>> {
  const r = await knex.raw("select indexname from pg_indexes where schemaname = coalesce(?::text, current_schema()) and tablename = ? and indexname = any(?)", [
    tables.schema,
    tables.unqualified(tables.posts),
    TRIGRAM_INDEXES.map((i) => tables.name(i.name)),
  ]);
  return new Set((r as { rows: Array<{ indexname: string }> }).rows.map((row) => row.indexname));
}

/** The schema pg_trgm is installed in, or null when it is not installed. */
async function trigramSchema(knex: Knex): Promise<string | null> {
  const r = (await knex.raw("select n.nspname as s from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'")) as {
    rows: Array<{ s: string }>;
  };
  return r.rows[0]?.s ?? null;
}

/** The schema calpress's tables are created in: its own, or the first existing one on the search path. */
async function siteSchema(knex: Knex, tables: Tables): Promise<string | null> {
  if (tables.schema !== null) return tables.schema;
  const r = (await knex.raw("select current_schema() as s")) as { rows: Array<{ s: string | null }> };
  return r.rows[0]?.s ?? null;
}

/** The server's words for a failed `statement` (knex puts the statement before them) and its hint, on one line. */
function serverMessage(err: unknown, statement: Knex.Raw): string {
  const e = err as { message?: unknown; hint?: unknown };
  const message = String(e.message ?? err).replace(`${statement.toQuery()} - `, "");
  return [message, typeof e.hint === "string" ? e.hint : ""].filter((part) => part !== "").join("; ").replace(/\s+/g, " ");
}

/** An error of a statement the role is not allowed to run (SQLSTATE 42501, insufficient_privilege). */
const refused = (err: unknown): boolean => (err as { code?: unknown }).code === "42501";

/**
 * pg_trgm is used wherever it is installed; calpress creates it (in its own
 * schema) only when the host allows it (lib/db/extensions.ts). A role that
 * may not create it, or may not use the schema it lives in, leaves search
 * without the index (it then scans), with the reason returned for the
 * operator.
 */
async function migrateSearchIndex(knex: Knex, tables: Tables, extensions: readonly PgExtension[]): Promise<SearchIndexMissing | null> {
  let present = await trigramIndexesPresent(knex, tables);
  if (present.size === TRIGRAM_INDEXES.length) return null;
  let extension = await trigramSchema(knex);
  if (extension === null) {
    if (!extensions.includes("pg_trgm")) return null;
    const schema = await siteSchema(knex, tables);
    const create = schema === null ? knex.raw("CREATE EXTENSION IF NOT EXISTS pg_trgm") : knex.raw("CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA ??", [schema]);
    let why = "";
    try {
      await create;
    } catch (err) {
      // A concurrent migrator may have won: looked up again below.
      why = serverMessage(err, create);
    }
    extension = await trigramSchema(knex);
    if (extension === null) {
      const where = schema === null ? "" : ` SCHEMA "${schema}"`;
      return `the database refused to create the extension pg_trgm (${why}): search works without its trigram index, scanning every post's text. Have the database owner run CREATE EXTENSION pg_trgm${where}, or leave pg_trgm out of pgExtensions.`;
    }
  }
  for (const { name, column } of TRIGRAM_INDEXES) {
    const index = tables.name(name);
    if (present.has(index)) continue;
    // The operator class named with the extension's schema, which need not be on the search_path
    // (a host's `extensions` schema, or calpress's own schema as the only one on it).
    const create = knex.raw("CREATE INDEX IF NOT EXISTS ?? ON ?? USING gin (lower(??) ??)", [index, tables.posts, column, `${extension}.gin_trgm_ops`]);
    try {
      await create;
    } catch (err) {
      present = await trigramIndexesPresent(knex, tables);
      if (present.has(index)) continue;
      if (refused(err)) {
        return `the database refused to create the search index ${index} (${serverMessage(err, create)}): search works without it, scanning every post's text. Grant the role USAGE on the schema "${extension}" that holds pg_trgm.`;
      }
      throw err;
    }
  }
  return null;
}

const searchIndex: SearchIndex = {
  migrate: migrateSearchIndex,
  // Indexes only: no table of its own, and nothing for the query to join.
  tables: () => [],
  joinable: async () => false,
};

// ------------------------------------------------------------------ revision

/**
 * `txid_current_snapshot()`, whose text (xmin: the oldest transaction still
 * running; xmax: one past the newest finished one; the ids below xmax still
 * in progress) changes whenever a transaction that wrote ends, committed or
 * rolled back, anywhere in the cluster (read-only transactions get no id;
 * one that has written but not ended leaves it as it is:
 * test/engine/read-cache.test.ts). A commit between two checks either
 * advanced xmax (its id was at or above the first check's xmax) or left the
 * in-progress list (it was below), so equal tokens mean that nothing was
 * committed in between. Writes to other databases of the cluster also
 * change it: that costs reuse, never correctness.
 */
function revisionSource(k: Knex): RevisionSource {
  return {
    private: false,
    sharedAcrossProcesses: true,
    needsTagTriggers: false,
    async read() {
      const result = (await k.raw("select txid_current_snapshot()::text as s")) as { rows: Array<{ s: string }> };
      return result.rows[0]?.s ?? "";
    },
    close: async () => undefined,
  };
}

// ------------------------------------------------------------------ bulk loads

/** The first id after the highest one used: the sequence may be ahead of max(id) (rolled-back inserts). */
async function firstFreeId(k: Knex, _tables: Tables, table: string): Promise<number> {
  const seq = (await k.raw("select pg_get_serial_sequence(?, 'id') as s", [table])) as { rows: Array<{ s: string }> };
  // The name comes from PostgreSQL itself. A sequence not yet used (is_called false) has handed out nothing.
  const used = `(select case when is_called then last_value else last_value - 1 end from ${seq.rows[0].s})`;
  const r = (await k.raw(`select greatest((select coalesce(max(id), 0) from ??), ${used}) as m`, [table])) as {
    rows: Array<{ m: string | number }>;
  };
  return Number(r.rows[0].m) + 1;
}

// ------------------------------------------------------------------ the dialect

/**
 * PostgreSQL: concurrent writers lock rows; any error aborts the
 * transaction; the default collation may be a locale, so text is ordered
 * with "C".
 */
export const postgres: Dialect = {
  name: "postgres",
  matchesClient: (client) => client.includes("pg") || client.includes("postgres"),
  configFromTarget: (target) => (/^postgres(ql)?:\/\//i.test(target) ? { client: "pg", connection: target, pool: { min: 0, max: 10 } } : null),
  optionalDriver: { pkg: "pg", clients: ["pg", "postgres", "postgresql"], database: "PostgreSQL" },

  optimizeStorage: async () => undefined,
  filePath: () => null,
  hasSchemas: true,

  serialisesWriters: false,
  errorAbortsTransaction: true,
  // FOR NO KEY UPDATE: the foreign-key checks of inserts referencing the rows (FOR KEY SHARE) do not wait for it.
  lockRowsKeepingKeys: (q) => void q.forNoKeyUpdate(),
  // READ COMMITTED: every statement already sees the latest commit.
  readLatestCommitted: () => undefined,

  hasReturning: true,
  codePointCollation: ' COLLATE "C"',
  booleanLiteral: (value) => (value ? "true" : "false"),
  rawRows: <T>(result: unknown) => (result as { rows: T[] }).rows,
  // Planning, not execution, was most of a post load's database time (a join of a dozen columns by id): a named
  // statement is parsed once per connection, and after five runs PostgreSQL keeps a generic plan for it.
  preparedStatements: {
    options: (name) => ({ name }),
    failure(err) {
      const code = (err as { code?: string }).code;
      // A kept `SELECT p.*` fails once a migration has added a column: "cached plan must not change result type".
      if (code === "0A000" && /cached plan/i.test(String((err as Error).message))) return "stale";
      // "prepared statement … does not exist" / "already exists": a transaction-pooling PgBouncer (before 1.21, or
      // without max_prepared_statements) sends the statement to a server connection other than the one that parsed it.
      if (code === "26000" || code === "42P05") return "unavailable";
      return null;
    },
  },

  prefersIndexOrderedPages: false,
  needsJoinOrderHints: false,
  readsJoinedUnionsByKey: true,

  longText: (t, name) => t.text(name),
  configureTable: () => undefined,
  async indexExists(k, tables, table, index) {
    const r = await k.raw("select 1 from pg_indexes where schemaname = coalesce(?::text, current_schema()) and tablename = ? and indexname = ?", [tables.schema, table, index]);
    return (r as { rows: unknown[] }).rows.length > 0;
  },
  cacheTagTriggers: tagTriggers,
  tagChanges,
  searchIndex,
  searchCaseFolding: "unicode",

  revisionSource,

  withBulkSettings: (_k, work) => work(),
  firstFreeId,
  async afterExplicitIds(k, table) {
    // Explicit ids leave the serial sequence behind; later inserts must not collide.
    await k.raw("select setval(pg_get_serial_sequence(?, 'id'), (select max(id) from ??))", [table, table]);
  },
  /**
   * Autovacuum gets to it eventually, but until then the planner believes
   * the tables are as small as before the load: the one recount query that
   * follows took minutes instead of a second on 100,000 events.
   */
  async analyzeAfterBulk(k, tables) {
    for (const table of tables) await k.raw("analyze ??", [table]);
  },
};
