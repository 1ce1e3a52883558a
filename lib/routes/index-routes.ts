/**
 * The two index routes every server has: the REST root `GET /` (WordPress
 * `get_index()`) and one `GET /<namespace>` per namespace
 * (`get_namespace_index()`).
 */
import { describeRoutes, type RouteDescription } from "./describe";
import { RestError } from "./errors";
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
}

export interface SiteIndex extends SiteInfo {
  namespaces: string[];
  authentication: Record<string, unknown>;
  routes: Record<string, RouteDescription>;
  _links: Record<string, { href: string }[]>;
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
        routes: await describeRoutes(server.getRoutes(), req),
        _links: { help: [{ href: "https://developer.wordpress.org/rest-api/" }] },
      };
    },
  };
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
