/**
 * Every namespace's OpenAPI document at `GET /<namespace>/doc`
 * (namespace-doc.ts), generated from the route table for namespaces that do
 * not answer that path themselves, and the REST index's `service-desc` links
 * to each namespace's document.
 */
import express from "express";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { expect } from "chai";
import { RestServer } from "../../lib/routes";
import { openApiProblems } from "../support/openapi";
import { call, NS, ns, obj, startTestApp, type TestApp } from "./helpers";

interface Schema {
  type?: string;
  items?: Schema;
  enum?: unknown[];
  default?: unknown;
  minimum?: number;
  description?: string;
  $ref?: string;
  properties?: Record<string, Schema>;
  required?: string[];
}
interface Parameter {
  name: string;
  in: string;
  required: boolean;
  description: string;
  schema: Schema;
}
interface Operation {
  tags: string[];
  summary?: string;
  parameters: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: Schema }> }>;
}
interface Doc {
  openapi: string;
  info: { title: string; version: string; description: string };
  tags: Array<{ name: string; description?: string }>;
  security: Array<Record<string, string[]>>;
  components: { schemas: Record<string, Schema>; securitySchemes: Record<string, Record<string, string>> };
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, Operation>>;
}

/** `/test/v1/items/(?P<id>\d+)` of `/test/v1` → `/items/{id}` */
function docPath(route: string, namespace: string): string {
  return route.slice(namespace.length).replace(/\(\?P<(\w+)>[^)]*\)/g, "{$1}").replace(/\\(.)/g, "$1");
}

function param(op: Operation | undefined, name: string): Parameter {
  const found = op?.parameters.find((p) => p.name === name);
  if (!found) throw new Error(`no parameter ${name}`);
  return found;
}

