/**
 * The HTTP side of the server: Express router and `?rest_route=` middleware,
 * body reading and size limit, method override, the global parameters
 * (`_fields`, `_envelope`, `_pretty`) and the headers every REST response
 * carries (rest-conventions §6, §9).
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from "express";
import { composedHeader, entityTag, ifMatchPasses, noneMatchFinds, notModified, parseTagList, preconditionFailed } from "./conditional";
import { RestError, internalServerError, isRestError } from "./errors";
import { corsVariesByOrigin } from "./cors";
import { filterFields, parseFields } from "./fields";
import { encodeJson, isPlainObject } from "./json";
import { decodeBody, parseBracketString, rawQueryString, type BodySources, type ParamMap } from "./params";
import { normalizeRoutePath } from "./patterns";
import { dispatch, type Authenticated, type Outcome } from "./pipeline";
import type { ComposedResponse } from "./response-cache";
import type { BuiltAnswer } from "./answer-store";
import { answerKey, declaredOrGlobal } from "./answer-key";
import { requestQuery, sendComposed, sendStoredAnswer } from "./send";
import type { RestServer } from "./server";
import type { WriteGuardSnapshot } from "./types";
import type { CurrentUser } from "../users/types";
import type { RestUrls } from "./urls";

/** WordPress `wp_get_nocache_headers()`. */
export const NO_CACHE_HEADERS: Readonly<Record<string, string>> = {
  Expires: "Wed, 11 Jan 1984 05:00:00 GMT",
  "Cache-Control": "no-cache, must-revalidate, max-age=0, no-store, private",
};

type BodyReader = (req: Request, res: Response) => Promise<BodySources>;

function errorStatus(err: unknown): number | undefined {
  if (typeof err !== "object" || err === null) return undefined;
  const status: unknown = (err as { status?: unknown }).status;
  return typeof status === "number" ? status : undefined;
}

function bodyReadError(err: unknown, limit: number): RestError {
  const status = errorStatus(err);
  if (status === 413) return new RestError("rest_request_too_large", `The request body is larger than the limit of ${limit} bytes.`, 413);
  if (status === 415) return new RestError("rest_unsupported_encoding", "The request body uses an unsupported content encoding.", 415);
  return new RestError("rest_invalid_body", "The request body could not be read.", status !== undefined && status >= 400 && status < 500 ? status : 400);
}

/**
 * Reads the raw body (any content type, size-limited, gzip/deflate handled)
 * and splits it into JSON and form parameters. A body that a host middleware
 * already decoded is used as it is.
 */
function bodyReader(limit: number): BodyReader {
  const raw = express.raw({ type: () => true, limit });
  return (req, res) =>
    new Promise<BodySources>((resolve, reject) => {
      const contentType = req.get("content-type");
      const existing: unknown = req.body;
      if (existing !== undefined && !Buffer.isBuffer(existing)) {
        resolve(decodeBody(contentType, undefined, isPlainObject(existing) ? existing : {}));
        return;
      }
      raw(req, res, (err?: unknown) => {
        if (err) {
          reject(bodyReadError(err, limit));
          return;
        }
        const body: unknown = req.body;
        resolve(decodeBody(contentType, Buffer.isBuffer(body) ? body : undefined));
      });
    });
}

function own(map: Readonly<ParamMap>, name: string): unknown {
  return Object.prototype.hasOwnProperty.call(map, name) ? map[name] : undefined;
}

interface SendContext {
  server: RestServer;
  query: ParamMap;
  urls: RestUrls;
  realMethod: string;
  method: string;
  headerOverride: boolean;
}

