/**
 * REST root and site home URLs: those of the configured site URL, or (none
 * configured) the request's; and the query-string builder used for
 * generated links.
 */
import type { Request as ExpressRequest } from "express";
import { parseHostHeader } from "../format/site-url";
import { RestError } from "./errors";

export type QueryScalar = string | number | boolean;
export type QueryValue = QueryScalar | readonly QueryScalar[] | null | undefined;
/** Query arguments for generated URLs; lists are written comma-separated, `null`/`undefined` are left out. */
export type QueryArgs = Readonly<Record<string, QueryValue>>;

export interface RestUrls {
  /**
   * The REST root with its trailing slash, e.g. `http://127.0.0.1:8080/wp-json/`.
   * Every URL of an answer is built from it and `home`, which follows from it
   * (same server, same prefix): it is the base URL component of the answer
   * store's and the response cache's keys.
   */
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

/** Where generated URLs come from. */
export interface UrlSource {
  /** The REST prefix below the site home (default `/wp-json`). */
  readonly restPrefix?: string;
  /**
   * The configured site URL (`parseSiteUrl` form). When set it is the only
   * source of every generated URL: nothing of the request (Host, scheme,
   * mount path) reaches them.
   */
  readonly siteUrl?: string;
}

/** The URLs of a site with a configured site URL: the same for every request. */
export function siteRestUrls(siteUrl: string, restPrefix: string = DEFAULT_REST_PREFIX): RestUrls {
  return makeRestUrls(`${siteUrl}${normalizePrefix(restPrefix)}/`, siteUrl);
}

/** The local address a request came in on, as a URL host (`127.0.0.1:8080`, `[::1]:8080`). */
function localHost(req: ExpressRequest): string {
  const address = (req.socket.localAddress ?? "127.0.0.1").replace(/^::ffff:(?=\d+\.)/i, "");
  return `${address.includes(":") ? `[${address}]` : address}:${req.socket.localPort ?? 80}`;
}

/**
 * `<protocol>://<host[:port]>` as the client addressed us, for sites without
 * a site URL. The Host header is parsed here, not by Express (whose
 * `req.host`/`req.hostname` differ between majors), and used only when it is
 * a syntactically valid `host[:port]`; otherwise the request is refused
 * (RFC 9112 §3.2: 400 for an invalid Host). A request without one (HTTP/1.0)
 * gets the local address it came in on. The scheme is `req.protocol` (the
 * host app's `trust proxy` decides whether X-Forwarded-Proto counts), http or
 * https only. X-Forwarded-Host is never followed: behind a proxy that
 * rewrites Host, configure the site URL.
 */
export function requestOrigin(req: ExpressRequest): string {
  const header = req.headers.host;
  const host = header === undefined || header === "" ? localHost(req) : parseHostHeader(header);
  if (host === undefined) throw new RestError("rest_invalid_host", "The Host header is not a valid host name.", 400);
  const protocol = req.protocol === "https" ? "https" : "http";
  return `${protocol}://${host}`;
}

/**
 * URLs for a request handled by `server.router()`. With a site URL, those
 * of the site. Otherwise the REST root is where the router is mounted
 * (`req.baseUrl`), and the home URL drops the REST prefix from the end of
 * the mount path (or, when the router is mounted under another name, its
 * last segment). Throws a 400 RestError for an invalid Host (see `requestOrigin`).
 */
export function restUrls(req: ExpressRequest, source: UrlSource = {}): RestUrls {
  if (source.siteUrl !== undefined) return siteRestUrls(source.siteUrl, source.restPrefix);
  const prefix = normalizePrefix(source.restPrefix ?? DEFAULT_REST_PREFIX);
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
 * URLs for a request reached through `?rest_route=` on the site: with a site
 * URL, those of the site; otherwise the home is where that middleware is
 * mounted, and the REST root is still the prefix form (`<home><prefix>/`),
 * as calpress always generates pretty-permalink URLs.
 */
export function restRouteUrls(req: ExpressRequest, source: UrlSource = {}): RestUrls {
  if (source.siteUrl !== undefined) return siteRestUrls(source.siteUrl, source.restPrefix);
  const prefix = normalizePrefix(source.restPrefix ?? DEFAULT_REST_PREFIX);
  const home = `${requestOrigin(req)}${req.baseUrl.replace(/\/+$/, "")}`;
  return makeRestUrls(`${home}${prefix}/`, home);
}
