/**
 * WordPress's type rules for typed request arguments: which inputs each type
 * accepts and what they become (`rest_is_integer`, `rest_is_boolean`,
 * `rest_is_array`, `rest_get_best_type_for_value`,
 * `rest_sanitize_value_from_schema`). Query and form values arrive as
 * strings, so "typed" means "accepts these spellings and converts them".
 *
 * Coercion runs first; the ajv validator then checks the converted value
 * against the rest of the schema (enum, bounds, formats…).
 */
import type { ErrorItem } from "./errors";
import { isPlainObject } from "./json";
import type { ArgType, ValueSchema } from "./types";

export type CoerceResult = { ok: true; value: unknown } | { ok: false; error: ErrorItem };

/** PHP `is_numeric()` for strings: optional surrounding whitespace, sign, decimals, exponent; no hex, no "". */
const NUMERIC_STRING = /^[ \t\n\r\v\f]*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?[ \t\n\r\v\f]*$/;

export function isNumeric(value: unknown): boolean {
  if (typeof value === "number") return Number.isFinite(value);
  return typeof value === "string" && NUMERIC_STRING.test(value);
}

/** `5`, `"5"`, `"-2"`, `"5.0"` yes; `"5.5"`, `"abc"`, `""`, `true` no. */
export function isWpInteger(value: unknown): boolean {
  if (!isNumeric(value)) return false;
  const n = Number(value);
  return Number.isFinite(n) && Math.round(n) === n;
}

/** `true`/`false`, `0`/`1`, and case-insensitive strings `true`/`false`/`1`/`0`. */
export function isWpBoolean(value: unknown): boolean {
  if (typeof value === "boolean") return true;
  if (typeof value === "number") return value === 0 || value === 1;
  if (typeof value === "string") return ["true", "false", "1", "0"].includes(value.toLowerCase());
  return false;
}

export function toWpBoolean(value: unknown): boolean {
  if (typeof value === "string") {
    const lower = value.toLowerCase();
    return !(lower === "false" || lower === "0" || lower === "");
  }
  return Boolean(value);
}

/**
 * WordPress `wp_parse_list()`: a string is split on commas **and** whitespace,
 * empty items dropped, so `"3, 5"` and `"3,5"` are both `["3","5"]`.
 */
export function wpParseList(value: string): string[] {
  return value.split(/[\s,]+/).filter((item) => item !== "");
}

const INTEGER_KEY = /^(0|-?[1-9]\d*)$/;

/** A PHP list: a JS array, or an object whose keys are all integers (what `a[0]=x&a[7]=y` decodes to). */
function isNumericKeyObject(value: unknown): value is Record<string, unknown> {
  return isPlainObject(value) && Object.keys(value).every((key) => INTEGER_KEY.test(key));
}

/** `rest_is_array()`: real arrays, integer-keyed objects, and any scalar (which `wp_parse_list` splits). */
export function isWpArray(value: unknown): boolean {
  if (Array.isArray(value) || isNumericKeyObject(value)) return true;
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean";
}

export function toWpList(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (isNumericKeyObject(value)) return Object.values(value);
  if (typeof value === "string") return wpParseList(value);
  if (typeof value === "number") return wpParseList(String(value));
  // PHP's (string) of a boolean: true → "1", false → "".
  if (typeof value === "boolean") return value ? ["1"] : [];
  return [];
}

/** `rest_is_object()`: objects, arrays (PHP arrays are both) and `""` (an empty form field). */
export function isWpObject(value: unknown): boolean {
  return value === "" || isPlainObject(value) || Array.isArray(value);
}

function toWpObject(value: unknown): Record<string, unknown> {
  if (isPlainObject(value)) return { ...value };
  if (Array.isArray(value)) return Object.fromEntries(value.map((item, index) => [String(index), item]));
  return {};
}

// The order in which WordPress tries the types of a multi-type schema (not the declared order).
const BEST_TYPE_CHECKS: readonly [ArgType, (value: unknown) => boolean][] = [
  ["array", isWpArray],
  ["object", isWpObject],
  ["integer", isWpInteger],
  ["number", isNumeric],
  ["boolean", isWpBoolean],
  ["string", (value) => typeof value === "string"],
  ["null", (value) => value === null],
];

/** `rest_get_best_type_for_value()`. */
export function bestTypeForValue(value: unknown, types: readonly ArgType[]): ArgType | undefined {
  // Arrays and objects accept "" too, but for "" a string is the better answer.
  if (value === "" && types.includes("string")) return "string";
  for (const [type, check] of BEST_TYPE_CHECKS) {
    if (types.includes(type) && check(value)) return type;
  }
  return undefined;
}

export function typeError(param: string, type: string): ErrorItem {
  // WordPress attaches `{param}` as the data of type errors (and only of those).
  return { code: "rest_invalid_type", message: `${param} is not of type ${type}.`, data: { param } };
}

