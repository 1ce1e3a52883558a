import type { Knex } from "knex";
import type { Dialect } from "../db/dialects";
import { isUniqueViolation } from "../engine-errors";

/**
 * Small SQL helpers shared by posts and terms. Everything goes through the
 * knex builder or bindings; identifiers come from the engine's own tables,
 * never from user input.
 */

/** The LIKE escape character: `!` needs no escaping in any dialect's string literal (a backslash does in MySQL). */
const LIKE_ESCAPE = "!";

/** `%value%` with LIKE's wildcards in the value taken literally. */
export function containsPattern(value: string): string {
  return `%${escapeLike(value)}%`;
}

export function escapeLike(value: string): string {
  return value.replace(/[!%_]/g, (c) => LIKE_ESCAPE + c);
}

/**
 * Case-insensitive "contains" that behaves alike on SQLite, PostgreSQL and
 * MariaDB (whose columns use a binary collation here): LOWER() on both sides
 * in SQL, so that the database folds the pattern exactly as it folds the
 * column. SQLite's LOWER() folds ASCII letters only, so there non-ASCII
 * letters match case-sensitively (but a value always finds itself).
 */
export function likeContains(k: Knex, column: string, value: string, negate = false, nullable = false): Knex.Raw {
  const col = nullable ? k.raw("COALESCE(??, '')", [column]) : k.raw("??", [column]);
  return k.raw(`LOWER(?) ${negate ? "NOT LIKE" : "LIKE"} LOWER(?) ESCAPE '${LIKE_ESCAPE}'`, [col, containsPattern(value)]);
}

/** The id of a single inserted row, whatever shape the driver returns. */
export function insertedId(result: unknown[]): number {
  const first = result[0];
  if (typeof first === "number") return first;
  if (typeof first === "string") return Number(first);
  if (first && typeof first === "object" && "id" in first) return Number((first as { id: unknown }).id);
  throw new Error("insert returned no id");
}

export async function insertReturningId(k: Knex, dialect: Dialect, table: string, row: Record<string, unknown>): Promise<number> {
  // Without RETURNING (knex warns when asked) the driver reports the insert id itself.
  const result: unknown[] = dialect.hasReturning ? await k(table).insert(row).returning("id") : await k(table).insert(row);
  return insertedId(result);
}

/** COUNT(*) arrives as a string (PostgreSQL bigint) or a number. */
export function countOf(row: Record<string, unknown> | undefined): number {
  if (!row) return 0;
  const v = row.n ?? Object.values(row)[0];
  return Number(v ?? 0);
}

export function isTransaction(k: Knex): boolean {
  return (k as Knex & { isTransaction?: boolean }).isTransaction === true;
}

/**
 * Runs one statement that may hit a unique index, so the caller can try
 * again with another value. Where any error aborts the whole transaction
 * (PostgreSQL) the statement runs inside a savepoint; where only the failed
 * statement is rolled back (SQLite, MySQL) a savepoint would only add round
 * trips (and, on MySQL, lose the original error if a deadlock has already
 * rolled the transaction back).
 */
export async function attemptUnique<T>(k: Knex, dialect: Dialect, work: (k: Knex) => Promise<T>): Promise<{ ok: true; value: T } | { ok: false }> {
  try {
    const value = dialect.errorAbortsTransaction && isTransaction(k) ? await k.transaction((sp) => work(sp)) : await work(k);
    return { ok: true, value };
  } catch (err) {
    if (isUniqueViolation(err)) return { ok: false };
    throw err;
  }
}

/**
 * ORDER BY position in a list of values (WordPress's `orderby=include`),
 * portable: a CASE with bound values, for `orderByRaw`.
 */
export function orderByList(column: string, values: ReadonlyArray<string | number>, dir: "asc" | "desc"): [string, Array<string | number>] {
  const [sql, bindings] = listPosition(column, values);
  return [`${sql} ${dir}`, bindings];
}

/** The order key of `orderByList`, without its direction. */
export function listPosition(column: string, values: ReadonlyArray<string | number>): [string, Array<string | number>] {
  if (values.length === 0) return ["??", [column]];
  const whens = values.map(() => "WHEN ? THEN ?").join(" ");
  const bindings: Array<string | number> = [column];
  values.forEach((v, i) => bindings.push(v, i));
  bindings.push(values.length);
  return [`CASE ?? ${whens} ELSE ? END`, bindings];
}

/**
 * ORDER BY a text column the same way on all three databases: by code point
 * (PostgreSQL's default collation may be a locale that ignores punctuation,
 * so it is told to use "C"; the MySQL tables use utf8mb4_bin and SQLite
 * BINARY already). `caseInsensitive` first sorts on LOWER(), as WordPress's
 * case-insensitive MySQL collation would, with the exact value breaking ties.
 */
export function orderByText(qb: Knex.QueryBuilder, dialect: Dialect, column: string, dir: "asc" | "desc", caseInsensitive: boolean): void {
  for (const key of textOrderKeys(dialect, caseInsensitive)) qb.orderByRaw(`${key} ${dir}`, [column]);
}

/** The keys of `orderByText`, each with one `??` for the column. */
export function textOrderKeys(dialect: Dialect, caseInsensitive: boolean): string[] {
  const collate = dialect.codePointCollation;
  return caseInsensitive ? [`LOWER(??)${collate}`, `??${collate}`] : [`??${collate}`];
}
