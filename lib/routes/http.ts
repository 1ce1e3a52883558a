/**
 * The HTTP side of the server: Express router and `?rest_route=` middleware,
 * body reading and size limit, method override, the global parameters
 * (`_fields`, `_envelope`, `_pretty`) and the headers every REST response
 * carries (rest-conventions §6, §9).
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from "express";
import { RestError, internalServerError } from "./errors";
import { filterFields, parseFields } from "./fields";
import { isPlainObject } from "./json";
import { decodeBody, parseBracketString, rawQueryString, type BodySources, type ParamMap } from "./params";
import { normalizeRoutePath } from "./patterns";
import { dispatch, type Authenticated, type Outcome } from "./pipeline";
import type { ComposedResponse } from "./response-cache";
import type { BuiltAnswer } from "./answer-store";
import type { RestServer } from "./server";
import { restRouteUrls, restUrls, type RestUrls } from "./urls";

/** Headers browsers may read cross-origin: WordPress's pagination trio plus calpress's count pair. */
export const EXPOSED_HEADERS = "X-WP-Total, X-WP-TotalPages, Link, X-CAL-Total, X-CAL-TotalPages";
export const ALLOWED_REQUEST_HEADERS = "Authorization, X-WP-Nonce, Content-Disposition, Content-MD5, Content-Type";
export const CORS_METHODS = "OPTIONS, GET, POST, PUT, PATCH, DELETE";
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
  query: ParamMap;
  urls: RestUrls;
  realMethod: string;
  method: string;
  headerOverride: boolean;
}

/** Origins are echoed; anything that is not a plain header token is not. */
function echoableOrigin(origin: string | undefined): string | undefined {
  return origin !== undefined && /^[\x21-\x7e]+$/.test(origin) ? origin : undefined;
}

function serialize(server: RestServer, outcome: Outcome, ctx: SendContext): { status: number; headers: Record<string, string>; body: string } {
  let status = outcome.status;
  let data = outcome.data;
  let headers = outcome.headers;
  // `_fields` and `_pretty` may come from any parameter source; `_envelope` only from the query (WordPress reads `$_GET`).
  const params: Readonly<ParamMap> = outcome.request?.params ?? ctx.query;
  const pretty = own(params, "_pretty") !== undefined && own(params, "_pretty") !== null;
  try {
    if (status < 400) {
      const fields = parseFields(own(params, "_fields"));
      if (fields) data = filterFields(data, fields);
    }
    if (own(ctx.query, "_envelope") !== undefined) {
      data = { body: data, status, headers };
      status = 200;
      headers = {};
    }
    return { status, headers, body: JSON.stringify(data, null, pretty ? 4 : undefined) ?? "null" };
  } catch (err) {
    server.settings.logger.error("REST response could not be encoded", err);
    return { status: 500, headers: {}, body: JSON.stringify(internalServerError().toJSON()) };
  }
}

/**
 * The answer as status, headers and body: everything but the socket, so that
 * the response cache can keep it and write it again.
 */
function compose(server: RestServer, req: Request, outcome: Outcome, ctx: SendContext): ComposedResponse {
  const { status, headers: routeHeaders, body } = serialize(server, outcome, ctx);
  const headers: [string, string][] = [
    ["Content-Type", "application/json; charset=UTF-8"],
    ["X-Robots-Tag", "noindex"],
    ["X-Content-Type-Options", "nosniff"],
    ["Access-Control-Expose-Headers", EXPOSED_HEADERS],
    ["Access-Control-Allow-Headers", ALLOWED_REQUEST_HEADERS],
  ];
  // One Link header: API discovery first, then the route's own links (pagination next/prev).
  const links = [`<${ctx.urls.root}>; rel="https://api.w.org/"`];
  for (const [name, value] of Object.entries(routeHeaders)) {
    if (name.toLowerCase() === "link") links.push(value);
    else headers.push([name, value]);
  }
  headers.push(["Link", links.join(", ")]);

  // CORS as WordPress `rest_send_cors_headers()`.
  const origin = echoableOrigin(req.get("origin"));
  if (origin !== undefined) {
    headers.push(["Access-Control-Allow-Origin", origin], ["Access-Control-Allow-Methods", CORS_METHODS], ["Access-Control-Allow-Credentials", "true"], ["Vary", "Origin"]);
  } else if (ctx.realMethod === "GET" && outcome.user === null) {
    headers.push(["Vary", "Origin"]);
  }

  // Authenticated answers must not be cached; nor 4xx answers to a header
  // method override, which an intermediary could otherwise cache for the
  // plain URL (WordPress `serve_request()`).
  const noCache = outcome.user !== null || (ctx.headerOverride && status >= 400 && status < 500);
  if (noCache) for (const [name, value] of Object.entries(NO_CACHE_HEADERS)) headers.push([name, value]);
  // 204 and 304 have no body by definition.
  // Encoded once: a kept answer is then written as it is, without encoding it again per request.
  return { status, headers, body: status === 204 || status === 304 ? null : Buffer.from(body), noCache };
}

