/**
 * `GET /doc` (calendar-api.md §7): an OpenAPI 3.0.0 document generated from
 * the route table. Validated against a JSON Schema of the OpenAPI 3.0
 * structure written here, with every `$ref` resolved, every route of the
 * namespace index present, and the record schemas checked against real
 * records.
 */
import Ajv from "ajv";
import { expect } from "chai";
import { forEachDatabase, type TestDatabase } from "../support/databases";
import { startTestSite, type TestSite } from "../support/site";

/** The essential structure of an OpenAPI 3.0 document (OpenAPI Specification 3.0.3, the parts a generator uses). */
const OPENAPI_30 = {
  $id: "openapi-3.0",
  type: "object",
  required: ["openapi", "info", "paths"],
  additionalProperties: false,
  patternProperties: { "^x-": {} },
  properties: {
    openapi: { type: "string", pattern: "^3\\.0\\.\\d+$" },
    info: {
      type: "object",
      required: ["title", "version"],
      additionalProperties: false,
      properties: { title: { type: "string" }, version: { type: "string" }, description: { type: "string" } },
    },
    servers: {
      type: "array",
      minItems: 1,
      items: { type: "object", required: ["url"], additionalProperties: false, properties: { url: { type: "string" }, description: { type: "string" } } },
    },
    paths: { type: "object", propertyNames: { pattern: "^/" }, additionalProperties: { $ref: "#/definitions/PathItem" } },
    components: {
      type: "object",
      additionalProperties: false,
      properties: { schemas: { type: "object", propertyNames: { pattern: "^[a-zA-Z0-9._-]+$" }, additionalProperties: { $ref: "#/definitions/Schema" } } },
    },
  },
  definitions: {
    PathItem: {
      type: "object",
      additionalProperties: false,
      patternProperties: { "^x-": {} },
      properties: {
        summary: { type: "string" },
        description: { type: "string" },
        get: { $ref: "#/definitions/Operation" },
        put: { $ref: "#/definitions/Operation" },
        post: { $ref: "#/definitions/Operation" },
        delete: { $ref: "#/definitions/Operation" },
        patch: { $ref: "#/definitions/Operation" },
        parameters: { type: "array", items: { $ref: "#/definitions/Parameter" } },
      },
    },
    Operation: {
      type: "object",
      required: ["responses"],
      additionalProperties: false,
      patternProperties: { "^x-": {} },
      properties: {
        summary: { type: "string" },
        description: { type: "string" },
        operationId: { type: "string" },
        parameters: { type: "array", items: { $ref: "#/definitions/Parameter" } },
        requestBody: { $ref: "#/definitions/RequestBody" },
        responses: {
          type: "object",
          minProperties: 1,
          propertyNames: { pattern: "^([1-5][0-9X]{2}|default)$" },
          additionalProperties: { $ref: "#/definitions/Response" },
        },
      },
    },
    Parameter: {
      type: "object",
      required: ["name", "in", "schema"],
      additionalProperties: false,
      properties: {
        name: { type: "string", minLength: 1 },
        in: { enum: ["query", "header", "path", "cookie"] },
        description: { type: "string" },
        required: { type: "boolean" },
        style: { enum: ["form", "simple", "matrix", "label", "spaceDelimited", "pipeDelimited", "deepObject"] },
        explode: { type: "boolean" },
        schema: { $ref: "#/definitions/Schema" },
      },
      // Path parameters must be required (OpenAPI 3.0 §4.7.12.1).
      if: { properties: { in: { const: "path" } } },
      then: { required: ["required"], properties: { required: { const: true } } },
    },
    RequestBody: {
      type: "object",
      required: ["content"],
      additionalProperties: false,
      properties: {
        description: { type: "string" },
        required: { type: "boolean" },
        content: { type: "object", minProperties: 1, additionalProperties: { $ref: "#/definitions/MediaType" } },
      },
    },
    MediaType: { type: "object", additionalProperties: false, properties: { schema: { $ref: "#/definitions/Schema" } } },
    Response: {
      type: "object",
      required: ["description"],
      additionalProperties: false,
      properties: {
        description: { type: "string" },
        content: { type: "object", additionalProperties: { $ref: "#/definitions/MediaType" } },
        // Header Objects (OpenAPI 3.0 §4.7.21): a Parameter without name and in.
        headers: {
          type: "object",
          additionalProperties: {
            type: "object",
            required: ["schema"],
            additionalProperties: false,
            properties: { description: { type: "string" }, schema: { $ref: "#/definitions/Schema" } },
          },
        },
      },
    },
    Schema: {
      type: "object",
      properties: {
        $ref: { type: "string", pattern: "^#/components/schemas/[a-zA-Z0-9._-]+$" },
        type: { enum: ["object", "array", "string", "integer", "number", "boolean"] },
        format: { type: "string" },
        description: { type: "string" },
        enum: { type: "array", minItems: 1 },
        default: {},
        nullable: { type: "boolean" },
        items: { $ref: "#/definitions/Schema" },
        properties: { type: "object", additionalProperties: { $ref: "#/definitions/Schema" } },
        additionalProperties: { oneOf: [{ type: "boolean" }, { $ref: "#/definitions/Schema" }] },
        required: { type: "array", items: { type: "string" }, minItems: 1 },
        oneOf: { type: "array", items: { $ref: "#/definitions/Schema" } },
        anyOf: { type: "array", items: { $ref: "#/definitions/Schema" } },
        allOf: { type: "array", items: { $ref: "#/definitions/Schema" } },
      },
      // A $ref object carries nothing else (OpenAPI 3.0 Reference Object); arrays need items.
      allOf: [
        { if: { required: ["$ref"] }, then: { maxProperties: 1 } },
        { if: { required: ["type"], properties: { type: { const: "array" } } }, then: { required: ["items"] } },
      ],
      // JSON Schema keywords OpenAPI 3.0 does not allow in its Schema Object.
      not: { anyOf: [{ required: ["$schema"] }, { required: ["const"] }, { required: ["examples"] }, { required: ["prefixItems"] }] },
    },
  },
};

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function collectRefs(value: Json, out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => collectRefs(v, out));
  else if (value && typeof value === "object") {
    for (const [key, v] of Object.entries(value)) {
      if (key === "$ref" && typeof v === "string") out.push(v);
      else collectRefs(v, out);
    }
  }
  return out;
}

