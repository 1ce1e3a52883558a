/**
 * The generic REST layer: a WordPress-style route table, request pipeline,
 * index routes, pagination, OpenAPI generation and auth helpers. Namespace
 * agnostic: the calendar plugin and host apps register on it alike.
 */
export * from "./types";
export {
  RestError,
  isRestError,
  internalServerError,
  ENGINE_ERROR_ANSWERS,
  engineErrorAnswer,
  type EngineErrorAnswer,
  type EngineErrorAnswers,
  type ErrorData,
  type ErrorEnvelope,
  type ErrorItem,
} from "./errors";
export { RestResponse, isRestResponse, rawResponse, type RawBody } from "./response";
export { BATCH_ROUTE, MAX_BATCH_SIZE, type BatchSlot } from "./batch";
export { RestServer } from "./server";
export type { RouteTable, ServerSettings } from "./table";
export type { CompiledEndpoint, RouteEntry, RouteKind, RouteMatch } from "./route-entry";
export type { ParamSource, ParamMap } from "./params";
export { BRACKET_PARSE_OPTIONS } from "./params";
export { paginate, type PaginateOptions, type Pagination } from "./pagination";
export { buildUrl, makeRestUrls, restUrls, restRouteUrls, DEFAULT_REST_PREFIX, type QueryArgs, type QueryValue, type QueryScalar, type RestUrls } from "./urls";
export {
  buildOpenApi,
  argDocSchema,
  documentDefaults,
  type DocumentedRoutes,
  type OpenApiDocument,
  type OpenApiInfo,
  type OpenApiOperation,
  type OpenApiOptions,
  type OpenApiParameter,
  type OpenApiPathItem,
  type OpenApiResponse,
  type OpenApiValueSchema,
  type OpenApiTag,
  type OpenApiSecurityScheme,
} from "./openapi";
export { DOC_PATH, namespaceDocument } from "./namespace-doc";
export { basicCredentials, LoginLimiter, type BasicCredentials, type LoginLimiterOptions } from "./auth";
export { describeRoute, describeRoutes, type ArgDescription, type EndpointDescription, type RouteDescription } from "./describe";
export type { SiteIndex, NamespaceIndex, IndexLink } from "./index-routes";
export { NO_CACHE_HEADERS } from "./compose";
export { EXPOSED_HEADERS, ALLOWED_REQUEST_HEADERS, CORS_METHODS, corsHeaders, corsPolicy, type CorsOptions, type CorsPolicy } from "./cors";
export { isWpBoolean, isWpInteger, isNumeric, wpParseList, englishList } from "./coerce";
export type { JsonValue, JsonObject, JsonPrimitive } from "./json";
