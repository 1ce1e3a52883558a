/**
 * Typed args → one ajv validator per endpoint, compiled at registration.
 *
 * The validator runs on values already converted by `coerce.ts` (so `type`
 * rarely fails here) and checks the rest of the schema. Its errors are turned
 * into WordPress's messages and codes (`rest_validate_value_from_schema()`),
 * because clients and tests compare those texts.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from "ajv";
import { isIP } from "node:net";
import { englishList } from "./coerce";
import type { ErrorItem } from "./errors";
import type { ArgSpec, ValueSchema } from "./types";

type SchemaObject = Record<string, unknown>;

/** WordPress `rest_parse_date()`'s pattern; the date must also exist. */
const WP_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d+|,\d+)?(?:[Zz]|[+-]\d{2}(?::\d{2})?)?$/;

function isWpDateTime(value: string): boolean {
  const m = WP_DATE_TIME.exec(value);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1) return false;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return day <= daysInMonth && hour <= 24 && minute <= 59 && second <= 60;
}

/**
 * The formats WordPress validates (`rest_validate_value_from_schema()`).
 * Other formats are kept in the index and the OpenAPI document but not
 * checked, as in WordPress (it only sanitises `uri`, `text-field`…).
 */
export const WP_FORMATS: Readonly<Record<string, (value: string) => boolean>> = {
  "date-time": isWpDateTime,
  // A simplified `is_email()`: local part, @, a domain with at least one dot.
  email: (value) => /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/.test(value) && value.length >= 6,
  ip: (value) => isIP(value) !== 0,
  uuid: (value) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value),
  "hex-color": (value) => /^#([A-Fa-f0-9]{3}){1,2}$/.test(value),
};

/** One ajv instance per RestServer (servers share nothing). */
export function createAjv(): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    verbose: true,
    strict: true,
    // WordPress allows `minimum` on a `["integer","null"]` arg and similar mixes.
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    // PCRE patterns (`[\w-]+`) are written for PHP; the non-unicode JS flavour is the closer match.
    unicodeRegExp: false,
  });
  for (const [name, validate] of Object.entries(WP_FORMATS)) ajv.addFormat(name, { type: "string", validate });
  return ajv;
}

/** An arg the server type-checks: it has a `type` and no custom `sanitize` (WordPress `sanitize_params()`). */
export function isTypedArg(spec: ArgSpec): boolean {
  return spec.type !== undefined && spec.sanitize === undefined;
}

/** WordPress's schema dialect → ajv's (draft 7): boolean `exclusiveMinimum`, property-level `required: true`. */
export function toAjvSchema(schema: Omit<ValueSchema, "default">): SchemaObject {
  const out: SchemaObject = {};
  if (schema.type !== undefined) out.type = typeof schema.type === "string" ? schema.type : [...new Set(schema.type)];
  if (schema.enum !== undefined) out.enum = [...schema.enum];
  if (schema.format !== undefined && Object.prototype.hasOwnProperty.call(WP_FORMATS, schema.format)) out.format = schema.format;
  if (schema.minimum !== undefined) out[schema.exclusiveMinimum === true ? "exclusiveMinimum" : "minimum"] = schema.minimum;
  if (schema.maximum !== undefined) out[schema.exclusiveMaximum === true ? "exclusiveMaximum" : "maximum"] = schema.maximum;
  const copied = ["multipleOf", "minLength", "maxLength", "pattern", "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties"] as const;
  for (const key of copied) {
    if (schema[key] !== undefined) out[key] = schema[key];
  }
  if (schema.items !== undefined) out.items = toAjvSchema(schema.items);
  const required = new Set<string>(Array.isArray(schema.required) ? schema.required : []);
  if (schema.properties !== undefined) {
    const properties: SchemaObject = {};
    for (const [name, property] of Object.entries(schema.properties)) {
      properties[name] = toAjvSchema(property);
      if (property.required === true) required.add(name);
    }
    out.properties = properties;
  }
  if (required.size > 0) out.required = [...required];
  if (schema.additionalProperties !== undefined) {
    out.additionalProperties = typeof schema.additionalProperties === "boolean" ? schema.additionalProperties : toAjvSchema(schema.additionalProperties);
  }
  return out;
}

export interface TypedArgsValidator {
  /** Names of the args this validator checks. */
  readonly names: ReadonlySet<string>;
  /** Checks converted values (only the args present); the first error of each failing arg, by arg name. */
  validate(values: Readonly<Record<string, unknown>>): Map<string, ErrorItem>;
}

export function compileTypedArgs(ajv: Ajv, args: readonly (readonly [string, ArgSpec])[]): TypedArgsValidator {
  const properties: SchemaObject = {};
  for (const [name, spec] of args) {
    if (isTypedArg(spec)) properties[name] = toAjvSchema(spec);
  }
  const names = new Set(Object.keys(properties));
  let compiled: ValidateFunction;
  try {
    compiled = ajv.compile({ type: "object", properties });
  } catch (err) {
    throw new Error(`Invalid argument schema (${[...names].join(", ")}): ${(err as Error).message}`);
  }
  return {
    names,
    validate(values) {
      const found = new Map<string, ErrorItem>();
      if (names.size === 0 || compiled(values)) return found;
      for (const error of compiled.errors ?? []) {
        const segments = pointerSegments(error.instancePath);
        const name = segments[0];
        if (name === undefined || found.has(name)) continue;
        found.set(name, wordpressError(error, name + segments.slice(1).map((s) => `[${s}]`).join("")));
      }
      return found;
    },
  };
}

