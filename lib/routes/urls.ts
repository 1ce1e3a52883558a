/**
 * REST root and site home URLs, computed from the request (never configured),
 * and the query-string builder used for generated links.
 */
import type { Request as ExpressRequest } from "express";

export type QueryScalar = string | number | boolean;
export type QueryValue = QueryScalar | readonly QueryScalar[] | null | undefined;
/** Query arguments for generated URLs; lists are written comma-separated, `null`/`undefined` are left out. */
export type QueryArgs = Readonly<Record<string, QueryValue>>;

export interface RestUrls {
  /** The REST root with its trailing slash, e.g. `http://127.0.0.1:8080/wp-json/`. */
  readonly root: string;
  /** The site home: the REST root without the REST prefix, no trailing slash, e.g. `http://127.0.0.1:8080`. */
  readonly home: string;
  /** Absolute URL of a route (WordPress `rest_url()`): `route("/ns/items/")` → `<root>ns/items/`. */
  route(path: string, query?: QueryArgs): string;
}

export const DEFAULT_REST_PREFIX = "/wp-json";

/** `/wp-json/` → `/wp-json`; `` → ``. */
export function normalizePrefix(prefix: string): string {
  const trimmed = prefix.replace(/^\/+|\/+$/g, "");
  return trimmed === "" ? "" : `/${trimmed}`;
}

function encodeQueryPart(value: string): string {
  // Commas stay readable: list values are comma-separated (`categories=3,5`).
  return encodeURIComponent(value).replace(/%2C/gi, ",");
}

function scalarText(value: QueryScalar): string {
  return typeof value === "string" ? value : String(value);
}

/** Appends query arguments to a URL (`?` or `&` as needed), in the given order. */
export function buildUrl(base: string, query?: QueryArgs): string {
  if (query === undefined) return base;
  const parts: string[] = [];
  for (const [key, value] of Object.entries(query)) {
    if (value === null || value === undefined) continue;
    const text = Array.isArray(value) ? value.map(scalarText).join(",") : scalarText(value as QueryScalar);
    parts.push(`${encodeQueryPart(key)}=${encodeQueryPart(text)}`);
  }
  if (parts.length === 0) return base;
  return `${base}${base.includes("?") ? "&" : "?"}${parts.join("&")}`;
}

export function makeRestUrls(root: string, home: string): RestUrls {
  return {
    root,
    home,
    route(path: string, query?: QueryArgs): string {
      return buildUrl(root + path.replace(/^\/+/, ""), query);
    },
  };
}

/** `<protocol>://<host[:port]>` as the client addressed us (honours the host app's `trust proxy`). */
export function requestOrigin(req: ExpressRequest): string {
  return `${req.protocol}://${requestHost(req)}`;
}

/**
 * The Host (or trusted X-Forwarded-Host) header with its port, as Express 5's
 * `req.host` reads it. Not `req.host` itself: on Express 4 that drops the
 * port and prints a deprecation warning.
 */
function requestHost(req: ExpressRequest): string {
  const trust = req.app.get("trust proxy fn") as ((addr: string | undefined, i: number) => boolean) | undefined;
  const forwarded = req.get("x-forwarded-host");
  const host = forwarded && trust?.(req.socket.remoteAddress, 0) ? (forwarded.split(",")[0] ?? "").trim() : req.get("host");
  return host ?? "";
}

/**
 * URLs for a request handled by `server.router()`: the REST root is where the
 * router is mounted (`req.baseUrl`). The home URL drops the REST prefix from
 * the end of the mount path (or, when the router is mounted under another
 * name, its last segment).
 */
export function restUrls(req: ExpressRequest, options: { restPrefix?: string } = {}): RestUrls {
  const prefix = normalizePrefix(options.restPrefix ?? DEFAULT_REST_PREFIX);
  const mount = req.baseUrl.replace(/\/+$/, "");
  const origin = requestOrigin(req);
  let homePath: string;
  if (prefix !== "" && mount.toLowerCase().endsWith(prefix.toLowerCase())) {
    homePath = mount.slice(0, mount.length - prefix.length);
  } else {
    homePath = mount.replace(/\/[^/]*$/, "");
  }
  return makeRestUrls(`${origin}${mount}/`, `${origin}${homePath}`);
}

/**
 * URLs for a request reached through `?rest_route=` on the site: the home is
 * where that middleware is mounted, and the REST root is still the prefix form
 * (`<home><prefix>/`), as calpress always generates pretty-permalink URLs.
 */
export function restRouteUrls(req: ExpressRequest, options: { restPrefix?: string } = {}): RestUrls {
  const prefix = normalizePrefix(options.restPrefix ?? DEFAULT_REST_PREFIX);
  const home = `${requestOrigin(req)}${req.baseUrl.replace(/\/+$/, "")}`;
  return makeRestUrls(`${home}${prefix}/`, home);
}
