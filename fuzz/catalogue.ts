/**
 * The fuzzer's map of the API, read from the site index (`GET /wp-json/`):
 * every route of every namespace with its methods and declared args. Nothing
 * is hard-coded, so a route registered tomorrow is fuzzed tomorrow.
 */
import type { ArgInfo, PoolName } from "./values";

export interface FuzzEndpoint {
  methods: string[];
  args: ArgInfo[];
}

export interface Placeholder {
  name: string;
  /** The group's expression, e.g. `\d+` or `[^/]+`. */
  source: string;
}

export interface FuzzRoute {
  /** The index key, e.g. `/calendar/events/v1/events/(?P<id>\d+)`. */
  pattern: string;
  namespace: string;
  placeholders: Placeholder[];
  endpoints: FuzzEndpoint[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The named groups of a WordPress pattern, with their expressions (nested parentheses allowed). */
export function placeholdersOf(pattern: string): Placeholder[] {
  const out: Placeholder[] = [];
  const start = /\(\?P<(\w+)>/g;
  for (let m = start.exec(pattern); m !== null; m = start.exec(pattern)) {
    let depth = 1;
    let i = start.lastIndex;
    for (; i < pattern.length && depth > 0; i++) {
      if (pattern[i] === "\\") i++;
      else if (pattern[i] === "(") depth++;
      else if (pattern[i] === ")") depth--;
    }
    out.push({ name: m[1] ?? "", source: pattern.slice(start.lastIndex, i - 1) });
  }
  return out;
}

/** Splits a pattern into literal text and placeholders, in order. */
export function patternParts(pattern: string): Array<string | Placeholder> {
  const parts: Array<string | Placeholder> = [];
  const placeholders = placeholdersOf(pattern);
  let rest = pattern;
  for (const p of placeholders) {
    const marker = `(?P<${p.name}>${p.source})`;
    const at = rest.indexOf(marker);
    if (at < 0) break;
    if (at > 0) parts.push(rest.slice(0, at));
    parts.push(p);
    rest = rest.slice(at + marker.length);
  }
  if (rest !== "") parts.push(rest);
  // Escaped literals (`/events\.ics`) are sent as the characters they stand for.
  return parts.map((part) => (typeof part === "string" ? part.replace(/\\(.)/g, "$1") : part));
}

function argInfo(name: string, raw: unknown): ArgInfo {
  const spec = isRecord(raw) ? raw : {};
  const info: ArgInfo = { name, required: spec.required === true };
  if (typeof spec.type === "string" || Array.isArray(spec.type)) info.type = spec.type as string | string[];
  if (Array.isArray(spec.enum)) info.enum = spec.enum;
  if (isRecord(spec.items)) info.items = spec.items as ArgInfo["items"];
  if (typeof spec.minimum === "number") info.minimum = spec.minimum;
  if (typeof spec.maximum === "number") info.maximum = spec.maximum;
  if (typeof spec.format === "string") info.format = spec.format;
  return info;
}

/** Routes of the site index, in index order. Throws when the index does not have the expected shape. */
export function catalogueFromIndex(index: unknown): FuzzRoute[] {
  if (!isRecord(index) || !isRecord(index.routes)) throw new Error("the site index has no routes object");
  const routes: FuzzRoute[] = [];
  for (const [pattern, raw] of Object.entries(index.routes)) {
    if (!isRecord(raw) || !Array.isArray(raw.endpoints)) continue;
    const endpoints: FuzzEndpoint[] = [];
    for (const e of raw.endpoints) {
      if (!isRecord(e) || !Array.isArray(e.methods)) continue;
      // An endpoint without args is described with `[]` (a PHP empty array).
      const args = isRecord(e.args) ? Object.entries(e.args).map(([n, spec]) => argInfo(n, spec)) : [];
      endpoints.push({ methods: e.methods.filter((m): m is string => typeof m === "string"), args });
    }
    routes.push({ pattern, namespace: typeof raw.namespace === "string" ? raw.namespace : "", placeholders: placeholdersOf(pattern), endpoints });
  }
  return routes;
}

/** Which records an id or slug in this route's path refers to, judged by the path segment before it. */
export function poolForPlaceholder(route: FuzzRoute, placeholder: Placeholder): PoolName {
  const slug = placeholder.name === "slug" || !/\\d/.test(placeholder.source);
  const p = route.pattern.toLowerCase();
  if (p.includes("/events")) return slug ? "eventSlug" : "event";
  if (p.includes("/venues")) return slug ? "venueSlug" : "venue";
  if (p.includes("/organizers")) return slug ? "organizerSlug" : "organizer";
  if (p.includes("/categories")) return slug ? "anySlug" : "category";
  if (p.includes("/tags")) return slug ? "anySlug" : "tag";
  return slug ? "anySlug" : "post";
}