describe("routes: every namespace's OpenAPI document", () => {
  let app: TestApp;
  let doc: Doc;

  before(async () => {
    app = await startTestApp();
    const res = await call(app, ns("/doc"));
    expect(res.status, res.text).to.equal(200);
    doc = res.body as Doc;
  });
  after(() => app.close());

  it("GET /<namespace>/doc is an OpenAPI 3.0 document of the namespace's routes, valid against the OpenAPI Initiative's schema", async () => {
    expect(openApiProblems(doc)).to.deep.equal([]);
    expect(doc.openapi).to.equal("3.0.0");
    expect(doc.info).to.include({ title: "test/v1 REST API", version: "1" });
    expect(doc.servers).to.deep.equal([{ url: `${app.root}test/v1/` }]);
    const index = obj((await call(app, ns(""))).body);
    const routes = Object.keys(obj(index.routes)).filter((route) => route !== `/${NS}`);
    expect(Object.keys(doc.paths)).to.deep.equal(routes.map((route) => docPath(route, `/${NS}`)));
    expect(Object.keys(doc.paths)).to.include.members(["/items", "/items/{id}", "/items/by-slug/{slug}"]);
    expect(Object.keys(doc.paths["/items/{id}"]!)).to.have.members(["get", "post", "delete"]);
  });

  it("documents every arg: path and query parameters with type, bounds, default and enum; bodies as JSON and as a form", () => {
    const list = doc.paths["/items"]!.get;
    expect(param(list, "page")).to.deep.include({ in: "query", required: false, description: "Page." });
    expect(param(list, "page").schema).to.deep.equal({ type: "integer", minimum: 1, default: 1 });
    expect(param(list, "per_page").schema).to.deep.equal({ type: "integer", minimum: 1, default: 2 });
    // The namespace's global args are every endpoint's.
    expect(param(list, "lang").schema).to.deep.equal({ type: "string", enum: ["en", "fr", "nl"] });
    expect(list?.summary).to.equal("List items");
    const read = doc.paths["/items/{id}"]!.get;
    expect(param(read, "id")).to.deep.include({ in: "path", required: true, description: "Item id." });
    expect(param(read, "id").schema).to.deep.equal({ type: "integer" });
    expect(param(doc.paths["/items/{id}"]!.delete, "force").schema).to.deep.equal({ type: "boolean", default: false });

    const create = doc.paths["/items"]!.post!;
    expect(Object.keys(create.requestBody!.content)).to.deep.equal(["application/json", "application/x-www-form-urlencoded"]);
    for (const media of Object.values(create.requestBody!.content)) {
      expect(media.schema.required).to.deep.equal(["title"]);
      expect(media.schema.properties?.title).to.deep.equal({ type: "string", description: "Title." });
      expect(media.schema.properties?.tags).to.deep.equal({ type: "array", items: { type: "integer" }, description: "Tag ids." });
      expect(media.schema.properties?.meta?.type).to.equal("object");
    }
  });

  it("responses: what each endpoint declares, the error envelope, and the conditional-request answers", () => {
    const list = doc.paths["/items"]!.get!;
    expect(Object.keys(list.responses)).to.have.members(["200", "304", "default"]);
    expect(list.responses.default!.content!["application/json"]!.schema).to.deep.equal({ $ref: "#/components/schemas/RestError" });
    expect(doc.components.schemas.RestError).to.deep.include({ type: "object", required: ["code", "message", "data"] });
    expect(doc.paths["/items"]!.post!.responses["201"]!.description).to.equal("Created");
    expect(Object.keys(doc.paths["/items/{id}"]!.post!.responses)).to.include.members(["200", "201", "412"]);
    // `Item` is a schema this namespace never described: no reference left dangling.
    expect(list.responses["200"]!.content!["application/json"]!.schema).to.deep.equal({
      type: "array",
      items: { description: "Item (the namespace describes no schema of that name)." },
    });
  });

  it("groups operations by resource and offers WordPress's two logins, neither required", () => {
    expect(doc.tags.map((t) => t.name).slice(0, 4)).to.deep.equal(["items", "merged", "types", "echo"]);
    expect(doc.paths["/items/by-slug/{slug}"]!.get!.tags).to.deep.equal(["items"]);
    for (const item of Object.values(doc.paths)) for (const op of Object.values(item)) expect(op.tags).to.have.length(1);
    expect(doc.components.securitySchemes.applicationPassword).to.include({ type: "http", scheme: "basic" });
    expect(doc.components.securitySchemes.nonce).to.include({ type: "apiKey", in: "header", name: "X-WP-Nonce" });
    expect(doc.security).to.deep.equal([{}, { applicationPassword: [] }, { nonce: [] }]);
  });

  it("is listed in no index; answers GET and HEAD only, through ?rest_route= too, with the namespace's global args checked", async () => {
    const index = obj((await call(app, ns(""))).body);
    expect(obj(index.routes)).to.not.have.property(`/${NS}/doc`);
    expect(obj(obj((await call(app, "/wp-json/")).body).routes)).to.not.have.property(`/${NS}/doc`);
    const post = await call(app, ns("/doc"), { method: "POST", as: "admin", json: {} });
    expect(post.status).to.equal(404);
    expect(obj(post.body).code).to.equal("rest_no_route");
    expect(post.headers.get("allow")).to.equal("GET");
    expect((await call(app, ns("/doc"), { method: "HEAD" })).status).to.equal(200);
    const options = await call(app, ns("/doc"), { method: "OPTIONS" });
    expect(obj(options.body).methods).to.deep.equal(["GET"]);
    const viaQuery = await call(app, `/?rest_route=/${NS}/doc`);
    expect(viaQuery.status).to.equal(200);
    expect(Object.keys(obj(obj(viaQuery.body).paths))).to.deep.equal(Object.keys(doc.paths));
    expect((await call(app, ns("/doc?lang=xx"))).status).to.equal(400);
    expect((await call(app, ns("/doc?lang=fr"))).status).to.equal(200);
    // A namespace that does not exist has no document.
    expect((await call(app, "/wp-json/nothing/v1/doc")).status).to.equal(404);
  });

  it("the REST index links each namespace's document (service-desc, named after the namespace); _fields keeps just the links", async () => {
    const index = obj((await call(app, "/wp-json/")).body);
    expect(index._links).to.deep.equal({
      help: [{ href: "https://developer.wordpress.org/rest-api/" }],
      "service-desc": [{ href: `${app.root}test/v1/doc`, name: NS }],
    });
    const links = await call(app, "/wp-json/?_fields=_links");
    expect(Object.keys(obj(links.body))).to.deep.equal(["_links"]);
    expect(obj(obj(links.body)._links)["service-desc"]).to.deep.equal([{ href: `${app.root}test/v1/doc`, name: NS }]);
  });

  it("takes the namespace's title, version, description, schemas and tag descriptions from registerNamespace", async () => {
    const item = { type: "object", properties: { id: { type: "integer" }, title: { type: "string" } } };
    app.server.registerNamespace(NS, { doc: { title: "Items", version: "1.2.0", description: "Things.", schemas: { Item: item }, tags: { items: "The items." } } });
    const again = (await call(app, ns("/doc"))).body as Doc;
    expect(openApiProblems(again)).to.deep.equal([]);
    expect(again.info).to.deep.equal({ title: "Items", version: "1.2.0", description: "Things." });
    expect(again.components.schemas.Item).to.deep.equal(item);
    expect(again.paths["/items"]!.get!.responses["200"]!.content!["application/json"]!.schema).to.deep.equal({ type: "array", items: { $ref: "#/components/schemas/Item" } });
    expect(again.tags[0]).to.deep.equal({ name: "items", description: "The items." });
  });
});