/**
 * An integer past ±(2^53 − 1) cannot be told from its neighbours once it
 * is a number (`99999999999999999999` would read as 1e20, PHP would clamp
 * it to PHP_INT_MAX): out of range for every integer argument, refused as
 * the schema's own bounds are (`rest_out_of_bounds`, WordPress's message).
 */
function integerRangeError(param: string, schema: Omit<ValueSchema, "default">): ErrorItem {
  const min = typeof schema.minimum === "number" ? Math.max(schema.minimum, Number.MIN_SAFE_INTEGER) : Number.MIN_SAFE_INTEGER;
  const max = typeof schema.maximum === "number" ? Math.min(schema.maximum, Number.MAX_SAFE_INTEGER) : Number.MAX_SAFE_INTEGER;
  const minKind = typeof schema.minimum === "number" && schema.exclusiveMinimum === true ? "exclusive" : "inclusive";
  const maxKind = typeof schema.maximum === "number" && schema.exclusiveMaximum === true ? "exclusive" : "inclusive";
  return { code: "rest_out_of_bounds", message: `${param} must be between ${min} (${minKind}) and ${max} (${maxKind})`, data: null };
}

/**
 * Checks `value` against the schema's `type` (recursively through `items`,
 * `properties` and `additionalProperties`) and converts it. Untyped schemas
 * pass the value through. `param` is the display name used in messages, with
 * WordPress's bracket notation for nested values (`tags[0]`, `venue[city]`).
 */
export function coerceValue(value: unknown, schema: Omit<ValueSchema, "default">, param: string): CoerceResult {
  const declared = schema.type;
  if (declared === undefined) return { ok: true, value };
  let type: ArgType;
  if (typeof declared === "string") {
    type = declared;
  } else {
    const best = bestTypeForValue(value, declared);
    if (best === undefined) return { ok: false, error: typeError(param, declared.join(",")) };
    type = best;
  }
  switch (type) {
    case "null":
      return value === null ? { ok: true, value: null } : { ok: false, error: typeError(param, "null") };
    case "boolean":
      return isWpBoolean(value) ? { ok: true, value: toWpBoolean(value) } : { ok: false, error: typeError(param, "boolean") };
    case "integer": {
      if (!isWpInteger(value)) return { ok: false, error: typeError(param, "integer") };
      // PHP `(int)`: "5.0" → 5, "1e3" → 1000.
      const n = Math.trunc(Number(value));
      return Number.isSafeInteger(n) ? { ok: true, value: n } : { ok: false, error: integerRangeError(param, schema) };
    }
    case "number":
      return isNumeric(value) ? { ok: true, value: Number(value) } : { ok: false, error: typeError(param, "number") };
    case "string":
      // A JSON number or boolean is not a string (WordPress checks `is_string`).
      return typeof value === "string" ? { ok: true, value } : { ok: false, error: typeError(param, "string") };
    case "array":
      return coerceArray(value, schema, param);
    case "object":
      return coerceObject(value, schema, param);
  }
}

function coerceArray(value: unknown, schema: Omit<ValueSchema, "default">, param: string): CoerceResult {
  if (!isWpArray(value)) return { ok: false, error: typeError(param, "array") };
  const list = toWpList(value);
  const items = schema.items;
  if (items === undefined) return { ok: true, value: [...list] };
  const out: unknown[] = [];
  for (let i = 0; i < list.length; i++) {
    const result = coerceValue(list[i], items, `${param}[${i}]`);
    if (!result.ok) return result;
    out.push(result.value);
  }
  return { ok: true, value: out };
}

function coerceObject(value: unknown, schema: Omit<ValueSchema, "default">, param: string): CoerceResult {
  if (!isWpObject(value)) return { ok: false, error: typeError(param, "object") };
  const obj = toWpObject(value);
  const properties = schema.properties ?? {};
  const additional = schema.additionalProperties;
  for (const [key, item] of Object.entries(obj)) {
    const propertySchema = Object.prototype.hasOwnProperty.call(properties, key)
      ? properties[key]
      : typeof additional === "object"
        ? additional
        : undefined;
    if (propertySchema === undefined) continue;
    const result = coerceValue(item, propertySchema, `${param}[${key}]`);
    if (!result.ok) return result;
    obj[key] = result.value;
  }
  return { ok: true, value: obj };
}

/** WordPress `wp_sprintf('%l')`: "a", "a and b", "a, b, and c". */
export function englishList(items: readonly string[]): string {
  if (items.length <= 1) return items.join("");
  if (items.length === 2) return `${items[0]} and ${items[1]}`;
  return `${items.slice(0, -1).join(", ")}, and ${items[items.length - 1]}`;
}
