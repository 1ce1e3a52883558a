/**
 * The generated controllers beyond what the WordPress vectors replay
 * (wordpress-vectors.test.ts): routes that follow registrations made after
 * the site started, `controller: false`, extensions (arguments, query,
 * records, permissions, fields, trash), conditional requests, `_embed` of a
 * parent, calpress's typed-field filters, hierarchical and page-attribute
 * types, the featured image, the users route an author link embeds, and
 * the namespace's OpenAPI document. Over HTTP, on every database.
 */
import { expect } from "chai";
import { forEachDatabase, type TestDatabase } from "../support/databases";
import { startTestSite, type Credentials, type TestSite } from "../support/site";
import { registerJobBoard } from "../../examples/job-board";
import type { RoleName } from "../../lib/users/types";

const ROLES: RoleName[] = ["administrator", "editor", "author", "contributor", "subscriber"];

forEachDatabase("generated controllers", (target) => {
  let db: TestDatabase;
  let t: TestSite;
  const as: Record<RoleName, Credentials> = {} as Record<RoleName, Credentials>;
  const term: Record<string, number> = {};

  before(async () => {
    db = await target.create();
    t = await startTestSite({ target: db.target, calendar: false, pages: false, timezone: "Europe/Rome" });
    for (const role of ROLES) {
      const user = await t.site.engine.users.ensure({ login: role, role, displayName: `The ${role}` });
      await t.site.engine.users.addAppPassword(user.id, "test", `${role}-pass-1234`);
      as[role] = { login: role, password: `${role}-pass-1234` };
    }
    // Registered after the site started, as a host does.
    registerJobBoard(t.site);
    await t.site.migrate();
    for (const [name, taxonomy, parent] of [
      ["Engineering", "department", undefined],
      ["Backend", "department", "Engineering"],
      ["Sales", "department", undefined],
      ["TypeScript", "skill", undefined],
      ["SQL", "skill", undefined],
    ] as const) {
      term[name] = (await t.site.engine.terms.create({ taxonomy, name, parent: parent ? term[parent] : undefined })).id;
    }
  });

  after(async () => {
    await t?.close();
    await db?.drop();
  });

  const create = async (body: Record<string, unknown>, who: RoleName = "administrator") => {
    const res = await t.post("/wp-json/wp/v2/jobs", { as: as[who], json: body });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body as { id: number; [key: string]: unknown };
  };

  describe("routes follow the registry", () => {
    it("gives a type registered after the site started its routes, and refreshes them when a taxonomy of it is added", async () => {
      const engine = t.site.engine;
      engine.registerPostType("recipe", { rest: { namespace: "kitchen/v1", base: "recipes" }, fields: { minutes: { type: "integer" } } });
      await t.site.migrate();
      const before = await t.get("/wp-json/kitchen/v1/recipes", { query: { _fields: "id" } });
      expect(before.status).to.equal(200);
      expect((await t.request("OPTIONS", "/wp-json/kitchen/v1/recipes")).body.endpoints[0].args).to.not.have.property("cuisines");
      engine.registerTaxonomy("cuisine", { objectTypes: ["recipe"], rest: { namespace: "kitchen/v1", base: "cuisines" } });
      const cuisine = await engine.terms.create({ taxonomy: "cuisine", name: "Italian" });
      const list = await t.request("OPTIONS", "/wp-json/kitchen/v1/recipes");
      expect(list.body.endpoints[0].args).to.include.keys("cuisines", "cuisines_exclude", "tax_relation", "minutes", "minutes_min", "minutes_max");
      const made = await t.post("/wp-json/kitchen/v1/recipes", { as: as.administrator, json: { title: "Risotto", status: "publish", cuisines: [cuisine.id], meta: { minutes: 40 } } });
      expect(made.status, JSON.stringify(made.body)).to.equal(201);
      expect(made.body).to.deep.include({ cuisines: [cuisine.id], meta: { minutes: 40 } });
      // The term's links name the type's collection, filtered by the term.
      const italian = await t.get(`/wp-json/kitchen/v1/cuisines/${cuisine.id}`);
      expect(italian.body._links["wp:post_type"]).to.deep.equal([{ href: `${t.root}kitchen/v1/recipes?cuisines=${cuisine.id}` }]);
      expect((await t.get("/wp-json/kitchen/v1/recipes", { query: { cuisines: cuisine.id, _fields: "id" } })).body).to.deep.equal([{ id: made.body.id }]);
    });

    it("generates nothing for a type or taxonomy with controller: false, and still shows it in /wp/v2/types", async () => {
      t.site.engine.registerPostType("memo", { rest: { namespace: "memos/v1", base: "memos", controller: false } });
      t.site.engine.registerTaxonomy("memo_tag", { objectTypes: ["memo"], rest: { namespace: "memos/v1", base: "memo-tags", controller: false } });
      expect((await t.get("/wp-json/memos/v1/memos")).body.code).to.equal("rest_no_route");
      expect((await t.get("/wp-json/memos/v1/memo-tags")).body.code).to.equal("rest_no_route");
      expect(t.site.controllers.generates("postType", "memo")).to.equal(false);
      expect(t.site.controllers.generates("postType", "job")).to.equal(true);
      expect((await t.get("/wp-json/wp/v2/types/memo")).body).to.include({ rest_base: "memos", rest_namespace: "memos/v1" });
    });
  });

  describe("records and lists", () => {
    it("shows typed fields under meta, with WordPress's empty values, and filters and sorts by them", async () => {
      const a = await create({ title: "Low pay", status: "publish", meta: { salary: 30000, remote: true, closes: "2030-01-31T18:00:00+01:00" } });
      const b = await create({ title: "High pay", status: "publish", meta: { salary: 90000 } });
      const c = await create({ title: "No pay given", status: "publish" });
      expect(c.meta).to.deep.equal({ salary: 0, remote: false, hours: 0, location: "", apply_url: "", closes: null });
      // A date with an offset is stored as site time (Rome is UTC+1 in January).
      expect((a.meta as { closes: string }).closes).to.equal("2030-01-31 18:00:00");
      const ids = async (query: Record<string, string | number>) => (await t.get("/wp-json/wp/v2/jobs", { query: { _fields: "id", per_page: 100, ...query } })).body.map((r: { id: number }) => r.id);
      expect(await ids({ salary: 90000 })).to.deep.equal([b.id]);
      expect(await ids({ salary_min: 30000, salary_max: 50000 })).to.deep.equal([a.id]);
      // false also matches a field never set, which records show as false.
      expect(await ids({ remote: "false", include: `${a.id},${b.id},${c.id}` })).to.have.members([b.id, c.id]);
      expect(await ids({ remote: "true" })).to.deep.equal([a.id]);
      expect(await ids({ closes_max: "2030-12-31T00:00:00" })).to.deep.equal([a.id]);
      expect(await ids({ orderby: "salary", order: "asc", include: `${a.id},${b.id},${c.id}` })).to.deep.equal([c.id, a.id, b.id]);
      const bad = await t.get("/wp-json/wp/v2/jobs", { query: { salary_min: "lots" } });
      expect(bad.status).to.equal(400);
      expect(bad.body.data.params).to.have.property("salary_min");
    });

    it("combines taxonomy filters with tax_relation, include_children and operator", async () => {
      const backend = await create({ title: "Backend dev", status: "publish", departments: [term.Backend], skills: [term.SQL] });
      const sales = await create({ title: "Seller", status: "publish", departments: [term.Sales], skills: [term.TypeScript] });
      const ids = async (query: Record<string, string | number>) =>
        (await t.get(`/wp-json/wp/v2/jobs?${new URLSearchParams({ _fields: "id", per_page: "100", ...Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])) })}`)).body.map((r: { id: number }) => r.id).sort();
      expect(await ids({ departments: term.Engineering })).to.deep.equal([]);
      expect(await ids({ "departments[terms]": term.Engineering, "departments[include_children]": "true" })).to.deep.equal([backend.id]);
      expect(await ids({ departments: term.Backend, skills: term.TypeScript, tax_relation: "OR" })).to.deep.equal([backend.id, sales.id].sort());
      expect(await ids({ departments: term.Backend, skills: term.TypeScript })).to.deep.equal([]);
      expect(await ids({ "skills[terms]": `${term.SQL},${term.TypeScript}`, "skills[operator]": "AND" })).to.deep.equal([]);
      expect(await ids({ departments_exclude: term.Sales, include: `${backend.id},${sales.id}` })).to.deep.equal([backend.id]);
    });

    it("orders search results by relevance: the whole search in the title first", async () => {
      const inContent = await create({ title: "Analyst", content: "<p>Work with the data platform team.</p>", status: "publish" });
      const inTitle = await create({ title: "Data platform lead", status: "publish", date: "2020-01-01T10:00:00" });
      const words = await create({ title: "Platform for data", status: "publish" });
      const res = await t.get("/wp-json/wp/v2/jobs", { query: { search: "data platform", orderby: "relevance", _fields: "id" } });
      expect(res.body.map((r: { id: number }) => r.id)).to.deep.equal([inTitle.id, words.id, inContent.id]);
    });

    it("embeds a parent (up) for a hierarchical type, and the author's public record", async () => {
      t.site.engine.registerPostType("chapter", { rest: { namespace: "books/v1", base: "chapters" }, hierarchical: true, supports: ["title", "author", "page-attributes", "thumbnail"] });
      await t.site.migrate();
      const parent = await t.post("/wp-json/books/v1/chapters", { as: as.editor, json: { title: "Part one", status: "publish", menu_order: 1 } });
      const child = await t.post("/wp-json/books/v1/chapters", { as: as.editor, json: { title: "Chapter one", status: "publish", parent: parent.body.id, menu_order: 2 } });
      expect(child.body).to.include({ parent: parent.body.id, menu_order: 2 });
      const missingParent = await t.post("/wp-json/books/v1/chapters", { as: as.editor, json: { title: "Orphan", parent: 99999 } });
      expect(missingParent.status).to.equal(400);
      expect(missingParent.body.code).to.equal("rest_post_invalid_id");
      const read = await t.get(`/wp-json/books/v1/chapters/${child.body.id}`, { query: { _embed: "1" } });
      expect(read.body._links.up).to.deep.equal([{ embeddable: true, href: `${t.root}books/v1/chapters/${parent.body.id}` }]);
      expect(read.body._embedded.up[0]).to.include({ id: parent.body.id, slug: "part-one" });
      // The embed context: what WordPress shows in it, nothing more.
      expect(read.body._embedded.up[0]).to.not.have.property("menu_order");
      expect(read.body._embedded.author[0]).to.include({ name: "The editor", slug: "editor" });
      expect(read.body._embedded.author[0]).to.not.have.property("email");
      // Filters of a hierarchical type, and of page-attributes.
      expect((await t.get("/wp-json/books/v1/chapters", { query: { parent: parent.body.id, _fields: "id" } })).body).to.deep.equal([{ id: child.body.id }]);
      expect((await t.get("/wp-json/books/v1/chapters", { query: { menu_order: 1, _fields: "id" } })).body).to.deep.equal([{ id: parent.body.id }]);
      // A featured image must be a media post.
      const notMedia = await t.request("PATCH", `/wp-json/books/v1/chapters/${child.body.id}`, { as: as.editor, json: { featured_media: parent.body.id } });
      expect(notMedia.body.code).to.equal("rest_invalid_featured_media");
    });

    it("answers /wp/v2/users/<id> for authors of published posts, and refuses others to users who may not list users", async () => {
      const users = await t.site.engine.users.find({});
      const id = (login: string) => users.users.find((u) => u.login === login)!.id;
      expect((await t.get(`/wp-json/wp/v2/users/${id("editor")}`)).status).to.equal(200);
      const nobody = await t.get(`/wp-json/wp/v2/users/${id("subscriber")}`);
      expect(nobody.status).to.equal(401);
      expect(nobody.body.code).to.equal("rest_user_cannot_view");
      expect((await t.get(`/wp-json/wp/v2/users/${id("subscriber")}`, { as: as.subscriber })).status).to.equal(200);
      expect((await t.get(`/wp-json/wp/v2/users/${id("subscriber")}`, { as: as.administrator })).status).to.equal(200);
      expect((await t.get("/wp-json/wp/v2/users/99999")).body.code).to.equal("rest_user_invalid_id");
    });
  });

  describe("writes", () => {
    it("guards an update with If-Match: the tag of the read, 412 when stale", async () => {
      const job = await create({ title: "Guarded", status: "publish" });
      const read = await t.get(`/wp-json/wp/v2/jobs/${job.id}`, { as: as.administrator, query: { context: "edit" } });
      const tag = read.headers.get("etag")!;
      expect(tag).to.match(/^"/);
      const ok = await t.request("PATCH", `/wp-json/wp/v2/jobs/${job.id}`, { as: as.administrator, query: { context: "edit" }, headers: { "if-match": tag }, json: { title: "Guarded once" } });
      expect(ok.status).to.equal(200);
      const stale = await t.request("PATCH", `/wp-json/wp/v2/jobs/${job.id}`, { as: as.administrator, query: { context: "edit" }, headers: { "if-match": tag }, json: { title: "Lost update" } });
      expect(stale.status).to.equal(412);
      expect((await t.get(`/wp-json/wp/v2/jobs/${job.id}`)).body.title.rendered).to.equal("Guarded once");
      // A read that changed nothing revalidates.
      const again = await t.get(`/wp-json/wp/v2/jobs/${job.id}`);
      expect((await t.get(`/wp-json/wp/v2/jobs/${job.id}`, { headers: { "if-none-match": again.headers.get("etag")! } })).status).to.equal(304);
    });

    it("shows an anonymous list the write that just happened (kept answers follow the data)", async () => {
      const first = await t.get("/wp-json/wp/v2/jobs", { query: { search: "Freshness", _fields: "id" } });
      expect(first.body).to.deep.equal([]);
      const job = await create({ title: "Freshness check", status: "publish" });
      expect((await t.get("/wp-json/wp/v2/jobs", { query: { search: "Freshness", _fields: "id" } })).body).to.deep.equal([{ id: job.id }]);
      await t.request("DELETE", `/wp-json/wp/v2/jobs/${job.id}`, { as: as.administrator });
      expect((await t.get("/wp-json/wp/v2/jobs", { query: { search: "Freshness", _fields: "id" } })).body).to.deep.equal([]);
    });

    it("writes through batch/v1 as the batch's user, each slot with its own permission", async () => {
      const res = await t.post("/wp-json/batch/v1", {
        as: as.contributor,
        json: {
          requests: [
            { path: "/wp/v2/jobs", body: { title: "Batch draft" } },
            { path: "/wp/v2/jobs", body: { title: "Batch publish", status: "publish" } },
          ],
        },
      });
      expect(res.status).to.equal(207);
      expect(res.body.responses.map((r: { status: number }) => r.status)).to.deep.equal([201, 403]);
      expect(res.body.responses[1].body.code).to.equal("rest_cannot_publish");
    });
  });

  describe("extensions", () => {
    it("change a generated route without writing it: arguments, query, records, permissions, fields, trash", async () => {
      let note = "";
      t.site.controllers.extendPostType("job", {
        args: { list: { remote_only: { type: "boolean", description: "Only remote jobs." } } },
        query: (query, req) => (req.params.remote_only === true ? { ...query, where: [...(query.where ?? []), { field: "remote", op: "=", value: true }] } : query),
        prepare: (record, post) => ({ ...record, band: Number(post.fields.salary) >= 80000 ? "high" : "standard" }),
        permission: { delete: async (req, original) => (req.user?.role === "editor" ? false : original()) },
        fields: {
          note: { get: () => note, update: (value) => void (note = String(value)), schema: { type: "string", description: "A note kept by the extension.", context: ["view", "edit"] } },
        },
        trashable: (post) => post.title !== "Never trashed",
      });
      const remote = await create({ title: "Remote job", status: "publish", meta: { remote: true, salary: 85000 }, note: "hello" });
      expect(note).to.equal("hello");
      expect(remote).to.include({ band: "high", note: "hello" });
      const list = await t.get("/wp-json/wp/v2/jobs", { query: { remote_only: "true", per_page: 100, _fields: "id,band" } });
      expect(list.body.every((r: { id: number }) => r.id > 0)).to.equal(true);
      expect(list.body.map((r: { id: number }) => r.id)).to.include(remote.id);
      const all = await t.get("/wp-json/wp/v2/jobs", { query: { per_page: 100, _fields: "id" } });
      expect(all.body.length).to.be.greaterThan(list.body.length);
      expect((await t.get("/wp-json/wp/v2/jobs", { query: { remote_only: "maybe" } })).status).to.equal(400);
      // The extension's permission: editors may not delete jobs, whoever wrote them.
      const denied = await t.request("DELETE", `/wp-json/wp/v2/jobs/${remote.id}`, { as: as.editor });
      expect(denied.status).to.equal(403);
      const never = await create({ title: "Never trashed", status: "publish" });
      const trash = await t.request("DELETE", `/wp-json/wp/v2/jobs/${never.id}`, { as: as.administrator });
      expect(trash.status).to.equal(501);
      expect(trash.body.code).to.equal("rest_trash_not_supported");
      expect((await t.request("DELETE", `/wp-json/wp/v2/jobs/${never.id}`, { as: as.administrator, query: { force: "true" } })).body.deleted).to.equal(true);
      // Extending a taxonomy: its records too.
      t.site.controllers.extendTaxonomy("skill", { prepare: (record, skill) => ({ ...record, shout: skill.name.toUpperCase() }) });
      expect((await t.get(`/wp-json/wp/v2/skills/${term.SQL}`)).body.shout).to.equal("SQL");
    });
  });

  describe("documentation", () => {
    it("describes every generated route in the namespace's OpenAPI document, with arguments and record schemas", async () => {
      const doc = await t.get("/wp-json/kitchen/v1/doc");
      expect(doc.status).to.equal(200);
      const list = doc.body.paths["/recipes"].get;
      expect(list.parameters.map((p: { name: string }) => p.name)).to.include.members(["context", "page", "per_page", "search", "status", "cuisines", "minutes_min"]);
      expect(list.parameters.every((p: { description: string }) => p.description !== "")).to.equal(true);
      const schema = list.responses["200"].content["application/json"].schema;
      expect(schema.items.properties).to.include.keys("id", "title", "meta", "cuisines");
      expect(doc.body.paths["/recipes/{id}"]).to.include.keys("get", "post", "delete");
    });
  });
});
