/**
 * EngineErrors escaping a route: a host's routes (registered as a plugin
 * author registers them, examples/book-plugin.ts) hand the client's input
 * straight to the engine, and every refusal the engine makes comes back
 * with the status and WordPress envelope of the one table in
 * lib/routes/errors.ts, over HTTP and in a batch, on every database.
 */
import fs from "node:fs";
import path from "node:path";
import { expect } from "chai";
import { ENGINE_ERROR_ANSWERS, EngineError, type RestEndpoint, type RestRequest, type RoleName } from "../../lib";
import { forEachDatabase } from "../support/databases";
import { startTestSite, type TestSite } from "../support/site";

const NS = "shop/v1";

/** Routes that pass what they are sent to the engine as it is: the engine's refusals are the only checks. */
function registerShop(t: TestSite): void {
  const { engine, rest } = t.site;
  engine.registerPostType("product", { labels: { singular: "Product", plural: "Products" }, statuses: ["publish", "draft"], fields: { sku: { type: "string", length: 20 } } });
  engine.registerTaxonomy("genre", { objectTypes: ["product"], hierarchical: true, labels: { singular: "Genre", plural: "Genres" } });
  engine.registerTaxonomy("shelf", { objectTypes: ["product"], hierarchical: true, labels: { singular: "Shelf", plural: "Shelves" } });
  const loggedIn = (req: RestRequest): boolean => req.user !== null;
  const write = (handler: (req: RestRequest<Record<string, unknown>>) => Promise<unknown>): RestEndpoint => ({ methods: "POST", permission: loggedIn, allowBatch: true, handler });
  const id = (req: RestRequest): number => Number(req.params.id);
  rest.registerNamespace(NS);
  rest.registerRoute(NS, "/genres", write((req) => engine.terms.create({ taxonomy: "genre", name: String(req.params.name), parent: req.params.parent === undefined ? undefined : Number(req.params.parent) })));
  rest.registerRoute(NS, "/genres/(?P<id>\\d+)", write((req) => engine.terms.update(id(req), { slug: req.params.slug as string | undefined, parent: req.params.parent === undefined ? undefined : Number(req.params.parent) })));
  rest.registerRoute(NS, "/products", write((req) => engine.posts.create({ type: String(req.params.type ?? "product"), title: "A product", ...(req.params.post as object) }, req.user ?? undefined)));
  rest.registerRoute(NS, "/products/(?P<id>\\d+)", write((req) => engine.posts.update(id(req), { title: String(req.params.title ?? "Renamed") }, req.user ?? undefined)));
  rest.registerRoute(NS, "/users", write((req) => engine.users.create({ login: String(req.params.login), role: "subscriber" })));
  rest.registerRoute(NS, "/users/(?P<id>\\d+)/role", write(async (req) => engine.users.setRole(id(req), String(req.params.role) as RoleName)));
  rest.registerRoute(NS, "/made-up", write(() => Promise.reject(new EngineError("made_up_code", "Not a code of the engine."))));
}

