import type { Knex } from "knex";
import type { TableKey, Tables } from "./tables";

/**
 * Cache tags: one version counter per thing an answer can show (a post, a
 * term, the site's options and users, the set of slugs), bumped by database
 * triggers in the transaction of every write that changes it. A stored
 * answer (lib/cache/answer-store.ts) keeps the versions of the tags it
 * read; it is still good exactly while they are unchanged.
 *
 * Triggers rather than calls in the engine's write paths: every writer is
 * covered (the engine, the bulk fixture loader, another process, a tool
 * writing SQL), and a bump commits or rolls back with the change itself.
 *
 * Tags are integers (no string building inside triggers, the same SQL on
 * each database): `id * 4 + kind`.
 * - kind 0: the post `id` (its row, typed fields, meta, terms, links from it, instances);
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
 * Each bump also sets the tag's `stamp` (SQLite: one more than the highest,
 * in commit order as writers are serialised; PostgreSQL: the writing
 * transaction's id; MariaDB/MySQL: the writing connection's commit slot and
 * its version, `COMMIT_SLOT_TAGS`), so that `Dialect.tagChanges` can say
 * which tags changed since a position: the published index
 * (lib/posts/published-index.ts) reads those posts again instead of
 * everything.
 *
 * This file holds what every database shares: the numbering and which
 * tables bump which tags. Each dialect writes the triggers in its own SQL
 * (`Dialect.cacheTagTriggers`, lib/db/dialects); the table and the epoch are
 * made by `migrateCacheTags` (lib/db/migrations.ts). Every database keeps
 * the tags, so write guards work on all (lib/cache/write-guard.ts); a
 * MariaDB/MySQL server may refuse the triggers (`TriggersRefused`), and then
 * nothing relies on them (nor on the revision token they make there).
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

/**
 * MariaDB/MySQL's commit counter (its revision token, lib/db/dialects/mysql.ts):
 * every trigger also bumps one of these slot tags, chosen by the writing
 * connection (`CONNECTION_ID() % COMMIT_SLOTS`), in the write's transaction.
 * Their sum grows with every commit that wrote a tagged table and becomes
 * visible with it; slots keep concurrent writers on other connections from
 * waiting for one row until each commits. Within a slot, versions follow
 * commit order (the row stays locked until the commit): they stamp the tags
 * the same trigger bumps. Kind 2 (site-wide), from 14 up.
 */
export const COMMIT_SLOTS = 16;
export const COMMIT_SLOT_TAGS: readonly number[] = Array.from({ length: COMMIT_SLOTS }, (_, i) => 14 + 4 * i);

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

/** What `slugBucketSql` needs of a dialect's SQL. */
export interface SlugBucketFunctions {
  /** The number of characters of `s`, as a value for the arithmetic. */
  length(s: string): string;
  /** The code point of the character of `s` at the 1-based position `at`. */
  codePoint(s: string, at: string): string;
  /** The number of characters of `s`, as compared with 0 and divided into positions (default `length(s)`: characters on SQLite and PostgreSQL, bytes on MariaDB). */
  count?(s: string): string;
  /** The integer quotient of two integers (default `a / b`: integer division on SQLite and PostgreSQL, not on MariaDB). */
  quotient?(a: string, b: string): string;
}

/** `slugTag` in SQL over the column expression `s`. */
export function slugBucketSql(s: string, sql: SlugBucketFunctions): string {
  const n = sql.length(s);
  const count = sql.count?.(s) ?? `length(${s})`;
  const quotient = sql.quotient ?? ((a: string, b: string): string => `${a} / ${b}`);
  const cp = (at: string): string => sql.codePoint(s, at);
  return `(CASE WHEN ${count} = 0 THEN 3 ELSE ((${n} * 1000003 + ${cp("1")} * 8191 + ${cp(count)} * 131 + ${cp(`${quotient(count, "2")} + 1`)} * 7 + ${cp(`${quotient(count, "3")} + 1`)}) % ${SLUG_BUCKETS}) * 4 + 3 END)`;
}

/** Tables whose rows belong to a post through this column (their triggers bump the post's tag). */
export const POST_OWNED: ReadonlyArray<{ table: TableKey; column: string }> = [
  { table: "postmeta", column: "post_id" },
  { table: "termRelationships", column: "object_id" },
  { table: "postLinks", column: "from_id" },
  // A series' instances (the horizon extension writes them without touching the post).
  { table: "occurrences", column: "post_id" },
];
/** Tables whose every change bumps SITE_TAG. */
export const SITE_TABLES: readonly TableKey[] = ["options", "users"];

/** The current versions of `tags` (a tag never bumped is at 0 and absent from the map). */
export async function readTagVersions(knex: Knex, tables: Tables, tags: readonly number[]): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  for (let i = 0; i < tags.length; i += 500) {
    const rows = (await knex(tables.cacheTags).whereIn("tag", tags.slice(i, i + 500)).select("tag", "version")) as Array<{ tag: number | string; version: number | string }>;
    for (const row of rows) out.set(Number(row.tag), Number(row.version));
  }
  return out;
}
