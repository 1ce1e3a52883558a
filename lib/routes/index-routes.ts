/**
 * The two index routes every server has: the REST root `GET /` (WordPress
 * `get_index()`) and one `GET /<namespace>` per namespace
 * (`get_namespace_index()`).
 */
import { describeRoutes, type RouteDescription } from "./describe";
import { RestError } from "./errors";
import { DOC_PATH } from "./namespace-doc";
import { joinRoute } from "./patterns";
import type { RouteEntry } from "./route-entry";
import type { ArgsMap, RestEndpoint, RestRequest, RestServerOptions, SiteInfo } from "./types";

/**
 * What the index routes read of the route table (table.ts, which builds
 * these routes: they take it by this shape rather than import it).
 */
export interface IndexedTable {
  readonly settings: { readonly siteInfo: RestServerOptions["siteInfo"] };
  getRoutes(): readonly RouteEntry[];
  getNamespaces(): readonly string[];
  hasNamespace(namespace: string): boolean;
  /** The namespaces with an OpenAPI document at `/<namespace>/doc`. */
  documentedNamespaces(): readonly string[];
}

/** A HAL link; `name` tells apart the links of one relation (here: the namespace a document describes). */
export interface IndexLink {
  href: string;
  name?: string;
}

export interface SiteIndex extends SiteInfo {
  namespaces: string[];
  authentication: Record<string, unknown>;
  routes: Record<string, RouteDescription>;
  _links: Record<string, IndexLink[]>;
}

export interface NamespaceIndex {
  namespace: string;
  routes: Record<string, RouteDescription>;
  _links: { up: { href: string }[] };
}

export function siteIndexEndpoint(server: IndexedTable): RestEndpoint {
  return {
    methods: "GET",
    args: { context: { default: "view" } },
    permission: "public",
    async handler(req: RestRequest): Promise<SiteIndex> {
      const info: SiteInfo = {
        name: "",
        description: "",
        url: req.urls.home,
        home: req.urls.home,
        gmt_offset: 0,
        timezone_string: "UTC",
        ...(await server.settings.siteInfo?.(req)),
      };
      return {
        name: info.name,
        description: info.description,
        url: info.url,
        home: info.home,
        gmt_offset: info.gmt_offset,
        timezone_string: info.timezone_string,
        namespaces: [...server.getNamespaces()],
        authentication: {},
        // `_fields=namespaces,_links` (the API reference page's question) skips describing every route.
        routes: req.wantsField("routes") ? await describeRoutes(server.getRoutes(), req) : {},
        _links: siteLinks(server, req),
      };
    },
  };
}

/**
 * WordPress's `help`, and calpress's addition: one `service-desc` link (RFC
 * 8631: a description of the service for machines) per namespace that has an
 * OpenAPI document, named after it.
 */
function siteLinks(server: IndexedTable, req: RestRequest): Record<string, IndexLink[]> {
  const links: Record<string, IndexLink[]> = { help: [{ href: "https://developer.wordpress.org/rest-api/" }] };
  const docs = server.documentedNamespaces().map((ns) => ({ href: req.urls.route(joinRoute(ns, DOC_PATH)), name: ns }));
  if (docs.length > 0) links["service-desc"] = docs;
  return links;
}

/** Args of a namespace index: `namespace` and `context` as WordPress declares them (untyped, with defaults). */
export function namespaceIndexArgs(namespace: string, extra: ArgsMap = {}): ArgsMap {
  return { namespace: { default: namespace }, context: { default: "view" }, ...extra };
}

export function namespaceIndexEndpoint(server: IndexedTable, namespace: string, extraArgs?: ArgsMap): RestEndpoint {
  return {
    methods: "GET",
    args: namespaceIndexArgs(namespace, extraArgs),
    permission: "public",
    async handler(req: RestRequest): Promise<NamespaceIndex> {
      // The `namespace` parameter picks the namespace, as in WordPress (`/ns?namespace=other/v1` lists the other one).
      const asked = req.param("namespace");
      if (typeof asked !== "string" || !server.hasNamespace(asked)) {
        throw new RestError("rest_invalid_namespace", "The specified namespace could not be found.", 404);
      }
      return {
        namespace: asked,
        routes: await describeRoutes(
          server.getRoutes().filter((route) => route.namespace === asked),
          req,
        ),
        _links: { up: [{ href: req.urls.root }] },
      };
    },
  };
}
