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
 *
 * Each dialect builds its own (`Dialect.searchIndex`, lib/db/dialects);
 * the core migration creates it.
 */

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
