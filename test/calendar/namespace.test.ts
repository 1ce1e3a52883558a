/**
 * The namespace index `GET /calendar/events/v1` (rest-conventions.md §7.1,
 * languages.md §2.1): route keys in registration order, the index's own
 * args, `i18n_language` on every endpoint, per-request defaults shown.
 */
import { expect } from "chai";
import { forEachDatabase, type TestDatabase } from "../support/databases";
import { startTestSite, type TestSite } from "../support/site";

const ROUTES = [
  "/calendar/events/v1",
  "/calendar/events/v1/doc",
  "/calendar/events/v1/events",
  // calpress's iCalendar feed (test/calendar/ical.test.ts), registered right after the list.
  "/calendar/events/v1/events\\.ics",
  "/calendar/events/v1/events/(?P<id>\\d+)",
  "/calendar/events/v1/events/by-slug/(?P<slug>[^/]+)",
  "/calendar/events/v1/venues",
  "/calendar/events/v1/venues/(?P<id>\\d+)",
  "/calendar/events/v1/venues/by-slug/(?P<slug>[^/]+)",
  "/calendar/events/v1/organizers",
  "/calendar/events/v1/organizers/(?P<id>\\d+)",
  "/calendar/events/v1/organizers/by-slug/(?P<slug>[^/]+)",
  "/calendar/events/v1/categories",
  "/calendar/events/v1/categories/(?P<id>\\d+)",
  "/calendar/events/v1/tags",
  "/calendar/events/v1/tags/(?P<id>\\d+)",
  // calpress additions (issue 22): the changes feed and the iCalendar import, after the original's routes.
  "/calendar/events/v1/changes",
  "/calendar/events/v1/import",
  // calpress addition for editors (test/calendar/recurrence-preview.test.ts).
  "/calendar/events/v1/recurrence-preview",
];

const LANGUAGE_ARG = { type: "string", enum: ["nl", "en", "fi", "fr", "de", "it", "no"], required: false };

interface Endpoint {
  methods: string[];
  args: Record<string, Record<string, unknown> & { required: boolean }>;
}
interface Route {
  namespace: string;
  methods: string[];
  endpoints: Endpoint[];
  _links?: { self: Array<{ href: string }> };
}

