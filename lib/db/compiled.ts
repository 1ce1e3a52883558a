import { createHash } from "node:crypto";
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
 *
 * Where the driver keeps statements (`Dialect.preparedStatements`), a kept
 * text also runs as a named statement: parsed and planned once per
 * connection instead of on every run.
 */
/** A shape's text, and the name its statement is kept under where the driver keeps statements (null: run unnamed). */
interface Kept {
  sql: string;
  name: string | null;
}

const texts = new Map<string, Kept | null>();
const MAX_SHAPES = 500;
/**
 * Texts given a name, at most: each connection keeps a parsed statement and
 * its plan per name in the server's memory for as long as it lives, so the
 * names go to the first texts seen (the hot ones: loads of one post, of a
 * page) and the rarer shapes after them are planned per run.
 */
const MAX_NAMED = 200;
const named = new Set<string>();
/** Databases (knex clients) whose connections turned out not to keep named statements. */
const unnamedClients = new WeakSet<object>();

/** Knex marks a transaction's instance; statements inside one run unnamed (a failed one would abort the transaction, so no retry). */
function inTransaction(knex: Knex): boolean {
  return (knex as Knex & { isTransaction?: boolean }).isTransaction === true;
}

/** The same name for the same text in every process (a connection never holds two texts under one name); null past MAX_NAMED. */
function nameFor(sql: string): string | null {
  const name = `calpress_${createHash("sha1").update(sql).digest("hex").slice(0, 24)}`;
  if (!named.has(name)) {
    if (named.size >= MAX_NAMED) return null;
    named.add(name);
  }
  return name;
}

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
    const keep = same && !compiled.sql.includes("??");
    texts.set(key, keep ? { sql: compiled.sql, name: dialect.preparedStatements ? nameFor(compiled.sql) : null } : null);
    return (await qb) as T[];
  }
  if (known === null) return (await build()) as T[];
  const prepared = dialect.preparedStatements;
  if (prepared === null || known.name === null || inTransaction(knex) || unnamedClients.has(knex.client)) {
    return dialect.rawRows<T>(await knex.raw(known.sql, bindings as Knex.RawBinding[]));
  }
  try {
    return dialect.rawRows<T>(await knex.raw(known.sql, bindings as Knex.RawBinding[]).options(prepared.options(known.name)));
  } catch (err) {
    const failure = prepared.failure(err);
    if (failure === null) throw err;
    // Every connection may hold the old plan: this process runs the shape unnamed from now on.
    if (failure === "stale") known.name = null;
    // The connections do not keep statements at all: nothing of this database is named again.
    else unnamedClients.add(knex.client);
    return dialect.rawRows<T>(await knex.raw(known.sql, bindings as Knex.RawBinding[]));
  }
}
