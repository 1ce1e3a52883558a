/**
 * The HTTP adapter: the Express router and `?rest_route=` middleware, body
 * reading and size limit, method override, and where an answer comes from
 * (the answer layers of lib/cache/layers.ts, or the pipeline).
 *
 * One request, top to bottom, never back up: the router (`serve`) parses
 * the query and path once → a stored answer is sent at once (send.ts,
 * `storedBeforeRouting`) → else the method is decided and the route matched
 * once (`routed`) → a kept answer (`answer`, lib/cache/layers.ts) or
 * `build`: body, write preconditions (preconditions.ts), the pipeline
 * (pipeline.ts: authentication, validation, permission, the handler and its
 * queries) → `compose` (compose.ts) → read preconditions →
 * `sendAnswer` (send.ts).
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from "express";
import { answer } from "../cache/layers";
import type { BuiltAnswer } from "../cache/answer-store";
import { withRequestRevision } from "../cache/revision";
import { compose, NO_CACHE_HEADERS, type AnswerContext } from "./compose";
import { RestError, answerForException, internalServerError } from "./errors";
import { isPlainObject } from "./json";
import { decodeBody, own, parseBracketString, rawQueryString, type BodySources, type ParamMap } from "./params";
import { normalizeRoutePath } from "./patterns";
import { dispatch, type Authenticated, type Outcome } from "./pipeline";
import { readPreconditions, writePreconditions } from "./preconditions";
import type { Answer } from "../cache/answer";
import type { RouteMatch } from "./route-entry";
import { requestQuery, sendAnswer, sendStoredAnswer } from "./send";
import type { RouteTable } from "./table";
import { restRouteUrls, restUrls, type RestUrls } from "./urls";

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

/**
 * Whether this request's answer may come from the response cache or the
 * answer store: a plain GET/HEAD (no override, no body). Whether it is
 * anonymous is decided afterwards, by the authenticator, and whether its
 * endpoint opted in once it is routed.
 */
function plainRead(req: Request, ctx: AnswerContext): boolean {
  if ((ctx.realMethod !== "GET" && ctx.realMethod !== "HEAD") || ctx.method !== ctx.realMethod || ctx.headerOverride) return false;
  if (own(ctx.query, "_method") !== undefined) return false;
  const length = req.headers["content-length"];
  return (length === undefined || length === "0") && req.headers["transfer-encoding"] === undefined;
}

/**
 * The URLs of the answer to `req`, reached through the router or
 * `?rest_route=`: the site URL's, else the request's. Their `root` is the
 * one base every URL of the answer is built from. `undefined` when the
 * request was refused (400) for a Host that cannot be used (only without a
 * site URL): then nothing of it is copied anywhere, not even into the
 * error's headers.
 */
function answerUrls(table: RouteTable, req: Request, res: Response, via: "router" | "rest_route"): RestUrls | undefined {
  try {
    const fixed = table.siteUrls;
    if (fixed !== undefined) return fixed;
    const source = { restPrefix: table.settings.restPrefix };
    return via === "router" ? restUrls(req, source) : restRouteUrls(req, source);
  } catch (err) {
    if (!(err instanceof RestError)) throw err;
    const headers: [string, string][] = [
      ["Content-Type", "application/json; charset=UTF-8"],
      ["X-Content-Type-Options", "nosniff"],
      ...Object.entries(NO_CACHE_HEADERS),
    ];
    sendAnswer(res, { status: err.httpStatus, headers, body: Buffer.from(JSON.stringify(err.toJSON())), noCache: true }, req.method === "HEAD", table.settings.cors);
    return undefined;
  }
}

/** An HTTP request once parsed: its method decided and its route matched, once, for every step after. */
interface RoutedRequest extends AnswerContext {
  readonly http: Request;
  /** Normalised route path (`normalizeRoutePath`). */
  readonly path: string;
  /** `table.match(path, method)`, handed to the pipeline. */
  readonly match: RouteMatch;
  /** The key under which `storedBeforeRouting` just found no stored answer (not read again). */
  readonly peeked: string | undefined;
}

function routed(table: RouteTable, req: Request, path: string, urls: RestUrls, query: ParamMap, peeked: string | undefined): RoutedRequest {
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
  return { table, http: req, query, urls, realMethod, method, headerOverride, path, match: table.match(path, method), peeked };
}

/**
 * The answer built by the pipeline: the body read, the write's
 * preconditions checked, the request dispatched (every failure is an
 * answer too). `auth`: the authenticator's answer when already asked.
 */
