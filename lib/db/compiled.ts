import type { Knex } from "knex";
import type { Tables } from "./tables";
import { dialectFor } from "./dialects";

/**
 * Statement texts kept by shape, for the hottest reads (a post by id with
 * its typed fields, the relations of a page of posts).
 *
 * knex compiles a query builder anew on every run; for a select of forty
 * aliased columns that is a third of a single-event request's CPU. The text
 * of such a statement depends only on its shape (which tables are joined,
 * which columns, how many ids), so it is compiled once per shape and later
 * runs go through `knex.raw` with the new bindings (still through the pool
 * and any open transaction, still parameterised).
 *
 * The caller names the shape and passes the bindings it expects in
 * statement order; the first compile checks them against knex's own, and a
 * shape whose bindings do not match is never kept (it always runs through the
 * builder), so a wrong caller costs speed, never correctness.
 */
const texts = new Map<string, string | null>();
const MAX_SHAPES = 500;

export async function selectByShape<T>(knex: Knex, tables: Tables, shape: string, bindings: readonly Knex.Value[], build: () => Knex.QueryBuilder): Promise<T[]> {
  const dialect = dialectFor(knex);
  // The texts name the tables: two sites in one process (two prefixes or schemas) have texts of their own.
  const key = `${dialect.name}\u0000${tables.posts}\u0000${shape}`;
  const known = texts.get(key);
  if (known === undefined) {
    const qb = build();
    const compiled = qb.toSQL();
    const same = compiled.bindings.length === bindings.length && compiled.bindings.every((b, i) => b === bindings[i]);
    if (texts.size >= MAX_SHAPES) texts.clear();
    // `??` would be read by knex.raw as an identifier binding.
    texts.set(key, same && !compiled.sql.includes("??") ? compiled.sql : null);
    return (await qb) as T[];
  }
  if (known === null) return (await build()) as T[];
  return dialect.rawRows<T>(await knex.raw(known, bindings as Knex.RawBinding[]));
}
