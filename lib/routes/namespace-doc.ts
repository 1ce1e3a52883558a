/**
 * The OpenAPI document every namespace gets at `GET /<namespace>/doc`
 * (table.ts answers that path when no route of the table matches it: a
 * namespace that registers its own `doc` route, as the calendar does, keeps
 * it). Generated on each request from the route table by buildOpenApi, so it
 * never disagrees with the routes, with what a reader and Swagger UI need
 * beside them: one tag per resource, WordPress's two ways to log in, the
 * error envelope, the JSON form of every request body, and the schemas
 * routes declare in WordPress's JSON Schema turned into OpenAPI's.
 */
import { buildOpenApi, documentDefaults, type DocumentedRoutes, type OpenApiDocument, type OpenApiOperation, type OpenApiPathItem, type OpenApiSecurityScheme, type OpenApiTag } from "./openapi";
import type { JsonObject } from "./json";
import { openApiSchema } from "./openapi-schema";
import type { NamespaceDocOptions, RestEndpoint, RestRequest } from "./types";

/** Where a namespace's document is answered, below the namespace. */
export const DOC_PATH = "/doc";

/** What the document reads of the route table (table.ts builds the doc routes with itself as this). */
export interface DocTable extends DocumentedRoutes {
  namespaceDoc(namespace: string): NamespaceDocOptions | undefined;
}

/** WordPress's error envelope, which every route answers its errors in (errors.ts). */
const ERROR_SCHEMA_NAME = "RestError";
const ERROR_SCHEMA: JsonObject = {
  type: "object",
  required: ["code", "message", "data"],
  properties: {
    code: { type: "string", description: "A machine-readable error code (`rest_invalid_param`, `rest_forbidden`…)." },
    message: { type: "string", description: "A human-readable message." },
    data: {
      type: "object",
      properties: {
        status: { type: "integer", description: "The HTTP status." },
        params: { type: "object", additionalProperties: { type: "string" }, description: "For `rest_invalid_param`: what is wrong with each parameter." },
      },
    },
  },
};

const SECURITY_SCHEMES: Record<string, OpenApiSecurityScheme> = {
  applicationPassword: {
    type: "http",
    scheme: "basic",
    description: "A user's login and one of its application passwords. Reading published content needs no login.",
  },
  nonce: {
    type: "apiKey",
    in: "header",
    name: "X-WP-Nonce",
    description: "With the host's cookie login only: the logged-in user's nonce (`site.createNonce`). A cookie without it counts as no login.",
  },
};

const METHODS = ["get", "post", "delete"] as const;

function defaultDescription(namespace: string): string {
  return (
    `The \`${namespace}\` namespace, documented from its route table.\n\n` +
    "Every route also takes WordPress's global parameters: `_fields` (keep only these members), `_envelope` (status and headers in the body) " +
    "and `_pretty`. Reads answer with a strong `ETag` and 304 to a matching `If-None-Match`; writes to a path that can be read take " +
    "`If-Match` and answer 412 when it is stale. Errors come in WordPress's envelope (`code`, `message`, `data.status`)."
  );
}

/** `library/v1` → `1`; a namespace without a version segment documents `1.0.0`. */
function namespaceVersion(namespace: string): string {
  return /\/v(\d+(?:\.\d+)*)$/i.exec(namespace)?.[1] ?? "1.0.0";
}

/** The group of a path: its first segment without an extension (`/books/{id}` → `books`, `/events.ics` → `events`); the namespace for `/` or a placeholder. */
function tagOf(path: string, namespace: string): string {
  const first = path.split("/")[1] ?? "";
  const name = first.split(".")[0] ?? "";
  return name === "" || name.startsWith("{") ? namespace : name;
}

/** WordPress reads a JSON body like a form (pipeline.ts): the same members, listed first as the usual way to send them. */
function withJsonBody(op: OpenApiOperation): void {
  const form = op.requestBody?.content["application/x-www-form-urlencoded"];
  if (!op.requestBody || !form) return;
  op.requestBody = { content: { "application/json": { schema: form.schema }, "application/x-www-form-urlencoded": form } };
}

