import type { Knex } from "knex";

/**
 * Rows per multi-row INSERT. knex writes one on SQLite as a compound SELECT
 * (`insert … select … union all select …`), and SQLite refuses more than
 * 500 terms in one ("too many terms in compound SELECT"); the other
 * databases have no such limit, but the chunks cost them nothing.
 */
export const MAX_ROWS_PER_INSERT = 100;

/** Inserts `rows` into `table`, at most MAX_ROWS_PER_INSERT per statement (inside the caller's transaction, if any). */
export async function insertChunked(k: Knex, table: string, rows: ReadonlyArray<Record<string, unknown>>): Promise<void> {
  for (let i = 0; i < rows.length; i += MAX_ROWS_PER_INSERT) await k(table).insert(rows.slice(i, i + MAX_ROWS_PER_INSERT));
}
