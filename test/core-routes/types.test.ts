/**
 * `GET /wp/v2/types` and `GET /wp/v2/taxonomies` (lib/core-routes): what
 * is registered with a `rest` location, in WordPress's shapes; the edit
 * context only for users who may edit (types) or assign terms (taxonomies);
 * the layer's index, OPTIONS, `_fields` and ETag for free.
 */
import { expect } from "chai";
import type { Request as ExpressRequest } from "express";
import type { HostUser } from "../../lib/site";
import { forEachDatabase, type TestDatabase } from "../support/databases";
import { startTestSite, type TestSite } from "../support/site";

/**
 * A host login that is granted exactly the capabilities named in
 * `X-Test-Caps` (comma-separated): the only way to have a user who may edit
 * one post type and not another, since the role tables grant every type alike.
 */
function capsLogin(req: ExpressRequest): HostUser {
  const header = req.headers["x-test-caps"];
  if (typeof header !== "string") return null;
  const caps = new Set(header.split(",").filter((c) => c !== ""));
  return { id: 1, login: "robot", email: "robot@example.com", displayName: "Robot", role: "subscriber", can: (cap: string) => caps.has(cap) };
}

const EVENT_VIEW = {
  name: "Events",
  slug: "event",
  description: "",
  hierarchical: false,
  rest_base: "events",
  rest_namespace: "calendar/events/v1",
  taxonomies: ["calendar_events_cat", "post_tag"],
  labels: { name: "Events", singular_name: "Event" },
};

const EVENT_EDIT = {
  ...EVENT_VIEW,
  capabilities: {
    edit_posts: "edit_events",
    edit_others_posts: "edit_others_events",
    publish_posts: "publish_events",
    read_private_posts: "read_private_events",
    delete_posts: "delete_events",
    delete_others_posts: "delete_others_events",
    delete_published_posts: "delete_published_events",
    edit_published_posts: "edit_published_events",
  },
  supports: { title: true, editor: true, excerpt: true, author: true, thumbnail: true, "custom-fields": true },
  statuses: ["publish", "future", "draft", "pending", "private", "trash"],
};

const CATEGORY_VIEW = {
  name: "Event Categories",
  slug: "calendar_events_cat",
  description: "",
  hierarchical: true,
  rest_base: "categories",
  rest_namespace: "calendar/events/v1",
  types: ["event"],
  labels: { name: "Event Categories", singular_name: "Event Category" },
};

const SHOWN_TYPES = ["event", "venue", "organizer", "guide"];

