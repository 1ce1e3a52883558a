import type { Knex } from "knex";
import { EPOCH_TAG } from "./cache-tags";
import { REVISION_OPTION, schemaOf, type Tables } from "./tables";

/**
 * Which tables are calpress's. Migrations create, alter, index and add
 * triggers to tables by name; a host's table that happens to carry one of
 * those names must never be touched. So every table calpress creates is
 * recorded (in `tables.created`) before it is made, and before any
 * migration step runs, each table a migration would touch is checked: one
 * that exists without a record is the host's, and the migration stops with
 * an error naming it, having changed nothing.
 */
export class TableClashError extends Error {
  constructor(readonly tables: readonly string[], prefix: string) {
    super(
      `${tables.length === 1 ? "table" : "tables"} ${tables.map((t) => `"${t}"`).join(", ")} already ${tables.length === 1 ? "exists" : "exist"} in the database and ${
        tables.length === 1 ? "was" : "were"
      } not created by calpress; nothing was changed. Choose another table prefix (now "${prefix}": tablePrefix / --table-prefix) or, on PostgreSQL, a schema of calpress's own.`,
    );
    this.name = "TableClashError";
  }
}

/**
 * Throws `TableClashError` when one of `planned` (unqualified names of
 * the tables the migration would create or change) exists and is not
 * calpress's; otherwise makes the record table. Reads only until it passes.
 */
export async function checkOwnership(knex: Knex, tables: Tables, planned: readonly string[]): Promise<void> {
  const recordName = tables.unqualified(tables.created);
  // Existence first, the records second: a table is recorded before it is
  // made, so a table another process has just made is already recorded.
  const existing: string[] = [];
  for (const name of planned) if (await schemaOf(knex, tables).hasTable(name)) existing.push(name);
  const hasRecord = await schemaOf(knex, tables).hasTable(recordName);
  if (hasRecord && !(await schemaOf(knex, tables).hasColumn(recordName, "name"))) throw new TableClashError([recordName], tables.prefix);
  let adopt: string[] = [];
  if (hasRecord) {
    const recorded = new Set((await knex(tables.created).whereIn("name", existing).pluck("name")).map(String));
    const foreign = existing.filter((name) => !recorded.has(name));
    if (foreign.length > 0) throw new TableClashError(foreign, tables.prefix);
  } else if (existing.length > 0) {
    if (!(await isEarlierCalpress(knex, tables, existing))) throw new TableClashError(existing, tables.prefix);
    adopt = existing;
  }
  await ensureSchema(knex, tables);
  await ensureRecordTable(knex, tables, recordName);
  await recordCreated(knex, tables, adopt);
}

/**
 * A database made by a calpress from before the record existed (its tables
 * then had no prefix: `tablePrefix: ""` keeps using them): its options carry
 * the revision row, or its cache tags the epoch row, which only calpress writes.
 */
async function isEarlierCalpress(knex: Knex, tables: Tables, existing: readonly string[]): Promise<boolean> {
  const has = (table: string): boolean => existing.includes(tables.unqualified(table));
  try {
    if (has(tables.options) && (await knex(tables.options).where({ name: REVISION_OPTION }).first("name"))) return true;
    if (has(tables.cacheTags) && (await knex(tables.cacheTags).where({ tag: EPOCH_TAG }).first("tag"))) return true;
  } catch {
    // Not the columns calpress gives these tables: not calpress's.
  }
  return false;
}

async function ensureRecordTable(knex: Knex, tables: Tables, recordName: string): Promise<void> {
  if (await schemaOf(knex, tables).hasTable(recordName)) return;
  try {
    await schemaOf(knex, tables).createTable(recordName, (t) => {
      t.string("name", 64).primary();
    });
  } catch (err) {
    // A concurrent migrator made it first.
    if (!(await schemaOf(knex, tables).hasTable(recordName))) throw err;
  }
  await recordCreated(knex, tables, [recordName]);
}

/** Records tables as calpress's (before they are made). */
export async function recordCreated(knex: Knex, tables: Tables, names: readonly string[]): Promise<void> {
  if (names.length === 0) return;
  await knex(tables.created)
    .insert(names.map((name) => ({ name })))
    .onConflict("name")
    .ignore();
}

/** Creates the PostgreSQL schema the tables are to live in, when one is named and missing. */
async function ensureSchema(knex: Knex, tables: Tables): Promise<void> {
  if (tables.schema === null) return;
  const present = ((await knex.raw("select 1 from pg_namespace where nspname = ?", [tables.schema])) as { rows: unknown[] }).rows.length > 0;
  // Asked first: a host may have made it for a role without the right to create schemas.
  if (!present) await knex.raw("CREATE SCHEMA IF NOT EXISTS ??", [tables.schema]);
}
