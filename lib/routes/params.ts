/**
 * Where request parameters come from: query string and form bodies in PHP
 * bracket notation (parsed with `qs`), JSON bodies, and their precedence.
 */
import qs from "qs";
import { RestError } from "./errors";
import { isPlainObject } from "./json";

/** The sources of an explicitly sent parameter, highest priority first. */
export type ParamSource = "json" | "body" | "query" | "path";
export const PARAM_SOURCES: readonly ParamSource[] = ["json", "body", "query", "path"];

export type ParamMap = Record<string, unknown>;

/** A parameter's value, only when the map has it as its own (never from the prototype: `constructor`, `__proto__`). */
export function own(map: Readonly<ParamMap>, name: string): unknown {
  return Object.prototype.hasOwnProperty.call(map, name) ? map[name] : undefined;
}

/**
 * `a[]=1&a[]=2`, `v[city]=Rome`, `o[0][id]=9` like PHP's `$_GET`. Bounded so a
 * hostile query cannot build huge structures: past `arrayLimit` an index makes
 * an integer-keyed object (which the array type rules still read as a list),
 * past `depth` the rest of the key stays literal. A repeated plain key keeps
 * its last value, as in PHP.
 */
export const BRACKET_PARSE_OPTIONS: qs.IParseOptions = {
  depth: 10,
  arrayLimit: 100,
  parameterLimit: 1000,
  duplicates: "last",
  allowPrototypes: false,
  ignoreQueryPrefix: true,
};

export function parseBracketString(text: string): ParamMap {
  return qs.parse(text, BRACKET_PARSE_OPTIONS) as ParamMap;
}

/** The raw query string of a URL (`/a?b=1#c` → `b=1`). */
export function rawQueryString(url: string): string {
  const q = url.indexOf("?");
  if (q < 0) return "";
  const hash = url.indexOf("#", q);
  return url.slice(q + 1, hash < 0 ? undefined : hash);
}

/** `application/json; charset=utf-8` → `application/json`. */
export function mediaType(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  const type = contentType.split(";")[0]?.trim().toLowerCase();
  return type === "" ? undefined : type;
}

/** WordPress `wp_is_json_media_type()`: `application/json` and `application/<x>+json`. */
export function isJsonMediaType(type: string | undefined): boolean {
  return type !== undefined && /^application\/([\w!#$&^.+-]+\+)?json$/.test(type);
}

/** Methods whose form body is read (WordPress `get_parameter_order()`). */
export const BODY_METHODS: ReadonlySet<string> = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** PHP's JSON error codes, reported as `json_error_code` / `json_error_message` like `json_last_error()`. */
const JSON_ERROR_DEPTH = 1;
const JSON_ERROR_SYNTAX = 4;
const JSON_ERROR_UTF8 = 5;
const MAX_JSON_DEPTH = 512;

function invalidJson(code: number, message: string): RestError {
  return new RestError("rest_invalid_json", "Invalid JSON body passed.", 400, { json_error_code: code, json_error_message: message });
}

function jsonDepthExceeds(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (current === null || typeof current !== "object") continue;
    if (depth > limit) return true;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return false;
}

export interface DecodedJson {
  params?: ParamMap;
  error?: RestError;
}

/**
 * Decodes a JSON body. Empty bodies give no parameters; a body that is not an
 * object (a list, a number, `null`) gives none either. Invalid UTF-8, syntax
 * errors and nesting deeper than PHP's 512 are `rest_invalid_json`.
 */
export function decodeJsonBody(raw: Buffer): DecodedJson {
  if (raw.length === 0) return {};
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(raw);
  } catch {
    return { error: invalidJson(JSON_ERROR_UTF8, "Malformed UTF-8 characters, possibly incorrectly encoded") };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { error: invalidJson(JSON_ERROR_SYNTAX, "Syntax error") };
  }
  if (jsonDepthExceeds(value, MAX_JSON_DEPTH)) return { error: invalidJson(JSON_ERROR_DEPTH, "Maximum stack depth exceeded") };
  return isPlainObject(value) ? { params: value } : {};
}

/** The body as the parameter layer sees it. */
export interface BodySources {
  json: ParamMap;
  jsonError?: RestError;
  form: ParamMap;
  /** The text of a document body (TEXT_BODY_TYPES), for routes that take one (an iCalendar import). */
  text?: string;
}

/** Media types whose body a route reads as a document (`RestRequest.bodyText`), not as parameters. */
export const TEXT_BODY_TYPES: ReadonlySet<string> = new Set(["text/calendar"]);

/**
 * Splits a request body by content type: JSON (any method) or a form body (a
 * missing content type counts as a form, as in WordPress
 * `parse_body_params()`). Other content types are ignored. `preParsed` is a
 * body a host middleware already decoded.
 */
export function decodeBody(contentType: string | undefined, raw: Buffer | undefined, preParsed?: ParamMap): BodySources {
  const type = mediaType(contentType);
  const sources: BodySources = { json: {}, form: {} };
  if (isJsonMediaType(type)) {
    if (preParsed) {
      sources.json = preParsed;
    } else if (raw) {
      const decoded = decodeJsonBody(raw);
      if (decoded.params) sources.json = decoded.params;
      if (decoded.error) sources.jsonError = decoded.error;
    }
  } else if (type === undefined || type === "application/x-www-form-urlencoded") {
    if (preParsed) sources.form = preParsed;
    else if (raw && raw.length > 0) sources.form = parseBracketString(raw.toString("utf8"));
  } else if (TEXT_BODY_TYPES.has(type) && raw) {
    sources.text = raw.toString("utf8");
  }
  return sources;
}
