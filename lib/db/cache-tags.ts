import { randomInt } from "node:crypto";
import type { Knex } from "knex";
import { createTableIfMissing } from "./migrations";
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
 *   substitution finds may have changed) and `EPOCH_TAG`.
 *
 * - kind 3: slug buckets (`slugTag`): a post with a slug in that bucket
 *   appeared, disappeared or changed slug, status, type, language or
 *   translation group. A lookup by slug depends on its bucket only, so a new
 *   event does not void every stored by-slug answer as SLUGS_TAG would.
 *
 * MariaDB/MySQL get the table but no triggers yet: answers are not stored
 * there (it has no cheap commit counter either, see revision.ts).
 */
export const CACHE_TAGS_TABLE = "cache_tags";

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
const POST_OWNED: ReadonlyArray<{ table: string; column: string }> = [
  { table: "postmeta", column: "post_id" },
  { table: "term_relationships", column: "object_id" },
  { table: "post_links", column: "from_id" },
];
const SITE_TABLES = ["options", "users"] as const;

/** Whether the database keeps cache tags up to date (triggers exist for its dialect). */
export function cacheTagsMaintained(knex: Knex): boolean {
  const dialect = dialectOf(knex);
  return dialect === "sqlite" || dialect === "postgres";
}

// ------------------------------------------------------------------ SQLite

const sqliteBump = (expr: string): string =>
  `INSERT INTO ${CACHE_TAGS_TABLE}(tag, version) VALUES (${expr}, 1) ON CONFLICT(tag) DO UPDATE SET version = version + 1;`;

function sqliteTriggers(table: string, tagOf: (row: "new" | "old") => string, prefix = `cache_tag_${table}`): Array<{ name: string; sql: string }> {
  return [
    { name: `${prefix}_ins`, sql: `AFTER INSERT ON ${table} BEGIN ${sqliteBump(tagOf("new"))} END` },
    { name: `${prefix}_upd`, sql: `AFTER UPDATE ON ${table} BEGIN ${sqliteBump(tagOf("new"))} END` },
    { name: `${prefix}_del`, sql: `AFTER DELETE ON ${table} BEGIN ${sqliteBump(tagOf("old"))} END` },
  ];
}

const SQLITE_SLUG_CHANGED =
  "new.slug IS NOT old.slug OR new.status IS NOT old.status OR new.type IS NOT old.type OR new.language IS NOT old.language OR new.translation_group IS NOT old.translation_group";

function sqliteCoreTriggers(): Array<{ name: string; sql: string }> {
  const out = [
    ...sqliteTriggers("posts", (r) => `${r}.id * 4`),
    ...sqliteTriggers("terms", (r) => `${r}.id * 4 + 1`),
    ...POST_OWNED.flatMap(({ table, column }) => sqliteTriggers(table, (r) => `${r}.${column} * 4`)),
    ...SITE_TABLES.flatMap((table) => sqliteTriggers(table, () => String(SITE_TAG))),
    { name: "cache_tag_slugs_ins", sql: `AFTER INSERT ON posts BEGIN ${sqliteBump(String(SLUGS_TAG))} END` },
    { name: "cache_tag_slugs_del", sql: `AFTER DELETE ON posts BEGIN ${sqliteBump(String(SLUGS_TAG))} END` },
    {
      name: "cache_tag_slugs_upd",
      sql: `AFTER UPDATE OF slug, status, type, language, translation_group ON posts WHEN ${SQLITE_SLUG_CHANGED} BEGIN ${sqliteBump(String(SLUGS_TAG))} END`,
    },
    { name: "cache_tag_slug_bucket_ins", sql: `AFTER INSERT ON posts BEGIN ${sqliteBump(slugBucketSql("new.slug", "sqlite"))} END` },
    { name: "cache_tag_slug_bucket_del", sql: `AFTER DELETE ON posts BEGIN ${sqliteBump(slugBucketSql("old.slug", "sqlite"))} END` },
    {
      name: "cache_tag_slug_bucket_upd",
      sql: `AFTER UPDATE OF slug, status, type, language, translation_group ON posts WHEN ${SQLITE_SLUG_CHANGED} BEGIN ${sqliteBump(slugBucketSql("old.slug", "sqlite"))} ${sqliteBump(slugBucketSql("new.slug", "sqlite"))} END`,
    },
  ];
  return out;
}

async function createSqliteTriggers(knex: Knex, triggers: Array<{ name: string; sql: string }>): Promise<void> {
  const present = new Set(
    ((await knex("sqlite_master").where("type", "trigger").whereIn("name", triggers.map((t) => t.name)).select("name")) as Array<{ name: string }>).map((r) => r.name),
  );
  for (const trigger of triggers) {
    if (present.has(trigger.name)) continue;
    // Identifiers here are ours (table names from the registry, checked at registration), never request input.
    await knex.raw(`CREATE TRIGGER IF NOT EXISTS ${trigger.name} ${trigger.sql}`);
  }
}

// ------------------------------------------------------------------ PostgreSQL

const PG_BUMP = `INSERT INTO ${CACHE_TAGS_TABLE}(tag, version) VALUES (t, 1) ON CONFLICT (tag) DO UPDATE SET version = ${CACHE_TAGS_TABLE}.version + 1`;

