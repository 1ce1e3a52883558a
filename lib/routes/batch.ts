/**
 * `POST /batch/v1`: up to 25 write requests in one HTTP request, served as
 * WordPress `WP_REST_Server::serve_batch_request_v1()` (5.6) serves them,
 * for every namespace. Only endpoints that opt in (`allowBatch`, WordPress
 * `allow_batch`) may be called this way.
 *
 * Two passes, as in WordPress: first every sub-request is matched and its
 * arguments validated (nothing runs); then, unless `require-all-validate`
 * found a failure, each valid one runs through the ordinary pipeline in
 * order, with the batch request's user. The answer is always 207, one slot
 * per sub-request: `{ body, status, headers }`.
 *
 * Each sub-request is its own write, committed by its own operation: a
 * batch is not one transaction (neither is WordPress's), so in `normal`
 * mode a failing slot leaves the writes of the others in place. Only
 * `require-all-validate` promises "all or nothing", and only for what can
 * be checked before anything runs: arguments, permissions and the
 * sub-requests' own `If-Match` / `If-None-Match` headers (a slot whose
 * precondition an earlier slot's write breaks still fails when it runs).
 */
import type { CurrentUser } from "../users/types";
import { RestError, answerForException } from "./errors";
import { filterFields, parseFields } from "./fields";
import { isPlainObject } from "./json";
import { parseBracketString, rawQueryString, type BodySources, type ParamMap } from "./params";
import { normalizeRoutePath } from "./patterns";
import { allowedMethods, checkPermission, dispatch, type Outcome } from "./pipeline";
import { checkWriteConditions, type WriteCheck } from "./preconditions";
import { ServerRequest } from "./request";
import { RestResponse } from "./response";
import type { CompiledEndpoint, RouteMatch } from "./route-entry";
import type { RouteTable } from "./table";
import type { ArgsMap, HttpMethod, RestEndpoint, RestRequest } from "./types";
import { validateRequest } from "./validate-params";

/** The route of the batch endpoint, outside every namespace (its index entry has namespace `""`, as in WordPress). */
export const BATCH_ROUTE = "/batch/v1";
/** WordPress `get_max_batch_size()` (the `rest_get_max_batch_size` filter's default). */
export const MAX_BATCH_SIZE = 25;

const BATCH_METHODS: readonly HttpMethod[] = ["POST", "PUT", "PATCH", "DELETE"];

/** The args as WordPress declares them, so that the index shows the same schema. */
const BATCH_ARGS: ArgsMap = {
  validation: { type: "string", enum: ["require-all-validate", "normal"], default: "normal" },
  requests: {
    required: true,
    type: "array",
    maxItems: MAX_BATCH_SIZE,
    items: {
      type: "object",
      properties: {
        method: { type: "string", enum: [...BATCH_METHODS], default: "POST" },
        path: { type: "string", required: true },
        body: { type: "object", properties: {}, additionalProperties: true },
        headers: {
          type: "object",
          properties: {},
          additionalProperties: { type: ["string", "array"], items: { type: "string" } },
        },
      },
    },
  },
};

/** One entry of `requests`, ready to dispatch. */
interface SubRequest {
  readonly method: string;
  readonly path: string;
  readonly query: ParamMap;
  readonly body: BodySources;
  readonly headers: Readonly<Record<string, string>>;
}

/** What the first pass learned about a sub-request. */
interface Checked {
  readonly sub: SubRequest;
  /** The refusal, when the sub-request must not run. */
  readonly error?: RestError;
  /** What the table found for it: the route (for the `Allow` header of a refusal) and endpoint, handed on to the pipeline. */
  readonly match: RouteMatch;
  /** The validated request (for the `Allow` header's permission checks). */
  readonly request?: ServerRequest;
}

/** One slot of the answer: WordPress `envelope_response()`'s data. */
export interface BatchSlot {
  body: unknown;
  status: number;
  headers: Record<string, string>;
}

function noRoute(): RestError {
  return new RestError("rest_no_route", "No route was found matching the URL and request method.", 404);
}

function notAllowed(): RestError {
  return new RestError("rest_batch_not_allowed", "The requested route does not support batch requests.", 400);
}

/**
 * A header map as WordPress `set_headers()` keeps it: names canonical
 * (lower case, `-`), a list of values read back joined with `,`.
 */
function subHeaders(raw: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isPlainObject(raw)) return out;
  for (const [name, value] of Object.entries(raw)) {
    const key = name.toLowerCase().replace(/_/g, "-");
    if (typeof value === "string") out[key] = value;
    else if (Array.isArray(value)) out[key] = value.map(String).join(",");
  }
  return out;
}

