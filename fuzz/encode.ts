/**
 * Turning generated values into bytes on the wire: JSON, PHP bracket
 * notation for query strings and form bodies, and percent-encoding that
 * survives lone surrogates (which `encodeURIComponent` throws on).
 */
import { DeepValue, ListString, Ref, type FuzzValue } from "./values";

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** Percent-encodes every byte of the UTF-8 form except unreserved characters (lone surrogates become U+FFFD). */
export function percentEncode(text: string): string {
  let out = "";
  for (const byte of Buffer.from(text, "utf8")) {
    const ch = String.fromCharCode(byte);
    out += byte < 0x80 && UNRESERVED.test(ch) ? ch : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** A scalar as a query or form value: what a browser form or PHP client would send. */
export function scalarText(value: FuzzValue): string {
  if (value === null) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (value instanceof ListString) return value.items.map(scalarText).join(",");
  if (value instanceof Ref) return `ref:${value.pool}`;
  return toJson(value);
}

function isMap(value: FuzzValue): value is { [key: string]: FuzzValue } {
  return value !== null && typeof value === "object" && !Array.isArray(value) && !(value instanceof ListString) && !(value instanceof Ref) && !(value instanceof DeepValue);
}

/** `name=value` pairs in PHP bracket notation: `a[]=1`, `v[city]=Rome`, `o[0][id]=9`. */
export function bracketPairs(params: ReadonlyArray<readonly [string, FuzzValue]>): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const walk = (key: string, value: FuzzValue): void => {
    if (value instanceof DeepValue) {
      // `k[a][a]…[a]=bottom`: as deep as the value, past any parser's limit.
      out.push([`${key}${"[a]".repeat(value.depth)}`, "bottom"]);
      return;
    }
    if (Array.isArray(value)) {
      if (value.length === 0) out.push([`${key}[]`, ""]);
      value.forEach((item, i) => walk(value.length > 100 ? `${key}[]` : `${key}[${i}]`, item));
      return;
    }
    if (isMap(value)) {
      const keys = Object.keys(value);
      if (keys.length === 0) out.push([`${key}[]`, ""]);
      for (const k of keys) walk(`${key}[${k}]`, value[k] as FuzzValue);
      return;
    }
    out.push([key, scalarText(value)]);
  };
  for (const [name, value] of params) walk(name, value);
  return out;
}

export function formEncode(params: ReadonlyArray<readonly [string, FuzzValue]>): string {
  return bracketPairs(params)
    .map(([k, v]) => `${percentEncode(k)}=${percentEncode(v)}`)
    .join("&");
}

/** JSON text of a value; `__proto__` and friends stay ordinary members, deep values are written without recursion. */
export function toJson(value: FuzzValue): string {
  if (value instanceof DeepValue) return value.json();
  if (value instanceof ListString) return JSON.stringify(value.items.map(scalarText).join(","));
  if (value instanceof Ref) return JSON.stringify(`ref:${value.pool}`);
  if (Array.isArray(value)) return `[${value.map(toJson).join(",")}]`;
  if (isMap(value)) return `{${Object.keys(value).map((k) => `${JSON.stringify(k)}:${toJson(value[k] as FuzzValue)}`).join(",")}}`;
  return JSON.stringify(value) ?? "null";
}

/** The params as one JSON object (a name may repeat: the server keeps the last). */
export function jsonEncode(params: ReadonlyArray<readonly [string, FuzzValue]>): string {
  return `{${params.map(([k, v]) => `${JSON.stringify(k)}:${toJson(v)}`).join(",")}}`;
}
