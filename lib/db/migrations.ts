import { randomInt } from "node:crypto";
import type { Knex } from "knex";
import { EPOCH_TAG } from "./cache-tags";
import { dialectFor, type SearchIndexMissing, type TriggersRefused } from "./dialects";
import type { PgExtension } from "./extensions";
import { recordCreated } from "./ownership";
import { schemaOf, TABLE_BASES, type TableKey, type Tables } from "./tables";

/**
 * The core schema. One code path for SQLite, PostgreSQL and MariaDB/MySQL:
 * every step checks before it creates, so running it again (or from a second
 * process that lost the race) changes nothing.
 *
 * Dates are fixed-width `YYYY-MM-DD HH:MM:SS` strings (WordPress's own
 * format): they sort and compare correctly as text on all three databases,
 * and no driver converts them through the process time zone on the way in or
 * out, which `timestamp` columns do differently on each driver.
 */
type Step = { table: TableKey; create: (t: Knex.CreateTableBuilder, knex: Knex, tables: Tables) => void };

const DATE = 19;

const steps: Step[] = [
  {
    table: "options",
    create: (t, _knex, tables) => {
      t.string("name", 191).primary();
      t.text("value").notNullable();
    },
  },
  {
    table: "users",
    create: (t, _knex, tables) => {
      t.increments("id").primary();
      t.string("login", 60).notNullable().unique();
      t.string("email", 100).notNullable().defaultTo("");
      t.string("display_name", 250).notNullable().defaultTo("");
      t.string("role", 20).notNullable();
      t.string("password_hash", 255).nullable();
      t.string("registered", DATE).notNullable();
      t.index(["email"]);
    },
  },
  {
    table: "appPasswords",
    create: (t, _knex, tables) => {
      t.increments("id").primary();
      t.integer("user_id").unsigned().notNullable().references("id").inTable(tables.users).onDelete("CASCADE");
      t.string("uuid", 36).notNullable().unique();
      t.string("name", 100).notNullable();
      t.string("hash", 128).notNullable();
      t.string("created", DATE).notNullable();
      t.string("last_used", DATE).nullable();
      t.string("last_ip", 45).nullable();
      t.index(["user_id"]);
    },
  },
  {
    table: "posts",
    create: (t, knex, tables) => {
      t.increments("id").primary();
      t.string("type", 32).notNullable();
      t.string("status", 20).notNullable();
      t.string("slug", 200).notNullable().defaultTo("");
      // Equal to `slug` while the status requires a unique slug, NULL
      // otherwise (drafts may share one): the unique index below is what
      // keeps concurrent inserts from ever producing two equal slugs.
      t.string("slug_lock", 200).nullable();
      textColumn(t, knex, "title");
      textColumn(t, knex, "content");
      textColumn(t, knex, "excerpt");
      t.integer("author").notNullable().defaultTo(0);
      t.integer("parent").notNullable().defaultTo(0);
      t.string("password", 255).notNullable().defaultTo("");
      t.integer("menu_order").notNullable().defaultTo(0);
      t.string("date_local", DATE).notNullable();
      t.string("date_utc", DATE).notNullable();
      t.string("modified_local", DATE).notNullable();
      t.string("modified_utc", DATE).notNullable();
      t.string("language", 8).notNullable();
      t.integer("translation_group").nullable();
      // WordPress keeps the pre-trash status in `_wp_trash_meta_status`.
      t.string("previous_status", 20).nullable();
      // Whether the post repeats (lib/posts/occurrences.ts): kept apart from its instance rows, which a
      // repeating post may have none of (every one cancelled or detached) and is then listed nowhere as itself.
      t.boolean("repeats").notNullable().defaultTo(false);
      t.unique(["type", "language", "slug_lock"], { indexName: tables.name("posts_slug_unique") });
      t.index(["type", "status", "date_local"], tables.name("posts_type_status_date"));
      t.index(["type", "slug"], tables.name("posts_type_slug"));
      t.index(["author"], tables.name("posts_author"));
      t.index(["parent"], tables.name("posts_parent"));
      t.index(["translation_group"], tables.name("posts_translation_group"));
      // Created by migrateCore for databases made before these indexes existed; listed here too so that a new table has them from the start.
      t.index(["status", "date_utc"], tables.name("posts_status_date_utc"));
    },
  },
  {
    table: "postmeta",
    create: (t, knex, tables) => {
      t.increments("id").primary();
      t.integer("post_id").unsigned().notNullable().references("id").inTable(tables.posts).onDelete("CASCADE");
      t.string("meta_key", 191).notNullable();
      textColumn(t, knex, "meta_value");
      t.index(["post_id", "meta_key"], tables.name("postmeta_post_key"));
      t.index(["meta_key"], tables.name("postmeta_key"));
    },
  },
  {
    table: "terms",
    create: (t, _knex, tables) => {
      t.increments("id").primary();
      t.string("taxonomy", 32).notNullable();
      t.string("name", 200).notNullable();
      t.string("slug", 200).notNullable();
      t.text("description").notNullable();
      t.integer("parent").notNullable().defaultTo(0);
      t.integer("count").notNullable().defaultTo(0);
      t.integer("term_group").notNullable().defaultTo(0);
      t.string("language", 8).notNullable();
      t.integer("translation_group").nullable();
      t.unique(["taxonomy", "language", "slug"], { indexName: tables.name("terms_slug_unique") });
      t.index(["taxonomy", "parent"], tables.name("terms_taxonomy_parent"));
      t.index(["taxonomy", "name"], tables.name("terms_taxonomy_name"));
      t.index(["translation_group"], tables.name("terms_translation_group"));
    },
  },
  {
    table: "termRelationships",
    create: (t, _knex, tables) => {
      t.integer("object_id").unsigned().notNullable().references("id").inTable(tables.posts).onDelete("CASCADE");
      t.integer("term_id").unsigned().notNullable().references("id").inTable(tables.terms).onDelete("CASCADE");
      t.integer("term_order").notNullable().defaultTo(0);
      t.primary(["object_id", "term_id"]);
      t.index(["term_id", "object_id"], tables.name("term_rel_term"));
    },
  },
  {
    // Typed post-to-post links (event → venue, event → organizer) in order.
    table: "postLinks",
    create: (t, _knex, tables) => {
      t.integer("from_id").unsigned().notNullable().references("id").inTable(tables.posts).onDelete("CASCADE");
      t.string("relation", 32).notNullable();
      t.integer("to_id").unsigned().notNullable().references("id").inTable(tables.posts).onDelete("CASCADE");
      t.integer("position").notNullable().defaultTo(0);
      t.primary(["from_id", "relation", "to_id"]);
      t.index(["to_id", "relation"], tables.name("post_links_to"));
    },
  },
  {
    // Dated instances of a repeating post (lib/posts/occurrences.ts): one row
    // per instance, keyed by the wall clock its rule made it at. The index on
    // (post_id, end_utc, start_utc) is the original's occurrences table's.
    table: "occurrences",
    create: (t, _knex, tables) => {
      t.increments("id").primary();
      t.integer("post_id").unsigned().notNullable().references("id").inTable(tables.posts).onDelete("CASCADE");
      t.string("occurrence_key", DATE).notNullable();
      t.string("start_local", DATE).notNullable();
      t.string("end_local", DATE).notNullable();
      t.string("start_utc", DATE).notNullable();
      t.string("end_utc", DATE).notNullable();
      t.integer("duration").notNullable();
      t.unique(["post_id", "occurrence_key"], { indexName: tables.name("occurrences_key") });
      t.index(["post_id", "end_utc", "start_utc"], tables.name("occurrences_post_dates"));
      t.index(["start_utc"], tables.name("occurrences_start"));
    },
  },
  {
    // Lock rows of "find the existing record or create it" (lib/db/name-lock.ts):
    // one row per key ever locked, e.g. a hash of (venue, language, lower(name)).
    table: "nameLocks",
    create: (t, _knex, tables) => {
      t.string("lock_key", 64).primary();
    },
  },
  {
    // The webhook outbox (lib/hooks/outbox.ts): written in the transaction of
    // the change it reports, delivered later by lib/hooks/deliverer.ts.
    // Times are epoch milliseconds: integers compare alike on every database.
    table: "webhookOutbox",
    create: (t, knex, tables) => {
      t.increments("id").primary();
      t.string("delivery_id", 36).notNullable().unique();
      t.string("event", 100).notNullable();
      t.string("url", 2048).notNullable();
      textColumn(t, knex, "body");
      t.string("status", 12).notNullable();
      t.integer("attempts").notNullable().defaultTo(0);
      t.bigInteger("next_attempt_at").notNullable();
      t.bigInteger("claimed_until").notNullable().defaultTo(0);
      t.string("claim_token", 36).nullable();
      t.bigInteger("created_at").notNullable();
      t.bigInteger("delivered_at").nullable();
      t.string("last_error", 500).nullable();
      t.index(["status", "next_attempt_at"], tables.name("webhook_outbox_due"));
    },
  },
  {
    // The change log (lib/hooks/change-log.ts): one row per record a committed
    // write changed, numbered in commit order, read by the changes feed.
    // `type` is null for a term whose count alone changed (its taxonomy is
    // read with the term). Times are epoch milliseconds.
    table: "changes",
    create: (t, _knex, tables) => {
      t.bigInteger("seq").primary();
      t.string("kind", 8).notNullable();
      t.string("type", 32).nullable();
      t.integer("object_id").notNullable();
      t.string("action", 12).notNullable();
      t.boolean("public_before").notNullable();
      t.integer("author").notNullable().defaultTo(0);
      t.bigInteger("occurred_at").notNullable();
      t.index(["occurred_at"], tables.name("changes_occurred"));
    },
  },
  {
    // The change log's one row: the last number given (`seq`) and the last
    // number pruned (`pruned_through`). Writers update it last in their
    // transaction; its row lock makes the numbers follow the commit order.
    table: "changeCounter",
    create: (t) => {
      t.integer("id").primary();
      t.bigInteger("seq").notNullable();
      t.bigInteger("pruned_through").notNullable();
    },
  },
];

