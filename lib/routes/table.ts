/**
 * RouteTable: the route table (data, in registration order) and the
 * server's settings. Everything else (index, OPTIONS, Allow, validation,
 * OpenAPI, the HTTP adapter, batch) reads this table; nothing about a route
 * is written twice. The table knows nothing of HTTP: the modules that serve
 * it depend on it, never the other way (server.ts puts them together).
 */
import type Ajv from "ajv";
import { namespaceIndexArgs, namespaceIndexEndpoint, siteIndexEndpoint } from "./index-routes";
import { DOC_PATH, namespaceDocEndpoint } from "./namespace-doc";
import type { ParamMap } from "./params";
import { compilePattern, joinRoute } from "./patterns";
import { ResponseCache } from "../cache/response-cache";
import { corsPolicy, type CorsPolicy } from "./cors";
import type { RecordCache } from "../cache/records";
import type { AnswerStore } from "../cache/answer-store";
import type { CompiledEndpoint, RouteEntry, RouteKind, RouteMatch } from "./route-entry";
import { compileTypedArgs, createAjv } from "./schema-validator";
import {
  HTTP_METHODS,
  type ArgSpec,
  type ArgsMap,
  type Authenticate,
  type HttpMethod,
  type NamespaceDocOptions,
  type NamespaceOptions,
  type RestEndpoint,
  type RestLogger,
  type RestServerOptions,
  type RouteOptions,
} from "./types";
import type { WriteGuards } from "../cache/write-guard";
import { DEFAULT_REST_PREFIX, normalizePrefix, siteRestUrls, type RestUrls } from "./urls";
import { parseSiteUrl } from "../format/site-url";

export interface ServerSettings {
  readonly authenticate: Authenticate;
  /** `undefined`: whether a request is anonymous is only known from `authenticate`. */
  readonly isAnonymous: RestServerOptions["isAnonymous"];
  readonly siteInfo: RestServerOptions["siteInfo"];
  readonly restPrefix: string;
  readonly maxBodyBytes: number;
  readonly logger: RestLogger;
  readonly responseCache: ResponseCache | undefined;
  readonly writeGuards: WriteGuards | undefined;
  /** Which origins get CORS headers (cors.ts). */
  readonly cors: CorsPolicy;
}

interface RegisteredEndpoint {
  spec: RestEndpoint;
  commonArgs: ArgsMap;
}

interface TableRoute extends RouteEntry {
  endpoints: CompiledEndpoint[];
  registered: RegisteredEndpoint[];
}

interface GlobalArgs {
  namespace: string | undefined;
  args: ArgsMap;
}

/** The endpoint of `route` that takes `method` (HEAD falls back to GET). */
function endpointFor(route: TableRoute, method: string): CompiledEndpoint | undefined {
  return route.endpoints.find((e) => e.methods.includes(method as HttpMethod)) ?? (method === "HEAD" ? route.endpoints.find((e) => e.methods.includes("GET")) : undefined);
}

function cleanNamespace(namespace: string): string {
  const ns = namespace.replace(/^\/+|\/+$/g, "");
  if (ns === "") throw new Error("A REST namespace must not be empty.");
  return ns;
}

function normalizeMethods(methods: HttpMethod | readonly HttpMethod[], where: string): HttpMethod[] {
  const list = typeof methods === "string" ? [methods] : [...methods];
  const out: HttpMethod[] = [];
  for (const raw of list) {
    const method = String(raw).toUpperCase() as HttpMethod;
    if (!HTTP_METHODS.includes(method)) throw new Error(`${where}: unknown method ${String(raw)}.`);
    if (!out.includes(method)) out.push(method);
  }
  if (out.length === 0) throw new Error(`${where}: an endpoint needs at least one method.`);
  return out;
}

export class RouteTable {
  readonly settings: ServerSettings;
  /** Where anonymous answers of endpoints with `store: true` are kept (set once the database is ready: `useAnswerStore`). */
  answerStore: AnswerStore | undefined;
  /** Where anonymous records are kept for reuse across answers (lib/cache/records.ts; set with the answer store). */
  records: RecordCache | undefined;
  private readonly ajv: Ajv = createAjv();
  private readonly routes: TableRoute[] = [];
  private readonly namespaces: string[] = [];
  /**
   * `GET /<namespace>/doc` of each namespace (namespace-doc.ts): tried after
   * every route of the table, so a namespace's own route at that path wins;
   * listed in no index (a namespace's routes stay the ones it registered).
   */
  private readonly docRoutes: TableRoute[] = [];
  private readonly docOptions = new Map<string, NamespaceDocOptions>();
  private readonly globalArgs: GlobalArgs[] = [];
  /** The URLs of every answer when a site URL is set (they never depend on the request). */
  private fixedUrls: RestUrls | undefined;

