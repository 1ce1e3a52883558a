/**
 * The request as permission checks, validators, defaults and handlers see it:
 * one merged parameter set plus a record of where each value came from.
 */
import type { Request as ExpressRequest } from "express";
import type { CurrentUser } from "../users/types";
import type { RestError } from "./errors";
import { fieldWanted, parseFields, type FieldTree } from "./fields";
import { isAbsent } from "./json";
import { BODY_METHODS, PARAM_SOURCES, own, type BodySources, type ParamMap, type ParamSource } from "./params";
import type { ArgSpec } from "./types";
import type { RestUrls } from "./urls";

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
   * Whether the answer's `_fields` filter (rest-conventions §9) keeps
   * anything at this dotted path of a successful JSON body (`venue`,
   * `events.venue.city`); always true without `_fields`. Lets a handler skip
   * loading what would be filtered out: the filtered answer stays the same.
   * Not for raw (non-JSON) answers, which are never filtered.
   */
  wantsField(path: string): boolean;
}

export interface RequestInit {
  http: ExpressRequest;
  method: string;
  path: string;
  route: string;
  user: CurrentUser | null;
  urls: RestUrls;
  query: ParamMap;
  body: BodySources;
  pathParams: ParamMap;
  /**
   * The request's own headers (names lower case, `-` not `_`), when they are not the HTTP
   * request's: a batch sub-request carries only those its entry lists
   * (WordPress `set_headers()`).
   */
  headers?: Readonly<Record<string, string>>;
}

/** The server's implementation of RestRequest; the pipeline also writes validated values into it. */
export class ServerRequest implements RestRequest {
  readonly method: string;
  readonly path: string;
  readonly route: string;
  readonly user: CurrentUser | null;
  readonly urls: RestUrls;
  readonly http: ExpressRequest;
  readonly sources: RequestSources & { defaults: ParamMap };
  readonly params: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  /** A JSON body that did not parse: reported once the route is known (WordPress `has_valid_params()`). */
  readonly jsonError: RestError | undefined;
  /** The cache tags named by `dependsOn`. */
  readonly dependencies = new Set<number>();
  private readonly ownHeaders: Readonly<Record<string, string>> | undefined;

  constructor(init: RequestInit) {
    this.http = init.http;
    this.method = init.method;
    this.path = init.path;
    this.route = init.route;
    this.user = init.user;
    this.urls = init.urls;
    this.jsonError = init.body.jsonError;
    this.ownHeaders = init.headers;
    this.sources = {
      json: init.body.json,
      body: BODY_METHODS.has(init.method) ? init.body.form : {},
      query: init.query,
      path: init.pathParams,
      defaults: {},
    };
    // Lowest priority first, so higher sources overwrite. `null` is "not sent"
    // (WordPress reads with isset()), so it never hides a lower source.
    for (const source of [...PARAM_SOURCES].reverse()) {
      for (const [name, value] of Object.entries(this.sources[source])) {
        if (!isAbsent(value)) this.params[name] = value;
      }
    }
  }

  /**
   * Fills in declared defaults for arguments not sent. A `null` default is
   * shown in the index but never applied (WordPress only applies `isset()`
   * defaults).
   */
  dependsOn(...tags: number[]): void {
    for (const tag of tags) this.dependencies.add(tag);
  }

  /** The parsed `_fields` (from any source, as the response filter reads it); null: no filter. Parsed on first use. */
  private fieldTree: FieldTree | null | undefined;

  wantsField(path: string): boolean {
    if (this.fieldTree === undefined) this.fieldTree = parseFields(own(this.params, "_fields")) ?? null;
    return fieldWanted(this.fieldTree ?? undefined, path);
  }

  async applyDefaults(args: readonly (readonly [string, ArgSpec])[]): Promise<void> {
    for (const [name, spec] of args) {
      if (spec.default === undefined || !isAbsent(own(this.params, name))) continue;
      const value = typeof spec.default === "function" ? await spec.default(this) : spec.default;
      if (isAbsent(value)) continue;
      this.sources.defaults[name] = value;
      this.params[name] = value;
    }
  }

  setParam(name: string, value: unknown): void {
    this.params[name] = value;
  }

  param(name: string): unknown {
    return own(this.params, name);
  }

  sentIn(name: string): ParamSource | undefined {
    return PARAM_SOURCES.find((source) => !isAbsent(own(this.sources[source], name)));
  }

  isSent(name: string): boolean {
    return this.sentIn(name) !== undefined;
  }

  sentInQuery(name: string): boolean {
    return !isAbsent(own(this.sources.query, name));
  }

  sentInBody(name: string): boolean {
    return !isAbsent(own(this.sources.json, name)) || !isAbsent(own(this.sources.body, name));
  }

  header(name: string): string | undefined {
    if (this.ownHeaders !== undefined) {
      // WordPress canonicalises header names: case and `-`/`_` do not matter.
      const key = name.toLowerCase().replace(/_/g, "-");
      return Object.prototype.hasOwnProperty.call(this.ownHeaders, key) ? this.ownHeaders[key] : undefined;
    }
    return this.http.get(name);
  }
}