const REF_PREFIX = "#/components/schemas/";

/**
 * A `$ref` to a schema the namespace did not register (`schema: "Book"`
 * without `doc.schemas.Book`) would break the document for every reader:
 * it becomes a schema that says so. Walks the document once.
 */
function replaceMissingRefs(value: unknown, names: ReadonlySet<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) replaceMissingRefs(item, names);
    return;
  }
  if (value === null || typeof value !== "object") return;
  const record = value as Record<string, unknown>;
  for (const [key, member] of Object.entries(record)) {
    const ref = member !== null && typeof member === "object" && !Array.isArray(member) ? (member as { $ref?: unknown }).$ref : undefined;
    if (typeof ref === "string" && ref.startsWith(REF_PREFIX) && !names.has(ref.slice(REF_PREFIX.length))) {
      record[key] = { description: `${ref.slice(REF_PREFIX.length)} (the namespace describes no schema of that name).` };
    } else {
      replaceMissingRefs(member, names);
    }
  }
}

export async function namespaceDocument(table: DocTable, namespace: string, req: RestRequest): Promise<OpenApiDocument> {
  const options = table.namespaceDoc(namespace) ?? {};
  const doc = buildOpenApi(table, namespace, {
    info: { title: options.title ?? `${namespace} REST API`, version: options.version ?? namespaceVersion(namespace), description: options.description ?? defaultDescription(namespace) },
    // A namespace's own schema of the same name wins.
    schemas: { [ERROR_SCHEMA_NAME]: ERROR_SCHEMA, ...(options.schemas ?? {}) },
    serverUrl: `${req.urls.root}${namespace}/`,
    constraints: true,
  });
  await documentDefaults(doc, req);
  const tags: OpenApiTag[] = [];
  for (const [path, item] of Object.entries(doc.paths) as [string, OpenApiPathItem][]) {
    const tag = tagOf(path, namespace);
    if (!tags.some((t) => t.name === tag)) tags.push(options.tags?.[tag] === undefined ? { name: tag } : { name: tag, description: options.tags[tag] });
    for (const method of METHODS) {
      const op = item[method];
      if (op === undefined) continue;
      withJsonBody(op);
      for (const response of Object.values(op.responses)) {
        for (const media of Object.values(response.content ?? {})) media.schema = openApiSchema(media.schema);
      }
      op.responses.default = {
        description: "An error, in WordPress's envelope.",
        content: { "application/json": { schema: { $ref: `#/components/schemas/${ERROR_SCHEMA_NAME}` } } },
      };
      item[method] = { tags: [tag], ...op };
    }
  }
  for (const [name, schema] of Object.entries(doc.components.schemas)) doc.components.schemas[name] = openApiSchema(schema);
  replaceMissingRefs(doc.paths, new Set(Object.keys(doc.components.schemas)));
  replaceMissingRefs(doc.components.schemas, new Set(Object.keys(doc.components.schemas)));
  // Members in the order OpenAPI lists them; the empty requirement keeps every operation usable without a login.
  return {
    openapi: doc.openapi,
    info: doc.info,
    tags,
    security: [{}, { applicationPassword: [] }, { nonce: [] }],
    components: { schemas: doc.components.schemas, securitySchemes: { ...SECURITY_SCHEMES } },
    servers: doc.servers,
    paths: doc.paths,
  };
}

/** `GET /<namespace>/doc` when the namespace has no route there (table.ts). */
export function namespaceDocEndpoint(table: DocTable, namespace: string): RestEndpoint {
  return {
    methods: "GET",
    permission: "public",
    cache: true,
    handler: (req: RestRequest) => namespaceDocument(table, namespace, req),
    summary: "The OpenAPI 3.0.0 document of this namespace.",
    responses: { "200": { description: "The OpenAPI document.", schema: { type: "object" } } },
  };
}
