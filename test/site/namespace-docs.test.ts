/**
 * A site's namespaces each have an OpenAPI document at
 * `/wp-json/<namespace>/doc`: a host's own (a small `shelf/v1` plugin
 * written here, and examples/book-plugin.ts's `library/v1`) and `wp/v2`
 * generated from the route table, the calendar's its own; the REST index
 * links all of them.
 */
import { expect } from "chai";
import { DELETABLE, RestResponse, type Site } from "../../lib";
import { registerBookPlugin } from "../../examples/book-plugin";
import { openApiProblems } from "../support/openapi";
import { startTestSite, type TestSite } from "../support/site";

interface Schema {
  type?: string;
  items?: Schema;
  enum?: unknown[];
  default?: unknown;
  description?: string;
  $ref?: string;
  properties?: Record<string, Schema>;
  required?: string[];
}
interface Operation {
  tags: string[];
  parameters: Array<{ name: string; in: string; required: boolean; description: string; schema: Schema }>;
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: Schema }> }>;
}
interface Doc {
  info: { title: string; version: string };
  tags?: Array<{ name: string; description?: string }>;
  components: { schemas: Record<string, Schema> };
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, Operation>>;
}

/** A host's plugin as small as can be: shelves, declared with WordPress's habits (a record schema with `readonly`, `required: true` and a type list). */
function registerShelves(site: Site): void {
  const shelf = {
    type: "object",
    properties: {
      id: { type: "integer", readonly: true, context: ["view", "edit"] },
      name: { type: "string", required: true },
      labels: { type: ["array", "null"], items: { type: "string" } },
    },
  };
  site.rest.registerNamespace("shelf/v1", { doc: { title: "Shelves", schemas: { Shelf: shelf }, tags: { shelves: "Shelves of books." } } });
  site.rest.registerRoute("shelf/v1", "/shelves", [
    {
      methods: "GET",
      permission: "public",
      args: {
        per_page: { type: "integer", minimum: 1, maximum: 50, default: 10, description: "Shelves per page." },
        order: { type: "string", enum: ["asc", "desc"], default: "asc" },
        include: { type: "array", items: { type: "integer" } },
      },
      responses: { "200": { description: "The shelves.", schema: "Shelf[]" } },
      handler: () => [],
    },
    {
      methods: "POST",
      permission: (req) => req.user !== null,
      args: { name: { type: "string", minLength: 1, required: true, description: "Name." }, color: { type: "string", pattern: "^#[0-9a-f]{6}$" } },
      responses: { "201": { description: "The new shelf.", schema: "Shelf" } },
      handler: (req) => new RestResponse({ id: 1, name: req.params.name, labels: null }, 201),
    },
  ]);
  site.rest.registerRoute(
    "shelf/v1",
    "/shelves/(?P<id>\\d+)",
    [
      { methods: "GET", permission: "public", responses: { "200": { description: "The shelf.", schema: "Shelf" } }, handler: (req) => ({ id: req.params.id, name: "Top", labels: null }) },
      { methods: DELETABLE, permission: (req) => req.user !== null, args: { force: { type: "boolean", default: false } }, handler: () => ({ deleted: true }) },
    ],
    { args: { id: { type: "integer", required: true, description: "Shelf ID." } } },
  );
}

