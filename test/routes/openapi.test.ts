/**
 * The OpenAPI 3.0.0 generator (calendar-api §7), checked field by field and
 * validated against a JSON schema of the OpenAPI 3.0 structure written down
 * here.
 */
import Ajv from "ajv";
import { expect } from "chai";
import { buildOpenApi, RestServer, type OpenApiDocument } from "../../lib/routes";
import { NS, registerTestRoutes, type Item } from "./helpers";

/** The part of the OpenAPI 3.0 specification the generator uses (operations, parameters, bodies, responses, schemas). */
const OPENAPI_30_SCHEMA = {
  type: "object",
  required: ["openapi", "info", "paths"],
  properties: {
    openapi: { type: "string", pattern: "^3\\.0\\.\\d+$" },
    info: {
      type: "object",
      required: ["title", "version"],
      properties: { title: { type: "string" }, version: { type: "string" }, description: { type: "string" } },
      additionalProperties: false,
    },
    servers: {
      type: "array",
      items: { type: "object", required: ["url"], properties: { url: { type: "string" }, description: { type: "string" } }, additionalProperties: false },
    },
    paths: { type: "object", propertyNames: { pattern: "^/" }, additionalProperties: { $ref: "#/definitions/PathItem" } },
    components: {
      type: "object",
      properties: { schemas: { type: "object", additionalProperties: { $ref: "#/definitions/Schema" } } },
      additionalProperties: false,
    },
  },
  patternProperties: { "^x-": {} },
  additionalProperties: false,
  definitions: {
    PathItem: {
      type: "object",
      properties: {
        summary: { type: "string" },
        description: { type: "string" },
        get: { $ref: "#/definitions/Operation" },
        put: { $ref: "#/definitions/Operation" },
        post: { $ref: "#/definitions/Operation" },
        delete: { $ref: "#/definitions/Operation" },
        options: { $ref: "#/definitions/Operation" },
        head: { $ref: "#/definitions/Operation" },
        patch: { $ref: "#/definitions/Operation" },
        trace: { $ref: "#/definitions/Operation" },
        parameters: { type: "array", items: { $ref: "#/definitions/Parameter" } },
      },
      patternProperties: { "^x-": {} },
      additionalProperties: false,
    },
    Operation: {
      type: "object",
      required: ["responses"],
      properties: {
        tags: { type: "array", items: { type: "string" } },
        summary: { type: "string" },
        description: { type: "string" },
        operationId: { type: "string" },
        parameters: { type: "array", items: { $ref: "#/definitions/Parameter" } },
        requestBody: { $ref: "#/definitions/RequestBody" },
        responses: { $ref: "#/definitions/Responses" },
        deprecated: { type: "boolean" },
      },
      patternProperties: { "^x-": {} },
      additionalProperties: false,
    },
    Parameter: {
      type: "object",
      required: ["name", "in"],
      properties: {
        name: { type: "string" },
        in: { enum: ["query", "header", "path", "cookie"] },
        description: { type: "string" },
        required: { type: "boolean" },
        deprecated: { type: "boolean" },
        schema: { $ref: "#/definitions/SchemaOrRef" },
        style: { enum: ["matrix", "label", "form", "simple", "spaceDelimited", "pipeDelimited", "deepObject"] },
        explode: { type: "boolean" },
      },
      // Path parameters must be required.
      if: { properties: { in: { const: "path" } } },
      then: { required: ["required"], properties: { required: { const: true } } },
      patternProperties: { "^x-": {} },
      additionalProperties: false,
    },
    RequestBody: {
      type: "object",
      required: ["content"],
      properties: {
        description: { type: "string" },
        content: { type: "object", additionalProperties: { $ref: "#/definitions/MediaType" } },
        required: { type: "boolean" },
      },
      additionalProperties: false,
    },
    MediaType: { type: "object", properties: { schema: { $ref: "#/definitions/SchemaOrRef" } }, additionalProperties: false },
    Responses: {
      type: "object",
      minProperties: 1,
      propertyNames: { pattern: "^([1-5](\\d\\d|XX)|default)$" },
      additionalProperties: { $ref: "#/definitions/Response" },
    },
    Response: {
      type: "object",
      required: ["description"],
      properties: {
        description: { type: "string" },
        content: { type: "object", additionalProperties: { $ref: "#/definitions/MediaType" } },
        headers: { type: "object" },
      },
      additionalProperties: false,
    },
    SchemaOrRef: { oneOf: [{ $ref: "#/definitions/Reference" }, { $ref: "#/definitions/Schema" }] },
    Reference: { type: "object", required: ["$ref"], properties: { $ref: { type: "string" } }, additionalProperties: false },
    Schema: {
      type: "object",
      not: { required: ["$ref"] },
      properties: {
        // OpenAPI 3.0: one type name, never a list, never "null".
        type: { enum: ["integer", "number", "string", "boolean", "array", "object"] },
        items: { $ref: "#/definitions/SchemaOrRef" },
        properties: { type: "object", additionalProperties: { $ref: "#/definitions/SchemaOrRef" } },
        additionalProperties: { oneOf: [{ type: "boolean" }, { $ref: "#/definitions/SchemaOrRef" }] },
        required: { type: "array", items: { type: "string" }, minItems: 1 },
        enum: { type: "array", minItems: 1 },
        format: { type: "string" },
        description: { type: "string" },
        title: { type: "string" },
        nullable: { type: "boolean" },
        default: {},
        minimum: { type: "number" },
        maximum: { type: "number" },
      },
      if: { properties: { type: { const: "array" } }, required: ["type"] },
      then: { required: ["items"] },
      patternProperties: { "^x-": {} },
      additionalProperties: false,
    },
  },
};