function textColumn(t: Knex.CreateTableBuilder, knex: Knex, name: string): void {
  dialectFor(knex).longText(t, name).notNullable();
}

/**
 * Indexes added after the first release of the schema: a table created
 * earlier lacks them, so each is created here when missing (a new table
 * already has them from its `create`).
 */
const laterIndexes: Array<{ table: TableKey; name: string; columns: string[] }> = [
  // The scheduler's `status = 'future' AND date_utc <= now` every 30 s, which otherwise scans every post.
  { table: "posts", name: "posts_status_date_utc", columns: ["status", "date_utc"] },
  // List totals (X-WP-Total) of one type, status and language read only this index for the posts side:
  // the count of upcoming events at 100k went from ~50 to ~28 ms on SQLite.
  { table: "posts", name: "posts_type_status_language", columns: ["type", "status", "language"] },
  // A term's recount (lib/taxonomy/terms.ts `recountIn`, on every write that publishes a post in it) looks up
  // the status of each of the term's posts: through this small index, not the table's wide rows.
  { table: "posts", name: "posts_id_status", columns: ["id", "status"] },
];

/** The unqualified names of the core tables (what `migrateCore` creates). */
export function coreTables(tables: Tables): string[] {
  return steps.map((step) => tables.name(TABLE_BASES[step.table]));
}

