import { randomBytes } from "node:crypto";
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
  const outer = pasted;
  pasted = [];
  encoding++;
  try {
    const text = escapeScriptText(JSON.stringify(value, null, indent) ?? "null");
    const pieces = pasted;
    if (pieces.length === 0) return text;
    // Each placeholder is a JSON string of U+0000 (written `\u0000`), this process's random mark and an index: no data can spell it.
    return text.replace(PLACEHOLDER, (m, i: string) => pieces[Number(i)] ?? m);
  } finally {
    pasted = outer;
    encoding--;
  }
}

function escapeScriptText(text: string): string {
  return text.includes("<") ? text.replace(/<\/|<!--/g, (m) => (m === "</" ? "<\\/" : "\\u003c!--")) : text;
}

/** Unguessable, so that no text of an answer can be taken for a placeholder. */
const MARK = randomBytes(9).toString("hex");
const PLACEHOLDER = new RegExp(`"\\\\u0000paste-${MARK}:(\\d+)"`, "g");

/** The texts of the RawJson values met by the `encodeJson` running now. */
let pasted: string[] = [];
/** How many `encodeJson` calls are running (nested: a RawJson's own encoding). */
let encoding = 0;

/**
 * JSON text already encoded by `encodeJson` (a kept record), pasted into an
 * answer as it is: `encodeJson` writes it where the value stands. Only for
 * answers no filter looks into (`_fields` reads values, not text).
 */
export class RawJson {
  constructor(readonly text: string) {}

  toJSON(): unknown {
    // Stringified by anything else (a test, a log line): the value itself.
    if (encoding === 0) return JSON.parse(this.text) as unknown;
    pasted.push(this.text);
    return `\u0000paste-${MARK}:${pasted.length - 1}`;
  }
}
