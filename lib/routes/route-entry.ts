/**
 * A route as the table holds it, compiled at registration. Types only: the
 * modules around the table (index routes, descriptions, pipeline, OpenAPI)
 * read entries without importing the table that builds them.
 */
import type { ParamMap } from "./params";
import type { RoutePattern } from "./patterns";
import type { TypedArgsValidator } from "./schema-validator";
import type { ArgSpec, HttpMethod, RestEndpoint } from "./types";

export interface CompiledEndpoint {
  readonly spec: RestEndpoint;
  /** Upper case, declaration order. */
  readonly methods: readonly HttpMethod[];
  /** Route-common args, the endpoint's own, then the namespace's global args, in that order. */
  readonly args: readonly (readonly [string, ArgSpec])[];
  readonly validator: TypedArgsValidator;
}

export type RouteKind = "site-index" | "namespace-index" | "route";

export interface RouteEntry {
  /** `""` for the REST root route `/`. */
  readonly namespace: string;
  readonly pattern: RoutePattern;
  readonly kind: RouteKind;
  readonly endpoints: readonly CompiledEndpoint[];
}

/**
 * What the table found for a path and method. Found once per request
 * (`RouteTable.match`) and carried with it (`DispatchInput.match`).
 */
export interface RouteMatch {
  /** The first route whose pattern matches the path (even if no endpoint takes the method). */
  route?: RouteEntry;
  /** The endpoint that takes the method, if any. */
  endpoint?: CompiledEndpoint;
  pathParams: ParamMap;
}
