/**
 * A JSON Schema as WordPress writes one (draft 4 with its own habits: type
 * lists with `null`, `required: true` on a property, `readonly`, `context`,
 * `arg_options`) turned into an OpenAPI 3.0 Schema Object, which allows one
 * type, `nullable`, `readOnly`, a `required` list, and no keyword it does
 * not name. For the schemas endpoints declare in `responses` and a
 * namespace's `doc.schemas`, as the generated documents show them.
 */
import { isPlainObject, type JsonObject, type JsonValue } from "./json";

/** Keywords OpenAPI 3.0's Schema Object takes as they are (the nested ones are converted below). */
const KEPT = new Set([
  "$ref", "title", "description", "format", "default", "enum", "pattern", "example", "deprecated", "discriminator",
  "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength", "minLength",
  "maxItems", "minItems", "uniqueItems", "maxProperties", "minProperties", "nullable", "readOnly", "writeOnly",
]);

/** Deeper than any schema a route declares; a guard against a schema object that contains itself. */
const MAX_DEPTH = 32;

function convert(schema: JsonObject, depth: number): JsonObject {
  if (depth > MAX_DEPTH) return {};
  if (typeof schema.$ref === "string") return { $ref: schema.$ref };
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (KEPT.has(key)) out[key] = value;
    else if (key === "type") {
      const types = (Array.isArray(value) ? value : [value]).filter((t): t is string => typeof t === "string");
      const concrete = types.find((t) => t !== "null");
      if (concrete !== undefined) out.type = concrete;
      if (types.includes("null")) out.nullable = true;
    } else if (key === "readonly" && value === true) out.readOnly = true;
    else if (key === "context" && Array.isArray(value)) out["x-context"] = value;
    else if (key === "items") {
      // A draft-4 tuple (a list of schemas) has no OpenAPI 3.0 form: its first member stands for it.
      const item = Array.isArray(value) ? value[0] : value;
      out.items = isPlainObject(item) ? convert(item as JsonObject, depth + 1) : {};
    } else if (key === "properties" && isPlainObject(value)) {
      const properties: JsonObject = {};
      const required: string[] = [];
      for (const [name, property] of Object.entries(value as JsonObject)) {
        if (!isPlainObject(property)) continue;
        properties[name] = convert(property as JsonObject, depth + 1);
        if ((property as JsonObject).required === true) required.push(name);
      }
      out.properties = properties;
      const listed = Array.isArray(schema.required) ? schema.required.filter((n): n is string => typeof n === "string") : [];
      const all = [...new Set([...listed, ...required])];
      if (all.length > 0) out.required = all;
    } else if (key === "required" && Array.isArray(value) && !isPlainObject(schema.properties)) {
      if (value.length > 0) out.required = value;
    } else if (key === "additionalProperties") {
      out.additionalProperties = isPlainObject(value) ? convert(value as JsonObject, depth + 1) : value === true || value === false ? value : true;
    } else if ((key === "oneOf" || key === "anyOf" || key === "allOf") && Array.isArray(value)) {
      out[key] = value.filter(isPlainObject).map((member) => convert(member as JsonObject, depth + 1));
    } else if (key === "not" && isPlainObject(value)) {
      out.not = convert(value as JsonObject, depth + 1);
    }
    // Anything else (`$schema`, `arg_options`, `patternProperties`, `required: true`…) has no place in OpenAPI 3.0.
  }
  // OpenAPI requires `items` on an array schema.
  if (out.type === "array" && out.items === undefined) out.items = {};
  return out;
}

/** `schema` as an OpenAPI 3.0 Schema Object (a non-object is the empty schema, which allows anything). */
export function openApiSchema(schema: JsonValue): JsonObject {
  return isPlainObject(schema) ? convert(schema as JsonObject, 0) : {};
}
