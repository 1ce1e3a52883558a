import { randomInt } from "node:crypto";
import type { Knex } from "knex";
import { createTableIfMissing } from "./migrations";
import { quoted, TABLE_BASES, type TableKey, type Tables } from "./tables";
import { dialectOf } from "./target";

/**
 * Cache tags: one version counter per thing an answer can show (a post, a
 * term, the site's options and users, the set of slugs), bumped by database
 * triggers in the transaction of every write that changes it. A stored
 * answer (lib/routes/answer-store.ts) keeps the versions of the tags it
 * read; it is still good exactly while they are unchanged.
 *
 * Triggers rather than calls in the engine's write paths: every writer is
 * covered (the engine, the bulk fixture loader, another process, a tool
 * writing SQL), and a bump commits or rolls back with the change itself.
 *
 * Tags are integers (no string building inside triggers, the same SQL on
 * each database): `id * 4 + kind`.
 * - kind 0: the post `id` (its row, typed fields, meta, terms, links from it);
 * - kind 1: the term `id` (name, slug, parent, description, count);
 * - kind 2: site-wide tags: `SITE_TAG` (options, users), `SLUGS_TAG`
 *   (a post appeared, disappeared or changed slug, status, type, language
 *   or translation group: what a lookup by slug or a translation
 *   substitution finds may have changed) and `EPOCH_TAG`;
 * - kind 3: slug buckets (`slugTag`): a post with a slug in that bucket
 *   appeared, disappeared or changed slug, status, type, language or
 *   translation group. A lookup by slug depends on its bucket only, so a new
 *   event does not void every stored by-slug answer as SLUGS_TAG would.
 *
 * MariaDB/MySQL get the table but no triggers yet: answers are not stored
 * there (it has no cheap commit counter either, see revision.ts).
 */
export const postTag = (id: number): number => id * 4;
export const termTag = (id: number): number => id * 4 + 1;
export const SITE_TAG = 2;
export const SLUGS_TAG = 6;
/**
 * Set once, to a random number, when the table is made: a database made
 * again from scratch (a new fixture in the same file) never matches what was
 * stored for the old one, though its other tags start from 0 again.
 */
export const EPOCH_TAG = 10;

const SLUG_BUCKETS = 1 << 20;

/**
 * The tag of a slug's bucket: a cheap hash (length and four characters) the
 * triggers compute in SQL the same way (`slugBucketSql`); characters are
 * code points, as SQLite's and PostgreSQL's length/substr count them. A
 * collision only voids a few more answers than needed.
 */
export function slugTag(slug: string): number {
  const chars = Array.from(slug);
  const n = chars.length;
  if (n === 0) return 3;
  const cp = (i: number): number => chars[i].codePointAt(0) ?? 0;
  return ((n * 1000003 + cp(0) * 8191 + cp(n - 1) * 131 + cp(Math.floor(n / 2)) * 7 + cp(Math.floor(n / 3))) % SLUG_BUCKETS) * 4 + 3;
}

/** `slugTag` in SQL over the column expression `s` (`unicode`/`ascii` give a character's code point). */
function slugBucketSql(s: string, dialect: "sqlite" | "postgres"): string {
  const n = dialect === "postgres" ? `length(${s})::bigint` : `length(${s})`;
  const cp = (at: string): string => (dialect === "postgres" ? `ascii(substr(${s}, ${at}, 1))::bigint` : `unicode(substr(${s}, ${at}, 1))`);
  return `(CASE WHEN length(${s}) = 0 THEN 3 ELSE ((${n} * 1000003 + ${cp("1")} * 8191 + ${cp(`length(${s})`)} * 131 + ${cp(`length(${s}) / 2 + 1`)} * 7 + ${cp(`length(${s}) / 3 + 1`)}) % ${SLUG_BUCKETS}) * 4 + 3 END)`;
}

/** Tables whose rows belong to a post through this column. */
const POST_OWNED: ReadonlyArray<{ table: TableKey; column: string }> = [
  { table: "postmeta", column: "post_id" },
  { table: "termRelationships", column: "object_id" },
  { table: "postLinks", column: "from_id" },
];
const SITE_TABLES: readonly TableKey[] = ["options", "users"];

