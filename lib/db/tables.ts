import type { Knex } from "knex";

/**
 * The names of everything calpress creates in a database, as WordPress's
 * `$wpdb->posts`: every table, index, trigger and function is the table
 * prefix (`$table_prefix`, default `cp_`) followed by its base name, so that
 * calpress can share a database with a host application's own tables.
 *
 * The table properties are what queries name (`knex(tables.posts)`,
 * `knex(`${tables.posts} as p`)`): qualified with the PostgreSQL schema when
 * one was given (`calpress.cp_posts`; knex quotes each part). `name(base)`
 * is an object's own, unqualified name (indexes, triggers, functions, and a
 * table's name in the catalogs).
 *
 * Prefix and schema are checked here (lowercase letters, digits and `_`),
 * so a name from this object is always a safe identifier.
 */
export interface Tables {
  readonly prefix: string;
  /** The PostgreSQL schema named by the host (the names below are qualified with it); null: the connection's current schema. */
  readonly schema: string | null;
  readonly options: string;
  readonly users: string;
  readonly appPasswords: string;
  readonly posts: string;
  readonly postmeta: string;
  readonly terms: string;
  readonly termRelationships: string;
  readonly postLinks: string;
  /** Dated instances of repeating posts (lib/posts/occurrences.ts). */
  readonly occurrences: string;
  readonly nameLocks: string;
  readonly webhookOutbox: string;
  /** The change log (lib/hooks/change-log.ts) and its counter row. */
  readonly changes: string;
  readonly changeCounter: string;
  readonly cacheTags: string;
  /** SQLite's full-text (FTS5 trigram) table over the posts. */
  readonly postsSearch: string;
  /** Which tables calpress created (lib/db/ownership.ts). */
  readonly created: string;
  /** The typed-field table of a post type (lib/posts/fields.ts). */
  fields(postType: string): string;
  /** The prefix and `base`, unqualified: an index, trigger, function or constraint, or a table as the catalogs name it. */
  name(base: string): string;
  /** A table's unqualified name (`name`) qualified with the schema, when there is one. */
  qualify(name: string): string;
  /** A table's unqualified name from its qualified one. */
  unqualified(table: string): string;
}

export const DEFAULT_TABLE_PREFIX = "cp_";

/** The base names of the core tables, keyed as `Tables` names them. */
export const TABLE_BASES = {
  options: "options",
  users: "users",
  appPasswords: "app_passwords",
  posts: "posts",
  postmeta: "postmeta",
  terms: "terms",
  termRelationships: "term_relationships",
  postLinks: "post_links",
  occurrences: "occurrences",
  nameLocks: "name_locks",
  webhookOutbox: "webhook_outbox",
  changes: "changes",
  changeCounter: "change_counter",
  cacheTags: "cache_tags",
  postsSearch: "posts_search",
  created: "calpress_tables",
} as const;

export type TableKey = keyof typeof TABLE_BASES;

/** Long enough for WordPress-style prefixes; short enough that every derived name stays within PostgreSQL's 63 characters. */
const PREFIX = /^[a-z0-9_]{0,20}$/;
const SCHEMA = /^[a-z_][a-z0-9_]{0,62}$/;

export class TableNameError extends Error {}

export function tableNames(prefix: string = DEFAULT_TABLE_PREFIX, schema: string | null = null): Tables {
  if (!PREFIX.test(prefix)) throw new TableNameError(`table prefix must be at most 20 lowercase letters, digits or underscores, not "${prefix}"`);
  if (schema !== null && !SCHEMA.test(schema)) throw new TableNameError(`schema must be a lowercase SQL name (letters, digits, underscores), not "${schema}"`);
  const name = (base: string): string => `${prefix}${base}`;
  const qualify = (bare: string): string => (schema === null ? bare : `${schema}.${bare}`);
  const table = (key: TableKey): string => qualify(name(TABLE_BASES[key]));
  return {
    prefix,
    schema,
    options: table("options"),
    users: table("users"),
    appPasswords: table("appPasswords"),
    posts: table("posts"),
    postmeta: table("postmeta"),
    terms: table("terms"),
    termRelationships: table("termRelationships"),
    postLinks: table("postLinks"),
    occurrences: table("occurrences"),
    nameLocks: table("nameLocks"),
    webhookOutbox: table("webhookOutbox"),
    changes: table("changes"),
    changeCounter: table("changeCounter"),
    cacheTags: table("cacheTags"),
    postsSearch: table("postsSearch"),
    created: table("created"),
    fields: (postType) => qualify(name(`fields_${postType}`)),
    name,
    qualify,
    unqualified: (t) => (schema !== null && t.startsWith(`${schema}.`) ? t.slice(schema.length + 1) : t),
  };
}

/** The schema builder for the tables' schema. */
export function schemaOf(knex: Knex, tables: Tables): Knex.SchemaBuilder {
  return tables.schema === null ? knex.schema : knex.schema.withSchema(tables.schema);
}

/** A name quoted for raw SQL that cannot take bindings (trigger and function bodies); qualified names are quoted part by part. */
export function quoted(knex: Knex, name: string): string {
  return knex.raw("??", [name]).toQuery();
}

/**
 * The options row every option write bumps (lib/options): its presence also
 * tells lib/db/ownership.ts that a database was made by calpress. Here, not
 * in lib/options, so that lib/db imports nothing above it.
 */
export const REVISION_OPTION = "options_revision";
