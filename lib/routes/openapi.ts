/**
 * An OpenAPI 3.0.0 document for one namespace, generated from the route
 * table (calendar-api §7): the same registration that drives validation and
 * the index drives the documentation.
 */
import type { JsonObject, JsonValue } from "./json";
import { wpParseList } from "./coerce";
import { groupSource } from "./patterns";
import type { CompiledEndpoint, RouteEntry } from "./route-entry";
import type { ArgSpec, ArgType, DocSchema, ResponseDoc, ResponsesDoc, RestRequest, ValueSchema } from "./types";

/** What the generator reads of a route table (table.ts, which serves the generated documents: it is not imported here). */
export interface DocumentedRoutes {
  getRoutes(): readonly RouteEntry[];
}

export interface OpenApiInfo {
  title: string;
  version: string;
  description?: string;
}

export interface OpenApiOptions {
  readonly info: OpenApiInfo;
  /** `components.schemas`, referenced by the endpoints' `responses` (`schema: "Event"`). */
  readonly schemas?: Readonly<Record<string, JsonObject>>;
  /** `servers[0].url`, normally the namespace URL with a trailing slash. */
  readonly serverUrl: string;
  /** Also document each arg's bounds and pattern (`minimum`, `maxLength`, `pattern`…), and its items' enum and format. */
  readonly constraints?: boolean;
}

/** The JSON Schema keywords that bound a value, which OpenAPI 3.0 takes as WordPress writes them (boolean `exclusiveMinimum`). */
const BOUNDS = [
  "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
  "minLength", "maxLength", "pattern", "minItems", "maxItems", "uniqueItems",
] as const;
type Bound = (typeof BOUNDS)[number];

export interface OpenApiValueSchema extends Partial<Record<Bound, number | string | boolean>> {
  type: string;
  items?: OpenApiValueSchema;
  format?: string;
  enum?: JsonValue[];
  description?: string;
  /** The declared default, computed for the request when it is per-request (`documentDefaults`). */
  default?: JsonValue;
}

export interface OpenApiParameter {
  name: string;
  in: "path" | "query" | "header";
  description: string;
  schema: OpenApiValueSchema;
  required: boolean;
  style?: "form";
  explode?: boolean;
}

export interface OpenApiResponse {
  description: string;
  headers?: Record<string, { description: string; schema: OpenApiValueSchema }>;
  /** Keyed by media type: `application/json` unless the route declared another (`ResponseDoc.mediaType`). */
  content?: Record<string, { schema: JsonObject }>;
}

export interface OpenApiBodySchema {
  type: "object";
  properties: Record<string, OpenApiValueSchema>;
  required?: string[];
}

export interface OpenApiRequestBody {
  /** A JSON body (`application/json`) takes the same members: documented by the generated namespace documents. */
  content: { "application/x-www-form-urlencoded": { schema: OpenApiBodySchema }; "application/json"?: { schema: OpenApiBodySchema } };
}

export interface OpenApiOperation {
  tags?: string[];
  summary?: string;
  description?: string;
  parameters: OpenApiParameter[];
  requestBody?: OpenApiRequestBody;
  responses: Record<string, OpenApiResponse>;
}

export type OperationKey = "get" | "post" | "delete";
export type OpenApiPathItem = Partial<Record<OperationKey, OpenApiOperation>>;

export interface OpenApiTag {
  name: string;
  description?: string;
}

export interface OpenApiSecurityScheme {
  type: "http" | "apiKey";
  scheme?: "basic";
  in?: "header";
  name?: string;
  description: string;
}

export interface OpenApiDocument {
  openapi: "3.0.0";
  info: OpenApiInfo;
  /** Members a document gains only when its server adds them (namespace-doc.ts); buildOpenApi leaves them out. */
  tags?: OpenApiTag[];
  security?: Record<string, string[]>[];
  components: { schemas: Record<string, JsonObject>; securitySchemes?: Record<string, OpenApiSecurityScheme> };
  servers: { url: string }[];
  paths: Record<string, OpenApiPathItem>;
}

function concreteType(type: ArgType | readonly ArgType[] | undefined): string {
  if (type === undefined) return "string";
  if (typeof type === "string") return type === "null" ? "string" : type;
  // OpenAPI 3.0 has no type lists: the first non-null type stands for them.
  return type.find((t) => t !== "null") ?? "string";
}

function fromDocSchema(doc: ArgType | DocSchema): OpenApiValueSchema {
  if (typeof doc === "string") return withItems({ type: concreteType(doc) });
  const out: OpenApiValueSchema = { type: concreteType(doc.type) };
  if (doc.items) out.items = fromDocSchema(doc.items);
  if (doc.format !== undefined) out.format = doc.format;
  if (doc.enum !== undefined) out.enum = [...doc.enum];
  return withItems(out);
}