/** Whether the database keeps cache tags up to date (triggers exist for its dialect). */
export function cacheTagsMaintained(knex: Knex): boolean {
  const dialect = dialectOf(knex);
  return dialect === "sqlite" || dialect === "postgres";
}

// ------------------------------------------------------------------ SQLite

/*
 * Trigger bodies cannot take bindings: the names in them are quoted with
 * `quoted` (and come from `Tables`, which admits only safe identifiers).
 */
type SqliteTrigger = { name: string; sql: string };

function sqliteBump(knex: Knex, tables: Tables, expr: string): string {
  return `INSERT INTO ${quoted(knex, tables.cacheTags)}(tag, version) VALUES (${expr}, 1) ON CONFLICT(tag) DO UPDATE SET version = version + 1;`;
}

/** The three triggers of `base` (a table's base name, as TABLE_BASES gives it): `<prefix>cache_tag_<base>_ins` and so on. */
function sqliteTriggers(knex: Knex, tables: Tables, base: string, tagOf: (row: "new" | "old") => string): SqliteTrigger[] {
  const on = quoted(knex, tables.qualify(tables.name(base)));
  const name = (op: string): string => tables.name(`cache_tag_${base}_${op}`);
  return [
    { name: name("ins"), sql: `AFTER INSERT ON ${on} BEGIN ${sqliteBump(knex, tables, tagOf("new"))} END` },
    { name: name("upd"), sql: `AFTER UPDATE ON ${on} BEGIN ${sqliteBump(knex, tables, tagOf("new"))} END` },
    { name: name("del"), sql: `AFTER DELETE ON ${on} BEGIN ${sqliteBump(knex, tables, tagOf("old"))} END` },
  ];
}

const SQLITE_SLUG_CHANGED =
  "new.slug IS NOT old.slug OR new.status IS NOT old.status OR new.type IS NOT old.type OR new.language IS NOT old.language OR new.translation_group IS NOT old.translation_group";

function sqliteCoreTriggers(knex: Knex, tables: Tables): SqliteTrigger[] {
  const posts = quoted(knex, tables.posts);
  const bump = (expr: string): string => sqliteBump(knex, tables, expr);
  return [
    ...sqliteTriggers(knex, tables, TABLE_BASES.posts, (r) => `${r}.id * 4`),
    ...sqliteTriggers(knex, tables, TABLE_BASES.terms, (r) => `${r}.id * 4 + 1`),
    ...POST_OWNED.flatMap(({ table, column }) => sqliteTriggers(knex, tables, TABLE_BASES[table], (r) => `${r}.${column} * 4`)),
    ...SITE_TABLES.flatMap((table) => sqliteTriggers(knex, tables, TABLE_BASES[table], () => String(SITE_TAG))),
    { name: tables.name("cache_tag_slugs_ins"), sql: `AFTER INSERT ON ${posts} BEGIN ${bump(String(SLUGS_TAG))} END` },
    { name: tables.name("cache_tag_slugs_del"), sql: `AFTER DELETE ON ${posts} BEGIN ${bump(String(SLUGS_TAG))} END` },
    {
      name: tables.name("cache_tag_slugs_upd"),
      sql: `AFTER UPDATE OF slug, status, type, language, translation_group ON ${posts} WHEN ${SQLITE_SLUG_CHANGED} BEGIN ${bump(String(SLUGS_TAG))} END`,
    },
    { name: tables.name("cache_tag_slug_bucket_ins"), sql: `AFTER INSERT ON ${posts} BEGIN ${bump(slugBucketSql("new.slug", "sqlite"))} END` },
    { name: tables.name("cache_tag_slug_bucket_del"), sql: `AFTER DELETE ON ${posts} BEGIN ${bump(slugBucketSql("old.slug", "sqlite"))} END` },
    {
      name: tables.name("cache_tag_slug_bucket_upd"),
      sql: `AFTER UPDATE OF slug, status, type, language, translation_group ON ${posts} WHEN ${SQLITE_SLUG_CHANGED} BEGIN ${bump(slugBucketSql("old.slug", "sqlite"))} ${bump(slugBucketSql("new.slug", "sqlite"))} END`,
    },
  ];
}