function pointerSegments(pointer: string): string[] {
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function errorParam(error: ErrorObject, key: string): unknown {
  return (error.params as Record<string, unknown>)[key];
}

function plural(n: unknown, singular: string, pluralForm: string): string {
  return Number(n) === 1 ? singular : pluralForm;
}

function enumText(value: unknown): string {
  return typeof value === "string" || typeof value === "number" ? String(value) : JSON.stringify(value);
}

/** `%d` in WordPress's bound messages: PHP integer formatting. */
function asInt(value: number): string {
  return String(Math.trunc(value));
}

function outOfBoundsMessage(param: string, parent: SchemaObject): string {
  const num = (v: unknown): number | undefined => (typeof v === "number" ? v : undefined);
  const exclusiveMin = num(parent.exclusiveMinimum) !== undefined;
  const exclusiveMax = num(parent.exclusiveMaximum) !== undefined;
  const min = num(parent.minimum) ?? num(parent.exclusiveMinimum);
  const max = num(parent.maximum) ?? num(parent.exclusiveMaximum);
  if (min !== undefined && max !== undefined) {
    return `${param} must be between ${asInt(min)} (${exclusiveMin ? "exclusive" : "inclusive"}) and ${asInt(max)} (${exclusiveMax ? "exclusive" : "inclusive"})`;
  }
  if (min !== undefined) return `${param} must be greater than${exclusiveMin ? "" : " or equal to"} ${asInt(min)}`;
  if (max !== undefined) return `${param} must be less than${exclusiveMax ? "" : " or equal to"} ${asInt(max)}`;
  return `${param} is out of bounds.`;
}

const FORMAT_ERRORS: Readonly<Record<string, (param: string) => [string, string]>> = {
  "date-time": () => ["rest_invalid_date", "Invalid date."],
  email: () => ["rest_invalid_email", "Invalid email address."],
  ip: (param) => ["rest_invalid_ip", `${param} is not a valid IP address.`],
  uuid: (param) => ["rest_invalid_uuid", `${param} is not a valid UUID.`],
  "hex-color": () => ["rest_invalid_hex_color", "Invalid hex color."],
};

/** An ajv error → WordPress's code and message for the same failure (no data except on type errors). */
function wordpressError(error: ErrorObject, param: string): ErrorItem {
  const item = (code: string, message: string): ErrorItem => ({ code, message, data: null });
  switch (error.keyword) {
    case "type":
      return { code: "rest_invalid_type", message: `${param} is not of type ${String(errorParam(error, "type"))}.`, data: { param } };
    case "enum": {
      const allowed = errorParam(error, "allowedValues");
      const values = (Array.isArray(allowed) ? allowed : []).map(enumText);
      return values.length === 1
        ? item("rest_not_in_enum", `${param} is not ${values[0]}.`)
        : item("rest_not_in_enum", `${param} is not one of ${englishList(values)}.`);
    }
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      return item("rest_out_of_bounds", outOfBoundsMessage(param, (error.parentSchema ?? {}) as SchemaObject));
    case "multipleOf":
      return item("rest_invalid_multiple", `${param} must be a multiple of ${String(errorParam(error, "multipleOf"))}.`);
    case "minLength": {
      const n = errorParam(error, "limit");
      return item("rest_too_short", `${param} must be at least ${String(n)} ${plural(n, "character", "characters")} long.`);
    }
    case "maxLength": {
      const n = errorParam(error, "limit");
      return item("rest_too_long", `${param} must be at most ${String(n)} ${plural(n, "character", "characters")} long.`);
    }
    case "pattern":
      return item("rest_invalid_pattern", `${param} does not match pattern ${String(errorParam(error, "pattern"))}.`);
    case "minItems": {
      const n = errorParam(error, "limit");
      return item("rest_too_few_items", `${param} must contain at least ${String(n)} ${plural(n, "item", "items")}.`);
    }
    case "maxItems": {
      const n = errorParam(error, "limit");
      return item("rest_too_many_items", `${param} must contain at most ${String(n)} ${plural(n, "item", "items")}.`);
    }
    case "uniqueItems":
      return item("rest_duplicate_items", `${param} has duplicate items.`);
    case "minProperties": {
      const n = errorParam(error, "limit");
      return item("rest_too_few_properties", `${param} must contain at least ${String(n)} ${plural(n, "property", "properties")}.`);
    }
    case "maxProperties": {
      const n = errorParam(error, "limit");
      return item("rest_too_many_properties", `${param} must contain at most ${String(n)} ${plural(n, "property", "properties")}.`);
    }
    case "required":
      return item("rest_property_required", `${String(errorParam(error, "missingProperty"))} is a required property of ${param}.`);
    case "additionalProperties":
      return item("rest_additional_properties_forbidden", `${String(errorParam(error, "additionalProperty"))} is not a valid property of Object.`);
    case "format": {
      const make = FORMAT_ERRORS[String(errorParam(error, "format"))];
      if (make) {
        const [code, message] = make(param);
        return item(code, message);
      }
      return item("rest_invalid_param", `${param} is invalid.`);
    }
    default:
      return item("rest_invalid_param", `${param} ${error.message ?? "is invalid"}.`);
  }
}