  constructor(options: RestServerOptions = {}) {
    this.settings = {
      authenticate: options.authenticate ?? (() => null),
      isAnonymous: options.isAnonymous ?? (options.authenticate === undefined ? () => true : undefined),
      siteInfo: options.siteInfo,
      restPrefix: normalizePrefix(options.restPrefix ?? DEFAULT_REST_PREFIX),
      maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024,
      logger: options.logger ?? { error: (message, error) => console.error(message, error) },
      responseCache: options.responseCache ? new ResponseCache(options.responseCache) : undefined,
      writeGuards: options.writeGuards,
      cors: corsPolicy(options.cors),
    };
    this.answerStore = options.answerStore;
    this.siteUrl = options.siteUrl;
    this.addRoute("", "/", "site-index", [{ spec: siteIndexEndpoint(this), commonArgs: {} }]);
  }

  /**
   * Declares a namespace. Registering a route creates its namespace anyway
   * (with its index route `GET /<namespace>` placed before the route, as
   * WordPress does); call this first to give the index extra args.
   */
  registerNamespace(namespace: string, options: NamespaceOptions = {}): void {
    const ns = cleanNamespace(namespace);
    const index = this.ensureNamespace(ns);
    if (options.doc) this.docOptions.set(ns, options.doc);
    if (options.indexArgs) {
      const registered = index.registered[0];
      if (registered) registered.commonArgs = namespaceIndexArgs(ns, options.indexArgs);
      this.recompile(index);
    }
  }

  /**
   * Registers endpoints on `<namespace><path>`. `path` uses WordPress
   * patterns (`/items/(?P<id>\d+)`). Endpoints of a path registered in
   * several calls are merged, unless `options.override`.
   */
  registerRoute(namespace: string, path: string, endpoints: RestEndpoint | readonly RestEndpoint[], options: RouteOptions = {}): void {
    const ns = cleanNamespace(namespace);
    const source = joinRoute(ns, path);
    const list: readonly RestEndpoint[] = Array.isArray(endpoints) ? endpoints : [endpoints as RestEndpoint];
    for (const spec of list) this.checkEndpoint(spec, source);
    const registered = list.map((spec) => ({ spec, commonArgs: options.args ?? {} }));
    this.ensureNamespace(ns);
    const existing = this.routes.find((route) => route.pattern.source === source);
    if (existing && existing.kind === "route") {
      existing.registered = options.override ? registered : [...existing.registered, ...registered];
      this.recompile(existing);
      return;
    }
    if (existing) throw new Error(`${source} is the index route of namespace ${ns}.`);
    this.addRoute(ns, source, "route", registered);
  }

  /**
   * Adds args to every endpoint of a namespace (or, without `namespace`, of
   * every namespace; never to the REST root or batch routes). They appear in every
   * endpoint's args in the index and are validated like its own. An endpoint's
   * own arg of the same name wins.
   */
  addGlobalArgs(args: ArgsMap, options: { namespace?: string } = {}): void {
    const namespace = options.namespace === undefined ? undefined : cleanNamespace(options.namespace);
    this.globalArgs.push({ namespace, args });
    for (const route of [...this.routes, ...this.docRoutes]) {
      if (route.kind !== "site-index" && (namespace === undefined || route.namespace === namespace)) this.recompile(route);
    }
  }

  /** The route table in registration order, the REST root route first. */
  getRoutes(): readonly RouteEntry[] {
    return this.routes;
  }

  getNamespaces(): readonly string[] {
    return this.namespaces;
  }

  hasNamespace(namespace: string): boolean {
    return this.namespaces.includes(namespace);
  }

  /** What `registerNamespace(…, { doc })` said for the namespace's generated document. */
  namespaceDoc(namespace: string): NamespaceDocOptions | undefined {
    return this.docOptions.get(namespace);
  }

  /**
   * The namespaces whose `GET /<namespace>/doc` answers an OpenAPI document:
   * the generated one, or a route the namespace registered at exactly that
   * path (its own document). A namespace with another route matching the
   * path (`/(?P<slug>[^/]+)`) has none there.
   */
  documentedNamespaces(): string[] {
    return this.namespaces.filter((ns) => {
      const path = joinRoute(ns, DOC_PATH);
      const found = this.match(path, "GET");
      // The generated route's pattern is that path too.
      return found.endpoint !== undefined && found.route?.pattern.source === path;
    });
  }

