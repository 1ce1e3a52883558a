/**
 * The request pipeline, one fixed order for every request
 * (rest-conventions §3): authenticate → match route and method → merged
 * params and defaults → required → validate callbacks → types and sanitize →
 * permission → handler. The HTTP concerns around it (body reading, method
 * override: `http.ts`; global parameters, headers: `compose.ts`) are not here.
 */
import type { Request as ExpressRequest } from "express";
import type { CurrentUser } from "../users/types";
import { describeRoute } from "./describe";
import { withEmbeds } from "./embed";
import { RestError, answerForException, isRestError } from "./errors";
import { isEngineError } from "../engine-errors";
import type { BodySources, ParamMap } from "./params";
import { ServerRequest } from "./request";
import { isRestResponse, type RawBody } from "./response";
import type { CompiledEndpoint, RouteEntry, RouteMatch } from "./route-entry";
import type { RouteTable } from "./table";
import type { RestUrls } from "./urls";
import { prepareView, validateRequest } from "./validate-params";
import { actingAs } from "../hooks/actor";
import { audited, tagAuditOn } from "../cache/tag-audit";

const READ_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export interface DispatchInput {
  readonly http: ExpressRequest;
  /** Effective method, upper case. */
  readonly method: string;
  /** Normalised route path (`normalizeRoutePath`). */
  readonly path: string;
  readonly query: ParamMap;
  readonly body: BodySources;
  readonly urls: RestUrls;
  /** The authenticator's answer when the caller already asked it (the response cache does); else dispatch asks. */
  readonly auth?: Authenticated;
  /** The request's own headers (lower-case names) when they are not the HTTP request's: batch sub-requests. */
  readonly headers?: Readonly<Record<string, string>>;
  /** `table.match(path, method)` when the caller already has it: a request is matched once. */
  readonly match?: RouteMatch;
}

export type Authenticated = CurrentUser | null | RestError;

/** The result of dispatching, before the global parameters and headers of `compose.ts`. */
export interface Outcome {
  status: number;
  data: unknown;
  /** Headers set by the route: Allow, pagination, error headers. */
  headers: Record<string, string>;
  user: CurrentUser | null;
  /** The request, once a route matched (for `_fields`/`_pretty` from any parameter source). */
  request?: ServerRequest;
  /** Set when `data` is text to send as it is (`rawResponse`), not JSON. */
  raw?: RawBody;
}

function errorOutcome(error: RestError, user: CurrentUser | null, request?: ServerRequest): Outcome {
  return { status: error.httpStatus, data: error.toJSON(), headers: { ...error.headers }, user, request };
}

function noRoute(): RestError {
  return new RestError("rest_no_route", "No route was found matching the URL and request method.", 404);
}

/** `rest_forbidden`: 401 for an anonymous request, 403 for a logged-in user (`rest_authorization_required_code()`). */
export function forbidden(user: CurrentUser | null): RestError {
  return new RestError("rest_forbidden", "Sorry, you are not allowed to do that.", user ? 403 : 401);
}

export async function checkPermission(endpoint: CompiledEndpoint, req: ServerRequest): Promise<true | RestError> {
  const permission = endpoint.spec.permission;
  if (permission === "public") return true;
  const result = await permission(req);
  if (result === true) return true;
  return isRestError(result) ? result : forbidden(req.user);
}

/** The permission checks (by endpoint) already reported for throwing while building `Allow`: each is reported once. */
const reportedChecks = new WeakSet<CompiledEndpoint>();

/**
 * Whether `endpoint`'s permission passes for `Allow`, its check run on a view
 * of the answered request prepared for it (`prepareView`): never on
 * parameters validated for another endpoint. A thrown RestError or
 * EngineError is a refusal; anything else thrown is a bug in the check,
 * reported once per endpoint through the logger, and the method is left out.
 */
async function permitsForAllow(table: RouteTable, route: RouteEntry, endpoint: CompiledEndpoint, answered: ServerRequest): Promise<boolean> {
  const permission = endpoint.spec.permission;
  if (permission === "public") return true;
  try {
    const view = answered.view();
    await prepareView(view, answered, endpoint);
    return (await permission(view)) === true;
  } catch (err) {
    if (isRestError(err) || isEngineError(err)) return false;
    if (!reportedChecks.has(endpoint)) {
      reportedChecks.add(endpoint);
      table.settings.logger.error(
        `REST permission check of ${endpoint.methods.join(", ")} ${route.pattern.source} threw while building Allow (${answered.method} ${answered.path}); its methods are left out of Allow. Reported once.`,
        err,
      );
    }
    return false;
  }
}

/** The requested endpoint's permission, once its own pipeline ran it (a check that threw counts as refused). */
export type PermissionCache = Map<CompiledEndpoint, boolean>;

/**
 * The `Allow` header: the route's methods whose permission passes for this
 * user, in declaration order (WordPress `rest_send_allow_header()`). The
 * requested endpoint's own answer is reused from `cache`; each other
 * endpoint's check runs on a view of the request validated for it
 * (`permitsForAllow`), where WordPress hands every check the same request.
 */
