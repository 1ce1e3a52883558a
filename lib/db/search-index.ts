import type { Knex } from "knex";
import { recordCreated } from "./ownership";
import { quoted, type Tables } from "./tables";
import { dialectOf } from "./target";

/**
 * The index behind post search (`search` in posts.find: every word, as a
 * case-insensitive substring, in title, excerpt or content).
 *
 * Substring semantics rule out word indexes (a PostgreSQL tsvector, a
 * MariaDB FULLTEXT index and FTS5's default tokenizer all find `coding` but
 * not `oding`), so the index is made of character trigrams:
 *
 * - SQLite: an FTS5 table with the trigram tokenizer over the `posts` table
 *   (external content: the text is stored once, in `posts`), kept in sync by
 *   triggers, so every write path (the engine, the bulk fixture loader, a
 *   tool writing SQL) updates it in the same transaction. The search query
 *   uses it only to narrow the candidates and keeps its exact LIKE check
 *   (see `trigramMatch`), so the results are exactly those of a scan.
 * - PostgreSQL: pg_trgm GIN indexes on `lower(title)`, `lower(excerpt)` and
 *   `lower(content)`, the very expressions the search compares, so the
 *   planner answers `LOWER(col) LIKE LOWER(pattern)` from them and rechecks
 *   every row: nothing changes in the query. Skipped when the pg_trgm
 *   extension cannot be installed (search then scans, as before).
 * - MariaDB/MySQL: none. MariaDB has no n-gram parser, and a FULLTEXT index
 *   finds whole words or word prefixes only, which cannot narrow a substring
 *   search without losing matches; search scans there.
 */

/** The SQLite search table's triggers: `<prefix>posts_search_insert` and so on. */
function sqliteTriggers(knex: Knex, tables: Tables): Array<{ name: string; sql: string }> {
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

const PG_INDEXES: Array<{ name: string; column: string }> = [
  { name: "posts_title_trgm", column: "title" },
  { name: "posts_excerpt_trgm", column: "excerpt" },
  { name: "posts_content_trgm", column: "content" },
];

/** Creates the dialect's search index when missing; idempotent and tolerant of a concurrent migrator. */
export async function migrateSearchIndex(knex: Knex, tables: Tables): Promise<void> {
  const dialect = dialectOf(knex);
  if (dialect === "sqlite") await migrateSqlite(knex, tables);
  else if (dialect === "postgres") await migratePostgres(knex, tables);
}

/** The tables the search index creates on this database (unqualified): SQLite's FTS5 table. */
export function searchTables(knex: Knex, tables: Tables): string[] {
  return dialectOf(knex) === "sqlite" ? [tables.unqualified(tables.postsSearch)] : [];
}

async function sqliteObjects(k: Knex, tables: Tables): Promise<Set<string>> {
  const names = [tables.postsSearch, ...sqliteTriggers(k, tables).map((t) => t.name)];
  const rows: Array<{ name: string }> = await k("sqlite_master").whereIn("name", names).select("name");
  return new Set(rows.map((r) => r.name));
}

/** Whether the SQLite search table and all its triggers exist (the search uses the table only then). */
export async function sqliteSearchIndexReady(k: Knex, tables: Tables): Promise<boolean> {
  return (await sqliteObjects(k, tables)).size === sqliteTriggers(k, tables).length + 1;
}

async function migrateSqlite(knex: Knex, tables: Tables): Promise<void> {
  if (await sqliteSearchIndexReady(knex, tables)) return;
  const triggers = sqliteTriggers(knex, tables);
  try {
    await knex.transaction(async (trx) => {
      const present = await sqliteObjects(trx, tables);
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
    if (await sqliteSearchIndexReady(knex, tables)) return;
    // A SQLite built without FTS5 or older than 3.34 (no trigram tokenizer): search scans, as it always did.
    if (/no such (module|tokenizer)/i.test(String((err as Error).message))) return;
    throw err;
  }
}

async function pgIndexesPresent(knex: Knex, tables: Tables): Promise<Set<string>> {
  const r = await knex.raw("select indexname from pg_indexes where schemaname = coalesce(?::text, current_schema()) and tablename = ? and indexname = any(?)", [
    tables.schema,
    tables.unqualified(tables.posts),
    PG_INDEXES.map((i) => tables.name(i.name)),
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

async function migratePostgres(knex: Knex, tables: Tables): Promise<void> {
  let present = await pgIndexesPresent(knex, tables);
  if (present.size === PG_INDEXES.length) return;
  let extension = await trigramSchema(knex);
  if (extension === null) {
    try {
      await knex.raw("CREATE EXTENSION IF NOT EXISTS pg_trgm");
    } catch {
      // A concurrent migrator may have won; without the right to install it, search scans as before.
    }
    extension = await trigramSchema(knex);
    if (extension === null) return;
  }
  for (const { name, column } of PG_INDEXES) {
    const index = tables.name(name);
    if (present.has(index)) continue;
    try {
      // The operator class named with the extension's schema, which need not be on the search_path
      // (a host's `extensions` schema, or calpress's own schema as the only one on it).
      await knex.raw("CREATE INDEX IF NOT EXISTS ?? ON ?? USING gin (lower(??) ??)", [index, tables.posts, column, `${extension}.gin_trgm_ops`]);
    } catch (err) {
      present = await pgIndexesPresent(knex, tables);
      if (!present.has(index)) throw err;
    }
  }
}

/**
 * The FTS5 query that finds every row holding all the words, each as a
 * substring, whatever the case: for each word every trigram (three
 * consecutive characters) it contains, as quoted strings ANDed together.
 * Every row the exact check (`LOWER(col) LIKE LOWER('%word%')`, ASCII case
 * folding) accepts holds all of them, because the tokenizer folds case per
 * character (a superset of ASCII folding) the same way in the row and in the
 * query. A word shorter than three characters gives no trigram and cannot
 * narrow; null when no word can (the caller then runs its query unnarrowed).
 */
export function trigramMatch(words: readonly string[]): string | null {
  const grams = new Set<string>();
  for (const word of words) {
    // Lone surrogates and NUL have no faithful UTF-8 form: such a word is left to the exact check alone.
    if (/[\u0000\ud800-\udfff]/.test(word)) continue;
    const chars = [...word];
    for (let i = 0; i + 3 <= chars.length; i++) grams.add(chars.slice(i, i + 3).join(""));
  }
  if (grams.size === 0) return null;
  return [...grams].map((g) => `"${g.replace(/"/g, '""')}"`).join(" AND ");
}
