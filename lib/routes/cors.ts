/**
 * CORS headers of REST answers (preflight OPTIONS included): which origins
 * may read answers from a browser, and whether with credentials.
 *
 * The default is WordPress's `rest_send_cors_headers()`: any Origin is
 * echoed with `Access-Control-Allow-Credentials: true`. That is only safe
 * because credentials a browser sends by itself (cookies) count only with a
 * nonce (see `SiteOptions.authenticate`); hosts that want less set `cors`.
 */
import type { Request } from "express";

/** Headers browsers may read cross-origin: WordPress's pagination trio, calpress's count pair and the ETag (for `If-Match`). */
export const EXPOSED_HEADERS = "X-WP-Total, X-WP-TotalPages, Link, X-CAL-Total, X-CAL-TotalPages, ETag";
/** WordPress's list plus the two conditional request headers (not CORS-safelisted: a preflight must allow them). */
export const ALLOWED_REQUEST_HEADERS = "Authorization, X-WP-Nonce, Content-Disposition, Content-MD5, Content-Type, If-Match, If-None-Match";
export const CORS_METHODS = "OPTIONS, GET, POST, PUT, PATCH, DELETE";

/**
 * `origins`: a list of origins (`https://app.example`, scheme and host, port
 * when not the default) whose pages may read answers with credentials;
 * `"*"`: any page, without credentials; `false`: no CORS headers at all.
 * Absent (the default): WordPress's, every origin with credentials.
 */
export interface CorsOptions {
  readonly origins?: readonly string[] | "*" | false;
}

/** The checked form of `CorsOptions` (`false` too: no CORS headers). */
export type CorsPolicy =
  | { readonly kind: "echo" }
  | { readonly kind: "list"; readonly origins: ReadonlySet<string> }
  | { readonly kind: "any" }
  | { readonly kind: "none" };

export const WORDPRESS_CORS: CorsPolicy = { kind: "echo" };

/** `https://Example.org:443/` → `https://example.org`: how an Origin header names the same origin. */
function canonicalOrigin(origin: string): string | undefined {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return undefined;
  }
  if (url.origin === "null" || (url.pathname !== "/" && url.pathname !== "") || url.search !== "" || url.hash !== "" || url.username !== "") return undefined;
  return url.origin;
}

/** Checks a `cors` setting; throws on an entry that is not an origin (a host's mistake, found at start). */
export function corsPolicy(options: CorsOptions | false | undefined): CorsPolicy {
  if (options === undefined) return WORDPRESS_CORS;
  if (options === false || options.origins === false) return { kind: "none" };
  const origins = options.origins;
  if (origins === undefined) return WORDPRESS_CORS;
  if (origins === "*") return { kind: "any" };
  if (!Array.isArray(origins)) throw new Error(`cors.origins must be a list of origins, "*" or false`);
  const set = new Set<string>();
  for (const entry of origins as readonly unknown[]) {
    const canonical = typeof entry === "string" ? canonicalOrigin(entry.trim()) : undefined;
    if (canonical === undefined) throw new Error(`cors.origins: ${JSON.stringify(entry)} is not an origin such as https://app.example`);
    set.add(canonical);
  }
  return { kind: "list", origins: set };
}

/** Origins are echoed; anything that is not a plain header token is not. */
function echoableOrigin(origin: string | undefined): string | undefined {
  return origin !== undefined && /^[\x21-\x7e]+$/.test(origin) ? origin : undefined;
}

/** Whether the CORS headers of an answer depend on the request's Origin (then answers say `Vary: Origin`). */
export function corsVariesByOrigin(policy: CorsPolicy): boolean {
  return policy.kind === "echo" || policy.kind === "list";
}

/**
 * The CORS headers of the answer to `req` (any method, preflight included).
 * The one place they are computed: a stored answer gets its CORS headers
 * from here when it is sent.
 */
export function corsHeaders(policy: CorsPolicy, req: Request): Array<[string, string]> {
  if (policy.kind === "none") return [];
  const headers: Array<[string, string]> = [
    ["Access-Control-Expose-Headers", EXPOSED_HEADERS],
    ["Access-Control-Allow-Headers", ALLOWED_REQUEST_HEADERS],
  ];
  if (policy.kind === "any") {
    headers.push(["Access-Control-Allow-Origin", "*"], ["Access-Control-Allow-Methods", CORS_METHODS]);
    return headers;
  }
  const origin = echoableOrigin(req.get("origin"));
  if (origin === undefined) return headers;
  if (policy.kind === "list") {
    const canonical = canonicalOrigin(origin);
    if (canonical === undefined || !policy.origins.has(canonical)) return headers;
  }
  headers.push(["Access-Control-Allow-Origin", origin], ["Access-Control-Allow-Methods", CORS_METHODS], ["Access-Control-Allow-Credentials", "true"]);
  return headers;
}