async function createSqliteTriggers(knex: Knex, triggers: SqliteTrigger[]): Promise<void> {
  const present = new Set(
    ((await knex("sqlite_master").where("type", "trigger").whereIn("name", triggers.map((t) => t.name)).select("name")) as Array<{ name: string }>).map((r) => r.name),
  );
  for (const trigger of triggers) {
    if (present.has(trigger.name)) continue;
    await knex.raw(`CREATE TRIGGER IF NOT EXISTS ?? ${trigger.sql}`, [trigger.name]);
  }
}

// ------------------------------------------------------------------ PostgreSQL

/**
 * The bump in a trigger function. The cache-tags table is named with its
 * schema: a function resolves unqualified names through the search_path of
 * whoever writes, which need not include calpress's schema.
 */
function pgBump(cacheTags: string): string {
  return `INSERT INTO ${cacheTags} AS c (tag, version) VALUES (t, 1) ON CONFLICT (tag) DO UPDATE SET version = c.version + 1`;
}

/** One trigger function per way of finding the tag (base names, prefixed); `TG_ARGV[0]` is the column, `TG_ARGV[1]` the kind. */
function pgFunctions(cacheTags: string): Array<{ name: string; body: string }> {
  const bump = pgBump(cacheTags);
  return [
    {
      name: "calpress_tag_row",
      body: `DECLARE r jsonb; t bigint;
BEGIN
  IF TG_OP = 'DELETE' THEN r := to_jsonb(OLD); ELSE r := to_jsonb(NEW); END IF;
  t := (r ->> TG_ARGV[0])::bigint * 4 + TG_ARGV[1]::int;
  ${bump};
  RETURN NULL;
END;`,
    },
    {
      name: "calpress_tag_site",
      body: `DECLARE t bigint := ${SITE_TAG};
BEGIN
  ${bump};
  RETURN NULL;
END;`,
    },
    {
      // Posts carry their content: the row is not turned into JSON here.
      name: "calpress_tag_post",
      body: `DECLARE t bigint;
BEGIN
  IF TG_OP = 'DELETE' THEN t := OLD.id * 4; ELSE t := NEW.id * 4; END IF;
  ${bump};
  RETURN NULL;
END;`,
    },
    {
      // Runs at commit (a deferred constraint trigger, below): SLUGS_TAG is
      // one row that every post create, delete and slug or status change
      // bumps. Locked mid-transaction, it made writers of different posts
      // wait on each other while holding post and term rows (deadlocks);
      // locked last, at commit, whoever holds it waits for nothing else.
      name: "calpress_tag_slugs",
      body: `DECLARE t bigint := ${SLUGS_TAG};
BEGIN
  IF TG_OP <> 'UPDATE' OR NEW.slug IS DISTINCT FROM OLD.slug OR NEW.status IS DISTINCT FROM OLD.status
     OR NEW.type IS DISTINCT FROM OLD.type OR NEW.language IS DISTINCT FROM OLD.language
     OR NEW.translation_group IS DISTINCT FROM OLD.translation_group THEN
    ${bump};
    IF TG_OP <> 'INSERT' THEN
      t := ${slugBucketSql("OLD.slug", "postgres")};
      ${bump};
    END IF;
    IF TG_OP <> 'DELETE' THEN
      t := ${slugBucketSql("NEW.slug", "postgres")};
      ${bump};
    END IF;
  END IF;
  RETURN NULL;
END;`,
    },
  ];
}

type PgTrigger = { table: string; fn: string; args: string };

function pgCoreTriggers(tables: Tables): PgTrigger[] {
  return [
    { table: tables.posts, fn: "calpress_tag_post", args: "" },
    { table: tables.terms, fn: "calpress_tag_row", args: "'id', '1'" },
    ...POST_OWNED.map(({ table, column }) => ({ table: tables[table], fn: "calpress_tag_row", args: `'${column}', '0'` })),
    ...SITE_TABLES.map((table) => ({ table: tables[table], fn: "calpress_tag_site", args: "" })),
  ];
}

