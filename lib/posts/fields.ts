import { createHash } from "node:crypto";
import type { Knex } from "knex";
import { createIndexIfMissing, createTableIfMissing } from "../db/migrations";
import { schemaOf, type Tables } from "../db/tables";
import { dialectFor } from "../db/dialects";
import { EngineError } from "../engine-errors";
import { normaliseSqlDate } from "./dates";
import type { RegisteredPostType } from "./registry";
import type { FieldDef, FieldValue } from "./types";

/**
 * Typed fields: one table per post type, `<prefix>fields_<type>`, with `post_id` as
 * primary key (cascade delete with the post) and one real column per declared
 * field, so that filters and sorts on them use ordinary, indexable columns.
 */

function addColumn(t: Knex.CreateTableBuilder | Knex.AlterTableBuilder, knex: Knex, name: string, def: FieldDef): void {
  switch (def.type) {
    case "string":
      t.string(name, def.length ?? 255).nullable();
      break;
    case "text":
      dialectFor(knex).longText(t, name).nullable();
      break;
    case "integer":
      t.integer(name).nullable();
      break;
    case "number":
      t.double(name).nullable();
      break;
    case "boolean":
      t.boolean(name).nullable();
      break;
    case "datetime":
      // Same fixed-width text as the core date columns (see db/migrations.ts).
      t.string(name, 19).nullable();
      break;
  }
}

/** Index names (with the table prefix) must stay within PostgreSQL's 63 and MySQL's 64 characters. */
export function fieldIndexName(tables: Tables, type: string, field: string): string {
  const name = tables.name(`fx_${type}_${field}`);
  if (name.length <= 60) return name;
  return tables.name(`fx_${createHash("sha1").update(`${type}.${field}`).digest("hex").slice(0, 20)}`);
}

/** Creates or extends the typed-field table of a post type; idempotent and tolerant of a concurrent migrator. */
export async function migrateFieldTable(knex: Knex, tables: Tables, type: RegisteredPostType): Promise<void> {
  if (!type.fieldsTable) return;
  const table = tables.unqualified(type.fieldsTable);
  const fields = Object.entries(type.fields);
  await createTableIfMissing(knex, tables, table, (t) => {
    t.integer("post_id").unsigned().notNullable().primary().references("id").inTable(tables.posts).onDelete("CASCADE");
    for (const [name, def] of fields) addColumn(t, knex, name, def);
  });
  for (const [name, def] of fields) {
    if (await schemaOf(knex, tables).hasColumn(table, name)) continue;
    try {
      await schemaOf(knex, tables).alterTable(table, (t) => addColumn(t, knex, name, def));
    } catch (err) {
      if (!(await schemaOf(knex, tables).hasColumn(table, name))) throw err;
    }
  }
  for (const [name, def] of fields) {
    if (!def.index) continue;
    await createIndexIfMissing(knex, tables, table, fieldIndexName(tables, type.name, name), [name]);
  }
}

/** Checks a value against its field definition and gives what the column stores. */
export function toDbValue(type: string, field: string, def: FieldDef, value: FieldValue | undefined): FieldValue {
  if (value === null || value === undefined) return null;
  const bad = (why: string): never => {
    throw new EngineError("invalid_field", `${type}.${field}: ${why}`, { field });
  };
  switch (def.type) {
    case "string":
    case "text": {
      if (typeof value === "boolean") bad("expected a string");
      const s = String(value);
      if (def.type === "string" && [...s].length > (def.length ?? 255)) bad(`longer than ${def.length ?? 255} characters`);
      return s;
    }
    case "integer": {
      const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
      if (typeof n !== "number" || !Number.isSafeInteger(n)) bad("expected an integer");
      return n;
    }
    case "number": {
      const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
      if (typeof n !== "number" || !Number.isFinite(n)) bad("expected a number");
      return n;
    }
    case "boolean": {
      if (typeof value === "boolean") return value;
      if (value === 1 || value === "1" || value === "true") return true;
      if (value === 0 || value === "0" || value === "false" || value === "") return false;
      return bad("expected a boolean");
    }
    case "datetime":
      if (typeof value !== "string") bad("expected YYYY-MM-DD HH:MM:SS");
      return normaliseSqlDate(String(value), field);
  }
  return bad("unknown field type");
}

/** A column value as the driver returns it → the field's JavaScript type. */
export function fromDbValue(def: FieldDef, raw: unknown): FieldValue {
  if (raw === null || raw === undefined) return null;
  switch (def.type) {
    case "boolean":
      // SQLite and MySQL return 0/1, PostgreSQL a boolean.
      return raw === true || raw === 1 || raw === "1" || raw === "t";
    case "integer":
    case "number":
      return Number(raw);
    default:
      return String(raw);
  }
}

/** Every declared field, with its default when the create does not give it. */
export function defaultFieldValues(type: RegisteredPostType): Record<string, FieldValue> {
  const out: Record<string, FieldValue> = {};
  for (const [name, def] of Object.entries(type.fields)) out[name] = def.default ?? null;
  return out;
}
