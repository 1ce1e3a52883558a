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
import type { ArgSpec, RequestSources, RestRequest } from "./types";
import type { RestUrls } from "./urls";

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

/** What a request shares with its views (`ServerRequest.view`). */
interface Shared {
  readonly memo: Map<unknown, unknown>;
  /** The cache tags named by `dependsOn`: a view's checks name what `Allow` read, for the answer. */
  readonly dependencies: Set<number>;
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
  readonly bodyText: string | undefined;
  /** The cache tags named by `dependsOn` (shared with the request's views). */
  readonly dependencies: Set<number>;
  /**
   * The rule each declared argument's value in `params` was validated by, for
   * the arguments that passed every stage (validate-params.ts): a view takes
   * such a value only for an endpoint that declares the same rule.
   */
  readonly validatedBy = new Map<string, ArgSpec>();
  /** The check given to `reuseWhile` (undefined: none). */
  reuseCheck: (() => Promise<boolean>) | undefined;
  private readonly ownHeaders: Readonly<Record<string, string>> | undefined;
  private readonly init: RequestInit;
  private readonly shared: Shared;

  constructor(init: RequestInit, shared?: Shared) {
    this.init = init;
    this.shared = shared ?? { memo: new Map(), dependencies: new Set() };
    this.dependencies = this.shared.dependencies;
    this.http = init.http;
    this.method = init.method;
    this.path = init.path;
    this.route = init.route;
    this.user = init.user;
    this.urls = init.urls;
    this.jsonError = init.body.jsonError;
    this.bodyText = init.body.text;
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

  reuseWhile(check: () => Promise<boolean>): void {
    this.reuseCheck = check;
  }

  memo<T>(key: symbol | object, make: () => T): T {
    const memo = this.shared.memo;
    if (memo.has(key)) return memo.get(key) as T;
    const value = make();
    memo.set(key, value);
    return value;
  }

  /**
   * A fresh request from the same sources (method, path, user, parameters as
   * sent, headers) sharing this one's `memo` and dependencies: what another
   * endpoint's permission check behind `Allow` is given, once prepared for
   * that endpoint (validate-params.ts `prepareView`).
   */
  view(): ServerRequest {
    return new ServerRequest(this.init, this.shared);
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

  /** Leaves a parameter out of `params` (it stays in `sources`, as sent). */
  dropParam(name: string): void {
    delete this.params[name];
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