function write(res: Response, response: ComposedResponse, ctx: SendContext): void {
  if (res.headersSent) return;
  res.status(response.status);
  for (const [name, value] of response.headers) {
    // A host middleware may have set Vary (compression): add to it.
    if (name === "Vary") res.append(name, value);
    else res.setHeader(name, value);
  }
  if (response.noCache) res.removeHeader("Last-Modified");
  if (response.body === null) {
    res.end();
    return;
  }
  res.setHeader("Content-Length", response.body.length);
  // HEAD runs like GET but sends no body (its Content-Length is the GET's).
  if (ctx.realMethod === "HEAD" || ctx.method === "HEAD") res.end();
  else res.end(response.body);
}

/**
 * The response cache's key when this request may be answered from it: a
 * plain GET/HEAD (no override, no body) of an endpoint that opted in.
 * Whether the request is anonymous is decided afterwards, by the authenticator.
 */
function cacheKey(server: RestServer, req: Request, urls: RestUrls, ctx: SendContext, query: ParamMap): string | undefined {
  if (server.settings.responseCache === undefined && server.answerStore === undefined) return undefined;
  if ((ctx.realMethod !== "GET" && ctx.realMethod !== "HEAD") || ctx.method !== ctx.realMethod || ctx.headerOverride) return undefined;
  if (own(query, "_method") !== undefined) return undefined;
  const length = req.headers["content-length"];
  if ((length !== undefined && length !== "0") || req.headers["transfer-encoding"] !== undefined) return undefined;
  return `${urls.root}\u0000${req.originalUrl || req.url}\u0000${req.get("origin") ?? ""}`;
}

/** Whether the endpoint a request reaches opted into the response cache (asked only when no kept answer matched). */
function cacheableEndpoint(server: RestServer, rawPath: string, method: string): boolean {
  return server.match(normalizeRoutePath(rawPath), method).endpoint?.spec.cache === true;
}

/** Whether the endpoint a request reaches keeps its anonymous answers in the answer store. */
function storedEndpoint(server: RestServer, rawPath: string, method: string): boolean {
  return server.match(normalizeRoutePath(rawPath), method).endpoint?.spec.store === true;
}

async function handleHttp(server: RestServer, req: Request, res: Response, readBody: BodyReader, rawPath: string, urls: RestUrls): Promise<void> {
  const query = parseBracketString(rawQueryString(req.originalUrl || req.url));
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
  const ctx: SendContext = { query, urls, realMethod, method, headerOverride };
  const run = async (auth?: Authenticated): Promise<BuiltAnswer> => {
    let outcome: Outcome;
    try {
      const body = await readBody(req, res);
      outcome = await dispatch(server, { http: req, method, path: normalizeRoutePath(rawPath), query, body, urls, auth });
    } catch (err) {
      const error = err instanceof RestError ? err : internalServerError();
      if (!(err instanceof RestError)) server.settings.logger.error("REST request failed", err);
      outcome = { status: error.httpStatus, data: error.toJSON(), headers: { ...error.headers }, user: null };
    }
    const named = outcome.request?.dependencies;
    // An answer that named nothing it shows cannot be proved still good later: it is not stored.
    return { response: compose(server, req, outcome, ctx), tags: named !== undefined && named.size > 0 ? named : null };
  };
  const build = async (auth?: Authenticated): Promise<ComposedResponse> => (await run(auth)).response;
  const cache = server.settings.responseCache;
  const store = server.answerStore;
  const key = cacheKey(server, req, urls, ctx, query);
  if ((cache === undefined && store === undefined) || key === undefined) {
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
  // Stored answers skip the in-memory cache: they are spread over too many
  // URLs to be asked twice in its one second, and proving one costs no more
  // than the memory cache's own revision check. A request carrying a post
  // password gets the unlocked post: never kept on disk.
  if (store !== undefined && own(query, "password") === undefined && storedEndpoint(server, rawPath, method)) {
    write(res, await store.answer(key, () => run(null)), ctx);
    return;
  }
  if (cache === undefined) {
    write(res, await build(null), ctx);
    return;
  }
  const answer = await cache.answer(
    key,
    () => cacheableEndpoint(server, rawPath, method),
    () => build(null),
    (response) => response.status === 200 && !response.noCache,
  );
  write(res, answer, ctx);
}

export function createRestRouter(server: RestServer): Router {
  const router = express.Router();
  const readBody = bodyReader(server.settings.maxBodyBytes);
  router.use((req: Request, res: Response) =>
    handleHttp(server, req, res, readBody, req.path, restUrls(req, { restPrefix: server.settings.restPrefix })),
  );
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
    void handleHttp(server, req, res, readBody, route === "" ? "/" : route, restRouteUrls(req, { restPrefix: server.settings.restPrefix }));
  };
}
