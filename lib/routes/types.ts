/**
 * The vocabulary of a route table: methods, argument specs, endpoints, server
 * options. Everything a plugin author writes when registering routes is typed
 * here; the modules next to this one give it behaviour.
 */
import type { Request as ExpressRequest } from "express";
import type { CurrentUser } from "../users/types";
import type { RestError } from "./errors";
import type { JsonObject, JsonValue } from "./json";
import type { ParamMap, ParamSource } from "./params";
import type { ResponseCacheOptions } from "../cache/response-cache";
import type { AnswerStore } from "../cache/answer-store";
import type { WriteGuards } from "../cache/write-guard";
import type { CorsOptions } from "./cors";
import type { RestUrls } from "./urls";

// ---------------------------------------------------------------- methods

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD";
export const HTTP_METHODS: readonly HttpMethod[] = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"];

/** WordPress's `WP_REST_Server::READABLE` etc., as lists. */
export const READABLE: readonly HttpMethod[] = ["GET"];
export const CREATABLE: readonly HttpMethod[] = ["POST"];
/** Update endpoints answer POST, PUT and PATCH identically. */
export const EDITABLE: readonly HttpMethod[] = ["POST", "PUT", "PATCH"];
export const DELETABLE: readonly HttpMethod[] = ["DELETE"];
export const ALLMETHODS: readonly HttpMethod[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

// ---------------------------------------------------------------- the request

/** A request's parameters, source by source. */
export interface RequestSources {
  /** Decoded JSON body members (any method). */
  readonly json: Readonly<ParamMap>;
  /** Form body members; empty unless the method is POST, PUT, PATCH or DELETE. */
  readonly body: Readonly<ParamMap>;
  readonly query: Readonly<ParamMap>;
  /** Named groups of the matched route pattern. */
  readonly path: Readonly<ParamMap>;
  /** Defaults applied to this request (arguments not sent). */
  readonly defaults: Readonly<ParamMap>;
}

export interface RestRequest<P extends object = Record<string, unknown>> {
  /** The effective method, upper case, after `_method` / `X-HTTP-Method-Override` (HEAD stays HEAD). */
  readonly method: string;
  /** The requested route path, decoded, without trailing slash (`/test/v1/items/5`). */
  readonly path: string;
  /** The matched route pattern (`/test/v1/items/(?P<id>\d+)`), `""` when none matched. */
  readonly route: string;
  /**
   * All parameters, merged by precedence (JSON body > form body > query >
   * path > defaults). Declared args hold their validated, converted value;
   * undeclared ones are there too, raw.
   */
  readonly params: Readonly<P> & Readonly<Record<string, unknown>>;
  readonly sources: RequestSources;
  readonly user: CurrentUser | null;
  readonly urls: RestUrls;
  /** The underlying Express request (headers, ip…). */
  readonly http: ExpressRequest;
  /** The body of a document request (`Content-Type: text/calendar`), as text; undefined otherwise. */
  readonly bodyText?: string;
  param(name: string): unknown;
  /** The source the effective value came from; `undefined` when not sent (defaults do not count). */
  sentIn(name: string): ParamSource | undefined;
  /** True when the parameter was explicitly sent (in any source, non-null). */
  isSent(name: string): boolean;
  sentInQuery(name: string): boolean;
  /** JSON or form body. */
  sentInBody(name: string): boolean;
  header(name: string): string | undefined;
  /**
   * Names cache tags (lib/db/cache-tags.ts) the answer shows. An endpoint
   * with `store: true` must name every post and term its answer is built
   * from (including ones it looked for and did not find); the stored answer
   * is reused only while none of them changed.
   */
  dependsOn(...tags: number[]): void;
  /**
   * Lets the in-memory answer (endpoints with `cache: true`) outlive writes
   * that change nothing it shows: it is reused under a new revision token
   * while none of the tags named with `dependsOn` changed and `check()`,
   * run as of now, is true. The tags must cover everything the answer shows
   * except what `check` looks at (which posts a list holds, its total, the
   * clock). Without a call the answer lives for one revision token.
   */
  reuseWhile(check: () => Promise<boolean>): void;
  /**
   * A value kept for this request: `make` runs the first time `key` is asked
   * for, later calls get the same value. Shared by everything that runs for
   * the request: argument callbacks, the permission check, the handler, and
   * the other endpoints' checks behind `Allow` (which see views of the request,
   * see `PermissionCheck`). Use it to look the addressed object up once;
   * keep in it only what depends on the path and the user, or put the
   * parameters it depends on in the value's own keys. Use a key of your own
   * (a symbol or an object).
   */
  memo<T>(key: symbol | object, make: () => T): T;
  /**
   * Whether the answer's `_fields` filter (rest-conventions §9) keeps
   * anything at this dotted path of a successful JSON body (`venue`,
   * `events.venue.city`); always true without `_fields`. Lets a handler skip
   * loading what would be filtered out: the filtered answer stays the same.
   * Not for raw (non-JSON) answers, which are never filtered.
   */
  wantsField(path: string): boolean;
}

// ---------------------------------------------------------------- argument specs

export type ArgType = "string" | "integer" | "number" | "boolean" | "array" | "object" | "null";

/**
 * The JSON-schema subset WordPress understands for a value (draft 4 with
 * WordPress's own habits: `exclusiveMinimum` is a boolean next to `minimum`,
 * and a property can say `required: true` itself).
 */
export interface ValueSchema {
  readonly type?: ArgType | readonly ArgType[];
  readonly title?: string;
  readonly description?: string;
  readonly default?: JsonValue;
  readonly enum?: readonly JsonValue[];
  /**
   * Validated formats are WordPress's: `date-time`, `email`, `ip`, `uuid`,
   * `hex-color`. Any other format (`uri`, `text-field`…) is documentation only,
   * as in WordPress.
   */
  readonly format?: string;
  readonly items?: ValueSchema;
  readonly properties?: Readonly<Record<string, ValueSchema>>;
  readonly additionalProperties?: boolean | ValueSchema;
  /** On a property schema: `true` = the property must be present. On an object schema: the list of required names. */
  readonly required?: boolean | readonly string[];
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: boolean;
  readonly exclusiveMaximum?: boolean;
  readonly multipleOf?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly uniqueItems?: boolean;
  readonly minProperties?: number;
  readonly maxProperties?: number;
}

/** A documentation-only type: shown by the OpenAPI generator, never validated, absent from the index. */
export interface DocSchema {
  readonly type: ArgType;
  readonly items?: DocSchema;
  readonly format?: string;
  readonly enum?: readonly JsonValue[];
}

/** What a `validate` callback answers: `true` ok, `false` → "Invalid parameter.", a message, or an error. */
export type ValidateResult = boolean | string | RestError;

/** A per-request default: computed for each request (and for each index request, which shows the value). */
export type DefaultFunction = (req: RestRequest) => JsonValue | undefined | Promise<JsonValue | undefined>;

/** Where an argument travels; used by the OpenAPI generator only. */
export type ArgLocation = "path" | "query" | "body";

/**
 * One declared request argument (WordPress `register_rest_route` `args` entry).
 *
 * Processing, in the server's fixed order: `required` → `validate` → type
 * coercion and schema checks (only when `type` is set and `sanitize` is not,
 * as in WordPress, where a custom `sanitize_callback` replaces
 * `rest_parse_request_arg`) → `sanitize`. Each step sees only values that were
 * sent or defaulted; `null` counts as not sent.
 */
export interface ArgSpec extends Omit<ValueSchema, "required" | "default"> {
  /** Missing (and no default) → `rest_missing_callback_param`. */
  readonly required?: boolean;
  /** A value (shown in the index, `null` included, but `null` is never applied) or a per-request function. */
  readonly default?: JsonValue | DefaultFunction;
  /** Receives the raw value. Runs before type checks; may be async (e.g. "does this term exist"). */
  readonly validate?: (value: unknown, req: RestRequest, name: string) => ValidateResult | Promise<ValidateResult>;
  /**
   * Receives the raw value (the type rules are then not applied, as in
   * WordPress) and returns the value the handler sees, or a RestError.
   */
  readonly sanitize?: (value: unknown, req: RestRequest, name: string) => unknown;
  /** Documentation-only type, so the argument appears "untyped" in the index but typed in OpenAPI. */
  readonly docType?: ArgType | DocSchema;
  /** Documentation only (OpenAPI `in`). Default: path for placeholders, body for POST, else query. */
  readonly location?: ArgLocation;
}

export type ArgsMap = Readonly<Record<string, ArgSpec>>;

// ---------------------------------------------------------------- endpoints

export type PermissionResult = boolean | RestError;
/**
 * Whether the request's user may call the endpoint: `true`, or a refusal
 * (`false` → `rest_forbidden`, 401 anonymous / 403 logged in; or a RestError).
 *
 * It runs after the endpoint's arguments validated, and also to build the
 * `Allow` header of every answer on its route (WordPress
 * `rest_send_allow_header()`), where another endpoint was requested. There
 * it sees a view of the request prepared for its own endpoint, never
 * parameters validated for another one: each argument it declares holds the
 * value its own rule gives or is absent (even when required) — a value the
 * requested endpoint validated by the same rule object (route args,
 * namespace global args) as validated, a path parameter through its own
 * rule, other query or body arguments left out (their `validate` and
 * `sanitize` callbacks are not run for another method's request). Its
 * defaults fill what was not sent; undeclared parameters are raw, as
 * always. Declare what every endpoint of a route addresses (the path's
 * `id`) once, as route args (`RouteOptions.args`), and share lookups with
 * `RestRequest.memo`.
 *
 * For `Allow`, a check that throws a RestError or an EngineError refuses;
 * one that throws anything else has a bug: it is reported once per endpoint
 * (`RestServerOptions.logger`) and its methods are left out. When the
 * requested endpoint's own check throws, the request is answered as any
 * exception is (see `RestEndpoint`).
 */
export type PermissionCheck = (req: RestRequest) => PermissionResult | Promise<PermissionResult>;

/** How a response is documented in OpenAPI. */
export interface ResponseDoc {
  readonly description: string;
  /**
   * `"Event"` → `$ref` to `#/components/schemas/Event`; `"Event[]"` → an array
   * of it; or any OpenAPI schema object.
   */
  readonly schema?: string | JsonObject;
  /** The media type the schema describes (default `application/json`), e.g. `text/calendar` for a `rawResponse`. */
  readonly mediaType?: string;
}
/** Keyed by status (`"200"`, `"201"`, `"404"`). */
export type ResponsesDoc = Readonly<Record<string, ResponseDoc>>;

/**
 * One endpoint of a route. `permission` is mandatory: `'public'` must be
 * written, never implied.
 *
 * The handler returns the response data (sent with 200), a `RestResponse`
 * (status, headers, data), or a `RestError` (it may also throw one).
 *
 * An EngineError that escapes any callback of the endpoint (handler,
 * permission, `validate`, `sanitize`, default), over HTTP or in a batch, is
 * answered with the status and WordPress error envelope
 * `{code, message, data: {status, …}}` that `ENGINE_ERROR_ANSWERS`
 * (errors.ts) gives its code: a term's parent of another taxonomy is 400
 * `rest_term_invalid`, a duplicate term 400 `term_exists` with
 * `data.term_id`, an unknown post 404 `rest_post_invalid_id`. To answer
 * otherwise, catch it and throw a RestError (the calendar does, for its
 * original's codes). Any other exception, and an EngineError the table
 * counts as a server fault or does not know, is answered as a generic 500
 * and logged.
 *
 * `P` types `req.params` for the handler; declare it when the args make the
 * shape certain (e.g. `RestEndpoint<{ id: number }>`).
 */
export interface RestEndpoint<P extends object = Record<string, unknown>> {
  readonly methods: HttpMethod | readonly HttpMethod[];
  readonly args?: ArgsMap;
  readonly permission: "public" | PermissionCheck;
  handler(req: RestRequest<P>): unknown;
  /** OpenAPI operation summary / description. */
  readonly summary?: string;
  readonly description?: string;
  /** OpenAPI responses; default: 201 for a create (POST only), else 200. */
  readonly responses?: ResponsesDoc;
  /**
   * Anonymous GET answers may be reused from the server's response cache
   * (`RestServerOptions.responseCache`) while the data revision is unchanged.
   * Only for handlers whose answer depends on nothing but the URL, the
   * database behind the revision token and the clock (to the second).
   */
  readonly cache?: boolean;
  /**
   * Anonymous GET answers may be kept in the server's answer store
   * (`RestServerOptions.answerStore`, lib/cache/answer-store.ts) and reused
   * while the cache tags the handler named (`RestRequest.dependsOn`) keep
   * their versions. For handlers whose answer depends on nothing but the
   * path, the declared args, the global parameters (`ANSWER_PARAMS`,
   * lib/cache/answer-key.ts) and the tagged data (not the clock): other
   * parameters are no part of the key. Only the handler's own 2xx is kept.
   */
  readonly store?: boolean;
  /**
   * The endpoint may be called inside a `POST /batch/v1` request (WordPress
   * `allow_batch => array( 'v1' => true )`). Off by default, as in WordPress:
   * a sub-request to an endpoint without it answers `rest_batch_not_allowed`.
   */
  readonly allowBatch?: boolean;
}

export interface RouteOptions {
  /** Replace the endpoints already registered on this path instead of adding to them. */
  readonly override?: boolean;
  /** Args shared by every endpoint given in this call (an endpoint's own arg of the same name wins). */
  readonly args?: ArgsMap;
}

export interface NamespaceOptions {
  /** Extra args of the namespace index route, besides `namespace` and `context`. */
  readonly indexArgs?: ArgsMap;
  /** What the namespace's generated OpenAPI document (`GET /<namespace>/doc`, namespace-doc.ts) says beside its routes. */
  readonly doc?: NamespaceDocOptions;
}

/** A namespace's own words for its generated OpenAPI document. */
export interface NamespaceDocOptions {
  /** `info.title`; default `<namespace> REST API`. */
  readonly title?: string;
  /** `info.version`; default the namespace's version (`library/v1` → `1`), else `1.0.0`. */
  readonly version?: string;
  readonly description?: string;
  /** `components.schemas`, which endpoints' `responses` name (`schema: "Book"`, `"Book[]"`). */
  readonly schemas?: Readonly<Record<string, JsonObject>>;
  /** Descriptions of the operation groups (tags), by name: the first path segment (`books` for `/books/{id}`). */
  readonly tags?: Readonly<Record<string, string>>;
}

// ---------------------------------------------------------------- server wiring

/**
 * Resolves the user of a request. `null` = anonymous. A RestError (bad
 * credentials) fails the request with its status before any routing.
 */
export type Authenticate = (req: ExpressRequest) => Promise<CurrentUser | null | RestError> | CurrentUser | null | RestError;

/** The site members of the REST root index (WordPress `get_index()`). */
export interface SiteInfo {
  name: string;
  description: string;
  url: string;
  home: string;
  gmt_offset: number | string;
  timezone_string: string;
}

export interface RestLogger {
  error(message: string, error?: unknown): void;
}

export interface RestServerOptions {
  /** Default: every request is anonymous. */
  readonly authenticate?: Authenticate;
  /**
   * Whether a request is certainly anonymous, answered at once without
   * `authenticate` (typically: it carries no credentials at all). `true`
   * must mean that `authenticate` would answer `null`; `false` means "ask
   * it". With an answer store it lets a stored answer be sent before the
   * request is parsed or routed (send.ts). Default: always anonymous when
   * there is no `authenticate`, otherwise never known.
   */
  readonly isAnonymous?: (req: ExpressRequest) => boolean;
  /** Missing members default to: name/description `""`, url/home the site home URL (`RestUrls.home`), UTC. */
  readonly siteInfo?: (req: RestRequest) => Partial<SiteInfo> | Promise<Partial<SiteInfo>>;
  /**
   * The REST prefix (default `/wp-json`). The router may be mounted anywhere;
   * the prefix tells the home URL apart from the REST root and is the root
   * used for `?rest_route=` requests.
   */
  readonly restPrefix?: string;
  /**
   * The site's public URL (`https://example.org` or with a path,
   * `https://example.org/calendar`): the only source of the scheme, host,
   * port and path of every generated URL; the router is then mounted at
   * `<its path><restPrefix>`. Default: URLs follow each request (a Host that
   * is not a valid `host[:port]` gets 400).
   */
  readonly siteUrl?: string;
  /** Request bodies above this size get 413 `rest_request_too_large` (default 1 MiB). */
  readonly maxBodyBytes?: number;
  /**
   * Where unexpected exceptions go (default: console.error), and permission
   * checks that throw while building `Allow` (once per endpoint).
   */
  readonly logger?: RestLogger;
  /** Reuse anonymous GET answers of endpoints with `cache: true` (see `ResponseCache`). Default: off. */
  readonly responseCache?: ResponseCacheOptions;
  /** Keep anonymous GET answers of endpoints with `store: true` (see `AnswerStore`). Default: none. */
  readonly answerStore?: AnswerStore;
  /**
   * Closes the window between an `If-Match` check and the write it allows
   * (lib/cache/write-guard.ts). Default: none (the check and the write are two
   * steps; a write committed in between goes unnoticed).
   */
  readonly writeGuards?: WriteGuards;
  /** CORS headers (cors.ts): default WordPress's, every Origin echoed with credentials; `false`: none. */
  readonly cors?: CorsOptions | false;
}
