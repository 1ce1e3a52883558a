/**
 * Route descriptions as the index routes and OPTIONS show them (WordPress
 * `WP_REST_Server::get_data_for_route()`).
 */
import type { JsonValue } from "./json";
import { hasPlaceholders } from "./patterns";
import type { RouteEntry } from "./route-entry";
import type { ArgSpec, RestRequest } from "./types";

/** The keys of an arg that the index shows (`rest_get_allowed_schema_keywords()`), plus `required`. */
const INDEX_KEYWORDS: ReadonlySet<string> = new Set([
  "title", "description", "default", "type", "format", "enum", "items", "properties",
  "additionalProperties", "patternProperties", "minProperties", "maxProperties",
  "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
  "minLength", "maxLength", "pattern", "minItems", "maxItems", "uniqueItems", "anyOf", "oneOf",
]);

export type ArgDescription = Record<string, unknown> & { required: boolean };

export interface EndpointDescription {
  methods: string[];
  /** Present only on endpoints that take batch sub-requests (WordPress shows the route's `allow_batch` option as it is). */
  allow_batch?: { v1: true };
  /** `[]` when the endpoint has no args: WordPress encodes the empty PHP array as a JSON list. */
  args: Record<string, ArgDescription> | [];
}

export interface RouteDescription {
  namespace: string;
  methods: string[];
  endpoints: EndpointDescription[];
  _links?: { self: { href: string }[] };
}

/**
 * One arg as the index shows it: schema keywords in the order the arg
 * declares them (internal keys such as `validate`, `docType`, `location`
 * dropped), a per-request `default` computed for this request, and
 * `required` last, always a boolean.
 */
export async function describeArg(spec: ArgSpec, req: RestRequest): Promise<ArgDescription> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(spec)) {
    if (!INDEX_KEYWORDS.has(key) || value === undefined) continue;
    if (key === "default" && typeof spec.default === "function") {
      const computed: JsonValue | undefined = await spec.default(req);
      if (computed !== undefined) out.default = computed;
      continue;
    }
    out[key] = value;
  }
  return { ...out, required: spec.required === true };
}

export async function describeRoute(route: RouteEntry, req: RestRequest): Promise<RouteDescription> {
  const methods: string[] = [];
  const endpoints: EndpointDescription[] = [];
  for (const endpoint of route.endpoints) {
    for (const method of endpoint.methods) if (!methods.includes(method)) methods.push(method);
    const args: Record<string, ArgDescription> = {};
    for (const [name, spec] of endpoint.args) args[name] = await describeArg(spec, req);
    const shownArgs: EndpointDescription["args"] = Object.keys(args).length > 0 ? args : [];
    // Key order as WordPress's: methods, allow_batch, args.
    endpoints.push(
      endpoint.spec.allowBatch === true
        ? { methods: [...endpoint.methods], allow_batch: { v1: true }, args: shownArgs }
        : { methods: [...endpoint.methods], args: shownArgs },
    );
  }
  const description: RouteDescription = { namespace: route.namespace, methods, endpoints };
  if (!hasPlaceholders(route.pattern)) description._links = { self: [{ href: req.urls.route(route.pattern.source) }] };
  return description;
}

/** `{ "<pattern>": description }` in registration order. */
export async function describeRoutes(routes: readonly RouteEntry[], req: RestRequest): Promise<Record<string, RouteDescription>> {
  const out: Record<string, RouteDescription> = {};
  for (const route of routes) out[route.pattern.source] = await describeRoute(route, req);
  return out;
}