/** The triggers named `name` on tables of the tables' schema, by table. */
async function pgTriggersNamed(knex: Knex, tables: Tables, name: string): Promise<Set<string>> {
  const r = (await knex.raw(
    "select c.relname from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace where n.nspname = coalesce(?::text, current_schema()) and t.tgname = ?",
    [tables.schema, name],
  )) as { rows: Array<{ relname: string }> };
  return new Set(r.rows.map((row) => row.relname));
}

/** The deferred SLUGS_TAG trigger of posts (see calpress_tag_slugs). */
async function createPgSlugsTrigger(knex: Knex, tables: Tables): Promise<void> {
  const name = tables.name("cache_tag_slugs");
  if ((await pgTriggersNamed(knex, tables, name)).has(tables.unqualified(tables.posts))) return;
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

async function createPgTriggers(knex: Knex, tables: Tables, triggers: PgTrigger[]): Promise<void> {
  const name = tables.name("cache_tag");
  const present = await pgTriggersNamed(knex, tables, name);
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

async function createPgFunctions(knex: Knex, tables: Tables): Promise<void> {
  const schema = tables.schema ?? ((await knex.raw("select current_schema() as s")) as { rows: Array<{ s: string }> }).rows[0].s;
  const cacheTags = quoted(knex, `${schema}.${tables.unqualified(tables.cacheTags)}`);
  for (const { name, body } of pgFunctions(cacheTags)) {
    const fn = tables.name(name);
    const exists =
      ((await knex.raw("select 1 from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = ? and p.proname = ?", [schema, fn])) as { rows: unknown[] }).rows
        .length > 0;
    if (exists) continue;
    try {
      await knex.raw(`CREATE FUNCTION ??() RETURNS trigger LANGUAGE plpgsql AS $calpress$ ${body} $calpress$`, [`${schema}.${fn}`]);
    } catch (err) {
      if (!/already exists/i.test(String((err as Error).message))) throw err;
    }
  }
}

// ------------------------------------------------------------------ migrations

export async function migrateCacheTags(knex: Knex, tables: Tables): Promise<void> {
  await createTableIfMissing(knex, tables, tables.unqualified(tables.cacheTags), (t) => {
    t.bigInteger("tag").primary();
    t.bigInteger("version").notNullable();
  });
  await knex(tables.cacheTags)
    .insert({ tag: EPOCH_TAG, version: randomInt(1, 2 ** 47) })
    .onConflict("tag")
    .ignore();
  const dialect = dialectOf(knex);
  if (dialect === "sqlite") await createSqliteTriggers(knex, sqliteCoreTriggers(knex, tables));
  else if (dialect === "postgres") {
    await createPgFunctions(knex, tables);
    await createPgTriggers(knex, tables, pgCoreTriggers(tables));
    await createPgSlugsTrigger(knex, tables);
  }
}

/** The triggers of a post type's typed-field table (created with the table, or added to one made before tags existed). */
export async function migrateFieldTableTags(knex: Knex, tables: Tables, postType: string): Promise<void> {
  const dialect = dialectOf(knex);
  if (dialect === "sqlite") await createSqliteTriggers(knex, sqliteTriggers(knex, tables, `fields_${postType}`, (r) => `${r}.post_id * 4`));
  else if (dialect === "postgres") await createPgTriggers(knex, tables, [{ table: tables.fields(postType), fn: "calpress_tag_row", args: "'post_id', '0'" }]);
}

/** The current versions of `tags` (a tag never bumped is at 0 and absent from the map). */
export async function readTagVersions(knex: Knex, tables: Tables, tags: readonly number[]): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  for (let i = 0; i < tags.length; i += 500) {
    const rows = (await knex(tables.cacheTags).whereIn("tag", tags.slice(i, i + 500)).select("tag", "version")) as Array<{ tag: number | string; version: number | string }>;
    for (const row of rows) out.set(Number(row.tag), Number(row.version));
  }
  return out;
}