const SCHEMAS = {
  Item: {
    type: "object",
    properties: {
      id: { type: "integer" },
      title: { type: "string" },
      tags: { type: "array", items: { type: "integer" } },
      meta: { $ref: "#/components/schemas/Meta" },
    },
  },
  Meta: { type: "object", properties: { color: { type: "string" }, size: { type: "integer" } } },
};

function collectRefs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => collectRefs(v, out));
  else if (value !== null && typeof value === "object") {
    for (const [key, v] of Object.entries(value)) {
      if (key === "$ref" && typeof v === "string") out.push(v);
      else collectRefs(v, out);
    }
  }
  return out;
}

describe("routes: OpenAPI generator", () => {
  let doc: OpenApiDocument;
  before(() => {
    const server = new RestServer();
    registerTestRoutes(server, new Map<number, Item>());
    server.registerRoute(NS, "/documented", {
      methods: ["GET", "POST"],
      args: {
        categories: { docType: { type: "array", items: { type: "integer" } }, description: "Category ids or slugs." },
        start_date: { docType: "string", description: "Start." },
        i: { type: "integer", location: "query" },
      },
      permission: "public",
      handler: () => null,
    });
    doc = buildOpenApi(server, NS, {
      info: { version: "1.0.0", title: "Test REST API", description: "Routes of the test namespace." },
      schemas: SCHEMAS,
      serverUrl: "http://h.test/wp-json/test/v1/",
    });
  });

  it("is valid against the OpenAPI 3.0 structure", () => {
    const ajv = new Ajv({ allErrors: true, strict: false });
    const validate = ajv.compile(OPENAPI_30_SCHEMA);
    const ok = validate(JSON.parse(JSON.stringify(doc)));
    expect(ok, JSON.stringify(validate.errors, null, 2)).to.equal(true);
    // The schema has teeth: a type list, an optional path parameter and empty responses are refused.
    const broken = { ...doc, paths: { "/x/{id}": { get: { parameters: [{ name: "id", in: "path", required: false, schema: { type: ["string", "null"] } }], responses: {} } } } };
    expect(validate(broken)).to.equal(false);
    expect((validate.errors ?? []).map((e) => e.instancePath)).to.include.members(["/paths/~1x~1{id}/get/responses", "/paths/~1x~1{id}/get/parameters/0/required"]);
    for (const ref of collectRefs(doc)) {
      expect(ref).to.match(/^#\/components\/schemas\//);
      expect(doc.components.schemas, ref).to.have.property(ref.slice("#/components/schemas/".length));
    }
  });

  it("has openapi 3.0.0, info, components, servers and paths, in that order", () => {
    expect(Object.keys(doc)).to.deep.equal(["openapi", "info", "components", "servers", "paths"]);
    expect(doc.openapi).to.equal("3.0.0");
    expect(doc.info).to.deep.equal({ version: "1.0.0", title: "Test REST API", description: "Routes of the test namespace." });
    expect(doc.servers).to.deep.equal([{ url: "http://h.test/wp-json/test/v1/" }]);
    expect(Object.keys(doc.components.schemas)).to.deep.equal(["Item", "Meta"]);
  });

  it("paths: relative to the namespace, {placeholders}, namespace index excluded, registration order", () => {
    expect(Object.keys(doc.paths)).to.deep.equal([
      "/items", "/items/{id}", "/items/by-slug/{slug}", "/merged", "/types", "/echo", "/echo/{id}",
      "/validate", "/protected", "/boom", "/custom-error", "/multi-error", "/no-status-error", "/list", "/documented",
    ]);
  });

  it("operations: lower-case get/post/delete; PUT and PATCH not separately", () => {
    expect(Object.keys(doc.paths["/items"] ?? {})).to.deep.equal(["get", "post"]);
    expect(Object.keys(doc.paths["/items/{id}"] ?? {})).to.deep.equal(["get", "post", "delete"]);
    expect(Object.keys(doc.paths["/echo"] ?? {})).to.deep.equal(["get", "post", "delete"]);
  });

  it("parameters: {name, in, description, schema, required}; path placeholders required", () => {
    const get = doc.paths["/items/{id}"]?.get;
    expect(get?.parameters[0]).to.deep.equal({ name: "id", in: "path", description: "Item id.", schema: { type: "integer" }, required: true });
    expect(get?.parameters[1]).to.deep.equal({
      name: "lang",
      in: "query",
      description: "Content language.",
      schema: { type: "string", enum: ["en", "fr", "nl"] },
      required: false,
    });
    const list = doc.paths["/items"]?.get;
    expect(list?.parameters.map((p) => p.name)).to.deep.equal(["page", "per_page", "search", "lang", "If-None-Match"]);
    expect(list?.summary).to.equal("List items");
    // An undeclared path placeholder is still documented, typed from its pattern.
    expect(doc.paths["/echo/{id}"]?.get?.parameters[0]).to.deep.equal({ name: "id", in: "path", description: "", schema: { type: "integer" }, required: true });
  });

  it("list args: style form, explode false; documentation-only types are used", () => {
    const params = doc.paths["/documented"]?.get?.parameters ?? [];
    expect(params[0]).to.deep.equal({
      name: "categories",
      in: "query",
      description: "Category ids or slugs.",
      schema: { type: "array", items: { type: "integer" } },
      required: false,
      style: "form",
      explode: false,
    });
    expect(params[1]?.schema).to.deep.equal({ type: "string" });
    const typesList = doc.paths["/types"]?.get?.parameters.find((p) => p.name === "list");
    expect(typesList).to.include({ style: "form", explode: false });
    expect(typesList?.schema).to.deep.equal({ type: "array", items: { type: "integer" } });
  });

  it("post: requestBody as a form with the body fields; query-located args stay parameters", () => {
    const post = doc.paths["/items"]?.post;
    expect(post?.parameters.map((p) => p.name)).to.deep.equal(["If-Match"]);
    expect(post?.requestBody).to.deep.equal({
      content: {
        "application/x-www-form-urlencoded": {
          schema: {
            type: "object",
            properties: {
              title: { type: "string", description: "Title." },
              tags: { type: "array", items: { type: "integer" }, description: "Tag ids." },
              meta: { type: "object", description: "Meta." },
              lang: { type: "string", enum: ["en", "fr", "nl"], description: "Content language." },
            },
            required: ["title"],
          },
        },
      },
    });
    const documented = doc.paths["/documented"]?.post;
    expect(documented?.parameters.map((p) => p.name)).to.deep.equal(["i", "If-Match"]);
    expect(Object.keys(documented?.requestBody?.content["application/x-www-form-urlencoded"].schema.properties ?? {})).to.deep.equal(["categories", "start_date", "lang"]);
    const update = doc.paths["/items/{id}"]?.post;
    expect(update?.parameters.map((p) => p.name)).to.deep.equal(["id", "If-Match"]);
    expect(Object.keys(update?.requestBody?.content["application/x-www-form-urlencoded"].schema.properties ?? {})).to.deep.equal(["title", "lang"]);
  });

  it("responses: declared statuses with $refs; defaults 200, and 201 for a create", () => {
    const etag = { ETag: { description: "Strong validator of this answer (lib/routes/conditional.ts).", schema: { type: "string" } } };
    expect(doc.paths["/items"]?.get?.responses).to.deep.equal({
      "200": { description: "Items", headers: etag, content: { "application/json": { schema: { type: "array", items: { $ref: "#/components/schemas/Item" } } } } },
      "304": { description: "Not Modified: the answer still has the ETag sent in If-None-Match.", headers: etag },
    });
    expect(doc.paths["/items"]?.post?.responses["201"]).to.deep.equal({ description: "Created", content: { "application/json": { schema: { $ref: "#/components/schemas/Item" } } } });
    expect(Object.keys(doc.paths["/items/{id}"]?.post?.responses ?? {})).to.deep.equal(["200", "201", "412"]);
    expect(doc.paths["/items/{id}"]?.delete?.responses).to.deep.equal({
      "200": { description: "OK" },
      "412": { description: "Precondition Failed (rest_precondition_failed): the resource changed since the ETag sent in If-Match." },
    });
    expect(doc.paths["/merged"]?.post?.responses).to.deep.equal({
      "201": { description: "Created" },
      "412": { description: "Precondition Failed (rest_precondition_failed): the resource changed since the ETag sent in If-Match." },
    });
    // A path that can be read: 304 on its GET, If-Match and 412 on its writes.
    expect(doc.paths["/items/{id}"]?.get?.responses).to.have.property("304");
    expect(doc.paths["/items/{id}"]?.delete?.parameters.map((p) => p.name)).to.include("If-Match");
  });
});
