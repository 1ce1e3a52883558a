/**
 * An item schema, as WordPress's controllers declare one (`get_item_schema()`):
 * every member a record can have, with its JSON schema, the contexts it is
 * shown in and whether a client may write it. One schema feeds the record
 * filter (`filterByContext`, WordPress's `rest_filter_response_by_context`),
 * the write routes' arguments (`endpointArgs`,
 * `rest_get_endpoint_args_for_schema`), the `context` argument's enum and the
 * OpenAPI document's response schemas, so none of them is written twice.
 */
import type { JsonObject, JsonValue } from "../routes/json";
import type { ArgSpec, ArgType } from "../routes/types";

/** WordPress's request contexts: what a record shows depends on it. */
export type Context = "view" | "edit" | "embed";
export const CONTEXTS: readonly Context[] = ["view", "edit", "embed"];

/** One member of an item schema (a property), or a member of one of its members. */
export interface PropertySchema {
  readonly description?: string;
  readonly type?: ArgType | readonly ArgType[];
  readonly format?: string;
  readonly enum?: readonly JsonValue[];
  readonly items?: PropertySchema;
  readonly properties?: Readonly<Record<string, PropertySchema>>;
  readonly additionalProperties?: boolean;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly default?: JsonValue;
  /** The contexts the member is shown in (absent: every context). */
  readonly context?: readonly Context[];
  /** Not an argument of the write routes (WordPress's `readonly`). */
  readonly readonly?: boolean;
  /** Required when creating. */
  readonly required?: boolean;
  /**
   * How the write argument differs from the member (WordPress's
   * `arg_options`): a `validate` or `sanitize` of its own (which replaces the
   * type rules), a description for the argument.
   */
  readonly arg?: Pick<ArgSpec, "validate" | "sanitize" | "description">;
}

export interface ItemSchema {
  /** WordPress's `title`: the type or taxonomy name (the object type of `register_rest_field`). */
  readonly title: string;
  readonly properties: Readonly<Record<string, PropertySchema>>;
}

/** The `context` argument's values: every context some member is shown in, WordPress's order (`rsort`). */
export function contextEnum(schema: ItemSchema): Context[] {
  const seen = new Set<Context>();
  for (const property of Object.values(schema.properties)) for (const c of property.context ?? []) seen.add(c);
  return [...seen].sort().reverse();
}

export function contextArg(schema: ItemSchema): ArgSpec {
  return {
    description: "Scope under which the request is made; determines fields present in response.",
    type: "string",
    enum: contextEnum(schema),
    default: "view",
  };
}

function typesOf(schema: PropertySchema): readonly ArgType[] {
  return schema.type === undefined ? (schema.properties ? ["object"] : []) : typeof schema.type === "string" ? [schema.type] : schema.type;
}

/**
 * `rest_filter_response_by_context()`: members (at any depth) whose schema
 * names contexts without this one are left out; members the schema does not
 * know (additional fields without a schema, `_links`) stay.
 */
export function filterByContext<T>(data: T, schema: PropertySchema, context: Context): T {
  if (typeof data !== "object" || data === null) return data;
  const types = typesOf(schema);
  if (Array.isArray(data)) {
    if (!types.includes("array") || schema.items === undefined) return data;
    const items = schema.items;
    // All items share one schema: an item hidden in this context hides them all, as in WordPress.
    if (items.context !== undefined && !items.context.includes(context)) return [] as T;
    return data.map((item: unknown) => filterByContext(item, items, context)) as T;
  }
  if (!types.includes("object") || schema.properties === undefined) return data;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    const member = schema.properties[key];
    if (member === undefined) {
      out[key] = value;
      continue;
    }
    if (member.context !== undefined && !member.context.includes(context)) continue;
    out[key] = filterByContext(value, member, context);
  }
  return out as T;
}

/** The schema as one object, for record filtering (`filterByContext`). */
export function objectSchema(schema: ItemSchema): PropertySchema {
  return { type: "object", properties: schema.properties };
}

/** The JSON schema keywords an argument copies from its member (WordPress `rest_get_allowed_schema_keywords()` less default and required). */
const ARG_KEYWORDS = ["description", "type", "format", "enum", "items", "properties", "additionalProperties", "maxLength", "minimum", "maximum"] as const;

/** A member's schema as plain JSON, for the index and the OpenAPI document (nested members keep `context`, as WordPress's index shows them). */
export function schemaJson(schema: PropertySchema): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "arg" || value === undefined) continue;
    if (key === "items") out.items = schemaJson(value as PropertySchema);
    else if (key === "properties") out.properties = Object.fromEntries(Object.entries(value as Record<string, PropertySchema>).map(([k, v]) => [k, schemaJson(v)]));
    else out[key] = value as JsonValue;
  }
  return out;
}

/**
 * `rest_get_endpoint_args_for_schema()`: every member that is not read-only
 * becomes an argument with the member's schema; `default` and `required`
 * only when creating; the member's `arg` options on top.
 */
export function endpointArgs(schema: ItemSchema, method: "create" | "update"): Record<string, ArgSpec> {
  const args: Record<string, ArgSpec> = {};
  for (const [name, property] of Object.entries(schema.properties)) {
    if (property.readonly === true) continue;
    const arg: Record<string, unknown> = {};
    for (const key of ARG_KEYWORDS) {
      const value = property[key];
      if (value === undefined) continue;
      if (key === "items") arg.items = schemaJson(value as PropertySchema);
      else if (key === "properties") arg.properties = schemaJson({ properties: value as Record<string, PropertySchema> }).properties;
      else arg[key] = value;
    }
    if (method === "create" && property.default !== undefined) arg.default = property.default;
    if (method === "create" && property.required === true) arg.required = true;
    if (property.arg !== undefined) Object.assign(arg, property.arg);
    args[name] = arg as ArgSpec;
  }
  return args;
}

/** The record's OpenAPI schema: every member, its contexts and whether it is read-only. */
export function documentSchema(schema: ItemSchema): JsonObject {
  return { title: schema.title, type: "object", properties: schemaJson(objectSchema(schema)).properties ?? {} };
}