forEachDatabase("namespace index", (target) => {
  let db: TestDatabase;
  let ts: TestSite;
  let routes: Record<string, Route>;

  before(async () => {
    db = await target.create();
    ts = await startTestSite({ target: db.target, fixture: "minimal" });
    const res = await ts.get("");
    expect(res.status).to.equal(200);
    routes = res.body.routes;
  });

  after(async () => {
    await ts?.close();
    await db?.drop();
  });

  it("lists the routes in the order of rest-conventions.md §7.1, with _links.up", async () => {
    const res = await ts.get("");
    expect(res.body.namespace).to.equal("calendar/events/v1");
    expect(Object.keys(res.body.routes)).to.deep.equal(ROUTES);
    expect(res.body._links).to.deep.equal({ up: [{ href: ts.root }] });
    // Same through ?rest_route= and with a trailing slash.
    expect(Object.keys((await ts.get("/wp-json/calendar/events/v1/")).body.routes)).to.deep.equal(ROUTES);
    expect(Object.keys((await ts.get("/?rest_route=/calendar/events/v1")).body.routes)).to.deep.equal(ROUTES);
  });

  it("merges the endpoints of each path, unions methods, links routes without placeholders", () => {
    expect(routes["/calendar/events/v1/venues"].methods).to.deep.equal(["GET", "POST"]);
    expect(routes["/calendar/events/v1/venues/(?P<id>\\d+)"].methods).to.deep.equal(["GET", "DELETE", "POST", "PUT", "PATCH"]);
    expect(routes["/calendar/events/v1/venues/(?P<id>\\d+)"].endpoints.map((e) => e.methods)).to.deep.equal([["GET"], ["DELETE"], ["POST", "PUT", "PATCH"]]);
    expect(routes["/calendar/events/v1/categories/(?P<id>\\d+)"].methods).to.deep.equal(["GET", "DELETE", "POST", "PUT", "PATCH"]);
    expect(routes["/calendar/events/v1/doc"].methods).to.deep.equal(["GET"]);
    expect(routes["/calendar/events/v1/tags"]._links).to.deep.equal({ self: [{ href: `${ts.ns}/tags` }] });
    expect(routes["/calendar/events/v1/tags/(?P<id>\\d+)"]).to.not.have.property("_links");
    for (const route of Object.values(routes)) expect(route.namespace).to.equal("calendar/events/v1");
  });

  it("the index itself takes namespace and context (with defaults) and i18n_language", () => {
    const args = routes["/calendar/events/v1"].endpoints[0].args;
    expect(args.namespace).to.deep.equal({ default: "calendar/events/v1", required: false });
    expect(args.context).to.deep.equal({ default: "view", required: false });
    expect(args.i18n_language).to.deep.include(LANGUAGE_ARG);
  });

  it("every endpoint of every route has i18n_language", () => {
    for (const [key, route] of Object.entries(routes)) {
      for (const endpoint of route.endpoints) {
        expect(endpoint.args, `${key} ${endpoint.methods.join()}`).to.have.property("i18n_language");
        expect(endpoint.args.i18n_language, key).to.deep.include(LANGUAGE_ARG);
      }
    }
  });

  it("shows the args of the venue, organizer and term routes as the interface declares them", () => {
    const venuesList = routes["/calendar/events/v1/venues"].endpoints[0].args;
    // After the interface's own: WordPress 5.7's modified_after / modified_before (calpress addition, issue 22).
    expect(Object.keys(venuesList)).to.deep.equal(["page", "per_page", "search", "event", "has_events", "only_with_upcoming", "status", "modified_after", "modified_before", "i18n_language"]);
    expect(venuesList.page).to.deep.include({ type: "integer", default: 1, required: false });
    expect(venuesList.per_page).to.deep.include({ type: "integer", default: 10, required: false });
    expect(venuesList.event).to.deep.include({ type: "integer", required: false });
    expect(venuesList.has_events).to.not.have.property("type");
    expect(venuesList.only_with_upcoming).to.deep.include({ default: false, required: false });
    expect(venuesList.only_with_upcoming).to.not.have.property("type");
    expect(venuesList.status).to.deep.include({ type: "string" });
    const venueCreate = routes["/calendar/events/v1/venues"].endpoints[1].args;
    expect(Object.keys(venueCreate).slice(0, 4)).to.deep.equal(["author", "date", "date_utc", "venue"]);
    expect(venueCreate.venue).to.deep.include({ type: "string", required: true });
    expect(venueCreate.author).to.deep.include({ type: "integer", required: false });
    expect(venueCreate.author).to.not.have.property("default");
    expect(venueCreate.address).to.deep.include({ type: "string", default: null, required: false });
    expect(venueCreate.show_map).to.deep.include({ type: "string", default: null });
    expect(venueCreate.image).to.deep.include({ type: "string", default: null });
    const organizerCreate = routes["/calendar/events/v1/organizers"].endpoints[1].args;
    expect(organizerCreate.organizer).to.deep.include({ type: "string", default: null, required: true });
    expect(organizerCreate.author).to.deep.include({ type: "integer", default: null });
    expect(organizerCreate.email).to.deep.include({ type: "string", default: null });
    expect(organizerCreate).to.not.have.property("show_map");
    const bySlugUpdate = routes["/calendar/events/v1/venues/by-slug/(?P<slug>[^/]+)"].endpoints[2].args;
    expect(bySlugUpdate.slug).to.deep.include({ type: "string", required: true });
    expect(bySlugUpdate.venue).to.deep.include({ required: false });
    const cats = routes["/calendar/events/v1/categories"].endpoints[0].args;
    expect(Object.keys(cats)).to.deep.equal(["page", "per_page", "search", "exclude", "include", "order", "orderby", "hide_empty", "parent", "post", "event", "slug", "i18n_language"]);
    expect(cats.hide_empty).to.deep.include({ type: "boolean", default: 1 });
    expect(cats.include).to.deep.include({ type: "array", items: { type: "integer" } });
    const tags = routes["/calendar/events/v1/tags"].endpoints[0].args;
    expect(tags).to.not.have.property("parent");
    expect(routes["/calendar/events/v1/categories"].endpoints[1].args.name).to.deep.include({ type: "string", required: true });
    expect(routes["/calendar/events/v1/tags"].endpoints[1].args).to.not.have.property("parent");
    // Internal keys never show.
    for (const route of Object.values(routes)) {
      for (const endpoint of route.endpoints) {
        for (const arg of Object.values(endpoint.args)) expect(arg).to.not.have.any.keys("validate", "sanitize", "docType", "location");
      }
    }
  });

  it("shows per-request defaults computed for the request", async () => {
    const events = routes["/calendar/events/v1/events"].endpoints.find((e) => e.methods.includes("GET"))!.args;
    expect(String(events.start_date.default)).to.match(/^\d{4}-\d{2}-\d{2} 00:00:00$/);
    expect(String(events.end_date.default)).to.match(/^\d{4}-\d{2}-\d{2} 23:59:59$/);
    expect(String(events.start_date.default) < String(events.end_date.default)).to.equal(true);
    await ts.site.engine.options.set("posts_per_page", "7");
    try {
      // The option cache may serve the old value for a moment.
      let shown: unknown;
      for (let i = 0; i < 40; i++) {
        shown = (await ts.get("")).body.routes["/calendar/events/v1/venues"].endpoints[0].args.per_page.default;
        if (shown === 7) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(shown).to.equal(7);
    } finally {
      await ts.site.engine.options.set("posts_per_page", "10");
    }
  });

  it("describes the event write args as forms need them, in the index and in OPTIONS alike", async () => {
    const events = routes["/calendar/events/v1/events"];
    const create = events.endpoints.find((e) => e.methods.includes("POST"))!.args;
    const byId = routes["/calendar/events/v1/events/(?P<id>\\d+)"].endpoints.find((e) => e.methods.includes("PATCH"))!.args;
    const bySlug = routes["/calendar/events/v1/events/by-slug/(?P<slug>[^/]+)"].endpoints.find((e) => e.methods.includes("PATCH"))!.args;
    for (const name of ["title", "start_date", "end_date"]) expect(create[name], name).to.deep.include({ type: "string", required: true });
    const statuses = ["publish", "future", "draft", "pending", "private", "trash"];
    for (const [label, args] of [["create", create], ["update", byId], ["update by slug", bySlug]] as const) {
      // Every arg a form shows carries a description (i18n_language included).
      for (const [name, arg] of Object.entries(args)) expect(arg.description, `${label} ${name}`).to.be.a("string").and.not.equal("");
      expect(args.status, label).to.deep.include({ type: "string", enum: statuses });
      expect(args.website, label).to.deep.include({ format: "uri", default: null });
      expect(args.recurrence, label).to.deep.include({ type: "array", items: { type: "string" } });
      expect(args.timezone, label).to.deep.include({ type: "string" });
      expect(args.all_day, label).to.deep.include({ type: "boolean", default: false });
      expect(args.show_map, label).to.deep.include({ type: "boolean" });
      expect(args.author, label).to.deep.include({ type: "integer" });
      expect(args.image, label).to.deep.include({ type: "string" });
      for (const name of ["categories", "tags", "venue", "organizer"]) expect(args[name], `${label} ${name}`).to.deep.include({ items: { type: "integer" }, default: null });
      expect(args.cost, label).to.have.property("description");
    }
    // On update nothing is required but the address.
    expect(Object.entries(byId).filter(([, arg]) => arg.required).map(([name]) => name)).to.deep.equal(["id"]);
    expect(Object.entries(bySlug).filter(([, arg]) => arg.required).map(([name]) => name)).to.deep.equal([]);
    expect(byId.password).to.deep.include({ type: "string", required: false });
    expect(byId.id).to.deep.include({ type: "integer", required: true });
    const options = await ts.request("OPTIONS", "/events");
    expect(options.body.endpoints).to.deep.equal(events.endpoints);
    // The recurrence preview's own bound, shown for the widget that calls it.
    const preview = routes["/calendar/events/v1/recurrence-preview"].endpoints[0].args;
    expect(preview.count).to.deep.include({ type: "integer", minimum: 1, maximum: 50, default: 10 });
    expect(preview.recurrence).to.deep.include({ type: "array", required: true });
    // The enum only documents what the rule checks: the rule's message still answers.
    const bad = await ts.post("/events", { as: "admin", json: { title: "x", start_date: "2030-01-01 10:00", end_date: "2030-01-01 11:00", status: "published" } });
    expect(bad.status).to.equal(400);
    expect(bad.body.data.params.status).to.equal(`The status must be one of ${statuses.join(", ")}.`);
  });

  it("validates its own i18n_language", async () => {
    const bad = await ts.get("", { query: { i18n_language: "EN" } });
    expect(bad.status).to.equal(400);
    expect(bad.body.code).to.equal("rest_invalid_param");
    expect(bad.body.data.params).to.have.property("i18n_language");
    expect((await ts.get("", { query: { i18n_language: "no" } })).status).to.equal(200);
  });
});
