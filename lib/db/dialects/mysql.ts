import { createHash } from "node:crypto";
import type { Knex } from "knex";
import { COMMIT_SLOT_TAGS, COMMIT_SLOTS, EPOCH_TAG, POST_OWNED, SITE_TABLES, SITE_TAG, SLUGS_TAG, slugBucketSql } from "../cache-tags";
import { quoted, TABLE_BASES, type Tables } from "../tables";
import type { CacheTagTriggers, Dialect, RevisionSource, TagChanges, TriggersRefused } from "./types";

/** `mysql://` or `mariadb://user:password@host:port/database`. */
function configFromTarget(target: string): Knex.Config | null {
  if (!/^(mysql|mariadb):\/\//i.test(target)) return null;
  // mysql2 only knows the mysql scheme; MariaDB speaks the same protocol.
  const url = new URL(target.replace(/^mariadb:/i, "mysql:"));
  return {
    client: "mysql2",
    connection: {
      host: url.hostname,
      port: url.port ? Number(url.port) : 3306,
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
      database: decodeURIComponent(url.pathname.replace(/^\//, "")),
      charset: "utf8mb4",
      timezone: "Z",
      // Dates travel as the strings we stored: no driver time-zone guessing.
      dateStrings: true,
      supportBigNumbers: true,
    },
    pool: { min: 0, max: 10 },
  };
}

// ------------------------------------------------------------------ cache tags (lib/db/cache-tags.ts)

/*
 * One trigger per table and event (AFTER INSERT, UPDATE, DELETE), so that
 * servers that allow only one per table, event and timing (MariaDB before
 * 10.2.3, MySQL before 5.7.2) take them too. Bodies cannot take bindings:
 * names are quoted with `quoted` (from `Tables`, safe identifiers only) and
 * numbers are this module's.
 *
 * There is no deferred trigger here: every bump locks its tag's row from the
 * write that made it until the transaction ends, as on SQLite (where the
 * whole database is locked anyway) and unlike PostgreSQL's slug tags, which
 * it bumps at commit. A deadlock this causes (a writer holding SLUGS_TAG
 * waits for a row another holds who waits for SLUGS_TAG) is rolled back by
 * InnoDB and run again by `Engine.write`, like those of the unique slug index.
 *
 * Every trigger also bumps the writing connection's commit slot
 * (`COMMIT_SLOT_TAGS`): the revision token is their sum (`revisionSource`).
 * It changes with every commit that wrote a tagged table, and exactly when
 * that commit becomes visible (the bump is one of its rows), which InnoDB's
 * LSN or a status counter would not say. One connection writes one
 * transaction at a time, so writers on other connections rarely wait for
 * the same slot (two connections whose ids share a slot do).
 *
 * The slots also order commits, which is what `stamp` needs: a bump sets
 * its tag's stamp to the slot's number and its version after this write's
 * bump (`slot * SLOT_STAMP_RANGE + version`). The slot's row stays locked
 * until the writing transaction ends, so within a slot stamps grow in
 * commit order and a commit's stamps become visible with its slot version.
 * A tag written by two slots keeps the later writer's stamp; that writer
 * waited for the tag's row, so it committed last, and whoever has seen its
 * slot version has seen the earlier commit too. `tagChanges` reads the 16
 * slot versions as its position and returns the tags stamped past it.
 */
type MysqlTrigger = { name: string; table: string; event: "INSERT" | "UPDATE" | "DELETE"; body: string };

/** Stamps of slot `s` are `s * SLOT_STAMP_RANGE + its version`: 2^40 bumps a slot. */
const SLOT_STAMP_RANGE = 2 ** 40;
/** The writing connection's commit slot. */
const SLOT = `(CONNECTION_ID() % ${COMMIT_SLOTS})`;

/** The bump of tag `expr` (a statement of a trigger body), stamped with the slot version the body read into `v`. */
function bump(knex: Knex, tables: Tables, expr: string): string {
  return `INSERT INTO ${quoted(knex, tables.cacheTags)} (tag, version, stamp) VALUES (${expr}, 1, ${SLOT} * ${SLOT_STAMP_RANGE} + v) ON DUPLICATE KEY UPDATE version = version + 1, stamp = VALUES(stamp);`;
}

/** A trigger body: the bump of the writing connection's commit slot (`COMMIT_SLOT_TAGS`: 14, 18, …), its version read into `v`, then `statements`. */
function slotBody(knex: Knex, tables: Tables, statements: string): string {
  const t = quoted(knex, tables.cacheTags);
  const slot = `${COMMIT_SLOT_TAGS[0]} + 4 * ${SLOT}`;
  return (
    `BEGIN DECLARE v BIGINT; INSERT INTO ${t} (tag, version) VALUES (${slot}, 1) ON DUPLICATE KEY UPDATE version = version + 1; ` +
    `SELECT version INTO v FROM ${t} WHERE tag = ${slot}; ${statements} END`
  );
}

/**
 * The revision token: the sum of the commit slots, one statement on their
 * 16 rows (primary key). Every slot only grows, so the sum changes with
 * every commit that bumped one, as every write to a tagged table does;
 * every process reads the same sum for the same commits.
 */
function revisionSource(k: Knex, tables: Tables): RevisionSource {
  return {
    private: false,
    sharedAcrossProcesses: true,
    needsTagTriggers: true,
    async read() {
      const [rows] = (await k.raw(`select cast(coalesce(sum(version), 0) as char) as s from ?? where tag in (${COMMIT_SLOT_TAGS.join(", ")})`, [tables.cacheTags])) as [Array<{ s: string }>, unknown];
      return rows[0]?.s ?? "";
    },
    close: async () => undefined,
  };
}

/**
 * The tags changed since a position: the epoch and the 16 slot versions,
 * read in one statement (one snapshot); the tags stamped past a slot's
 * version in each slot that moved (one statement, a range of the stamp
 * index per slot). Tags of commits after the new position may come too.
 */
function tagChanges(k: Knex, tables: Tables): TagChanges {
  return {
    async since(from) {
      const rows = (await k(tables.cacheTags).whereIn("tag", [EPOCH_TAG, ...COMMIT_SLOT_TAGS]).select({ slot: "tag", at: "version" })) as Array<{ slot: number | string; at: number | string }>;
      const versions = new Map(rows.map((r) => [Number(r.slot), Number(r.at)]));
      const slots = COMMIT_SLOT_TAGS.map((tag) => versions.get(tag) ?? 0);
      const position = `${versions.get(EPOCH_TAG) ?? ""}:${slots.join(",")}`;
      const [epoch, seen] = (from ?? "").split(":");
      const before = (seen ?? "").split(",").map(Number);
      if (from === null || epoch !== String(versions.get(EPOCH_TAG) ?? "") || before.length !== COMMIT_SLOTS || before.some((v) => !Number.isSafeInteger(v))) return { position, all: true };
      const moved = slots.map((v, slot) => ({ slot, from: before[slot], to: v })).filter((m) => m.to !== m.from);
      if (moved.length === 0) return { position, tags: [] };
      const q = k(tables.cacheTags).select("tag");
      for (const m of moved) q.orWhereBetween("stamp", [m.slot * SLOT_STAMP_RANGE + m.from + 1, (m.slot + 1) * SLOT_STAMP_RANGE - 1]);
      const tags = (await q) as Array<{ tag: number | string }>;
      return { position, tags: tags.map((t) => Number(t.tag)) };
    },
  };
}

/** `slugTag` in MariaDB/MySQL: `length` counts bytes and `/` does not truncate; a character's code point is its UTF-32 value. */
function slugBucket(s: string): string {
  return slugBucketSql(s, {
    length: (x) => `char_length(${x})`,
    count: (x) => `char_length(${x})`,
    codePoint: (x, at) => `ord(convert(substr(${x}, ${at}, 1) using utf32))`,
    quotient: (a, b) => `${a} DIV ${b}`,
  });
}

/** The three triggers of `base` (a table's base name): `<prefix>cache_tag_<base>_ins` and so on, each a `BEGIN … END` block of `statements(row)`. */
function rowTriggers(knex: Knex, tables: Tables, base: string, statements: (row: "NEW" | "OLD", event: MysqlTrigger["event"]) => string): MysqlTrigger[] {
  const table = tables.name(base);
  // Trigger names are the schema's and at most 64 characters: a long prefix and post type name get a hash.
  const named = tables.name(`cache_tag_${base}_ins`).length <= 64 ? base : createHash("sha1").update(base).digest("hex").slice(0, 20);
  const trigger = (op: string, event: MysqlTrigger["event"], row: "NEW" | "OLD"): MysqlTrigger => ({
    name: tables.name(`cache_tag_${named}_${op}`),
    table,
    event,
    body: slotBody(knex, tables, statements(row, event)),
  });
  return [trigger("ins", "INSERT", "NEW"), trigger("upd", "UPDATE", "NEW"), trigger("del", "DELETE", "OLD")];
}

/** An update that may change what a lookup by slug finds (PostgreSQL's calpress_tag_slugs). */
const SLUG_CHANGED = ["slug", "status", "type", "language", "translation_group"].map((c) => `NOT (NEW.${c} <=> OLD.${c})`).join(" OR ");

function postTriggers(knex: Knex, tables: Tables): MysqlTrigger[] {
  const b = (expr: string): string => bump(knex, tables, expr);
  return rowTriggers(knex, tables, TABLE_BASES.posts, (row, event) => {
    const own = b(`${row}.id * 4`);
    if (event === "INSERT") return `${own} ${b(String(SLUGS_TAG))} ${b(slugBucket("NEW.slug"))}`;
    if (event === "DELETE") return `${own} ${b(String(SLUGS_TAG))} ${b(slugBucket("OLD.slug"))}`;
    return `${own} IF ${SLUG_CHANGED} THEN ${b(String(SLUGS_TAG))} ${b(slugBucket("OLD.slug"))} ${b(slugBucket("NEW.slug"))} END IF;`;
  });
}

function coreTagTriggers(knex: Knex, tables: Tables): MysqlTrigger[] {
  const b = (expr: string): string => bump(knex, tables, expr);
  return [
    ...postTriggers(knex, tables),
    ...rowTriggers(knex, tables, TABLE_BASES.terms, (row) => b(`${row}.id * 4 + 1`)),
    ...POST_OWNED.flatMap(({ table, column }) => rowTriggers(knex, tables, TABLE_BASES[table], (row) => b(`${row}.${column} * 4`))),
    ...SITE_TABLES.flatMap((table) => rowTriggers(knex, tables, TABLE_BASES[table], () => b(String(SITE_TAG)))),
  ];
}

/** Errors of a server that will not let this user create a trigger (privileges, binary logging, a trigger of the host's own on an old server). */
const REFUSALS = new Set([1044, 1142, 1227, 1235, 1419]);

/**
 * Creates the missing triggers, and makes again those whose body is not the
 * one defined here (a database from an older calpress; `CREATE OR REPLACE`
 * is MariaDB's, so a table never goes without its trigger).
 */
async function createTriggers(knex: Knex, tables: Tables, triggers: MysqlTrigger[]): Promise<TriggersRefused | null> {
  const names = triggers.map((t) => t.name);
  const rows = (await knex("information_schema.TRIGGERS")
    .where("TRIGGER_SCHEMA", knex.raw("database()"))
    .whereIn("TRIGGER_NAME", names)
    .select({ name: "TRIGGER_NAME", body: "ACTION_STATEMENT" })) as Array<{ name: string; body: string }>;
  const present = new Map(rows.map((r) => [r.name, r.body]));
  for (const trigger of triggers) {
    const body = present.get(trigger.name);
    if (body === trigger.body) continue;
    const verb = body === undefined ? "CREATE TRIGGER" : "CREATE OR REPLACE TRIGGER";
    try {
      // `event` is this module's literal; the body's names are quoted above.
      await knex.raw(`${verb} ?? AFTER ${trigger.event} ON ?? FOR EACH ROW ${trigger.body}`, [trigger.name, trigger.table]);
    } catch (err) {
      const e = err as { errno?: number; sqlMessage?: string; message?: string };
      // 1359: a concurrent migrator created it first.
      if (e.errno === 1359) continue;
      if (e.errno !== undefined && REFUSALS.has(e.errno)) {
        return (
          `the database refused to create calpress's cache-tag triggers (${String(e.sqlMessage ?? e.message)}): If-Match cannot protect a write ` +
          "against a concurrent editor until they exist. Grant the database user the TRIGGER privilege on calpress's tables and, where " +
          "binary logging is on, SUPER or log_bin_trust_function_creators = 1 on the server; then migrate again (calpress migrate, or a restart)."
        );
      }
      throw err;
    }
  }
  return null;
}

const tagTriggers: CacheTagTriggers = {
  createCore: (k, tables) => createTriggers(k, tables, coreTagTriggers(k, tables)),
  createForFieldTable: (k, tables, postType) => createTriggers(k, tables, rowTriggers(k, tables, `fields_${postType}`, (row) => bump(k, tables, `${row}.post_id * 4`))),
};

// ------------------------------------------------------------------ the dialect

/**
 * MariaDB/MySQL: concurrent writers lock rows; a failed statement is rolled
 * back alone; tables are InnoDB, utf8mb4 with a binary collation (so text
 * sorts by code point). No RETURNING. Cache tags are kept by triggers (so
 * `If-Match` writes are guarded, and the commit slots they bump make the
 * revision token and order the tag changes). MariaDB has
 * no n-gram parser, and a FULLTEXT index finds whole words or word prefixes
 * only, which cannot narrow a substring search without losing matches:
 * search scans.
 */
export const mysql: Dialect = {
  name: "mysql",
  matchesClient: (client) => client.includes("mysql"),
  configFromTarget,
  optionalDriver: { pkg: "mysql2", clients: ["mysql2"], database: "MariaDB/MySQL" },

  optimizeStorage: async () => undefined,
  filePath: () => null,
  hasSchemas: false,

  serialisesWriters: false,
  // A savepoint would only add round trips (and lose the original error if a deadlock has already rolled the transaction back).
  errorAbortsTransaction: false,
  lockRowsKeepingKeys: (q) => void q.forUpdate(),
  // REPEATABLE READ answers plain reads from the transaction's first snapshot; a locking read sees the latest committed row.
  readLatestCommitted: (q) => void q.forShare(),

  hasReturning: false,
  codePointCollation: "",
  booleanLiteral: (value) => (value ? "1" : "0"),
  rawRows: <T>(result: unknown) => (result as [T[], unknown])[0],
  preparedStatements: null,

  prefersIndexOrderedPages: false,
  needsJoinOrderHints: false,
  readsJoinedUnionsByKey: false,

  // TEXT stops at 64 KiB; post content may be longer.
  longText: (t, name) => t.text(name, "mediumtext"),
  configureTable(t) {
    t.engine("InnoDB");
    t.charset("utf8mb4");
    t.collate("utf8mb4_bin");
  },
  async indexExists(k, _tables, table, index) {
    const r = await k.raw("select 1 from information_schema.statistics where table_schema = database() and table_name = ? and index_name = ?", [table, index]);
    return (r as unknown[][])[0].length > 0;
  },
  cacheTagTriggers: tagTriggers,
  tagChanges,
  searchIndex: null,
  searchCaseFolding: null,

  revisionSource,

  withBulkSettings: (_k, work) => work(),
  async firstFreeId(k, _tables, table) {
    // AUTO_INCREMENT moves past explicit ids by itself.
    const max: { m?: number | null } | undefined = await k(table).max({ m: "id" }).first();
    return Number(max?.m ?? 0) + 1;
  },
  afterExplicitIds: async () => undefined,
  analyzeAfterBulk: async () => undefined,
};