function serialize(server: RestServer, outcome: Outcome, query: Readonly<ParamMap>): { status: number; headers: Record<string, string>; body: string; contentType?: string } {
  let status = outcome.status;
  let data = outcome.data;
  let headers = outcome.headers;
  // `_fields` and `_pretty` may come from any parameter source; `_envelope` only from the query (WordPress reads `$_GET`).
  const params: Readonly<ParamMap> = outcome.request?.params ?? query;
  const pretty = own(params, "_pretty") !== undefined && own(params, "_pretty") !== null;
  try {
    // A raw body (`rawResponse`) is sent as it is; `_envelope` still answers JSON, with the text as its body.
    if (outcome.raw !== undefined && own(query, "_envelope") === undefined) return { status, headers, body: String(data), contentType: outcome.raw.contentType };
    if (status < 400) {
      const fields = parseFields(own(params, "_fields"));
      if (fields) data = filterFields(data, fields);
    }
    if (own(query, "_envelope") !== undefined) {
      data = { body: data, status, headers };
      status = 200;
      headers = {};
    }
    return { status, headers, body: encodeJson(data, pretty ? 4 : undefined) };
  } catch (err) {
    server.settings.logger.error("REST response could not be encoded", err);
    return { status: 500, headers: {}, body: encodeJson(internalServerError().toJSON()) };
  }
}

/**
 * The answer as status, headers and body: everything but the socket, so that
 * the response cache can keep it and write it again.
 */