forEachDatabase("routes: EngineErrors thrown in any route answer with their mapped status and envelope", (db) => {
  let t: TestSite;
  let dropDb: () => Promise<void>;
  const logged: { message: string; error: unknown }[] = [];
  const admin = { login: "shopkeeper", password: "keep-shop-1234" };
  const ids = { genre: 0, fiction: 0, shelf: 0, product: 0 };

  before(async () => {
    const created = await db.create();
    dropDb = created.drop;
    t = await startTestSite({ target: created.target, logger: { error: (message, error) => logged.push({ message, error }) } });
    registerShop(t);
    await t.site.migrate();
    const user = await t.site.engine.users.ensure({ login: admin.login, role: "administrator" });
    await t.site.engine.users.addAppPassword(user.id, "test", admin.password);
    ids.genre = (await t.site.engine.terms.create({ taxonomy: "genre", name: "Poetry" })).id;
    ids.fiction = (await t.site.engine.terms.create({ taxonomy: "genre", name: "Fiction", slug: "fiction" })).id;
    ids.shelf = (await t.site.engine.terms.create({ taxonomy: "shelf", name: "Top shelf" })).id;
    ids.product = (await t.site.engine.posts.create({ type: "product", title: "Lamp", status: "publish" })).id;
  });
  after(async () => {
    await t?.close();
    await dropDb?.();
  });
  beforeEach(() => {
    logged.length = 0;
  });

  /** Each case: the route, the body, the expected status and envelope. */
  const cases = (): { name: string; path: string; body: Record<string, unknown>; status: number; envelope: Record<string, unknown> }[] => [
    {
      name: "a parent term of another taxonomy (invalid_parent)",
      path: "/genres",
      body: { name: "Sonnets", parent: ids.shelf },
      status: 400,
      envelope: { code: "rest_term_invalid", message: `no genre term ${ids.shelf}`, data: { status: 400 } },
    },
    {
      name: "a duplicate term name (term_exists, with the existing term's id)",
      path: "/genres",
      body: { name: "Poetry" },
      status: 400,
      envelope: { code: "term_exists", message: "A term with the name provided already exists with this parent.", data: { status: 400, term_id: ids.genre } },
    },
    {
      name: "a slug another term has (duplicate_term_slug)",
      path: `/genres/${ids.genre}`,
      body: { slug: "fiction" },
      status: 400,
      envelope: { code: "duplicate_term_slug", message: 'The slug "fiction" is already in use by another term.', data: { status: 400 } },
    },
    { name: "an unknown term (not_found)", path: "/genres/987654", body: { slug: "x" }, status: 404, envelope: { code: "rest_term_invalid", message: "Term does not exist.", data: { status: 404 } } },
    { name: "an unknown post (not_found)", path: "/products/987654", body: {}, status: 404, envelope: { code: "rest_post_invalid_id", message: "Invalid post ID.", data: { status: 404 } } },
    {
      name: "a status the type does not allow (invalid_status)",
      path: "/products",
      body: { post: { status: "pending" } },
      status: 400,
      envelope: { code: "rest_status_invalid", message: "status pending is not allowed for product", data: { status: 400 } },
    },
    { name: "an unknown author (invalid_user)", path: "/products", body: { post: { author: 987654 } }, status: 400, envelope: { code: "rest_invalid_author", message: "Invalid author ID.", data: { status: 400 } } },
    { name: "an unknown parent post (invalid_parent)", path: "/products", body: { post: { parent: 987654 } }, status: 400, envelope: { code: "rest_post_invalid_id", message: "no post 987654", data: { status: 400 } } },
    {
      name: "a malformed date (invalid_date)",
      path: "/products",
      body: { post: { dateLocal: "next Tuesday" } },
      status: 400,
      envelope: { code: "rest_invalid_date", message: "dateLocal must be YYYY-MM-DD HH:MM:SS", data: { status: 400 } },
    },
    {
      name: "terms that do not exist (invalid_term)",
      path: "/products",
      body: { post: { terms: { genre: [987654] } } },
      status: 400,
      envelope: { code: "rest_term_invalid", message: "no such genre terms: 987654", data: { status: 400 } },
    },
    {
      name: "a taxonomy that does not exist (invalid_type)",
      path: "/products",
      body: { post: { terms: { nosuch: [1] } } },
      status: 400,
      envelope: { code: "rest_taxonomy_invalid", message: "unknown taxonomy: nosuch", data: { status: 400 } },
    },
    { name: "a post type that does not exist (invalid_type)", path: "/products", body: { type: "nosuch" }, status: 400, envelope: { code: "rest_type_invalid", message: "unknown post type: nosuch", data: { status: 400 } } },
    { name: "a field the type does not have (invalid_field)", path: "/products", body: { post: { fields: { colour: "red" } } }, status: 400, envelope: { code: "rest_invalid_field", message: "product has no field colour", data: { status: 400 } } },
    { name: "links to posts that do not exist (invalid_link)", path: "/products", body: { post: { links: { related: [987654] } } }, status: 400, envelope: { code: "rest_post_invalid_id", message: "no such posts: 987654", data: { status: 400 } } },
    { name: "a bad meta key (invalid_input)", path: "/products", body: { post: { meta: { "": "x" } } }, status: 400, envelope: { code: "rest_invalid_input", message: "bad meta key: ", data: { status: 400 } } },
    { name: "a taken login (existing_user_login)", path: "/users", body: { login: "shopkeeper" }, status: 400, envelope: { code: "existing_user_login", message: "Sorry, that username already exists!", data: { status: 400 } } },
    { name: "an unknown user (invalid_user)", path: "/users/987654/role", body: { role: "editor" }, status: 404, envelope: { code: "rest_user_invalid_id", message: "Invalid user ID.", data: { status: 404 } } },
    { name: "an unknown role (invalid_role)", path: "/users/1/role", body: { role: "overlord" }, status: 400, envelope: { code: "rest_user_invalid_role", message: "unknown role: overlord", data: { status: 400 } } },
  ];

  it("over HTTP: each refusal gets its status and envelope, is not logged, and writes nothing", async () => {
    const before = await t.site.engine.terms.find({ taxonomy: "genre" });
    for (const c of cases()) {
      const res = await t.post(`/wp-json/${NS}${c.path}`, { as: admin, json: c.body });
      expect(res.status, c.name).to.equal(c.status);
      expect(res.body, c.name).to.deep.equal(c.envelope);
    }
    expect(logged, "client mistakes are not server errors").to.deep.equal([]);
    const after = await t.site.engine.terms.find({ taxonomy: "genre" });
    expect(after.total).to.equal(before.total);
    expect((await t.site.engine.terms.get(ids.genre))?.slug).to.equal("poetry");
  });

  it("in a batch: each slot gets the same status and envelope", async () => {
    const list = cases();
    const res = await t.post("/wp-json/batch/v1", { as: admin, json: { requests: list.map((c) => ({ method: "POST", path: `/${NS}${c.path}`, body: c.body })) } });
    expect(res.status).to.equal(207);
    const slots = (res.body as { responses: { status: number; body: unknown }[] }).responses;
    expect(slots).to.have.length(list.length);
    list.forEach((c, i) => {
      expect(slots[i].status, c.name).to.equal(c.status);
      expect(slots[i].body, c.name).to.deep.equal(c.envelope);
    });
    expect(logged).to.deep.equal([]);
  });

  it("an EngineError whose code the table does not know is a server error: the generic 500, logged", async () => {
    const res = await t.post(`/wp-json/${NS}/made-up`, { as: admin, json: {} });
    expect(res.status).to.equal(500);
    expect(res.body).to.deep.equal({ code: "internal_server_error", message: "There has been a critical error on this website.", data: { status: 500 } });
    expect(logged).to.have.length(1);
    expect((logged[0].error as Error).message).to.equal("Not a code of the engine.");
  });

  it("the calendar's own mapping keeps precedence (its original's codes)", async () => {
    // The calendar answers a duplicate category itself, as the original does; the table would say the same here,
    // while an invalid parent is its rest_invalid_param naming `parent`, not the table's rest_term_invalid.
    const parent = await t.post("/wp-json/calendar/events/v1/categories", { as: admin, json: { name: "Jazz", parent: ids.shelf } });
    expect(parent.status).to.equal(400);
    expect(parent.body.code).to.equal("rest_invalid_param");
    expect(parent.body.data.params).to.have.property("parent");
  });
});

describe("routes: the EngineError table covers every code the engine throws", () => {
  it("each `new EngineError(\"code\"` in lib/ has a row", () => {
    const codes = new Set<string>();
    const walk = (dir: string): void => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(file);
        else if (file.endsWith(".ts")) for (const m of fs.readFileSync(file, "utf8").matchAll(/new EngineError\("([a-z_]+)"/g)) codes.add(m[1]);
      }
    };
    walk(path.join(__dirname, "../../lib"));
    expect(codes.size).to.be.above(10);
    for (const code of codes) expect(ENGINE_ERROR_ANSWERS, code).to.have.property(code);
  });
});