  /**
   * Finds the endpoint for a normalised route path and method (HEAD falls back
   * to GET). Routes are tried in registration order; a route whose pattern
   * matches but whose endpoints do not take the method lets later routes try.
   */
  match(path: string, method: string): RouteMatch {
    let first: RouteMatch | undefined;
    for (const route of this.routes) {
      const m = route.pattern.regex.exec(path);
      if (!m) continue;
      const pathParams: ParamMap = {};
      for (const [name, value] of Object.entries(m.groups ?? {})) if (value !== undefined) pathParams[name] = value;
      first ??= { route, pathParams };
      const endpoint = endpointFor(route, method);
      if (endpoint) return { route, endpoint, pathParams };
    }
    if (first) return first;
    // Only a path no registered route matches reaches the generated documents.
    const doc = this.docRoutes.find((route) => route.pattern.regex.test(path));
    return doc ? { route: doc, endpoint: endpointFor(doc, method), pathParams: {} } : { pathParams: {} };
  }

  /**
   * The site URL every generated URL is built from (`https://example.org/calendar`,
   * normalized by `parseSiteUrl`, which throws for anything but an absolute
   * http(s) URL), or `undefined`: URLs follow each request (`requestOrigin`).
   * Set it before serving.
   */
  get siteUrl(): string | undefined {
    return this.fixedUrls?.home;
  }

  set siteUrl(value: string | undefined) {
    this.fixedUrls = value === undefined ? undefined : siteRestUrls(parseSiteUrl(value), this.settings.restPrefix);
  }

  /** The URLs of every answer when a site URL is set; `undefined`: each request's own (`restUrls`). */
  get siteUrls(): RestUrls | undefined {
    return this.fixedUrls;
  }

  /**
   * Adds a route outside every namespace (`/batch/v1`), after those already
   * in the table: for the server that assembles the table, not for plugins.
   */
  protected addRootRoute(source: string, spec: RestEndpoint): void {
    this.checkEndpoint(spec, source);
    this.addRoute("", source, "route", [{ spec, commonArgs: {} }]);
  }

  // ------------------------------------------------------------ internals

  private checkEndpoint(spec: RestEndpoint, where: string): void {
    normalizeMethods(spec.methods, where);
    // Refused at start-up, not at the first request: "public" must be written, never implied.
    if (spec.permission !== "public" && typeof spec.permission !== "function") {
      throw new Error(`${where}: every endpoint needs a permission ('public' or a function).`);
    }
    if (typeof spec.handler !== "function") throw new Error(`${where}: endpoint without a handler.`);
  }

  private ensureNamespace(ns: string): TableRoute {
    if (!this.namespaces.includes(ns)) {
      this.namespaces.push(ns);
      this.docRoutes.push(this.compileRoute(ns, joinRoute(ns, DOC_PATH), "route", [{ spec: namespaceDocEndpoint(this, ns), commonArgs: {} }]));
      return this.addRoute(ns, joinRoute(ns, ""), "namespace-index", [{ spec: namespaceIndexEndpoint(this, ns), commonArgs: {} }]);
    }
    const index = this.routes.find((route) => route.kind === "namespace-index" && route.namespace === ns);
    if (!index) throw new Error(`Namespace ${ns} has no index route.`);
    return index;
  }

  private addRoute(namespace: string, source: string, kind: RouteKind, registered: RegisteredEndpoint[]): TableRoute {
    const route = this.compileRoute(namespace, source, kind, registered);
    this.routes.push(route);
    return route;
  }

  private compileRoute(namespace: string, source: string, kind: RouteKind, registered: RegisteredEndpoint[]): TableRoute {
    const route: TableRoute = { namespace, pattern: compilePattern(source), kind, endpoints: [], registered };
    this.recompile(route);
    return route;
  }

  private globalArgsFor(route: TableRoute): [string, ArgSpec][] {
    // Routes outside every namespace (the REST root, `/batch/v1`) take no global args.
    if (route.kind === "site-index" || route.namespace === "") return [];
    const out: [string, ArgSpec][] = [];
    for (const group of this.globalArgs) {
      if (group.namespace !== undefined && group.namespace !== route.namespace) continue;
      out.push(...Object.entries(group.args));
    }
    return out;
  }

  /** Builds each endpoint's effective args and compiles its validator (at registration, never per request). */
  private recompile(route: TableRoute): void {
    const globals = this.globalArgsFor(route);
    route.endpoints = route.registered.map(({ spec, commonArgs }) => {
      const merged = new Map<string, ArgSpec>(Object.entries(commonArgs));
      for (const [name, arg] of Object.entries(spec.args ?? {})) merged.set(name, arg);
      for (const [name, arg] of globals) if (!merged.has(name)) merged.set(name, arg);
      const args = [...merged.entries()];
      return {
        spec,
        methods: normalizeMethods(spec.methods, route.pattern.source),
        args,
        validator: compileTypedArgs(this.ajv, args),
      };
    });
  }
}