function compose(server: RestServer, req: Request, outcome: Outcome, ctx: SendContext, privateAnswer = false): ComposedResponse {
  const { status, headers: routeHeaders, body, contentType } = serialize(server, outcome, ctx.query);
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
  // Encoded once: a kept answer is then written as it is, without encoding it again per request.
  const bytes = Buffer.from(body);
  const reading = ctx.method === "GET" || ctx.method === "HEAD";
  // The tag of what a GET shows (conditional.ts), kept with the answer by the response cache and the answer store.
  if (reading && outcome.status === 200) headers.push(["ETag", entityTag(status, contentType ?? "", routeHeaders, bytes)]);

  // The CORS headers themselves depend on the request alone: `sendComposed`
  // adds them (cors.ts), so that kept answers serve every Origin.
  // What a GET shows depends on the credentials (drafts, Allow) and its CORS headers (unless none or `*`) on the Origin.
  const byOrigin = corsVariesByOrigin(server.settings.cors);
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

/**
 * The preconditions of a GET or HEAD, evaluated on the answer it would get
 * (RFC 9110 §13.2.2: only a 200 with its tag is affected): a failed
 * `If-Match` is a 412; an `If-None-Match` that lists the current tag a 304.
 */
function readPreconditions(req: Request, response: ComposedResponse, ctx: SendContext): ComposedResponse {
  if (response.status !== 200 || (ctx.method !== "GET" && ctx.method !== "HEAD")) return response;
  const etag = composedHeader(response, "ETag");
  if (etag === undefined) return response;
  const ifMatch = parseTagList(req.get("if-match"));
  if (ifMatch !== undefined && !ifMatchPasses(ifMatch, etag)) {
    // The user is not known here; an answer that was private makes the refusal private too.
    return compose(ctx.server, req, { status: 412, data: preconditionFailed().toJSON(), headers: {}, user: null }, ctx, response.noCache);
  }
  const ifNoneMatch = parseTagList(req.get("if-none-match"));
  return ifNoneMatch !== undefined && noneMatchFinds(ifNoneMatch, etag) ? notModified(response) : response;
}

const UNSAFE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * The tag a GET answered with `outcome` carries (`compose()` puts the same
 * one on the answer it sends): `undefined` unless it is a 200.
 */
function readTag(server: RestServer, outcome: Outcome, query: ParamMap): string | undefined {
  if (outcome.status !== 200) return undefined;
  const { status, headers, body, contentType } = serialize(server, outcome, query);
  return entityTag(status, contentType ?? "", headers, Buffer.from(body));
}

/** A write whose preconditions are to be checked: an HTTP request or a batch sub-request. */
export interface WriteConditions {
  readonly http: Request;
  /** Effective method, upper case. */
  readonly method: string;
  readonly path: string;
  readonly query: ParamMap;
  readonly urls: RestUrls;
  readonly user: CurrentUser | null;
  /** The request's own headers when they are not the HTTP request's (batch sub-requests): the GET is read with them. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly ifMatch: string | undefined;
  readonly ifNoneMatch: string | undefined;
}

/** The verdict: a 412 to answer instead of the write, or the guard to run the write in (or neither). */
export interface WriteCheck {
  readonly failed?: RestError;
  readonly guard?: <T>(work: () => Promise<T>) => Promise<T>;
}

/**
 * The preconditions of a write (`If-Match`, and `If-None-Match` as RFC 9110
 * §13.1.2 has it for unsafe methods) on a route that can also be read: the
 * current tag is the one a GET of the same URL by the same user would carry
 * now, found by dispatching that GET through the pipeline (no kept answer).
 * Costs nothing without the headers.
 *
 * Between this check and the write's own transaction another writer may
 * commit (the handlers open their transactions themselves, so the two
 * cannot share one). With write guards (lib/db/write-guard.ts) that is
 * caught: the versions of the cache tags the GET names are read after a
 * first GET, the ETag compared is that of a second GET made after the
 * read, and the write's transaction fails with 412 when one of them moved
 * since. Any write the read missed is then either in the second GET (its
 * ETag) or a version change. Without guards (MariaDB, or a GET that names
 * no tags) the window of one GET stays.
 */
export async function checkWriteConditions(server: RestServer, write: WriteConditions): Promise<WriteCheck> {
  const ifMatch = parseTagList(write.ifMatch);
  const ifNoneMatch = parseTagList(write.ifNoneMatch);
  if ((ifMatch === undefined && ifNoneMatch === undefined) || !UNSAFE_METHODS.has(write.method)) return {};
  if (server.match(write.path, "GET").endpoint === undefined) return {};
  // The URL as it is read: a `?_method=` override is no part of it.
  const query: ParamMap = { ...write.query };
  delete query._method;
  const read = (): Promise<Outcome> =>
    dispatch(server, { http: write.http, method: "GET", path: write.path, query, body: { json: {}, form: {} }, urls: write.urls, auth: write.user, headers: write.headers });
  let current = await read();
  const guards = server.settings.writeGuards;
  let snapshot: WriteGuardSnapshot | undefined;
  // A second GET that names a tag the snapshot lacks (a link changed in
  // between) takes another round; three at most, then no guard.
  for (let round = 0; guards !== undefined && snapshot === undefined && round < 3; round++) {
    const named = current.request?.dependencies;
    if (named === undefined || named.size === 0) break;
    const taken = await guards.snapshot(named);
    current = await read();
    const again = current.request?.dependencies;
    if (again !== undefined && again.size > 0 && [...again].every((tag) => named.has(tag))) snapshot = taken;
  }
  const etag = readTag(server, current, query);
  const holds = (ifMatch === undefined || ifMatchPasses(ifMatch, etag)) && (ifNoneMatch === undefined || !noneMatchFinds(ifNoneMatch, etag));
  if (!holds) return { failed: preconditionFailed() };
  if (guards === undefined || snapshot === undefined) return {};
  const taken = snapshot;
  return { guard: (work) => guards.run(taken, preconditionFailed, work) };
}

/**
 * `checkWriteConditions` for an HTTP request. Answers the authentication
 * (asked once, for both the GET and the write) and, when a precondition
 * fails, the 412 to send instead of running the write.
 */
async function writePreconditions(
  server: RestServer,
  req: Request,
  ctx: SendContext,
  path: string,
  auth: Authenticated | undefined,
): Promise<{ auth: Authenticated | undefined; failed?: Outcome; guard?: <T>(work: () => Promise<T>) => Promise<T> }> {
  const ifMatch = req.get("if-match");
  const ifNoneMatch = req.get("if-none-match");
  // Reads (the hot path) and writes without the headers are done here; the rest is checkWriteConditions's.
  if ((ifMatch === undefined && ifNoneMatch === undefined) || !UNSAFE_METHODS.has(ctx.method)) return { auth };
  // Asked once here, for the internal GET and the write (dispatch reuses it).
  const known = auth !== undefined ? auth : await server.settings.authenticate(req);
  // Bad credentials are the write's own 401.
  if (isRestError(known)) return { auth: known };
  const checked = await checkWriteConditions(server, { http: req, method: ctx.method, path, query: ctx.query, urls: ctx.urls, user: known, ifMatch, ifNoneMatch });
  if (checked.failed) return { auth: known, failed: { status: 412, data: checked.failed.toJSON(), headers: {}, user: known } };
  return { auth: known, guard: checked.guard };
}

function write(res: Response, response: ComposedResponse, ctx: SendContext): void {
  if (res.headersSent) return;
  sendComposed(res, readPreconditions(res.req, response, ctx), ctx.realMethod === "HEAD" || ctx.method === "HEAD", ctx.server.settings.cors);
}

/**
 * Whether this request's answer may come from the response cache or the
 * answer store: a plain GET/HEAD (no override, no body). Whether it is
 * anonymous is decided afterwards, by the authenticator, and whether its
 * endpoint opted in once it is routed.
 */
function plainRead(req: Request, ctx: SendContext, query: ParamMap): boolean {
  if ((ctx.realMethod !== "GET" && ctx.realMethod !== "HEAD") || ctx.method !== ctx.realMethod || ctx.headerOverride) return false;
  if (own(query, "_method") !== undefined) return false;
  const length = req.headers["content-length"];
  return (length === undefined || length === "0") && req.headers["transfer-encoding"] === undefined;
}

/**
 * `query`: the request's, parsed. `peeked`: the key under which
 * `sendStoredAnswer` just found no stored answer (not read again).
 */
async function handleHttp(
  server: RestServer,
  req: Request,
  res: Response,
  readBody: BodyReader,
  rawPath: string,
  urls: RestUrls,
  query: ParamMap,
  peeked?: string,
): Promise<void> {
  const realMethod = req.method.toUpperCase();
  let method = realMethod;
  let headerOverride = false;
  // WordPress: `?_method=` (query only) first, else the X-HTTP-Method-Override header.
  const queryMethod = own(query, "_method");
  const headerMethod = req.get("x-http-method-override");
  if (typeof queryMethod === "string" && queryMethod !== "") {
    method = queryMethod.toUpperCase();
  } else if (headerMethod !== undefined && headerMethod.trim() !== "") {
    method = headerMethod.trim().toUpperCase();
    headerOverride = true;
  }
  const ctx: SendContext = { server, query, urls, realMethod, method, headerOverride };
  const run = async (auth?: Authenticated): Promise<BuiltAnswer> => {
    let outcome: Outcome;
    try {
      const body = await readBody(req, res);
      const path = normalizeRoutePath(rawPath);
      const checked = await writePreconditions(server, req, ctx, path, auth);
      const perform = (): Promise<Outcome> => dispatch(server, { http: req, method, path, query, body, urls, auth: checked.auth });
      outcome = checked.failed ?? (checked.guard ? await checked.guard(perform) : await perform());
    } catch (err) {
      const error = err instanceof RestError ? err : internalServerError();
      if (!(err instanceof RestError)) server.settings.logger.error("REST request failed", err);
      outcome = { status: error.httpStatus, data: error.toJSON(), headers: { ...error.headers }, user: null };
    }
    const named = outcome.request?.dependencies;
    // Only the handler's own success is kept: a refusal or an error (which
    // `_envelope` wraps in a 200) may end without any tag it named changing.
    const success = outcome.status >= 200 && outcome.status < 300;
    // An answer that named nothing it shows cannot be proved still good later: it is not stored.
    return { response: compose(server, req, outcome, ctx), success, tags: success && named !== undefined && named.size > 0 ? named : null };
  };
  const build = async (auth?: Authenticated): Promise<ComposedResponse> => (await run(auth)).response;
  const cache = server.settings.responseCache;
  const store = server.answerStore;
  if ((cache === undefined && store === undefined) || !plainRead(req, ctx, query)) {
    write(res, await build(), ctx);
    return;
  }
  let auth: Authenticated;
  try {
    auth = await server.settings.authenticate(req);
  } catch (err) {
    server.settings.logger.error("REST request failed", err);
    write(res, compose(server, req, { status: 500, data: internalServerError().toJSON(), headers: {}, user: null }, ctx), ctx);
    return;
  }
  if (auth !== null) {
    write(res, await build(auth), ctx);
    return;
  }
  const path = normalizeRoutePath(rawPath);
  // Stored answers skip the in-memory cache: they are spread over too many
  // URLs to be asked twice in its one second, and proving one costs no more
  // than the memory cache's own revision check. A request carrying a post
  // password gets the unlocked post: never kept on disk.
  if (store !== undefined && own(query, "password") === undefined) {
    const endpoint = server.match(path, method).endpoint;
    // Keyed by what the answer depends on: parameters the endpoint does not declare make no row of their own.
    const key = endpoint?.spec.store === true ? answerKey(urls.root, path, query, declaredOrGlobal(endpoint.args)) : undefined;
    if (key !== undefined) {
      write(res, await store.answer(key, () => run(null), key === peeked), ctx);
      return;
    }
  }
  const key = cache === undefined ? undefined : answerKey(urls.root, path, query);
  if (cache === undefined || key === undefined) {
    write(res, await build(null), ctx);
    return;
  }
  const answer = await cache.answer(
    // An endpoint may answer by the Accept header (the events list as iCalendar): kept answers are per Accept value.
    `${key}\u0000${req.get("accept") ?? ""}`,
    () => server.match(path, method).endpoint?.spec.cache === true,
    async () => {
      const built = await run(null);
      return { response: built.response, keep: built.success && built.response.status === 200 && !built.response.noCache };
    },
  );
  write(res, answer, ctx);
}

/**
 * The URLs of the answer (`RestServer.urlsFor`), or `undefined` when the
 * request was refused for its Host: then nothing of it is copied anywhere,
 * not even into the error's headers.
 */
function answerUrls(server: RestServer, req: Request, res: Response, via: "router" | "rest_route"): RestUrls | undefined {
  try {
    return server.urlsFor(req, via);
  } catch (err) {
    if (!(err instanceof RestError)) throw err;
    const headers: [string, string][] = [
      ["Content-Type", "application/json; charset=UTF-8"],
      ["X-Content-Type-Options", "nosniff"],
      ...Object.entries(NO_CACHE_HEADERS),
    ];
    sendComposed(res, { status: err.httpStatus, headers, body: Buffer.from(JSON.stringify(err.toJSON())), noCache: true }, req.method === "HEAD", server.settings.cors);
    return undefined;
  }
}

export function createRestRouter(server: RestServer): Router {
  const router = express.Router();
  const readBody = bodyReader(server.settings.maxBodyBytes);
  router.use((req: Request, res: Response) => {
    const urls = answerUrls(server, req, res, "router");
    if (urls === undefined) return;
    const query = requestQuery(req);
    const stored = sendStoredAnswer(server, req, res, urls.root, req.path, query);
    if (!stored.sent) return handleHttp(server, req, res, readBody, req.path, urls, query, stored.key);
  });
  return router;
}

/**
 * `/?rest_route=/ns/route` (the value may be URL-encoded; other query
 * parameters combine with it). Only the site root (`/` or `/index.php`
 * relative to where the middleware is mounted) is answered, so the host's
 * other pages keep their own query parameters.
 */
export function createRestRouteMiddleware(server: RestServer): RequestHandler {
  const readBody = bodyReader(server.settings.maxBodyBytes);
  return (req: Request, res: Response, next: NextFunction) => {
    const route = own(parseBracketString(rawQueryString(req.url)), "rest_route");
    const atRoot = req.path === "/" || req.path.toLowerCase() === "/index.php";
    if (typeof route !== "string" || !atRoot) {
      next();
      return;
    }
    const urls = answerUrls(server, req, res, "rest_route");
    if (urls === undefined) return;
    const query = requestQuery(req);
    const rawPath = route === "" ? "/" : route;
    const stored = sendStoredAnswer(server, req, res, urls.root, rawPath, query);
    if (!stored.sent) void handleHttp(server, req, res, readBody, rawPath, urls, query, stored.key);
  };
}
