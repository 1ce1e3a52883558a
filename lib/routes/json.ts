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
  const { text, pieces } = encodeWithPlaceholders(value, indent);
  if (pieces.length === 0) return text;
  return text.replace(PLACEHOLDER, (m, i: string) => {
    const piece = pieces[Number(i)];
    return piece === undefined ? m : typeof piece === "string" ? piece : piece.toString("utf8");
  });
}

/**
 * `encodeJson` as UTF-8 bytes, which is what an answer is sent and kept as.
 * Pasted texts kept as bytes are copied as they are: never decoded, joined
 * and encoded again. That matters beyond the copies saved: V8 joins strings
 * of which any has a character past U+00FF (texturized quotes, which most
 * records have) some twenty times slower than one-byte strings (~0.6 ms
 * for a 50-event page against ~35 µs for concatenating the bytes).
 */
export function encodeJsonBytes(value: unknown, indent?: number): Buffer {
  const { text, pieces } = encodeWithPlaceholders(value, indent);
  if (pieces.length === 0) return Buffer.from(text);
  const parts: Buffer[] = [];
  const re = new RegExp(PLACEHOLDER.source, "g");
  let last = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const piece = pieces[Number(m[1])];
    if (piece === undefined) continue;
    parts.push(Buffer.from(text.slice(last, m.index)), typeof piece === "string" ? Buffer.from(piece) : piece);
    last = m.index + m[0].length;
  }
  parts.push(Buffer.from(text.slice(last)));
  return Buffer.concat(parts);
}

/** The JSON text with a placeholder where each RawJson stands, and their texts by placeholder index. */
function encodeWithPlaceholders(value: unknown, indent: number | undefined): { text: string; pieces: ReadonlyArray<string | Buffer> } {
  const outer = pasted;
  pasted = [];
  encoding++;
  try {
    return { text: escapeScriptText(JSON.stringify(value, null, indent) ?? "null"), pieces: pasted };
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
let pasted: Array<string | Buffer> = [];
/** How many `encodeJson` calls are running (nested: a RawJson's own encoding). */
let encoding = 0;

/**
 * JSON text already encoded by `encodeJson` (a kept record), pasted into an
 * answer as it is: `encodeJson` writes it where the value stands. Only for
 * answers no filter looks into (`_fields` reads values, not text).
 */
export class RawJson {
  /** `text`: the JSON text, or its UTF-8 bytes. */
  constructor(readonly text: string | Buffer) {}

  toJSON(): unknown {
    // Stringified by anything else (a test, a log line): the value itself.
    if (encoding === 0) return JSON.parse(typeof this.text === "string" ? this.text : this.text.toString("utf8")) as unknown;
    pasted.push(this.text);
    return `\u0000paste-${MARK}:${pasted.length - 1}`;
  }
}
