/** JSON value types and the small predicates the REST layer uses on decoded input. */

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** A plain data object (decoded JSON, qs output, an object literal), not an array, class instance or null. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * A value that counts as "not given". WordPress reads parameters with `isset()`,
 * for which `null` is unset: a JSON `null` therefore means "not sent" and a
 * `default: null` is never applied (but is still shown in the index).
 */
export function isAbsent(value: unknown): value is null | undefined {
  return value === null || value === undefined;
}

/**
 * JSON text of an answer, safe to paste into an HTML `<script>` element:
 * `</` is written `<\/` (as WordPress's wp_json_encode() does) and `<!--`
 * as `\u003c!--`, so no string in it can end the element or switch the
 * HTML parser into its escaped state. Both forms decode to the same value,
 * and outside strings JSON has no `<`. Every JSON answer is encoded here,
 * before its ETag is computed and before it is kept or stored.
 */
export function encodeJson(value: unknown, indent?: number): string {
  const text = JSON.stringify(value, null, indent) ?? "null";
  return text.includes("<") ? text.replace(/<\/|<!--/g, (m) => (m === "</" ? "<\\/" : "\\u003c!--")) : text;
}