/** One trigger function per way of finding the tag; `TG_ARGV[0]` is the column, `TG_ARGV[1]` the kind. */
const PG_FUNCTIONS: Array<{ name: string; body: string }> = [
  {
    name: "calpress_tag_row",
    body: `DECLARE r jsonb; t bigint;
BEGIN
  IF TG_OP = 'DELETE' THEN r := to_jsonb(OLD); ELSE r := to_jsonb(NEW); END IF;
  t := (r ->> TG_ARGV[0])::bigint * 4 + TG_ARGV[1]::int;
  ${PG_BUMP};
  RETURN NULL;
END;`,
  },
  {
    name: "calpress_tag_site",
    body: `DECLARE t bigint := ${SITE_TAG};
BEGIN
  ${PG_BUMP};
  RETURN NULL;
END;`,
  },
  {
    // Posts carry their content: the row is not turned into JSON here.
    name: "calpress_tag_post",
    body: `DECLARE t bigint;
BEGIN
  IF TG_OP = 'DELETE' THEN t := OLD.id * 4; ELSE t := NEW.id * 4; END IF;
  ${PG_BUMP};
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
    ${PG_BUMP};
    IF TG_OP <> 'INSERT' THEN
      t := ${slugBucketSql("OLD.slug", "postgres")};
      ${PG_BUMP};
    END IF;
    IF TG_OP <> 'DELETE' THEN
      t := ${slugBucketSql("NEW.slug", "postgres")};
      ${PG_BUMP};
    END IF;
  END IF;
  RETURN NULL;
END;`,
  },
];

function pgCoreTriggers(): Array<{ table: string; fn: string; args: string }> {
  return [
    { table: "posts", fn: "calpress_tag_post", args: "" },
    { table: "terms", fn: "calpress_tag_row", args: "'id', '1'" },
    ...POST_OWNED.map(({ table, column }) => ({ table, fn: "calpress_tag_row", args: `'${column}', '0'` })),
    ...SITE_TABLES.map((table) => ({ table, fn: "calpress_tag_site", args: "" })),
  ];
}

/** The deferred SLUGS_TAG trigger of posts (see calpress_tag_slugs). */
async function createPgSlugsTrigger(knex: Knex): Promise<void> {
  const present = ((await knex.raw(
    "select 1 from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace where n.nspname = current_schema() and c.relname = 'posts' and t.tgname = 'cache_tag_slugs'",
  )) as { rows: unknown[] }).rows.length > 0;
  if (present) return;
  try {
    await knex.raw(
      "CREATE CONSTRAINT TRIGGER cache_tag_slugs AFTER INSERT OR UPDATE OR DELETE ON posts DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION calpress_tag_slugs()",
    );
  } catch (err) {
    if (!/already exists/i.test(String((err as Error).message))) throw err;
  }
}

async function createPgTriggers(knex: Knex, triggers: Array<{ table: string; fn: string; args: string }>): Promise<void> {
  const present = new Set(
    (
      (await knex.raw(
        "select c.relname from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace where n.nspname = current_schema() and t.tgname = 'cache_tag'",
      )) as { rows: Array<{ relname: string }> }
    ).rows.map((r) => r.relname),
  );
  for (const { table, fn, args } of triggers) {
    if (present.has(table)) continue;
    try {
      await knex.raw(`CREATE TRIGGER cache_tag AFTER INSERT OR UPDATE OR DELETE ON ?? FOR EACH ROW EXECUTE FUNCTION ${fn}(${args})`, [table]);
    } catch (err) {
      // A concurrent migrator created it first.
      if (!/already exists/i.test(String((err as Error).message))) throw err;
    }
  }
}

async function createPgFunctions(knex: Knex): Promise<void> {
  for (const { name, body } of PG_FUNCTIONS) {
    const exists = ((await knex.raw("select 1 from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = current_schema() and p.proname = ?", [name])) as { rows: unknown[] }).rows.length > 0;
    if (exists) continue;
    try {
      await knex.raw(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $calpress$ ${body} $calpress$`);
    } catch (err) {
      if (!/already exists/i.test(String((err as Error).message))) throw err;
    }
  }
}

// ------------------------------------------------------------------ migrations

export async function migrateCacheTags(knex: Knex): Promise<void> {
  await createTableIfMissing(knex, CACHE_TAGS_TABLE, (t) => {
    t.bigInteger("tag").primary();
    t.bigInteger("version").notNullable();
  });
  await knex(CACHE_TAGS_TABLE)
    .insert({ tag: EPOCH_TAG, version: randomInt(1, 2 ** 47) })
    .onConflict("tag")
    .ignore();
  const dialect = dialectOf(knex);
  if (dialect === "sqlite") await createSqliteTriggers(knex, sqliteCoreTriggers());
  else if (dialect === "postgres") {
    await createPgFunctions(knex);
    await createPgTriggers(knex, pgCoreTriggers());
    await createPgSlugsTrigger(knex);
  }
}

/** The triggers of a post type's typed-field table (created with the table, or added to one made before tags existed). */
export async function migrateFieldTableTags(knex: Knex, table: string): Promise<void> {
  const dialect = dialectOf(knex);
  if (dialect === "sqlite") await createSqliteTriggers(knex, sqliteTriggers(table, (r) => `${r}.post_id * 4`));
  else if (dialect === "postgres") await createPgTriggers(knex, [{ table, fn: "calpress_tag_row", args: "'post_id', '0'" }]);
}

/** The current versions of `tags` (a tag never bumped is at 0 and absent from the map). */
export async function readTagVersions(knex: Knex, tags: readonly number[]): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  for (let i = 0; i < tags.length; i += 500) {
    const rows = (await knex(CACHE_TAGS_TABLE).whereIn("tag", tags.slice(i, i + 500)).select("tag", "version")) as Array<{ tag: number | string; version: number | string }>;
    for (const row of rows) out.set(Number(row.tag), Number(row.version));
  }
  return out;
}