/** `/calendar/events/v1/venues/(?P<id>\d+)` → `/venues/{id}` */
function docPath(route: string): string {
  return route.replace(/^\/calendar\/events\/v1/, "").replace(/\(\?P<(\w+)>[^)]*\)/g, "{$1}").replace(/\\(.)/g, "$1");
}

forEachDatabase("doc route", (target) => {
  let db: TestDatabase;
  let ts: TestSite;
  let doc: { [key: string]: Json } & { paths: Record<string, Record<string, { parameters: Array<Record<string, Json>>; requestBody?: Json; responses: Record<string, Json> }>>; components: { schemas: Record<string, { type: string; properties: Record<string, Json> }> } };

  before(async () => {
    db = await target.create();
    ts = await startTestSite({ target: db.target, fixture: "minimal" });
    const res = await ts.get("/doc");
    expect(res.status).to.equal(200);
    doc = res.body;
  });

  after(async () => {
    await ts?.close();
    await db?.drop();
  });

  it("is public, answers GET only, and is valid against the OpenAPI 3.0 structure", async () => {
    const ajv = new Ajv({ allErrors: true, strict: false });
    const validate = ajv.compile(OPENAPI_30);
    const ok = validate(doc);
    expect(ok, ajv.errorsText(validate.errors, { separator: "\n" })).to.equal(true);
    expect((await ts.request("PUT", "/doc", { as: "admin" })).body.code).to.equal("rest_no_route");
    expect((await ts.get("/doc", { as: "subscriber" })).status).to.equal(200);
  });

  it("the structural schema rejects broken documents", () => {
    const ajv = new Ajv({ allErrors: true, strict: false });
    const validate = ajv.compile(OPENAPI_30);
    const broken = (mutate: (d: typeof doc) => void): boolean => {
      const copy = JSON.parse(JSON.stringify(doc)) as typeof doc;
      mutate(copy);
      return validate(copy) as boolean;
    };
    expect(broken(() => undefined)).to.equal(true);
    expect(broken((d) => delete (d.paths["/venues"].get.responses["200"] as { description?: string }).description)).to.equal(false);
    expect(broken((d) => delete (d.paths["/venues/{id}"].get.parameters[0] as { in?: string }).in)).to.equal(false);
    expect(broken((d) => ((d.paths["/venues/{id}"].get.parameters[0] as { required: boolean }).required = false))).to.equal(false);
    expect(broken((d) => (d.openapi = "2.0"))).to.equal(false);
    expect(broken((d) => ((d.paths as Record<string, unknown>)["venues"] = {}))).to.equal(false);
    expect(broken((d) => ((d.paths["/tags"].get.parameters[0].schema as { type: string }).type = "array"))).to.equal(false);
  });

  it("every $ref resolves to a component schema", () => {
    const refs = collectRefs(doc as Json);
    expect(refs.length).to.be.greaterThan(10);
    for (const ref of refs) {
      const name = ref.replace("#/components/schemas/", "");
      expect(doc.components.schemas, ref).to.have.property(name);
    }
  });

  it("has openapi 3.0.0, info, components with the eight schemas, servers with the namespace URL (port kept)", () => {
    expect(Object.keys(doc)).to.include.members(["openapi", "info", "components", "servers", "paths"]);
    expect(doc.openapi).to.equal("3.0.0");
    expect(Object.keys(doc.info as object)).to.have.members(["version", "title", "description"]);
    expect((doc.info as { version: string }).version).to.equal("1.0.0");
    expect(doc.servers).to.deep.equal([{ url: `${ts.ns}/` }]);
    expect(new URL(`${ts.ns}/`).port).to.not.equal("");
    expect(Object.keys(doc.components.schemas)).to.deep.equal(["ImageSize", "CostDetails", "Term", "Image", "DateDetails", "Event", "Venue", "Organizer"]);
    for (const schema of Object.values(doc.components.schemas)) {
      expect(schema.type).to.equal("object");
      expect(schema.properties).to.be.an("object");
    }
  });

  it("documents every route and method of the namespace index", async () => {
    const index = await ts.get("");
    const routes = Object.entries(index.body.routes as Record<string, { methods: string[] }>).filter(([key]) => key !== "/calendar/events/v1");
    expect(Object.keys(doc.paths)).to.deep.equal(routes.map(([key]) => docPath(key)));
    expect(Object.keys(doc.paths)).to.deep.equal([
      "/doc",
      "/events",
      "/events.ics",
      "/events/{id}",
      "/events/by-slug/{slug}",
      "/venues",
      "/venues/{id}",
      "/venues/by-slug/{slug}",
      "/organizers",
      "/organizers/{id}",
      "/organizers/by-slug/{slug}",
      "/categories",
      "/categories/{id}",
      "/tags",
      "/tags/{id}",
      "/changes",
      "/import",
      "/recurrence-preview",
    ]);
    for (const [key, route] of routes) {
      const expected = new Set(route.methods.map((m) => (m === "PUT" || m === "PATCH" ? "post" : m.toLowerCase())).filter((m) => m !== "head"));
      expect(new Set(Object.keys(doc.paths[docPath(key)])), key).to.deep.equal(expected);
    }
    expect(Object.keys(doc.paths["/doc"])).to.deep.equal(["get"]);
    expect(Object.keys(doc.paths["/venues/{id}"])).to.have.members(["get", "delete", "post"]);
  });

  it("every parameter of every endpoint, with type, default and enum; i18n_language everywhere", async () => {
    const index = await ts.get("");
    for (const [key, route] of Object.entries(index.body.routes as Record<string, { endpoints: Array<{ methods: string[]; args: Record<string, { type?: string; default?: Json; enum?: Json[] }> }> }>)) {
      if (key === "/calendar/events/v1") continue;
      const item = doc.paths[docPath(key)];
      for (const endpoint of route.endpoints) {
        const op = item[endpoint.methods.includes("GET") ? "get" : endpoint.methods.includes("DELETE") ? "delete" : "post"];
        const body = ((op.requestBody as { content?: Record<string, { schema: { properties: Record<string, Record<string, Json>> } }> } | undefined)?.content?.["application/x-www-form-urlencoded"]?.schema.properties) ?? {};
        const documented = new Map<string, Record<string, Json>>(op.parameters.map((p) => [String(p.name), p.schema as Record<string, Json>]));
        for (const [name, schema] of Object.entries(body)) documented.set(name, schema);
        for (const [name, arg] of Object.entries(endpoint.args)) {
          const schema = documented.get(name);
          expect(schema, `${key} ${endpoint.methods.join()} ${name}`).to.not.equal(undefined);
          if (arg.type) expect(schema!.type, `${key} ${name} type`).to.equal(arg.type);
          if (arg.enum) expect(schema!.enum, `${key} ${name} enum`).to.deep.equal(arg.enum);
          if (arg.default !== undefined && arg.default !== null && typeof arg.default !== "number") {
            if (schema!.type !== "boolean") expect(schema!.default, `${key} ${name} default`).to.deep.equal(arg.default);
          }
        }
        expect(documented.get("i18n_language")?.enum, `${key} i18n_language`).to.deep.equal(["nl", "en", "fi", "fr", "de", "it", "no"]);
      }
    }
    const venues = doc.paths["/venues"].get;
    const page = venues.parameters.find((p) => p.name === "page")!;
    expect(page).to.deep.include({ in: "query", required: false });
    expect(page.schema).to.deep.include({ type: "integer", default: 1 });
    expect(venues.parameters.find((p) => p.name === "per_page")!.schema).to.deep.include({ type: "integer", default: 10 });
    const idParam = doc.paths["/venues/{id}"].get.parameters.find((p) => p.name === "id")!;
    expect(idParam).to.deep.include({ in: "path", required: true });
    expect(doc.paths["/categories"].get.parameters.find((p) => p.name === "hide_empty")!.schema).to.deep.include({ type: "boolean", default: true });
    const include = doc.paths["/categories"].get.parameters.find((p) => p.name === "include")!;
    expect(include).to.deep.include({ style: "form", explode: false });
    expect(include.schema).to.deep.equal({ type: "array", items: { type: "integer" } });
    // Per-request defaults are computed for this request.
    for (const name of ["start_date", "end_date"]) {
      const param = doc.paths["/events"].get.parameters.find((p) => p.name === name)!;
      expect(String((param.schema as { default: Json }).default), name).to.match(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    }
  });

  it("post operations carry a form request body with the create fields; responses reference the record schemas", () => {
    const create = doc.paths["/venues"].post as unknown as { requestBody: { content: Record<string, { schema: { properties: Record<string, Json>; required: string[] } }> }; responses: Record<string, { content?: Record<string, { schema: Json }> }> };
    const form = create.requestBody.content["application/x-www-form-urlencoded"].schema;
    expect(form.required).to.deep.equal(["venue"]);
    expect(Object.keys(form.properties)).to.include.members(["venue", "address", "city", "show_map", "website", "image", "geo_lat", "geo_lng"]);
    expect(create.responses["201"].content!["application/json"].schema).to.deep.equal({ $ref: "#/components/schemas/Venue" });
    const update = doc.paths["/organizers/{id}"].post as unknown as { responses: Record<string, Json> };
    expect(Object.keys(update.responses)).to.include.members(["200", "201"]);
    const list = doc.paths["/organizers"].get.responses["200"] as { content: Record<string, { schema: { properties: Record<string, Json> } }> };
    expect(list.content["application/json"].schema.properties.organizers).to.deep.equal({ type: "array", items: { $ref: "#/components/schemas/Organizer" } });
    expect((doc.paths["/events"].get.responses["200"] as { description: string }).description).to.be.a("string");
    expect((doc.paths["/tags/{id}"].get.responses["200"] as { content: Record<string, { schema: Json }> }).content["application/json"].schema).to.deep.equal({ $ref: "#/components/schemas/Term" });
  });

  it("the record schemas describe every member of real records", async () => {
    const props = (name: string): string[] => Object.keys(doc.components.schemas[name].properties);
    const attachment = await ts.site.engine.posts.create({ type: "attachment", status: "publish", title: "doc pic", fields: { url: "https://cdn.example.com/doc.jpg", mime_type: "image/jpeg", width: 1, height: 2, filesize: 3 } });
    const venue = await ts.post("/venues", {
      as: "admin",
      json: { venue: "Doc Venue", description: "d", address: "a", city: "c", country: "Italy", province: "p", state: "s", zip: "z", phone: "1", website: "https://x.example.com", stateprovince: "sp", geo_lat: 1, geo_lng: 2, image: attachment.id },
    });
    const venueRead = await ts.get(`/venues/${venue.body.id}`);
    expect(props("Venue")).to.include.members(Object.keys(venueRead.body));
    expect(props("Image")).to.include.members(Object.keys(venueRead.body.image));
    const organizer = await ts.post("/organizers", { as: "admin", json: { organizer: "Doc Org", description: "d", phone: "1", website: "https://o.example.com", email: "o@example.com", image: attachment.id } });
    expect(props("Organizer")).to.include.members(Object.keys((await ts.get(`/organizers/${organizer.body.id}`)).body));
    const category = (await ts.get("/categories")).body.categories[0];
    expect(props("Term")).to.include.members(Object.keys(category));
    const events = await ts.get("/events", { query: { start_date: "2000-01-01", end_date: "2040-01-01" } });
    const withTerms = events.body.events.find((e: { categories: unknown[] }) => e.categories.length > 0);
    expect(props("Event")).to.include.members(Object.keys(withTerms));
    expect(props("Term")).to.include.members(Object.keys(withTerms.categories[0]));
    expect(props("CostDetails")).to.include.members(Object.keys(withTerms.cost_details));
    expect(props("DateDetails")).to.have.members(Object.keys(withTerms.start_date_details));
    const single = await ts.get(`/events/${withTerms.id}`);
    expect(props("Event")).to.include.members(Object.keys(single.body));
  });

  it("accepts i18n_language and rejects a bad one", async () => {
    expect((await ts.get("/doc", { query: { i18n_language: "fr" } })).status).to.equal(200);
    expect((await ts.get("/doc", { query: { i18n_language: "xx" } })).status).to.equal(400);
  });
});