forEachDatabase("wp/v2 types and taxonomies", (target) => {
  let db: TestDatabase;
  let ts: TestSite;

  before(async () => {
    db = await target.create();
    ts = await startTestSite({ target: db.target, fixture: "minimal", authenticate: capsLogin });
    const { engine } = ts.site;
    // Shown, with none of the optional config: the defaults show (registry name as labels, post capabilities, title and editor).
    engine.registerPostType("guide", { rest: { namespace: "guides/v1", base: "guides" }, hierarchical: true });
    engine.registerTaxonomy("audience", { objectTypes: ["guide", "event"], rest: { namespace: "guides/v1", base: "audiences" } });
    // Not shown: no `rest`.
    engine.registerPostType("memo", { fields: { note: { type: "string" } } });
    engine.registerTaxonomy("mood", { objectTypes: ["event", "memo"] });
    await ts.site.migrate();
  });

  after(async () => {
    await ts?.close();
    await db?.drop();
  });

  const caps = (list: string) => ({ headers: { "x-test-caps": list } });

  it("lists the shown post types, keyed by slug, in registration order, in the view shape", async () => {
    const res = await ts.get("/wp-json/wp/v2/types");
    expect(res.status).to.equal(200);
    expect(Object.keys(res.body)).to.deep.equal(SHOWN_TYPES);
    expect(res.body.event).to.deep.equal({ ...EVENT_VIEW, taxonomies: ["calendar_events_cat", "post_tag", "audience"] });
    expect(res.body.guide).to.deep.equal({
      name: "guide",
      slug: "guide",
      description: "",
      hierarchical: true,
      rest_base: "guides",
      rest_namespace: "guides/v1",
      taxonomies: ["audience"],
      labels: { name: "guide", singular_name: "guide" },
    });
    expect(res.body.venue).to.include({ name: "Venues", rest_base: "venues", rest_namespace: "calendar/events/v1" });
    expect(res.body.organizer).to.include({ rest_base: "organizers" });
    // Types without `rest` (the calendar's attachments, a host's memo) are not shown, nor are taxonomies without it.
    expect(res.body).to.not.have.any.keys("attachment", "memo");
    expect(res.body.event.taxonomies).to.not.include("mood");
  });

  it("reads one type; 404 rest_type_invalid for an unknown type or one without rest", async () => {
    const res = await ts.get("/wp-json/wp/v2/types/event");
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ ...EVENT_VIEW, taxonomies: ["calendar_events_cat", "post_tag", "audience"] });
    for (const slug of ["attachment", "memo", "nope", "no-such-type"]) {
      const missing = await ts.get(`/wp-json/wp/v2/types/${slug}`, { as: "admin", query: { context: "edit" } });
      expect(missing.status, slug).to.equal(404);
      expect(missing.body).to.deep.equal({ code: "rest_type_invalid", message: "Invalid post type.", data: { status: 404 } });
    }
  });

  it("adds capabilities, supports and statuses in the edit context, for users who may edit posts of the type", async () => {
    for (const role of ["admin", "editor", "author", "contributor"]) {
      const one = await ts.get("/wp-json/wp/v2/types/event", { as: role, query: { context: "edit" } });
      expect(one.status, role).to.equal(200);
      expect(one.body, role).to.deep.equal({ ...EVENT_EDIT, taxonomies: ["calendar_events_cat", "post_tag", "audience"] });
      const list = await ts.get("/wp-json/wp/v2/types", { as: role, query: { context: "edit" } });
      expect(Object.keys(list.body), role).to.deep.equal(SHOWN_TYPES);
    }
    const guide = await ts.get("/wp-json/wp/v2/types/guide", { as: "admin", query: { context: "edit" } });
    expect(guide.body.capabilities).to.deep.equal({
      edit_posts: "edit_posts",
      edit_others_posts: "edit_others_posts",
      publish_posts: "publish_posts",
      read_private_posts: "read_private_posts",
      delete_posts: "delete_posts",
      delete_others_posts: "delete_others_posts",
      delete_published_posts: "delete_published_posts",
      edit_published_posts: "edit_published_posts",
    });
    expect(guide.body.supports).to.deep.equal({ title: true, editor: true });
  });

  it("refuses the edit context to subscribers (403) and anonymous requests (401) with rest_cannot_view", async () => {
    const message = "Sorry, you are not allowed to edit posts in this post type.";
    for (const path of ["/wp-json/wp/v2/types", "/wp-json/wp/v2/types/event"]) {
      const sub = await ts.get(path, { as: "subscriber", query: { context: "edit" } });
      expect(sub.status, path).to.equal(403);
      expect(sub.body).to.deep.equal({ code: "rest_cannot_view", message, data: { status: 403 } });
      const anon = await ts.get(path, { query: { context: "edit" } });
      expect(anon.status, path).to.equal(401);
      expect(anon.body.code).to.equal("rest_cannot_view");
      // The view context stays public.
      expect((await ts.get(path, { as: "subscriber" })).status).to.equal(200);
    }
    expect((await ts.get("/wp-json/wp/v2/types", { query: { context: "embed" } })).body.code).to.equal("rest_invalid_param");
  });

  it("lists in the edit context only the types the user may edit", async () => {
    const list = await ts.get("/wp-json/wp/v2/types", { ...caps("edit_events,edit_organizers"), query: { context: "edit" } });
    expect(list.status).to.equal(200);
    expect(Object.keys(list.body)).to.deep.equal(["event", "organizer"]);
    expect((await ts.get("/wp-json/wp/v2/types/event", { ...caps("edit_events"), query: { context: "edit" } })).status).to.equal(200);
    const venue = await ts.get("/wp-json/wp/v2/types/venue", { ...caps("edit_events"), query: { context: "edit" } });
    expect(venue.status).to.equal(403);
    expect(venue.body.code).to.equal("rest_cannot_view");
    // A user who may edit no shown type may not list them in the edit context at all (WordPress).
    expect((await ts.get("/wp-json/wp/v2/types", { ...caps("read"), query: { context: "edit" } })).status).to.equal(403);
  });

  it("lists the shown taxonomies with their types; `type` filters; one by slug; 404 rest_taxonomy_invalid", async () => {
    const res = await ts.get("/wp-json/wp/v2/taxonomies");
    expect(res.status).to.equal(200);
    expect(Object.keys(res.body)).to.deep.equal(["calendar_events_cat", "post_tag", "audience"]);
    expect(res.body.calendar_events_cat).to.deep.equal(CATEGORY_VIEW);
    expect(res.body.post_tag).to.deep.include({ hierarchical: false, rest_base: "tags", labels: { name: "Tags", singular_name: "Tag" } });
    expect(res.body.audience).to.deep.equal({
      name: "audience",
      slug: "audience",
      description: "",
      hierarchical: false,
      rest_base: "audiences",
      rest_namespace: "guides/v1",
      types: ["guide", "event"],
      labels: { name: "audience", singular_name: "audience" },
    });
    expect(Object.keys((await ts.get("/wp-json/wp/v2/taxonomies", { query: { type: "guide" } })).body)).to.deep.equal(["audience"]);
    expect(Object.keys((await ts.get("/wp-json/wp/v2/taxonomies", { query: { type: "event" } })).body)).to.deep.equal(["calendar_events_cat", "post_tag", "audience"]);
    expect((await ts.get("/wp-json/wp/v2/taxonomies", { query: { type: "memo" } })).body).to.deep.equal({});
    expect((await ts.get("/wp-json/wp/v2/taxonomies/calendar_events_cat")).body).to.deep.equal(CATEGORY_VIEW);
    for (const slug of ["mood", "nope"]) {
      const missing = await ts.get(`/wp-json/wp/v2/taxonomies/${slug}`);
      expect(missing.status, slug).to.equal(404);
      expect(missing.body).to.deep.equal({ code: "rest_taxonomy_invalid", message: "Invalid taxonomy.", data: { status: 404 } });
    }
  });

  it("adds the term capabilities in the edit context, for users who may assign terms of the taxonomy", async () => {
    const one = await ts.get("/wp-json/wp/v2/taxonomies/calendar_events_cat", { as: "contributor", query: { context: "edit" } });
    expect(one.status).to.equal(200);
    expect(one.body).to.deep.equal({
      ...CATEGORY_VIEW,
      capabilities: { manage_terms: "publish_events", edit_terms: "publish_events", delete_terms: "publish_events", assign_terms: "edit_events" },
    });
    const audience = await ts.get("/wp-json/wp/v2/taxonomies/audience", { as: "admin", query: { context: "edit" } });
    expect(audience.body.capabilities).to.deep.equal({ manage_terms: "manage_categories", edit_terms: "manage_categories", delete_terms: "manage_categories", assign_terms: "edit_posts" });
    const message = "Sorry, you are not allowed to manage terms in this taxonomy.";
    for (const path of ["/wp-json/wp/v2/taxonomies", "/wp-json/wp/v2/taxonomies/post_tag"]) {
      const sub = await ts.get(path, { as: "subscriber", query: { context: "edit" } });
      expect(sub.status, path).to.equal(403);
      expect(sub.body).to.deep.equal({ code: "rest_cannot_view", message, data: { status: 403 } });
      expect((await ts.get(path, { query: { context: "edit" } })).status, path).to.equal(401);
    }
    const some = await ts.get("/wp-json/wp/v2/taxonomies", { ...caps("edit_events"), query: { context: "edit" } });
    expect(Object.keys(some.body)).to.deep.equal(["calendar_events_cat", "post_tag"]);
    expect((await ts.get("/wp-json/wp/v2/taxonomies/audience", { ...caps("edit_events"), query: { context: "edit" } })).status).to.equal(403);
  });

  it("gets the layer's index, OPTIONS, _fields and ETag like every namespace", async () => {
    const root = await ts.get("/wp-json/");
    // The calendar's namespace stays first; the engine's own comes after it, then the generated routes' of the host's guide type.
    expect(root.body.namespaces).to.deep.equal(["calendar/events/v1", "wp/v2", "guides/v1"]);
    const index = await ts.get("/wp-json/wp/v2");
    expect(Object.keys(index.body.routes)).to.deep.equal([
      "/wp/v2",
      "/wp/v2/types",
      "/wp/v2/types/(?P<type>[\\w-]+)",
      "/wp/v2/taxonomies",
      "/wp/v2/taxonomies/(?P<taxonomy>[\\w-]+)",
      "/wp/v2/users",
      "/wp/v2/users/(?P<id>[\\d]+)",
      "/wp/v2/users/me",
    ]);
    expect(index.body.routes["/wp/v2/types"].endpoints[0].args.context).to.deep.equal({
      type: "string",
      enum: ["view", "edit"],
      default: "view",
      description: "Scope under which the request is made; determines fields present in response.",
      required: false,
    });
    const options = await ts.request("OPTIONS", "/wp-json/wp/v2/taxonomies");
    expect(options.status).to.equal(200);
    expect(options.headers.get("allow")).to.equal("GET");
    expect(Object.keys(options.body.endpoints[0].args)).to.deep.equal(["context", "type"]);
    const fields = await ts.get("/wp-json/wp/v2/types/event", { query: { _fields: "slug,rest_base,rest_namespace" } });
    expect(fields.body).to.deep.equal({ slug: "event", rest_base: "events", rest_namespace: "calendar/events/v1" });
    const first = await ts.get("/wp-json/wp/v2/types");
    const etag = first.headers.get("etag");
    expect(etag).to.be.a("string");
    const again = await ts.get("/wp-json/wp/v2/types", { headers: { "if-none-match": etag! } });
    expect(again.status).to.equal(304);
    expect((await ts.post("/wp-json/wp/v2/types", { as: "admin" })).body.code).to.equal("rest_no_route");
  });
});

