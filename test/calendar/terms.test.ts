/**
 * Categories and tags (calendar-api.md §6, §1.2): every list argument and
 * its validation, single reads, create/update/delete with permissions,
 * hierarchy and counts, on every database.
 */
import { expect } from "chai";
import type { PostInput } from "../../lib/posts/types";
import { forEachDatabase, type TestDatabase } from "../support/databases";
import { startTestSite, type TestSite } from "../support/site";
import type { Fixture } from "../../lib/fixtures";

const USERS = [
  { login: "admin", role: "administrator", app_password: "admin-pass" },
  { login: "editor", role: "editor", app_password: "editor-pass" },
  { login: "author", role: "author", app_password: "author-pass" },
  { login: "contributor", role: "contributor", app_password: "contributor-pass" },
  { login: "subscriber", role: "subscriber", app_password: "subscriber-pass" },
] as const;

const FIXTURE: Fixture = { version: 1, name: "terms", options: { default_language: "en", posts_per_page: 10 }, users: [...USERS] };
const CAT = "calendar_events_cat";
const TAG = "post_tag";

forEachDatabase("categories and tags routes", (target) => {
  let db: TestDatabase;
  let ts: TestSite;
  const t: Record<string, number> = {};
  const e: Record<string, number> = {};

  const term = async (key: string, taxonomy: string, name: string, extra: { parent?: string; description?: string; language?: string } = {}): Promise<void> => {
    const created = await ts.site.engine.terms.create({
      taxonomy,
      name,
      description: extra.description,
      parent: extra.parent ? t[extra.parent] : undefined,
      language: extra.language,
    });
    t[key] = created.id;
  };
  const event = async (key: string, status: PostInput["status"], cats: string[], tags: string[]): Promise<void> => {
    const post = await ts.site.engine.posts.create({
      type: "event",
      title: key,
      status,
      fields: { start_local: "2030-01-01 10:00:00", end_local: "2030-01-01 11:00:00", start_utc: "2030-01-01 10:00:00", end_utc: "2030-01-01 11:00:00", timezone: "UTC" },
      terms: { [CAT]: cats.map((k) => t[k]), [TAG]: tags.map((k) => t[k]) },
    });
    e[key] = post.id;
  };
  const catNames = (body: { categories: Array<{ name: string }> }): string[] => body.categories.map((c) => c.name);
  const tagNames = (body: { tags: Array<{ name: string }> }): string[] => body.tags.map((c) => c.name);

  before(async () => {
    db = await target.create();
    ts = await startTestSite({ target: db.target, fixture: FIXTURE });
    await term("music", CAT, "Music", { description: "Concerts of all kinds." });
    await term("jazz", CAT, "Jazz", { parent: "music" });
    await term("bebop", CAT, "Bebop", { parent: "jazz" });
    await term("arts", CAT, "Arts");
    await term("empty", CAT, "Empty Category");
    await term("drafty", CAT, "Drafty");
    await term("musique", CAT, "Musique", { language: "fr" });
    await term("free", TAG, "free");
    await term("outdoor", TAG, "outdoor");
    await term("unused", TAG, "unused");
    await event("concert", "publish", ["music", "jazz"], ["free"]);
    await event("expo", "publish", ["arts", "bebop"], ["free", "outdoor"]);
    await event("draft", "draft", ["drafty"], ["unused"]);
    await event("fr", "publish", ["musique"], []);
  });

  after(async () => {
    await ts?.close();
    await db?.drop();
  });

  describe("GET /categories and /tags", () => {
    it("lists non-empty terms by name with the envelope, bare rest_url and headers", async () => {
      const res = await ts.get("/categories");
      expect(res.status).to.equal(200);
      expect(Object.keys(res.body)).to.deep.equal(["rest_url", "total", "total_pages", "categories"]);
      expect(res.body.rest_url).to.equal(`${ts.ns}/categories/`);
      expect(catNames(res.body)).to.deep.equal(["Arts", "Bebop", "Jazz", "Music"]);
      expect(res.body.total).to.equal(4);
      expect(res.headers.get("x-cal-total")).to.equal("4");
      expect(res.headers.get("x-cal-totalpages")).to.equal("1");
      const jazz = res.body.categories.find((c: { id: number }) => c.id === t.jazz);
      expect(jazz).to.deep.equal({
        id: t.jazz,
        count: 1,
        description: "",
        name: "Jazz",
        slug: "jazz",
        taxonomy: CAT,
        parent: t.music,
        meta: [],
        url: `${ts.home}/events/category/music/jazz/`,
        urls: { self: `${ts.ns}/categories/${t.jazz}`, collection: `${ts.ns}/categories`, up: `${ts.ns}/categories/${t.music}` },
      });
      const bebop = res.body.categories.find((c: { id: number }) => c.id === t.bebop);
      expect(bebop.url).to.equal(`${ts.home}/events/category/music/jazz/bebop/`);
      const tags = await ts.get("/tags");
      expect(tags.body.rest_url).to.equal(`${ts.ns}/tags/`);
      expect(tagNames(tags.body)).to.deep.equal(["free", "outdoor"]);
      const free = tags.body.tags[0];
      expect(free).to.deep.equal({
        id: t.free,
        count: 2,
        description: "",
        name: "free",
        slug: "free",
        taxonomy: TAG,
        meta: [],
        url: `${ts.home}/tag/free/`,
        urls: { self: `${ts.ns}/tags/${t.free}`, collection: `${ts.ns}/tags` },
      });
    });

    it("hide_empty=false shows every term; counts are published events only", async () => {
      const res = await ts.get("/categories", { query: { hide_empty: "false" } });
      expect(catNames(res.body)).to.deep.equal(["Arts", "Bebop", "Drafty", "Empty Category", "Jazz", "Music"]);
      expect(res.body.categories.find((c: { id: number }) => c.id === t.drafty).count).to.equal(0);
      expect(tagNames((await ts.get("/tags", { query: { hide_empty: 0 } })).body)).to.deep.equal(["free", "outdoor", "unused"]);
      expect((await ts.get("/tags", { query: { hide_empty: "maybe" } })).status).to.equal(400);
    });

    it("pages without ever answering 404", async () => {
      const p1 = await ts.get("/categories", { query: { hide_empty: "false", per_page: 4 } });
      expect(p1.body.total).to.equal(6);
      expect(p1.body.total_pages).to.equal(2);
      expect(Object.keys(p1.body)).to.deep.equal(["rest_url", "total", "total_pages", "categories", "next_rest_url"]);
      expect(new URL(p1.body.next_rest_url).searchParams.get("page")).to.equal("2");
      const p2 = await ts.get("/categories", { query: { hide_empty: "false", per_page: 4, page: 2 } });
      expect(catNames(p2.body)).to.deep.equal(["Jazz", "Music"]);
      expect(new URL(p2.body.previous_rest_url).searchParams.has("page")).to.equal(false);
      const p9 = await ts.get("/categories", { query: { page: 9 } });
      expect(p9.status).to.equal(200);
      expect(p9.body.categories).to.deep.equal([]);
      expect(p9.body.total).to.equal(4);
      expect((await ts.get("/categories", { query: { per_page: 0 } })).status).to.equal(400);
      expect((await ts.get("/tags", { query: { page: "foo" } })).status).to.equal(400);
    });

    it("search: name or slug contains, case-insensitive; empty → 400", async () => {
      expect(catNames((await ts.get("/categories", { query: { search: "JAZ" } })).body)).to.deep.equal(["Jazz"]);
      expect(catNames((await ts.get("/categories", { query: { search: "empty-cat", hide_empty: "0" } })).body)).to.deep.equal(["Empty Category"]);
      expect((await ts.get("/categories", { query: { search: "" } })).status).to.equal(400);
    });

    it("include and exclude: existing IDs of the taxonomy, as arrays or comma strings", async () => {
      expect(catNames((await ts.get("/categories", { query: { include: `${t.jazz},${t.arts}` } })).body)).to.deep.equal(["Arts", "Jazz"]);
      expect(catNames((await ts.get("/categories", { query: { include: [t.jazz, t.music] } })).body)).to.deep.equal(["Jazz", "Music"]);
      expect(catNames((await ts.get("/categories", { query: { exclude: `${t.jazz}, ${t.arts}` } })).body)).to.deep.equal(["Bebop", "Music"]);
      for (const bad of ["999999", `${t.jazz},999999`, String(t.free), "foo"]) {
        const inc = await ts.get("/categories", { query: { include: bad } });
        expect(inc.status, bad).to.equal(400);
        expect(inc.body.data.params).to.have.property("include");
        expect((await ts.get("/categories", { query: { exclude: bad } })).status, bad).to.equal(400);
      }
      expect((await ts.get("/tags", { query: { include: String(t.music) } })).status).to.equal(400);
    });

    it("order and orderby", async () => {
      expect(catNames((await ts.get("/categories", { query: { order: "DESC" } })).body)).to.deep.equal(["Music", "Jazz", "Bebop", "Arts"]);
      expect(catNames((await ts.get("/categories", { query: { order: "whatever" } })).body)).to.deep.equal(["Music", "Jazz", "Bebop", "Arts"]);
      expect(catNames((await ts.get("/categories", { query: { order: "Asc" } })).body)).to.deep.equal(["Arts", "Bebop", "Jazz", "Music"]);
      expect((await ts.get("/categories", { query: { order: "" } })).status).to.equal(400);
      const byId = await ts.get("/categories", { query: { orderby: "id" } });
      expect(byId.body.categories.map((c: { id: number }) => c.id)).to.deep.equal([t.music, t.jazz, t.bebop, t.arts]);
      const byTermIdDesc = await ts.get("/categories", { query: { orderby: "term_id", order: "desc" } });
      expect(byTermIdDesc.body.categories.map((c: { id: number }) => c.id)).to.deep.equal([t.arts, t.bebop, t.jazz, t.music]);
      expect(catNames((await ts.get("/categories", { query: { orderby: "unknown" } })).body)).to.deep.equal(["Arts", "Bebop", "Jazz", "Music"]);
      expect(tagNames((await ts.get("/tags", { query: { orderby: "count", order: "desc" } })).body)).to.deep.equal(["free", "outdoor"]);
      expect((await ts.get("/categories", { query: { orderby: "" } })).status).to.equal(400);
    });

    it("parent (categories only): direct children of an existing category", async () => {
      expect(catNames((await ts.get("/categories", { query: { parent: t.music } })).body)).to.deep.equal(["Jazz"]);
      expect(catNames((await ts.get("/categories", { query: { parent: t.jazz } })).body)).to.deep.equal(["Bebop"]);
      for (const bad of ["0", "", "999999", "foo", String(t.free)]) {
        const res = await ts.get("/categories", { query: { parent: bad } });
        expect(res.status, bad).to.equal(400);
        expect(res.body.data.params).to.have.property("parent");
      }
      // Tags declare no parent: the parameter is ignored.
      expect((await ts.get("/tags", { query: { parent: "999999" } })).status).to.equal(200);
    });

    it("post and event: the terms of an existing event; event wins", async () => {
      const notAnEvent = (await ts.site.engine.posts.create({ type: "venue", status: "publish", title: "Not An Event" })).id;
      expect(catNames((await ts.get("/categories", { query: { post: e.concert } })).body)).to.deep.equal(["Jazz", "Music"]);
      expect(tagNames((await ts.get("/tags", { query: { event: e.expo } })).body)).to.deep.equal(["free", "outdoor"]);
      expect(catNames((await ts.get("/categories", { query: { post: e.concert, event: e.expo } })).body)).to.deep.equal(["Arts", "Bebop"]);
      for (const name of ["post", "event"]) {
        for (const bad of ["", "999999", "foo", String(notAnEvent)]) {
          const res = await ts.get("/categories", { query: { [name]: bad } });
          expect(res.status, `${name}=${bad}`).to.equal(400);
          expect(res.body.data.params).to.have.property(name);
        }
      }
      // A draft is no event to a reader who may not read it: the 400 of a missing ID (test/calendar/filter-visibility.test.ts).
      expect((await ts.get("/categories", { query: { post: e.draft } })).status).to.equal(400);
      // To an editor its terms are empty (count 0) and so hidden unless asked.
      expect((await ts.get("/categories", { query: { post: e.draft }, as: "editor" })).body.categories).to.deep.equal([]);
      expect(catNames((await ts.get("/categories", { query: { post: e.draft, hide_empty: "false" }, as: "editor" })).body)).to.deep.equal(["Drafty"]);
    });

    it("slug: exact slug; empty → 400", async () => {
      expect(catNames((await ts.get("/categories", { query: { slug: "jazz" } })).body)).to.deep.equal(["Jazz"]);
      expect((await ts.get("/categories", { query: { slug: "jaz" } })).body.total).to.equal(0);
      expect((await ts.get("/tags", { query: { slug: "" } })).status).to.equal(400);
    });

    it("combines arguments", async () => {
      const res = await ts.get("/categories", { query: { include: `${t.music},${t.jazz},${t.bebop},${t.arts},${t.drafty}`, exclude: String(t.arts), orderby: "slug", order: "desc" } });
      expect(catNames(res.body)).to.deep.equal(["Music", "Jazz", "Bebop"]);
      const searched = await ts.get("/categories", { query: { search: "s", hide_empty: "false", parent: t.music } });
      expect(catNames(searched.body)).to.deep.equal([]);
      expect(catNames((await ts.get("/categories", { query: { search: "s", order: "desc" } })).body)).to.deep.equal(["Music", "Arts"]);
    });

    it("i18n_language: only terms of that language", async () => {
      expect(catNames((await ts.get("/categories", { query: { i18n_language: "fr" } })).body)).to.deep.equal(["Musique"]);
      expect((await ts.get("/tags", { query: { i18n_language: "fr" } })).body.total).to.equal(0);
      expect((await ts.get("/tags", { query: { i18n_language: "xx" } })).status).to.equal(400);
    });
  });

  describe("GET /categories/{id}, /tags/{id}", () => {
    it("reads a term; 400 for other IDs, 404 for non-digits", async () => {
      const res = await ts.get(`/categories/${t.music}`);
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ id: t.music, name: "Music", description: "Concerts of all kinds.", parent: 0, count: 1 });
      expect(res.body.urls).to.not.have.property("up");
      expect((await ts.get(`/tags/${t.free}`)).body).to.not.have.property("parent");
      for (const bad of [t.free, 999999, 0]) {
        const r = await ts.get(`/categories/${bad}`);
        expect(r.status, String(bad)).to.equal(400);
        expect(r.body.code).to.equal("rest_invalid_param");
      }
      expect((await ts.get(`/tags/${t.music}`)).status).to.equal(400);
      expect((await ts.get("/categories/foo")).status).to.equal(404);
      expect((await ts.get(`/categories/${t.musique}`)).body.name).to.equal("Musique");
    });
  });

  describe("POST /categories, /tags", () => {
    it("permissions: categories for authors and up, tags for editors and up", async () => {
      expect((await ts.post("/categories", { json: { name: "Anon Cat" } })).status).to.equal(401);
      for (const who of ["subscriber", "contributor"]) {
        const res = await ts.post("/categories", { as: who, json: { name: `${who} Cat` } });
        expect(res.status, who).to.equal(403);
        expect(res.body.code).to.equal("rest_forbidden");
      }
      expect((await ts.post("/categories", { as: "author", json: { name: "Author Cat" } })).status).to.equal(201);
      expect((await ts.post("/tags", { as: "author", json: { name: "author tag" } })).status).to.equal(403);
      expect((await ts.post("/tags", { as: "contributor", json: { name: "contrib tag" } })).status).to.equal(403);
      expect((await ts.post("/tags", { json: { name: "anon tag" } })).status).to.equal(401);
      const tag = await ts.post("/tags", { as: "editor", json: { name: "editor tag" } });
      expect(tag.status).to.equal(201);
      expect(tag.headers.get("location")).to.equal(`${ts.ns}/tags/${tag.body.id}`);
      expect(tag.body).to.include({ name: "editor tag", slug: "editor-tag", count: 0, taxonomy: TAG });
    });

    it("creates with every field; slug from the name, made unique", async () => {
      const res = await ts.post("/categories", { as: "editor", json: { name: "  Rock & Roll  ", description: "Loud.", parent: t.music } });
      expect(res.status).to.equal(201);
      expect(res.headers.get("location")).to.equal(`${ts.ns}/categories/${res.body.id}`);
      expect(res.body).to.include({ description: "Loud.", slug: "rock-roll", parent: t.music, count: 0, taxonomy: CAT });
      expect(res.body.url).to.equal(`${ts.home}/events/category/music/rock-roll/`);
      const slugged = await ts.post("/categories", { as: "editor", form: { name: "Other Name", slug: "Rock Roll" } });
      expect(slugged.body.slug).to.equal("rock-roll-2");
      // A child whose slug is taken first gets <slug>-<parent slug>.
      const child = await ts.post("/categories", { as: "editor", json: { name: "Jazz Child", slug: "jazz", parent: t.arts } });
      expect(child.body.slug).to.equal("jazz-arts");
    });

    it("validates fields: \"\" for any, bad parents", async () => {
      for (const json of [{ name: "" }, { name: "X", description: "" }, { name: "X", slug: "" }, { name: "X", parent: "" }, { name: "X", parent: 2389 }, { name: "X", parent: "foo" }, { name: "x".repeat(201) }]) {
        const res = await ts.post("/categories", { as: "admin", json });
        expect(res.status, JSON.stringify(json)).to.equal(400);
        expect(res.body.code).to.equal("rest_invalid_param");
      }
      expect((await ts.post("/categories", { as: "admin", json: {} })).body.code).to.equal("rest_missing_callback_param");
      expect((await ts.post("/categories", { as: "admin", json: { name: "Tag Parent", parent: t.free } })).status).to.equal(400);
    });

    it("term_exists for the same name at the same level, with data.term_id", async () => {
      const res = await ts.post("/categories", { as: "admin", json: { name: "music" } });
      expect(res.status).to.equal(400);
      expect(res.body.code).to.equal("term_exists");
      expect(res.body.data.term_id).to.equal(t.music);
      // Another level is fine.
      const nested = await ts.post("/categories", { as: "admin", json: { name: "Music", parent: t.arts } });
      expect(nested.status).to.equal(201);
      expect(nested.body.slug).to.equal("music-arts");
      const tag = await ts.post("/tags", { as: "admin", json: { name: "FREE" } });
      expect(tag.body.code).to.equal("term_exists");
      expect(tag.body.data.term_id).to.equal(t.free);
    });

    it("new terms get the request's language", async () => {
      const res = await ts.post("/tags", { as: "admin", json: { name: "kostenlos", i18n_language: "de" } });
      expect(res.status).to.equal(201);
      expect((await ts.get("/tags", { query: { i18n_language: "de", hide_empty: "false" } })).body.tags.map((x: { id: number }) => x.id)).to.deep.equal([res.body.id]);
    });
  });

  describe("POST|PUT|PATCH /categories/{id}, /tags/{id}", () => {
    it("updates fields with the same rules and permissions", async () => {
      const cat = await ts.post("/categories", { as: "admin", json: { name: "Changeable" } });
      const id = cat.body.id;
      const res = await ts.request("PATCH", `/categories/${id}`, { as: "editor", json: { name: "Changed", description: "Now described.", parent: t.arts } });
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ name: "Changed", description: "Now described.", parent: t.arts, slug: "changeable" });
      const slug = await ts.request("PUT", `/categories/${id}`, { as: "author", json: { slug: "Brand New" } });
      expect(slug.body.slug).to.equal("brand-new");
      for (const who of ["subscriber", "contributor"]) expect((await ts.post(`/categories/${id}`, { as: who, json: { name: "No" } })).status, who).to.equal(403);
      expect((await ts.post(`/categories/${id}`, { json: { name: "No" } })).status).to.equal(401);
      for (const json of [{ name: "" }, { description: "" }, { slug: "" }, { parent: 999999 }]) {
        expect((await ts.post(`/categories/${id}`, { as: "admin", json })).status, JSON.stringify(json)).to.equal(400);
      }
      expect((await ts.post(`/categories/${id}`, { as: "admin", json: { parent: id } })).status).to.equal(400);
      expect((await ts.post("/categories/999999", { as: "admin", json: { name: "Ghost" } })).status).to.equal(400);
      const clash = await ts.post(`/categories/${id}`, { as: "admin", json: { name: "Arts", parent: 0 } });
      expect(clash.status).to.equal(400);
      expect(clash.body.code).to.equal("term_exists");
      expect(clash.body.data.term_id).to.equal(t.arts);
      const top = await ts.post(`/categories/${id}`, { as: "admin", json: { parent: 0 } });
      expect(top.body.parent).to.equal(0);
      const tagUpd = await ts.post(`/tags/${t.outdoor}`, { as: "editor", json: { description: "Open air." } });
      expect(tagUpd.body).to.include({ description: "Open air.", count: 1 });
      expect((await ts.post(`/tags/${t.outdoor}`, { as: "author", json: { description: "No." } })).status).to.equal(403);
    });
  });

  describe("DELETE /categories/{id}, /tags/{id}", () => {
    it("deletes for good: the record as before, children move up, events lose the term", async () => {
      const before = await ts.get(`/categories/${t.jazz}`);
      const res = await ts.request("DELETE", `/categories/${t.jazz}`, { as: "author" });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal(before.body);
      expect(res.body.count).to.equal(1);
      const bebop = await ts.get(`/categories/${t.bebop}`);
      expect(bebop.body.parent).to.equal(t.music);
      expect(bebop.body.url).to.equal(`${ts.home}/events/category/music/bebop/`);
      const concert = await ts.site.engine.posts.get(e.concert, { terms: true });
      expect(concert?.termIds?.[CAT]).to.deep.equal([t.music]);
      const again = await ts.request("DELETE", `/categories/${t.jazz}`, { as: "author" });
      expect(again.status).to.equal(400);
      expect(again.body.code).to.equal("rest_invalid_param");
    });

    it("checks permission after validation", async () => {
      expect((await ts.request("DELETE", "/categories/23999", { as: "subscriber" })).status).to.equal(400);
      expect((await ts.request("DELETE", `/categories/${t.arts}`, { as: "subscriber" })).status).to.equal(403);
      expect((await ts.request("DELETE", `/categories/${t.arts}`, { as: "contributor" })).status).to.equal(403);
      expect((await ts.request("DELETE", `/categories/${t.arts}`)).status).to.equal(401);
      expect((await ts.request("DELETE", `/tags/${t.outdoor}`, { as: "author" })).status).to.equal(403);
      const tag = await ts.request("DELETE", `/tags/${t.unused}`, { as: "editor" });
      expect(tag.status).to.equal(200);
      expect(tag.body.name).to.equal("unused");
      expect((await ts.get(`/tags/${t.unused}`)).status).to.equal(400);
    });
  });

  describe("counts follow event changes", () => {
    it("publishing, trashing and re-tagging events", async () => {
      const count = async (path: string): Promise<number> => (await ts.get(path)).body.count;
      expect(await count(`/categories/${t.drafty}`)).to.equal(0);
      await ts.site.engine.posts.update(e.draft, { status: "publish" });
      expect(await count(`/categories/${t.drafty}`)).to.equal(1);
      expect(catNames((await ts.get("/categories")).body)).to.include("Drafty");
      await ts.site.engine.posts.trash(e.draft);
      expect(await count(`/categories/${t.drafty}`)).to.equal(0);
      expect(await count(`/tags/${t.free}`)).to.equal(2);
      await ts.site.engine.posts.update(e.expo, { terms: { [TAG]: [t.outdoor] } });
      expect(await count(`/tags/${t.free}`)).to.equal(1);
      expect(await count(`/tags/${t.outdoor}`)).to.equal(1);
    });
  });
});
