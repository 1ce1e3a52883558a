/**
 * An OpenAPI 3.0.0 document for one namespace, generated from the route
 * table (calendar-api §7): the same registration that drives validation and
 * the index drives the documentation.
 */
import type { JsonObject, JsonValue } from "./json";
import { groupSource } from "./patterns";
import type { CompiledEndpoint, RouteEntry } from "./route-entry";
import type { RouteTable } from "./table";
import type { ArgSpec, ArgType, DocSchema, ResponseDoc, ResponsesDoc } from "./types";

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
}

export interface OpenApiValueSchema {
  type: string;
  items?: OpenApiValueSchema;
  format?: string;
  enum?: JsonValue[];
  description?: string;
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

export interface OpenApiRequestBody {
  content: {
    "application/x-www-form-urlencoded": {
      schema: { type: "object"; properties: Record<string, OpenApiValueSchema>; required?: string[] };
    };
  };
}

export interface OpenApiOperation {
  summary?: string;
  description?: string;
  parameters: OpenApiParameter[];
  requestBody?: OpenApiRequestBody;
  responses: Record<string, OpenApiResponse>;
}

export type OperationKey = "get" | "post" | "delete";
export type OpenApiPathItem = Partial<Record<OperationKey, OpenApiOperation>>;

export interface OpenApiDocument {
  openapi: "3.0.0";
  info: OpenApiInfo;
  components: { schemas: Record<string, JsonObject> };
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

function operation(route: RouteEntry, endpoint: CompiledEndpoint, key: OperationKey): OpenApiOperation {
  const args = new Map(endpoint.args);
  const parameters: OpenApiParameter[] = [];
  for (const name of route.pattern.placeholders) {
    const spec = args.get(name);
    const schema = spec ? argDocSchema(spec) : { type: groupSource(route.pattern, name) === "\\d+" ? "integer" : "string" };
    parameters.push({ name, in: "path", description: spec?.description ?? "", schema, required: true });
  }
  const bodyProperties: Record<string, OpenApiValueSchema> = {};
  const bodyRequired: string[] = [];
  for (const [name, spec] of endpoint.args) {
    if (route.pattern.placeholders.includes(name)) continue;
    const schema = argDocSchema(spec);
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
    const schema: OpenApiRequestBody["content"]["application/x-www-form-urlencoded"]["schema"] = { type: "object", properties: bodyProperties };
    if (bodyRequired.length > 0) schema.required = bodyRequired;
    op.requestBody = { content: { "application/x-www-form-urlencoded": { schema } } };
  }
  const isUpdate = endpoint.methods.includes("PUT") || endpoint.methods.includes("PATCH");
  const fallback: Record<string, ResponseDoc> =
    key === "post" && !isUpdate ? { "201": { description: "Created" } } : { "200": { description: "OK" } };
  op.responses = responses(endpoint.spec.responses, fallback);
  return op;
}

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
export function buildOpenApi(server: RouteTable, namespace: string, options: OpenApiOptions): OpenApiDocument {
  const ns = namespace.replace(/^\/+|\/+$/g, "");
  const paths: Record<string, OpenApiPathItem> = {};
  for (const route of server.getRoutes()) {
    if (route.kind !== "route" || route.namespace !== ns) continue;
    const path = route.pattern.docPath.slice(ns.length + 1);
    const item: OpenApiPathItem = {};
    for (const endpoint of route.endpoints) {
      for (const method of endpoint.methods) {
        const key = operationKey(method);
        if (key !== undefined && item[key] === undefined) item[key] = operation(route, endpoint, key);
      }
    }
    documentPreconditions(item);
    paths[path === "" ? "/" : path] = item;
  }
  return {
    openapi: "3.0.0",
    info: { ...options.info },
    components: { schemas: { ...(options.schemas ?? {}) } },
    servers: [{ url: options.serverUrl }],
    paths,
  };
}