/**
 * `posts.repeats` for a database made before it: the column is added
 * (false), then set for every post that has instance rows, which is what
 * "repeats" meant until then. The UPDATE runs whenever the column is found
 * missing, also by a second process that lost the race to add it: it only
 * ever sets what the rows already say.
 */
async function addRepeatsColumn(knex: Knex, tables: Tables): Promise<void> {
  const table = tables.unqualified(tables.posts);
  if (await schemaOf(knex, tables).hasColumn(table, "repeats")) return;
  try {
    await schemaOf(knex, tables).alterTable(table, (t) => {
      t.boolean("repeats").notNullable().defaultTo(false);
    });
  } catch (err) {
    if (!(await schemaOf(knex, tables).hasColumn(table, "repeats"))) throw err;
  }
  await knex(tables.posts)
    .whereIn("id", knex(tables.occurrences).distinct("post_id"))
    .update({ repeats: true });
}

/** Creates what is missing of the core schema; true when it created all of it (a new database). */
export async function migrateCore(knex: Knex, tables: Tables): Promise<boolean> {
  let created = 0;
  for (const step of steps) {
    if (await createTableIfMissing(knex, tables, tables.name(TABLE_BASES[step.table]), (t) => step.create(t, knex, tables))) created += 1;
  }
  for (const index of laterIndexes) await createIndexIfMissing(knex, tables, tables[index.table], tables.name(index.name), index.columns);
  await addRepeatsColumn(knex, tables);
  await knex(tables.changeCounter).insert({ id: 1, seq: 0, pruned_through: 0 }).onConflict("id").ignore();
  return created === steps.length;
}