/** An entry of the (already schema-checked) `requests` list → the request it describes. */
function subRequest(entry: unknown): SubRequest {
  const item = isPlainObject(entry) ? entry : {};
  const method = typeof item.method === "string" ? item.method.toUpperCase() : "POST";
  const raw = typeof item.path === "string" ? item.path : "";
  // `path` is a route with an optional query (`/ns/items/5?context=edit`), as WordPress reads it with wp_parse_url().
  const route = raw.split(/[?#]/, 1)[0] ?? "";
  const body = isPlainObject(item.body) ? item.body : {};
  return {
    method,
    path: normalizeRoutePath(route),
    query: parseBracketString(rawQueryString(raw)),
    // WordPress sets the entry's body as the request's body parameters (`set_body_params()`), already decoded.
    body: { json: {}, form: body },
    headers: subHeaders(item.headers),
  };
}

function errorSlot(error: RestError, headers: Record<string, string> = {}): BatchSlot {
  return { body: error.toJSON(), status: error.httpStatus, headers: { ...error.headers, ...headers } };
}

/** A sub-response as its slot: `_fields` of the sub-request applied to a success, as on a request of its own. */
function outcomeSlot(outcome: Outcome): BatchSlot {
  let body = outcome.data;
  if (outcome.status < 400) {
    const params = outcome.request?.params;
    const fields = params && Object.prototype.hasOwnProperty.call(params, "_fields") ? parseFields(params._fields) : undefined;
    if (fields) body = filterFields(body, fields);
  }
  return { body, status: outcome.status, headers: { ...outcome.headers } };
}

/**
 * The first pass for one sub-request: route, opt-in, arguments (WordPress
 * `has_valid_params()` and `sanitize_params()`), and with `permission` the
 * permission check too. Runs no handler and writes nothing.
 */
async function check(table: RouteTable, batch: RestRequest, sub: SubRequest, permission: boolean): Promise<Checked> {
  const match = table.match(sub.path, sub.method);
  const endpoint: CompiledEndpoint | undefined = match.endpoint;
  if (!match.route || !endpoint) return { sub, match, error: noRoute() };
  if (endpoint.spec.allowBatch !== true) return { sub, error: notAllowed(), match };
  const request = new ServerRequest({
    http: batch.http,
    method: sub.method,
    path: sub.path,
    route: match.route.pattern.source,
    user: batch.user,
    urls: batch.urls,
    query: sub.query,
    body: sub.body,
    pathParams: match.pathParams,
    headers: sub.headers,
  });
  try {
    await request.applyDefaults(endpoint.args);
    const invalid = await validateRequest(request, endpoint);
    if (invalid) return { sub, error: invalid, match, request };
    if (permission) {
      const allowed = await checkPermission(endpoint, request);
      if (allowed !== true) return { sub, error: allowed, match, request };
      // A stale If-Match is known before anything runs too (it is checked again when the slot runs).
      const conditions = await subConditions(table, batch, sub, batch.user);
      if (conditions.failed) return { sub, error: conditions.failed, match, request };
    }
  } catch (err) {
    return { sub, error: answerForException(err, table.settings.logger, `REST batch request ${sub.method} ${sub.path} failed`), match, request };
  }
  return { sub, match, request };
}

/** The slot of a sub-request the first pass refused; like WordPress, a refusal on a matched route carries `Allow`. */
async function refusedSlot(table: RouteTable, checked: Checked, error: RestError): Promise<BatchSlot> {
  const route = checked.match.route;
  if (!route || !checked.request) return errorSlot(error);
  const allow = await allowedMethods(table, route, checked.request, new Map());
  return errorSlot(error, allow.length > 0 ? { Allow: allow.join(", ") } : {});
}

/** The preconditions (`If-Match`, `If-None-Match`) a sub-request's own headers set, as on a request of its own. */
function subConditions(table: RouteTable, batch: RestRequest, sub: SubRequest, user: CurrentUser | null): Promise<WriteCheck> {
  return checkWriteConditions(table, {
    http: batch.http,
    method: sub.method,
    path: sub.path,
    query: sub.query,
    urls: batch.urls,
    user,
    headers: sub.headers,
    ifMatch: sub.headers["if-match"],
    ifNoneMatch: sub.headers["if-none-match"],
  });
}

async function run(table: RouteTable, batch: RestRequest, checked: Checked, user: CurrentUser | null): Promise<BatchSlot> {
  const sub = checked.sub;
  // A sub-request's If-Match is honoured as on a request of its own: a
  // client that sends one in a batch must not lose an update silently.
  const conditions = await subConditions(table, batch, sub, user);
  if (conditions.failed) return errorSlot(conditions.failed);
  // The ordinary pipeline once more (validation, permission, handler, `Allow`), with the
  // batch request's user: the batch authenticated once, its sub-requests carry no credentials.
  const perform = (): Promise<Outcome> =>
    dispatch(table, {
      http: batch.http,
      method: sub.method,
      path: sub.path,
      query: sub.query,
      body: sub.body,
      urls: batch.urls,
      auth: user,
      headers: sub.headers,
      match: checked.match,
    });
  return outcomeSlot(conditions.guard ? await conditions.guard(perform) : await perform());
}

/** The `POST /batch/v1` endpoint of a server. Public: each sub-request checks its own permission. */
export function batchEndpoint(table: RouteTable): RestEndpoint {
  return {
    methods: "POST",
    args: BATCH_ARGS,
    permission: "public",
    summary: "Run several requests in one",
    async handler(req) {
      const entries: unknown[] = Array.isArray(req.params.requests) ? req.params.requests : [];
      const requireAll = req.params.validation === "require-all-validate";
      const subs = entries.map(subRequest);
      // calpress decision: `require-all-validate` also runs each permission check and
      // each sub-request's If-Match before anything is written (WordPress checks only
      // the arguments then), so that a slot refused for its user or stale stops the
      // whole batch too. In `normal` mode both are checked when the sub-request runs.
      const checked: Checked[] = [];
      for (const sub of subs) checked.push(await check(table, req, sub, requireAll));

      if (requireAll && checked.some((c) => c.error !== undefined)) {
        const responses = checked.map((c) => (c.error ? errorSlot(c.error) : null));
        return new RestResponse({ failed: "validation", responses }, 207);
      }

      const responses: BatchSlot[] = [];
      // One after the other, in the order given: a later request may depend on an earlier one's write.
      for (const c of checked) {
        responses.push(c.error ? await refusedSlot(table, c, c.error) : await run(table, req, c, req.user));
      }
      return new RestResponse({ responses }, 207);
    },
  };
}