/** OpenAPI requires `items` on arrays; a list sent as a form or query value is strings unless said otherwise. */
function withItems(schema: OpenApiValueSchema): OpenApiValueSchema {
  if (schema.type === "array" && schema.items === undefined) schema.items = { type: "string" };
  return schema;
}

/** The documented schema of an arg: its `docType` if any, else its real type (untyped args are strings on the wire). */
export function argDocSchema(spec: ArgSpec): OpenApiValueSchema {
  if (spec.docType !== undefined) return fromDocSchema(spec.docType);
  const out: OpenApiValueSchema = { type: concreteType(spec.type) };
  if (spec.items?.type !== undefined) out.items = { type: concreteType(spec.items.type) };
  if (spec.format !== undefined) out.format = spec.format;
  if (spec.enum !== undefined) out.enum = [...spec.enum];
  return withItems(out);
}

function responseSchema(schema: string | JsonObject): JsonObject {
  if (typeof schema !== "string") return schema;
  if (schema.endsWith("[]")) return { type: "array", items: { $ref: `#/components/schemas/${schema.slice(0, -2)}` } };
  return { $ref: `#/components/schemas/${schema}` };
}

function responses(declared: ResponsesDoc | undefined, fallback: Record<string, ResponseDoc>): Record<string, OpenApiResponse> {
  const out: Record<string, OpenApiResponse> = {};
  for (const [status, doc] of Object.entries(declared ?? fallback)) {
    const response: OpenApiResponse = { description: doc.description };
    if (doc.schema !== undefined) response.content = { [doc.mediaType ?? "application/json"]: { schema: responseSchema(doc.schema) } };
    out[status] = response;
  }
  return out;
}

/** GET → get, DELETE → delete, POST → post (an update's PUT/PATCH are not documented separately). */
function operationKey(method: string): OperationKey | undefined {
  if (method === "GET") return "get";
  if (method === "POST") return "post";
  if (method === "DELETE") return "delete";
  return undefined;
}

/** A value schema with its bounds, the items' too (an arg with a `docType` is documented as that type only). */
function boundedSchema(spec: ArgSpec): OpenApiValueSchema {
  const out = argDocSchema(spec);
  if (spec.docType !== undefined) return out;
  addBounds(out, spec);
  return out;
}

function addBounds(out: OpenApiValueSchema, spec: Pick<ValueSchema, Bound | "items">): void {
  for (const bound of BOUNDS) {
    const value = spec[bound];
    if (value !== undefined) out[bound] = value;
  }
  const items = spec.items;
  if (items === undefined || out.items === undefined) return;
  if (items.format !== undefined) out.items.format = items.format;
  if (items.enum !== undefined) out.items.enum = [...items.enum];
  addBounds(out.items, items);
}

function operation(route: RouteEntry, endpoint: CompiledEndpoint, key: OperationKey, schemaOf: (spec: ArgSpec) => OpenApiValueSchema): OpenApiOperation {
  const args = new Map(endpoint.args);
  const parameters: OpenApiParameter[] = [];
  for (const name of route.pattern.placeholders) {
    const spec = args.get(name);
    const schema = spec ? schemaOf(spec) : { type: groupSource(route.pattern, name) === "\\d+" ? "integer" : "string" };
    parameters.push({ name, in: "path", description: spec?.description ?? "", schema, required: true });
  }
  const bodyProperties: Record<string, OpenApiValueSchema> = {};
  const bodyRequired: string[] = [];
  for (const [name, spec] of endpoint.args) {
    if (route.pattern.placeholders.includes(name)) continue;
    const schema = schemaOf(spec);
    const location = spec.location ?? (key === "post" ? "body" : "query");
    if (key === "post" && location === "body") {
      bodyProperties[name] = spec.description !== undefined ? { ...schema, description: spec.description } : schema;
      if (spec.required === true) bodyRequired.push(name);
      continue;
    }
    const parameter: OpenApiParameter = { name, in: "query", description: spec.description ?? "", schema, required: spec.required === true };
    if (schema.type === "array") {
      // Lists travel comma-separated: `categories=3,5`.
      parameter.style = "form";
      parameter.explode = false;
    }
    parameters.push(parameter);
  }
  const op: OpenApiOperation = { parameters, responses: {} };
  if (endpoint.spec.summary !== undefined) op.summary = endpoint.spec.summary;
  if (endpoint.spec.description !== undefined) op.description = endpoint.spec.description;
  if (Object.keys(bodyProperties).length > 0) {
    const schema: OpenApiBodySchema = { type: "object", properties: bodyProperties };
    if (bodyRequired.length > 0) schema.required = bodyRequired;
    op.requestBody = { content: { "application/x-www-form-urlencoded": { schema } } };
  }
  const isUpdate = endpoint.methods.includes("PUT") || endpoint.methods.includes("PATCH");
  const fallback: Record<string, ResponseDoc> =
    key === "post" && !isUpdate ? { "201": { description: "Created" } } : { "200": { description: "OK" } };
  op.responses = responses(endpoint.spec.responses, fallback);
  return op;
}