export async function allowedMethods(table: RouteTable, route: RouteEntry, req: ServerRequest, cache: PermissionCache): Promise<string[]> {
  const allowed = new Map<string, boolean>();
  for (const endpoint of route.endpoints) {
    let ok = cache.get(endpoint);
    if (ok === undefined) {
      ok = await permitsForAllow(table, route, endpoint, req);
      cache.set(endpoint, ok);
    }
    for (const method of endpoint.methods) allowed.set(method, ok);
  }
  return [...allowed].filter(([, ok]) => ok).map(([method]) => method);
}

function handlerOutcome(result: unknown, req: ServerRequest): Outcome {
  if (isRestError(result)) return errorOutcome(result, req.user, req);
  if (isRestResponse(result)) return { status: result.status, data: result.data, headers: { ...result.headers }, user: req.user, request: req, raw: result.raw };
  return { status: 200, data: result, headers: {}, user: req.user, request: req };
}

async function runEndpoint(req: ServerRequest, endpoint: CompiledEndpoint, cache: PermissionCache): Promise<Outcome> {
  await req.applyDefaults(endpoint.args);
  const invalid = await validateRequest(req, endpoint);
  if (invalid) return errorOutcome(invalid, req.user, req);
  let permission: true | RestError;
  try {
    permission = await checkPermission(endpoint, req);
  } catch (err) {
    // Answered by `failure` (a 500 when it is a bug, logged there); not run again for `Allow`.
    cache.set(endpoint, false);
    throw err;
  }
  cache.set(endpoint, permission === true);
  if (permission !== true) return errorOutcome(permission, req.user, req);
  // Writes run as their user, so the changes they record name who made them (lib/hooks/actor.ts); reads skip the context.
  const handle = async (): Promise<unknown> =>
    READ_METHODS.has(req.method) ? endpoint.spec.handler(req) : actingAs(req.user?.id ?? null, () => endpoint.spec.handler(req));
  // Stored answers, and kept answers that outlive writes (`reuseWhile`), must name every post and term they read
  // (lib/cache/tag-audit.ts): checked where the audit is on.
  const { store, cache: cached } = endpoint.spec;
  const result: unknown = await ((store === true || cached === true) && tagAuditOn()
    ? audited(`${req.method} ${req.route}`, req.dependencies, handle, () => store === true || req.reuseCheck !== undefined)
    : handle());
  return handlerOutcome(result, req);
}

function newRequest(input: DispatchInput, user: CurrentUser | null, route: RouteEntry | undefined, pathParams: ParamMap): ServerRequest {
  return new ServerRequest({
    http: input.http,
    method: input.method,
    path: input.path,
    route: route ? route.pattern.source : "",
    user,
    urls: input.urls,
    query: input.query,
    body: input.body,
    pathParams,
    headers: input.headers,
  });
}

/** Runs one request through the pipeline. Never throws: unexpected exceptions are logged and answered 500. */
export async function dispatch(table: RouteTable, input: DispatchInput): Promise<Outcome> {
  let user: CurrentUser | null = null;
  let request: ServerRequest | undefined;
  try {
    const auth = input.auth !== undefined ? input.auth : await table.settings.authenticate(input.http);
    // Bad credentials fail every request, before routing (even public reads and unknown routes).
    if (isRestError(auth)) return errorOutcome(auth, null);
    user = auth;

    const match = input.match ?? table.match(input.path, input.method);
    const cache: PermissionCache = new Map();
    if (input.method === "OPTIONS") {
      // WordPress `rest_handle_options_request()`: describe the route, run no handler and let no permission refuse.
      if (!match.route) return { status: 200, data: [], headers: {}, user };
      request = newRequest(input, user, match.route, match.pathParams);
      const outcome: Outcome = { status: 200, data: await describeRoute(match.route, request), headers: {}, user, request };
      const allow = await allowedMethods(table, match.route, request, cache);
      if (allow.length > 0) outcome.headers.Allow = allow.join(", ");
      return outcome;
    }
    if (!match.route) return errorOutcome(noRoute(), user);

    request = newRequest(input, user, match.route, match.pathParams);
    let outcome: Outcome;
    try {
      outcome = match.endpoint ? await runEndpoint(request, match.endpoint, cache) : errorOutcome(noRoute(), user, request);
      // `?_embed`: the records' embeddable links, each requested inside the server as the same user (embed.ts).
      const embedAs = user;
      await withEmbeds(outcome, input.query, input.urls.root, (path, query) =>
        dispatch(table, { http: input.http, method: "GET", path, query, body: { json: {}, form: {} }, urls: input.urls, auth: embedAs, headers: {} }),
      );
    } catch (err) {
      // Caught here rather than below so that a failed handler's answer still carries `Allow`.
      outcome = failure(table, input, err, user, request);
    }
    const allow = await allowedMethods(table, match.route, request, cache);
    if (allow.length > 0) outcome.headers.Allow = allow.join(", ");
    return outcome;
  } catch (err) {
    return failure(table, input, err, user, request);
  }
}

/**
 * A thrown RestError is an answer, and so is an EngineError the table maps
 * (`ENGINE_ERROR_ANSWERS`, errors.ts); anything else is logged and answered
 * with the generic 500.
 */
function failure(table: RouteTable, input: DispatchInput, err: unknown, user: CurrentUser | null, request?: ServerRequest): Outcome {
  return errorOutcome(answerForException(err, table.settings.logger, `REST request ${input.method} ${input.path} failed`), user, request);
}