/**
 * The dialect's search index (lib/db/search-index.ts), with the extensions
 * the host lets calpress create (lib/db/extensions.ts). Null once it is in
 * place or left out as the host chose; else why it could not be made.
 */
export async function migrateSearchIndex(knex: Knex, tables: Tables, extensions: readonly PgExtension[]): Promise<SearchIndexMissing | null> {
  return (await dialectFor(knex).searchIndex?.migrate(knex, tables, extensions)) ?? null;
}

/**
 * The cache-tags table (lib/db/cache-tags.ts), its epoch and the dialect's
 * triggers on the core tables. Null once the triggers are in place (or where
 * the dialect has none); else why the server refused them (`TriggersRefused`).
 */
export async function migrateCacheTags(knex: Knex, tables: Tables): Promise<TriggersRefused | null> {
  const table = tables.unqualified(tables.cacheTags);
  await createTableIfMissing(knex, tables, table, (t) => {
    t.bigInteger("tag").primary();
    t.bigInteger("version").notNullable();
    t.bigInteger("stamp").nullable();
  });
  // `stamp` (cache-tags.ts, tag changes) came after the table: added to one made before it.
  if (!(await schemaOf(knex, tables).hasColumn(table, "stamp"))) {
    try {
      await schemaOf(knex, tables).alterTable(table, (t) => {
        t.bigInteger("stamp").nullable();
      });
    } catch (err) {
      if (!(await schemaOf(knex, tables).hasColumn(table, "stamp"))) throw err;
    }
  }
  await createIndexIfMissing(knex, tables, tables.cacheTags, tables.name("cache_tags_stamp"), ["stamp"]);
  await knex(tables.cacheTags)
    .insert({ tag: EPOCH_TAG, version: randomInt(1, 2 ** 47) })
    .onConflict("tag")
    .ignore();
  return (await dialectFor(knex).cacheTagTriggers?.createCore(knex, tables)) ?? null;
}

/** The tag triggers of a post type's typed-field table (created with the table, or added to one made before tags existed); as `migrateCacheTags`. */
export async function migrateFieldTableTags(knex: Knex, tables: Tables, postType: string): Promise<TriggersRefused | null> {
  return (await dialectFor(knex).cacheTagTriggers?.createForFieldTable(knex, tables, postType)) ?? null;
}

/** Whether `index` exists on `table` (a name from `tables`, qualified or not). */
export async function indexExists(knex: Knex, tables: Tables, table: string, index: string): Promise<boolean> {
  return dialectFor(knex).indexExists(knex, tables, tables.unqualified(table), index);
}

/** Creates an index unless it exists; tolerates a concurrent creator. */
export async function createIndexIfMissing(knex: Knex, tables: Tables, table: string, index: string, columns: string[]): Promise<void> {
  if (await indexExists(knex, tables, table, index)) return;
  try {
    await schemaOf(knex, tables).alterTable(tables.unqualified(table), (t) => {
      t.index(columns, index);
    });
  } catch (err) {
    if (!(await indexExists(knex, tables, table, index))) throw err;
  }
}

/**
 * Creates a table unless it exists; tolerates a concurrent creator. `name`
 * is unqualified (`tables.name(…)`). The table is recorded as calpress's
 * before it is made (lib/db/ownership.ts): whoever sees it also sees the record.
 */
export async function createTableIfMissing(
  knex: Knex,
  tables: Tables,
  name: string,
  build: (t: Knex.CreateTableBuilder) => void,
): Promise<boolean> {
  if (await schemaOf(knex, tables).hasTable(name)) return false;
  await recordCreated(knex, tables, [name]);
  try {
    await schemaOf(knex, tables).createTable(name, (t) => {
      build(t);
      dialectFor(knex).configureTable(t);
    });
    return true;
  } catch (err) {
    if (await schemaOf(knex, tables).hasTable(name)) return false;
    throw err;
  }
}