describe("routes: a namespace's own route at /doc; routes sharing a documented path", () => {
  let server: RestServer;
  let http: Server;
  let root = "";

  const get = async (path: string): Promise<{ status: number; body: Record<string, unknown> }> => {
    const res = await fetch(`${root}${path}`);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  before(async () => {
    server = new RestServer();
    server.registerRoute("own/v1", "/doc", { methods: "GET", permission: "public", handler: () => ({ own: true }) });
    server.registerRoute("slug/v1", "/(?P<slug>[a-z]+)", { methods: "GET", permission: "public", handler: (req) => ({ slug: req.params.slug }) });
    server.registerRoute("plain/v1", "/things", { methods: "GET", permission: "public", handler: () => [] });
    // Two patterns documented as one path: a GET reaches the first, a DELETE the second.
    server.registerRoute("plain/v1", "/things/(?P<id>\\d+)", { methods: "GET", permission: "public", args: { a: { type: "string", default: "first" } }, handler: () => ({}) });
    server.registerRoute("plain/v1", "/things/(?P<id>[\\d]+)", [
      { methods: "GET", permission: "public", args: { b: { type: "string", default: "second" } }, handler: () => ({}) },
      { methods: "DELETE", permission: "public", args: { c: { type: "string", default: "third" } }, handler: () => ({}) },
    ]);
    const app = express();
    app.use("/wp-json", server.router());
    http = await new Promise((resolve) => {
      const s = app.listen(0, "127.0.0.1", () => resolve(s));
    });
    root = `http://127.0.0.1:${(http.address() as AddressInfo).port}/wp-json/`;
  });
  after(async () => {
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  });

  it("wins over the generated document, as any route matching the path does; the index links only documents; each operation is the endpoint a request reaches", async () => {
    expect((await get("own/v1/doc")).body).to.deep.equal({ own: true });
    expect((await get("slug/v1/doc")).body).to.deep.equal({ slug: "doc" });
    const plain = await get("plain/v1/doc");
    expect(plain.status).to.equal(200);
    expect(Object.keys(obj(plain.body.paths))).to.deep.equal(["/things", "/things/{id}"]);
    // Each operation is the endpoint a request reaches, with its own args and defaults.
    const things = obj(obj(plain.body.paths)["/things/{id}"]) as Record<string, { parameters: Array<{ name: string; schema: { default?: string } }> }>;
    expect(Object.keys(things)).to.deep.equal(["get", "delete"]);
    expect(things.get!.parameters.map((p) => [p.name, p.schema.default])).to.deep.equal([["id", undefined], ["a", "first"], ["If-None-Match", undefined]]);
    expect(things.delete!.parameters.map((p) => [p.name, p.schema.default])).to.deep.equal([["id", undefined], ["c", "third"], ["If-Match", undefined]]);
    const index = await get("");
    expect(obj(index.body._links)["service-desc"]).to.deep.equal([
      { href: `${root}own/v1/doc`, name: "own/v1" },
      { href: `${root}plain/v1/doc`, name: "plain/v1" },
    ]);
  });
});