describe("site: every namespace's OpenAPI document", () => {
  let t: TestSite;
  let shelves: Doc;

  before(async () => {
    t = await startTestSite();
    registerBookPlugin(t.site);
    registerShelves(t.site);
    await t.site.migrate();
    const res = await t.get<Doc>("/wp-json/shelf/v1/doc");
    expect(res.status, res.text).to.equal(200);
    shelves = res.body;
  });
  after(() => t?.close());

  it("a host namespace's document is valid OpenAPI 3.0 and lists its routes", () => {
    expect(openApiProblems(shelves)).to.deep.equal([]);
    expect(shelves.info).to.deep.include({ title: "Shelves", version: "1" });
    expect(shelves.servers).to.deep.equal([{ url: `${t.root}shelf/v1/` }]);
    expect(Object.keys(shelves.paths)).to.deep.equal(["/shelves", "/shelves/{id}"]);
    expect(Object.keys(shelves.paths["/shelves"]!)).to.deep.equal(["get", "post"]);
    expect(Object.keys(shelves.paths["/shelves/{id}"]!)).to.deep.equal(["get", "delete"]);
    expect(shelves.tags).to.deep.equal([{ name: "shelves", description: "Shelves of books." }]);
  });

  it("with each route's parameters and body as the plugin declares them", () => {
    const list = shelves.paths["/shelves"]!.get!;
    const parameter = (op: Operation, name: string) => op.parameters.find((p) => p.name === name);
    expect(parameter(list, "per_page")).to.deep.include({ in: "query", required: false, description: "Shelves per page." });
    expect(parameter(list, "per_page")?.schema).to.deep.equal({ type: "integer", minimum: 1, maximum: 50, default: 10 });
    expect(parameter(list, "order")?.schema).to.deep.equal({ type: "string", enum: ["asc", "desc"], default: "asc" });
    expect(parameter(list, "include")).to.deep.include({ style: "form", explode: false, schema: { type: "array", items: { type: "integer" } } });
    expect(parameter(shelves.paths["/shelves/{id}"]!.get!, "id")).to.deep.include({ in: "path", required: true, description: "Shelf ID.", schema: { type: "integer" } });
    expect(parameter(shelves.paths["/shelves/{id}"]!.delete!, "force")?.schema).to.deep.equal({ type: "boolean", default: false });
    const body = shelves.paths["/shelves"]!.post!.requestBody!.content["application/json"]!.schema;
    expect(body).to.deep.equal({
      type: "object",
      properties: { name: { type: "string", minLength: 1, description: "Name." }, color: { type: "string", pattern: "^#[0-9a-f]{6}$" } },
      required: ["name"],
    });
  });

  it("and its responses, with the record schema turned from WordPress's JSON Schema into OpenAPI's", () => {
    expect(shelves.paths["/shelves"]!.get!.responses["200"]!.content!["application/json"]!.schema).to.deep.equal({ type: "array", items: { $ref: "#/components/schemas/Shelf" } });
    expect(shelves.paths["/shelves"]!.post!.responses["201"]!.content!["application/json"]!.schema).to.deep.equal({ $ref: "#/components/schemas/Shelf" });
    expect(shelves.components.schemas.Shelf).to.deep.equal({
      type: "object",
      properties: {
        id: { type: "integer", readOnly: true, "x-context": ["view", "edit"] },
        name: { type: "string" },
        labels: { type: "array", nullable: true, items: { type: "string" } },
      },
      required: ["name"],
    });
  });

  it("the REST index links every namespace's document, and each is valid: wp/v2's and the book plugin's too", async () => {
    const index = await t.get<{ namespaces: string[]; _links: Record<string, Array<{ href: string; name?: string }>> }>("/wp-json/");
    const links = index.body._links["service-desc"] ?? [];
    expect(links.map((link) => link.name)).to.deep.equal(index.body.namespaces);
    expect(links.map((link) => link.name)).to.deep.equal(["calendar/events/v1", "wp/v2", "library/v1", "shelf/v1"]);
    const docs: Record<string, Doc> = {};
    for (const link of links) {
      expect(link.href).to.equal(`${t.root}${link.name}/doc`);
      const res = await fetch(link.href);
      expect(res.status, link.href).to.equal(200);
      const doc = (await res.json()) as Doc;
      expect(openApiProblems(doc), link.href).to.deep.equal([]);
      docs[link.name ?? ""] = doc;
    }
    expect(Object.keys(docs["library/v1"]!.paths)).to.include.members(["/books", "/books/{id}", "/genres", "/genres/{id}"]);
    expect(Object.keys(docs["wp/v2"]!.paths)).to.include.members(["/types", "/types/{type}", "/taxonomies", "/users/me"]);
  });

  it("the calendar keeps its own document", async () => {
    const calendar = (await t.get<Doc>("/wp-json/calendar/events/v1/doc")).body;
    expect(calendar.info.title).to.equal("Calendar REST API");
    // Not the generated one: its record schemas, none of the generated members.
    expect(calendar).to.not.have.any.keys("tags", "security");
    expect(calendar.components.schemas).to.have.property("Event");
    expect(calendar.components.schemas).to.not.have.property("RestError");
  });
});