/** The endpoint each operation of a built document documents (for documentDefaults). */
const sourceOf = new WeakMap<OpenApiOperation, CompiledEndpoint>();

const ETAG_HEADER = { description: "Strong validator of this answer (lib/routes/conditional.ts).", schema: { type: "string" } };

/**
 * The conditional requests the REST layer answers for every route
 * (lib/routes/conditional.ts): a read's 200 carries an ETag and answers 304
 * to a matching If-None-Match; a write to a path that can be read takes
 * If-Match and answers 412 when it is stale.
 */
function documentPreconditions(item: OpenApiPathItem): void {
  const read = item.get;
  if (read === undefined) return;
  read.parameters.push({ name: "If-None-Match", in: "header", description: "ETags the client holds: a match answers 304 without a body.", schema: { type: "string" }, required: false });
  for (const [status, response] of Object.entries(read.responses)) if (status === "200") response.headers = { ETag: ETAG_HEADER };
  read.responses["304"] = { description: "Not Modified: the answer still has the ETag sent in If-None-Match.", headers: { ETag: ETAG_HEADER } };
  for (const write of [item.post, item.delete]) {
    if (write === undefined) continue;
    write.parameters.push({
      name: "If-Match",
      in: "header",
      description: "The ETag of this path's GET answer as last read (by the same user): anything else answers 412 and writes nothing. `*`: the resource exists.",
      schema: { type: "string" },
      required: false,
    });
    write.responses["412"] = { description: "Precondition Failed (rest_precondition_failed): the resource changed since the ETag sent in If-Match." };
  }
}

/**
 * Builds the document of `namespace`: every route except the namespace index,
 * with `{name}` placeholders, relative to `serverUrl`.
 */
export function buildOpenApi(server: DocumentedRoutes, namespace: string, options: OpenApiOptions): OpenApiDocument {
  const ns = namespace.replace(/^\/+|\/+$/g, "");
  const paths: Record<string, OpenApiPathItem> = {};
  for (const route of server.getRoutes()) {
    if (route.kind !== "route" || route.namespace !== ns) continue;
    const path = route.pattern.docPath.slice(ns.length + 1) || "/";
    // Two patterns with one documented path (`(?P<id>\d+)`, `(?P<id>[\d]+)`): a request reaches the first route's endpoint for a method, as `match` finds it.
    const item = paths[path] ?? (paths[path] = {});
    for (const endpoint of route.endpoints) {
      for (const method of endpoint.methods) {
        const key = operationKey(method);
        if (key === undefined || item[key] !== undefined) continue;
        const op = operation(route, endpoint, key, options.constraints === true ? boundedSchema : argDocSchema);
        sourceOf.set(op, endpoint);
        item[key] = op;
      }
    }
  }
  for (const item of Object.values(paths)) documentPreconditions(item);
  return {
    openapi: "3.0.0",
    info: { ...options.info },
    components: { schemas: { ...(options.schemas ?? {}) } },
    servers: [{ url: options.serverUrl }],
    paths,
  };
}

/** A declared default in the form OpenAPI 3.0 accepts for the documented type (no nulls without `nullable`). */
async function documentedDefault(spec: ArgSpec, schema: OpenApiValueSchema, req: RestRequest): Promise<JsonValue | undefined> {
  if (spec.default === undefined) return undefined;
  const value = typeof spec.default === "function" ? await spec.default(req) : spec.default;
  if (value === undefined || value === null) return undefined;
  // `hide_empty` declares `1` (as the original's index shows it) on a boolean.
  if (schema.type === "boolean" && (value === 1 || value === 0)) return value === 1;
  // A list arg takes one value as a list of it, as WordPress reads it (`status` defaults to `publish`).
  if (schema.type === "array" && !Array.isArray(value)) return typeof value === "string" ? wpParseList(value) : [value];
  return value;
}

/**
 * Adds to the parameters and form members of `doc` (built by buildOpenApi)
 * the default each arg declares, computed for `req` when it is per-request,
 * as the namespace index shows it.
 */
export async function documentDefaults(doc: OpenApiDocument, req: RestRequest): Promise<void> {
  for (const item of Object.values(doc.paths)) {
    for (const op of [item.get, item.post, item.delete]) {
      const endpoint = op === undefined ? undefined : sourceOf.get(op);
      if (op === undefined || endpoint === undefined) continue;
      const specs = new Map(endpoint.args);
      for (const parameter of op.parameters) {
        const spec = specs.get(parameter.name);
        const value = spec ? await documentedDefault(spec, parameter.schema, req) : undefined;
        if (value !== undefined) parameter.schema.default = value;
      }
      const body = op.requestBody?.content["application/x-www-form-urlencoded"].schema.properties ?? {};
      for (const [name, schema] of Object.entries(body)) {
        const spec = specs.get(name);
        const value = spec ? await documentedDefault(spec, schema, req) : undefined;
        if (value !== undefined) schema.default = value;
      }
    }
  }
}
