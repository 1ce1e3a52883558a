import type { Knex } from "knex";
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
export const SEARCH_TABLE = "posts_search";

const SQLITE_TRIGGERS: Array<{ name: string; sql: string }> = [
  {
    name: "posts_search_insert",
    sql: `CREATE TRIGGER IF NOT EXISTS posts_search_insert AFTER INSERT ON posts BEGIN
      INSERT INTO ${SEARCH_TABLE}(rowid, title, excerpt, content) VALUES (new.id, new.title, new.excerpt, new.content);
    END`,
  },
  {
    name: "posts_search_delete",
    // External content: FTS5 removes a row's tokens given the values it indexed, which are the old row's.
    sql: `CREATE TRIGGER IF NOT EXISTS posts_search_delete AFTER DELETE ON posts BEGIN
      INSERT INTO ${SEARCH_TABLE}(${SEARCH_TABLE}, rowid, title, excerpt, content) VALUES ('delete', old.id, old.title, old.excerpt, old.content);
    END`,
  },
  {
    name: "posts_search_update",
    // Only updates that set one of the indexed columns (status changes, trash and slug claims do not).
    sql: `CREATE TRIGGER IF NOT EXISTS posts_search_update AFTER UPDATE OF title, excerpt, content ON posts BEGIN
      INSERT INTO ${SEARCH_TABLE}(${SEARCH_TABLE}, rowid, title, excerpt, content) VALUES ('delete', old.id, old.title, old.excerpt, old.content);
      INSERT INTO ${SEARCH_TABLE}(rowid, title, excerpt, content) VALUES (new.id, new.title, new.excerpt, new.content);
    END`,
  },
];

const PG_INDEXES: Array<{ name: string; column: string }> = [
  { name: "posts_title_trgm", column: "title" },
  { name: "posts_excerpt_trgm", column: "excerpt" },
  { name: "posts_content_trgm", column: "content" },
];

/** Creates the dialect's search index when missing; idempotent and tolerant of a concurrent migrator. */
export async function migrateSearchIndex(knex: Knex): Promise<void> {
  const dialect = dialectOf(knex);
  if (dialect === "sqlite") await migrateSqlite(knex);
  else if (dialect === "postgres") await migratePostgres(knex);
}

async function sqliteObjects(k: Knex): Promise<Set<string>> {
  const names = [SEARCH_TABLE, ...SQLITE_TRIGGERS.map((t) => t.name)];
  const rows: Array<{ name: string }> = await k("sqlite_master").whereIn("name", names).select("name");
  return new Set(rows.map((r) => r.name));
}

/** Whether the SQLite search table and all its triggers exist (the search uses the table only then). */
export async function sqliteSearchIndexReady(k: Knex): Promise<boolean> {
  return (await sqliteObjects(k)).size === SQLITE_TRIGGERS.length + 1;
}

async function migrateSqlite(knex: Knex): Promise<void> {
  if (await sqliteSearchIndexReady(knex)) return;
  try {
    await knex.transaction(async (trx) => {
      const present = await sqliteObjects(trx);
      if (present.size === SQLITE_TRIGGERS.length + 1) return;
      if (!present.has(SEARCH_TABLE)) {
        // detail=none: the index keeps which rows hold each trigram, not where;
        // a quarter of the size of detail=full and faster to fill. The search
        // asks for every trigram of a word (not the phrase), a superset of
        // the rows holding the word, and checks the word itself afterwards.
        await trx.raw(
          `CREATE VIRTUAL TABLE ${SEARCH_TABLE} USING fts5(title, excerpt, content, content='posts', content_rowid='id', tokenize='trigram', detail=none)`,
        );
      }
      for (const trigger of SQLITE_TRIGGERS) await trx.raw(trigger.sql);
      // Filled from the rows already there; also repairs an index whose triggers were missing.
      await trx.raw(`INSERT INTO ${SEARCH_TABLE}(${SEARCH_TABLE}) VALUES ('rebuild')`);
    });
  } catch (err) {
    if (await sqliteSearchIndexReady(knex)) return;
    // A SQLite built without FTS5 or older than 3.34 (no trigram tokenizer): search scans, as it always did.
    if (/no such (module|tokenizer)/i.test(String((err as Error).message))) return;
    throw err;
  }
}

async function pgIndexesPresent(knex: Knex): Promise<Set<string>> {
  const r = await knex.raw("select indexname from pg_indexes where schemaname = current_schema() and tablename = 'posts' and indexname = any(?)", [
    PG_INDEXES.map((i) => i.name),
  ]);
  return new Set((r as { rows: Array<{ indexname: string }> }).rows.map((row) => row.indexname));
}

async function migratePostgres(knex: Knex): Promise<void> {
  let present = await pgIndexesPresent(knex);
  if (present.size === PG_INDEXES.length) return;
  const hasExtension = async (): Promise<boolean> =>
    ((await knex.raw("select 1 from pg_extension where extname = 'pg_trgm'")) as { rows: unknown[] }).rows.length > 0;
  if (!(await hasExtension())) {
    try {
      await knex.raw("CREATE EXTENSION IF NOT EXISTS pg_trgm");
    } catch (err) {
      // A concurrent migrator may have won; without the right to install it, search scans as before.
      if (!(await hasExtension())) return;
    }
  }
  for (const { name, column } of PG_INDEXES) {
    if (present.has(name)) continue;
    try {
      await knex.raw("CREATE INDEX IF NOT EXISTS ?? ON posts USING gin (lower(??) gin_trgm_ops)", [name, column]);
    } catch (err) {
      present = await pgIndexesPresent(knex);
      if (!present.has(name)) throw err;
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