async function build(request: RoutedRequest, res: Response, readBody: BodyReader, auth?: Authenticated): Promise<BuiltAnswer> {
  const { table, http: req, method, path, query, urls, match } = request;
  let outcome: Outcome;
  try {
    const body = await readBody(req, res);
    const checked = await writePreconditions(table, req, request, path, auth);
    const perform = (): Promise<Outcome> => dispatch(table, { http: req, method, path, query, body, urls, auth: checked.auth, match });
    outcome = checked.failed ?? (checked.guard ? await checked.guard(perform) : await perform());
  } catch (err) {
    const error = answerForException(err, table.settings.logger, "REST request failed");
    outcome = { status: error.httpStatus, data: error.toJSON(), headers: { ...error.headers }, user: null };
  }
  const named = outcome.request?.dependencies;
  // Only the handler's own success is kept: a refusal or an error (which
  // `_envelope` wraps in a 200) may end without any tag it named changing.
  const success = outcome.status >= 200 && outcome.status < 300;
  // An answer that named nothing it shows cannot be proved still good later: it is not stored.
  const tags = success && named !== undefined && named.size > 0 ? named : null;
  const reuseWhile = tags !== null ? outcome.request?.reuseCheck : undefined;
  return { answer: compose(req, outcome, request), success, tags, ...(reuseWhile !== undefined ? { reuseWhile } : {}) };
}

/**
 * The answer to a request: kept ones only for anonymous plain reads (the
 * authenticator is asked first for those, once, and its answer handed on);
 * every other request is built.
 */
async function answerOf(request: RoutedRequest, res: Response, readBody: BodyReader): Promise<Answer> {
  const { table, http: req } = request;
  const keeps = table.settings.responseCache !== undefined || table.answerStore !== undefined;
  if (!keeps || !plainRead(req, request)) return (await build(request, res, readBody)).answer;
  let auth: Authenticated;
  try {
    auth = await table.settings.authenticate(req);
  } catch (err) {
    table.settings.logger.error("REST request failed", err);
    return compose(req, { status: 500, data: internalServerError().toJSON(), headers: {}, user: null }, request);
  }
  if (auth !== null) return (await build(request, res, readBody, auth)).answer;
  const endpoint = request.match.endpoint;
  return answer(
    { store: table.answerStore, memory: table.settings.responseCache },
    {
      root: request.urls.root,
      path: request.path,
      query: request.query,
      accept: req.get("accept") ?? "",
      endpoint: endpoint === undefined ? undefined : { store: endpoint.spec.store === true, cache: endpoint.spec.cache === true, args: endpoint.args },
      peeked: request.peeked,
    },
    () => build(request, res, readBody, null),
  );
}

/** Answers a request the stored-answer short cut did not. */
async function handleHttp(request: RoutedRequest, res: Response, readBody: BodyReader): Promise<void> {
  const response = await answerOf(request, res, readBody);
  if (res.headersSent) return;
  sendAnswer(res, readPreconditions(request.http, response, request), request.realMethod === "HEAD" || request.method === "HEAD", request.table.settings.cors);
}

/**
 * Serves one request for `rawPath`: the stored answer when there is one
 * still good, else the answer the layer gives.
 */
function serve(table: RouteTable, req: Request, res: Response, next: NextFunction, readBody: BodyReader, rawPath: string, via: "router" | "rest_route"): void {
  const query = requestQuery(req);
  // A request that only reads reads the revision once (lib/cache/revision.ts); a method override may make it a write.
  const method = req.method.toUpperCase();
  const reads = (method === "GET" || method === "HEAD") && own(query, "_method") === undefined && req.get("x-http-method-override") === undefined;
  if (reads) withRequestRevision(() => serveRouted(table, req, res, next, readBody, rawPath, via, query));
  else serveRouted(table, req, res, next, readBody, rawPath, via, query);
}

function serveRouted(table: RouteTable, req: Request, res: Response, next: NextFunction, readBody: BodyReader, rawPath: string, via: "router" | "rest_route", query: ParamMap): void {
  const urls = answerUrls(table, req, res, via);
  if (urls === undefined) return;
  const path = normalizeRoutePath(rawPath);
  const stored = sendStoredAnswer(table, req, res, urls.root, path, query);
  if (stored.found !== undefined) return;
  // Express 4 does not catch a handler's rejected promise (5 does): hand it to the host's error handling in both.
  handleHttp(routed(table, req, path, urls, query, stored.key), res, readBody).catch(next);
}

export function createRestRouter(table: RouteTable): Router {
  const router = express.Router();
  const readBody = bodyReader(table.settings.maxBodyBytes);
  router.use((req: Request, res: Response, next: NextFunction) => serve(table, req, res, next, readBody, req.path, "router"));
  return router;
}

/**
 * `/?rest_route=/ns/route` (the value may be URL-encoded; other query
 * parameters combine with it). Only the site root (`/` or `/index.php`
 * relative to where the middleware is mounted) is answered, so the host's
 * other pages keep their own query parameters.
 */
export function createRestRouteMiddleware(table: RouteTable): RequestHandler {
  const readBody = bodyReader(table.settings.maxBodyBytes);
  return (req: Request, res: Response, next: NextFunction) => {
    const route = own(parseBracketString(rawQueryString(req.url)), "rest_route");
    const atRoot = req.path === "/" || req.path.toLowerCase() === "/index.php";
    if (typeof route !== "string" || !atRoot) {
      next();
      return;
    }
    serve(table, req, res, next, readBody, route === "" ? "/" : route, "rest_route");
  };
}