describe("wp/v2 discovery routes without the calendar", () => {
  let ts: TestSite;
  before(async () => {
    ts = await startTestSite({ calendar: false, pages: false });
  });
  after(async () => {
    await ts?.close();
  });

  it("are registered for every site, and show only what a host registers with rest", async () => {
    expect((await ts.get("/wp-json/")).body.namespaces).to.deep.equal(["wp/v2"]);
    expect((await ts.get("/wp-json/wp/v2/types")).body).to.deep.equal({});
    ts.site.engine.registerPostType("recipe", { rest: { namespace: "kitchen/v1", base: "recipes" }, labels: { singular: "Recipe", plural: "Recipes" } });
    expect(Object.keys((await ts.get("/wp-json/wp/v2/types")).body)).to.deep.equal(["recipe"]);
    expect((await ts.get("/wp-json/wp/v2/taxonomies")).body).to.deep.equal({});
  });

  it("refuses a rest location without a namespace or a base", () => {
    expect(() => ts.site.engine.registerPostType("broken", { rest: { namespace: "", base: "broken" } })).to.throw(/rest needs a namespace and a base/);
    expect(() => ts.site.engine.registerTaxonomy("broken_tax", { objectTypes: [], rest: { namespace: "x/v1", base: "/" } })).to.throw(/rest needs a namespace and a base/);
  });
});
