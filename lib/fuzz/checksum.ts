/**
 * A checksum of the whole database, per table, through knex, so the fuzzer
 * can tell whether a request changed anything.
 *
 * Rows are hashed one by one and the sorted row hashes hashed again, so no
 * ORDER BY is needed and the three databases' different default orders do
 * not matter. Two kinds of values are left out or shortened:
 *
 * - volatile columns that change on reads by design (an application
 *   password's last use and address are written by every authenticated
 *   request, as WordPress does);
 * - long text: a value over LONG_TEXT characters is fingerprinted by its
 *   length, first and last HEAD_TAIL characters, computed by the database.
 *   The fuzzer stores 1 MB strings; hashing every one after every request
 *   would make a 10,000-request run take hours, and a change that keeps the
 *   length, head and tail of a megabyte of text is not one a handler makes.
 */
import { createHash } from "node:crypto";
import type { Knex } from "knex";
import type { Tables } from "../db/tables";
import { dialectOf } from "../db/target";

/** `table.column` pairs whose changes are expected on any request. */
function volatileColumns(tables: Tables): ReadonlySet<string> {
  return new Set([`${tables.appPasswords}.last_used`, `${tables.appPasswords}.last_ip`]);
}

const LONG_TEXT = 4096;
const HEAD_TAIL = 1024;

export type Checksum = Record<string, string>;

/** The database's tables (in calpress's schema, qualified as `tables` names them). */
export async function listTables(knex: Knex, tables: Tables): Promise<string[]> {
  switch (dialectOf(knex)) {
    case "postgres": {
      const r = (await knex.raw("select tablename as name from pg_tables where schemaname = coalesce(?::text, current_schema())", [tables.schema])) as {
        rows: { name: string }[];
      };
      return r.rows.map((row) => tables.qualify(row.name)).sort();
    }
    case "mysql": {
      const r = (await knex.raw("select table_name as name from information_schema.tables where table_schema = database() and table_type = 'BASE TABLE'")) as [
        { name: string }[],
      ];
      return r[0].map((row) => row.name).sort();
    }
    default: {
      const rows = (await knex("sqlite_master").where({ type: "table" }).andWhereNot("name", "like", "sqlite_%").select("name")) as { name: string }[];
      return rows.map((row) => row.name).sort();
    }
  }
}

function isLongTextType(type: string): boolean {
  return /text|clob/i.test(type);
}

/** One select expression per column, long text fingerprinted by the database itself. */
function columnExpressions(knex: Knex, volatile: ReadonlySet<string>, table: string, columns: Record<string, Knex.ColumnInfo>): Knex.Raw[] {
  const dialect = dialectOf(knex);
  const out: Knex.Raw[] = [];
  for (const [name, info] of Object.entries(columns).sort(([a], [b]) => a.localeCompare(b))) {
    if (volatile.has(`${table}.${name}`)) continue;
    if (!isLongTextType(info.type)) {
      out.push(knex.raw("??", [name]));
      continue;
    }
    const len = dialect === "mysql" ? "CHAR_LENGTH(??)" : "LENGTH(??)";
    const tail = dialect === "sqlite" ? `SUBSTR(??, -${HEAD_TAIL})` : `RIGHT(??, ${HEAD_TAIL})`;
    const cat = (parts: string[]): string => (dialect === "mysql" ? `CONCAT(${parts.join(", ")})` : parts.join(" || "));
    const fingerprint = cat([`SUBSTR(??, 1, ${HEAD_TAIL})`, "'…'", `CAST(${len} AS CHAR(20))`, "'…'", tail]);
    out.push(knex.raw(`CASE WHEN ${len} > ${LONG_TEXT} THEN ${fingerprint} ELSE ?? END AS ??`, [name, name, name, name, name, name]));
  }
  return out;
}

const columnCache = new WeakMap<Knex, Map<string, Record<string, Knex.ColumnInfo>>>();

async function columnsOf(knex: Knex, table: string): Promise<Record<string, Knex.ColumnInfo>> {
  let perKnex = columnCache.get(knex);
  if (!perKnex) {
    perKnex = new Map();
    columnCache.set(knex, perKnex);
  }
  let cols = perKnex.get(table);
  if (!cols) {
    cols = (await knex(table).columnInfo()) as unknown as Record<string, Knex.ColumnInfo>;
    perKnex.set(table, cols);
  }
  return cols;
}

function stableCell(value: unknown): unknown {
  if (Buffer.isBuffer(value)) return `b64:${value.toString("base64")}`;
  if (value instanceof Date) return `date:${value.toISOString()}`;
  // Drivers differ in how they hand out booleans and big integers; the checksum only compares one database with itself.
  if (typeof value === "bigint") return value.toString();
  return value;
}

/** Per-table digests of every row (volatile columns excluded). */
export async function databaseChecksum(knex: Knex, tables: Tables): Promise<Checksum> {
  const out: Checksum = {};
  const volatile = volatileColumns(tables);
  for (const table of await listTables(knex, tables)) {
    const columns = await columnsOf(knex, table);
    const exprs = columnExpressions(knex, volatile, table, columns);
    const rows = (await knex(table).select(exprs)) as Record<string, unknown>[];
    const hashes = rows.map((row) => createHash("sha1").update(JSON.stringify(Object.values(row).map(stableCell))).digest("hex")).sort();
    out[table] = `${rows.length}:${createHash("sha1").update(hashes.join(",")).digest("hex")}`;
  }
  return out;
}

/** Tables whose digests differ (a table that appeared or vanished counts). */
export function changedTables(before: Checksum, after: Checksum): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names].filter((name) => before[name] !== after[name]).sort();
}
