/**
 * The answer as bytes: the global parameters (`_fields`, `_envelope`,
 * `_pretty`) applied to a pipeline outcome and the headers every REST
 * response carries (rest-conventions §6, §9), everything but the socket, so
 * that kept answers (response cache, answer store) are written as they are.
 */
import type { Request } from "express";
import { entityTag } from "./conditional";
import { internalServerError } from "./errors";
import { corsVariesByOrigin } from "./cors";
import { filterFields, parseFields } from "./fields";
import { encodeJson, encodeJsonBytes } from "./json";
import { own, type ParamMap } from "./params";
import type { Outcome } from "./pipeline";
import type { Answer } from "../cache/answer";
import type { RouteTable } from "./table";
import type { RestUrls } from "./urls";

/** WordPress `wp_get_nocache_headers()`. */
export const NO_CACHE_HEADERS: Readonly<Record<string, string>> = {
  Expires: "Wed, 11 Jan 1984 05:00:00 GMT",
  "Cache-Control": "no-cache, must-revalidate, max-age=0, no-store, private",
};

/** What composing an answer reads of its request, decided once per request (http.ts). */
export interface AnswerContext {
  readonly table: RouteTable;
  /** The request's query, parsed. */
  readonly query: ParamMap;
  readonly urls: RestUrls;
  /** The HTTP method, upper case. */
  readonly realMethod: string;
  /** The effective method, after `?_method=` or `X-HTTP-Method-Override`. */
  readonly method: string;
  /** Whether the method came from the override header. */
  readonly headerOverride: boolean;
}

/**
 * The outcome's status, route headers and body bytes with `_fields`,
 * `_envelope` and `_pretty` applied (a raw body as it is). Also gives the
 * tag a write's precondition compares (preconditions.ts).
 */
export function serialize(table: RouteTable, outcome: Outcome, query: Readonly<ParamMap>): { status: number; headers: Record<string, string>; body: Buffer; contentType?: string } {
  let status = outcome.status;
  let data = outcome.data;
  let headers = outcome.headers;
  // `_fields` and `_pretty` may come from any parameter source; `_envelope` only from the query (WordPress reads `$_GET`).
  const params: Readonly<ParamMap> = outcome.request?.params ?? query;
  const pretty = own(params, "_pretty") !== undefined && own(params, "_pretty") !== null;
  try {
    // A raw body (`rawResponse`) is sent as it is; `_envelope` still answers JSON, with the text as its body.
    if (outcome.raw !== undefined && own(query, "_envelope") === undefined) return { status, headers, body: Buffer.from(String(data)), contentType: outcome.raw.contentType };
    if (status < 400) {
      const fields = parseFields(own(params, "_fields"));
      if (fields) data = filterFields(data, fields);
    }
    if (own(query, "_envelope") !== undefined) {
      data = { body: data, status, headers };
      status = 200;
      headers = {};
    }
    return { status, headers, body: encodeJsonBytes(data, pretty ? 4 : undefined) };
  } catch (err) {
    table.settings.logger.error("REST response could not be encoded", err);
    return { status: 500, headers: {}, body: Buffer.from(encodeJson(internalServerError().toJSON())) };
  }
}

/**
 * The answer as status, headers and body: everything but the socket, so that
 * the response cache can keep it and write it again.
 */
export function compose(req: Request, outcome: Outcome, ctx: AnswerContext, privateAnswer = false): Answer {
  const { status, headers: routeHeaders, body: bytes, contentType } = serialize(ctx.table, outcome, ctx.query);
  const headers: [string, string][] = [
    ["Content-Type", contentType ?? "application/json; charset=UTF-8"],
    ["X-Robots-Tag", "noindex"],
    ["X-Content-Type-Options", "nosniff"],
  ];
  // One Link header: API discovery first, then the route's own links (pagination next/prev).
  const links = [`<${ctx.urls.root}>; rel="https://api.w.org/"`];
  for (const [name, value] of Object.entries(routeHeaders)) {
    if (name.toLowerCase() === "link") links.push(value);
    else headers.push([name, value]);
  }
  headers.push(["Link", links.join(", ")]);
  const reading = ctx.method === "GET" || ctx.method === "HEAD";
  // The tag of what a GET shows (conditional.ts), kept with the answer by the response cache and the answer store.
  if (reading && outcome.status === 200) headers.push(["ETag", entityTag(status, contentType ?? "", routeHeaders, bytes)]);

  // The CORS headers themselves depend on the request alone: `sendAnswer`
  // adds them (cors.ts), so that kept answers serve every Origin.
  // What a GET shows depends on the credentials (drafts, Allow) and its CORS headers (unless none or `*`) on the Origin.
  const byOrigin = corsVariesByOrigin(ctx.table.settings.cors);
  if (reading) headers.push(["Vary", byOrigin ? "Authorization, Origin" : "Authorization"]);
  else if (byOrigin && req.get("origin") !== undefined) headers.push(["Vary", "Origin"]);

  // Authenticated answers must not be cached; nor 4xx answers to a header
  // method override, which an intermediary could otherwise cache for the
  // plain URL (WordPress `serve_request()`).
  const noCache = privateAnswer || outcome.user !== null || (ctx.headerOverride && status >= 400 && status < 500);
  if (noCache) {
    for (const [name, value] of Object.entries(NO_CACHE_HEADERS)) headers.push([name, value]);
  } else if (reading) {
    // Anonymous reads: `no-cache`, i.e. any cache may store the answer but
    // must revalidate it before every use. Any write may change any answer
    // at any moment and nothing can tell a cache so, so no freshness
    // lifetime (max-age) would be honest; revalidation is cheap (a kept or
    // stored answer's ETag is compared, and a 304 carries no body). It is
    // safe even for a cache that ignores Vary: a 304 is only given when the
    // bytes this request would get are the stored ones. A post password in
    // the request unlocks content that must not sit in shared caches.
    const params: Readonly<ParamMap> = outcome.request?.params ?? ctx.query;
    headers.push(["Cache-Control", own(params, "password") !== undefined ? "no-cache, private" : "no-cache"]);
  }
  // 204 and 304 have no body by definition.
  return { status, headers, body: status === 204 || status === 304 ? null : bytes, noCache };
}
