/**
 * WordPress route patterns (`/events/(?P<id>\d+)`) → JavaScript regular
 * expressions, documentation paths (`/events/{id}`) and request-path
 * normalisation.
 */

export interface RoutePattern {
  /** The full pattern as registered, e.g. `/test/v1/items/(?P<id>\d+)`: the key of the route in the index. */
  readonly source: string;
  /** Anchored, case-insensitive: WordPress matches with `@^<route>$@i`. */
  readonly regex: RegExp;
  /** Names of the named groups, in order. */
  readonly placeholders: readonly string[];
  /** The pattern with each named group written `{name}` (WordPress `get_data_for_route()`). */
  readonly docPath: string;
}

/** `/` + namespace + `/` + path, without stray or trailing slashes (WordPress `register_rest_route`). */
export function joinRoute(namespace: string, path: string): string {
  const ns = namespace.replace(/^\/+|\/+$/g, "");
  const rest = path.replace(/^\/+|\/+$/g, "");
  if (ns === "") return `/${rest}`;
  return rest === "" ? `/${ns}` : `/${ns}/${rest}`;
}

const NAMED_GROUP_DOC = /\(\?P<(\w+?)>.*?\)/g;
const NAMED_GROUP_START = /\(\?P<(\w+)>/g;

/** Compiles a registered pattern; a pattern that is not a valid expression fails at registration. */
export function compilePattern(source: string): RoutePattern {
  const jsSource = source.replace(/\(\?P</g, "(?<");
  let regex: RegExp;
  try {
    regex = new RegExp(`^${jsSource}$`, "i");
  } catch (err) {
    throw new Error(`Invalid route pattern ${source}: ${(err as Error).message}`);
  }
  const placeholders = [...source.matchAll(NAMED_GROUP_START)].map((m) => m[1] ?? "");
  // Escaped literals outside the groups (`/events\.ics`) are plain characters of the documented path.
  return { source, regex, placeholders, docPath: source.replace(NAMED_GROUP_DOC, "{$1}").replace(/\\(.)/g, "$1") };
}

/** True when the documentation path still has a placeholder (such routes get no `_links.self`). */
export function hasPlaceholders(pattern: RoutePattern): boolean {
  return pattern.docPath.includes("{");
}

/** The source of the named group `name` (`\d+`), used to guess a path parameter's type. */
export function groupSource(pattern: RoutePattern, name: string): string | undefined {
  const start = pattern.source.indexOf(`(?P<${name}>`);
  if (start < 0) return undefined;
  const from = start + name.length + 5;
  const end = pattern.source.indexOf(")", from);
  return end < 0 ? undefined : pattern.source.slice(from, end);
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The route path a request asks for: percent-decoded, with a leading slash
 * and without trailing slashes (WordPress `untrailingslashit()`s the route, so
 * `/events/` and `/events` are the same), `/` for the root.
 */
export function normalizeRoutePath(raw: string): string {
  const decoded = raw.split("/").map(safeDecode).join("/");
  const withSlash = decoded.startsWith("/") ? decoded : `/${decoded}`;
  const trimmed = withSlash.replace(/\/+$/, "");
  return trimmed === "" ? "/" : trimmed;
}
