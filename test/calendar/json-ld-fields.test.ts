/**
 * JSON-LD of events (schema.org Event for rich results, single reads and
 * the list's `json_ld=1`) and `_fields` on every calendar route: a route
 * may skip building what the filter drops, so each filtered answer is
 * compared with the full answer filtered here, by an implementation of
 * WordPress `rest_filter_response_fields()` of the test's own.
 */
import { expect } from "chai";
import { forEachDatabase } from "../support/databases";
import type { TestSite } from "../support/site";
import { makeEvent, useSite } from "./events-support";

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
type Tree = { [name: string]: Tree | true };

function isObject(value: unknown): value is { [key: string]: Json } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `_fields` as WordPress reads it: comma-separated, dotted names nest; a name wanted whole covers its members. */
function fieldTree(fields: string): Tree {
  const tree: Tree = {};
  for (const name of fields.split(",").map((f) => f.trim()).filter(Boolean)) {
    const parts = name.split(".");
    const last = parts.pop() as string;
    let node: Tree | undefined = tree;
    for (const part of parts) {
      const next: Tree | true | undefined = node[part];
      if (next === true) {
        node = undefined;
        break;
      }
      node = next ?? (node[part] = {});
    }
    if (node) node[last] = true;
  }
  return tree;
}

/** A filtered body: objects keep the wanted members; a list inside an object becomes `[]` when only members are wanted; a list body is filtered per item. */
function filtered(body: Json, tree: Tree): Json {
  const pick = (value: { [key: string]: Json }, t: Tree): Json => {
    const out: { [key: string]: Json } = {};
    for (const [key, item] of Object.entries(value)) {
      const want = t[key];
      if (want === undefined) continue;
      out[key] = want === true ? item : isObject(item) ? pick(item, want) : Array.isArray(item) ? [] : item;
    }
    return out;
  };
  if (Array.isArray(body)) return body.map((item) => (isObject(item) ? pick(item, tree) : item));
  return isObject(body) ? pick(body, tree) : body;
}

const RICH = {
  "@context": "http://schema.org",
  "@type": "Event",
};

forEachDatabase("events JSON-LD and _fields", (db) => {
  // The response cache off: every request below builds its answer.
  const site = useSite(db, { responseCache: false });
  let venue: any;
  let organizer: any;
  let event: any;
  let rome: any;
  let free: any;
  let donation: any;
  let draft: any;
  let tagId: number;
  let categoryId: number;

  before(async function () {
    this.timeout(60_000);
    const t = site();
    const v = await t.post("/venues", {
      as: "editor",
      json: { venue: "Harbour Hall", address: "1 Pier Road", city: "Boston", state: "MA", zip: "02110", country: "United States", phone: "+1 617 555 0100", website: "https://harbour.example", geo_lat: 42.36, geo_lng: -71.05 },
    });
    expect(v.status, JSON.stringify(v.body)).to.equal(201);
    venue = v.body;
    const o = await t.post("/organizers", { as: "editor", json: { organizer: "Harbour Friends", email: "hello@harbour.example", website: "https://friends.example", phone: "+1 617 555 0111" } });
    expect(o.status, JSON.stringify(o.body)).to.equal(201);
    organizer = o.body;
    const music = await t.site.engine.terms.bySlug("calendar_events_cat", "music");
    if (!music) throw new Error("the minimal fixture has a music category");
    categoryId = music.id;
    event = await makeEvent(t, {
      title: "Winter Concert",
      description: "<p>Strings and brass by the water.</p>",
      excerpt: "Strings and brass.",
      status: "publish",
      timezone: "America/New_York",
      start_date: "2030-01-15 19:00:00",
      end_date: "2030-01-15 21:30:00",
      cost: "$25",
      venue: venue.id,
      organizer: [organizer.id],
      categories: [music.id],
      tags: ["winter-jsonld"],
    });
    tagId = event.tags[0].id;
    rome = await makeEvent(t, { title: "Summer Night", status: "publish", timezone: "Europe/Rome", start_date: "2030-07-10 21:00:00", end_date: "2030-07-10 23:00:00", venue: venue.id });
    free = await makeEvent(t, { title: "Open Day", status: "publish", timezone: "UTC", start_date: "2030-03-01 10:00:00", end_date: "2030-03-01 12:00:00", cost: "Free entry" });
    donation = await makeEvent(t, { title: "Benefit", status: "publish", timezone: "UTC", start_date: "2030-03-02 10:00:00", end_date: "2030-03-02 12:00:00", cost: "Donation" });
    draft = await makeEvent(t, { title: "Unannounced", status: "draft", timezone: "UTC", start_date: "2030-03-03 10:00:00", end_date: "2030-03-03 12:00:00" });
  });

  describe("JSON-LD of a single event", () => {
    it("has the properties rich results require and recommend, dates with the event's offset", async () => {
      const t = site();
      const res = await t.get(`/events/${event.id}`);
      expect(res.status).to.equal(200);
      const ld = res.body.json_ld;
      expect(ld).to.include(RICH);
      expect(ld.name).to.equal("Winter Concert");
      expect(ld.startDate).to.equal("2030-01-15T19:00:00-05:00");
      expect(ld.endDate).to.equal("2030-01-15T21:30:00-05:00");
      expect(ld.eventStatus).to.equal("https://schema.org/EventScheduled");
      expect(ld.eventAttendanceMode).to.equal("https://schema.org/OfflineEventAttendanceMode");
      expect(ld.description).to.equal("Strings and brass.");
      expect(ld.url).to.equal(res.body.url);
      expect(ld.location).to.deep.equal({
        "@context": "http://schema.org",
        "@type": "Place",
        name: "Harbour Hall",
        description: "",
        url: venue.url,
        address: { "@type": "PostalAddress", streetAddress: "1 Pier Road", addressLocality: "Boston", addressRegion: "MA", postalCode: "02110", addressCountry: "United States" },
        geo: { "@type": "GeoCoordinates", latitude: 42.36, longitude: -71.05 },
        telephone: "+1 617 555 0100",
        sameAs: "https://harbour.example",
      });
      expect(ld.organizer).to.deep.equal({ "@type": "Person", name: "Harbour Friends", url: "https://friends.example", telephone: "+1 617 555 0111", email: "hello@harbour.example" });
      // The original's offer members, kept as they are.
      expect(ld.offers).to.deep.include({ "@type": "Offer", price: "25", priceCurrency: "USD", url: res.body.url, category: "primary", availability: "inStock" });
      expect(ld.offers.validFrom).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/);
      expect(ld.performer).to.equal("Organization");
    });

    it("uses the offset of the event's zone on its date (summer time in Rome), by ID and by slug alike", async () => {
      const t = site();
      const byId = await t.get(`/events/${rome.id}`);
      expect(byId.body.json_ld.startDate).to.equal("2030-07-10T21:00:00+02:00");
      expect(byId.body.json_ld.endDate).to.equal("2030-07-10T23:00:00+02:00");
      expect(byId.body.json_ld.location.name).to.equal("Harbour Hall");
      expect(byId.body.json_ld).to.not.have.property("offers");
      const bySlug = await t.get(`/events/by-slug/${rome.slug}`);
      expect(bySlug.body.json_ld).to.deep.equal(byId.body.json_ld);
    });

    it("offers a free event at price 0; a cost with no price and no 'free' makes no offer", async () => {
      const t = site();
      const res = await t.get(`/events/${free.id}`);
      expect(res.body.cost).to.equal("Free entry");
      expect(res.body.json_ld.offers).to.deep.include({ "@type": "Offer", price: "0", priceCurrency: "USD", url: res.body.url });
      expect((await t.get(`/events/${donation.id}`)).body.json_ld).to.not.have.property("offers");
    });

    it("is not in writes' answers nor in a draft's record", async () => {
      const t = site();
      expect(event).to.not.have.property("json_ld");
      const read = await t.get(`/events/${draft.id}`, { as: "editor" });
      expect(read.status).to.equal(200);
      expect(read.body).to.not.have.property("json_ld");
    });
  });

  describe("JSON-LD in the events list, on request", () => {
    it("is left out by default and added by json_ld=1, equal to the single read's", async () => {
      const t = site();
      const plain = await t.get("/events", { query: { start_date: "2030-01-01", end_date: "2030-12-31", per_page: 50 } });
      expect(plain.status).to.equal(200);
      expect(plain.body.events.map((e: { id: number }) => e.id)).to.include.members([event.id, rome.id, free.id, donation.id]);
      for (const e of plain.body.events) expect(e).to.not.have.property("json_ld");
      const withLd = await t.get("/events", { query: { start_date: "2030-01-01", end_date: "2030-12-31", per_page: 50, json_ld: 1 } });
      expect(withLd.body.events.map((e: { id: number }) => e.id)).to.deep.equal(plain.body.events.map((e: { id: number }) => e.id));
      for (const e of withLd.body.events) {
        const single = await t.get(`/events/${e.id}`);
        expect(e.json_ld, `event ${e.id}`).to.deep.equal(single.body.json_ld);
        const { json_ld: _ld, ...rest } = e;
        const same = plain.body.events.find((p: { id: number }) => p.id === e.id);
        expect(rest).to.deep.equal(same);
      }
      // `json_ld=0` / `false` is the default.
      const off = await t.get("/events", { query: { start_date: "2030-01-01", end_date: "2030-12-31", json_ld: "false" } });
      for (const e of off.body.events) expect(e).to.not.have.property("json_ld");
      expect((await t.get("/events", { query: { json_ld: "maybe" } })).status).to.equal(400);
    });

    it("keeps json_ld=1 in the paging links and leaves drafts without JSON-LD", async () => {
      const t = site();
      const first = await t.get("/events", { as: "editor", query: { start_date: "2030-01-01", end_date: "2030-12-31", per_page: 1, json_ld: 1 } });
      expect(first.body.next_rest_url).to.match(/[?&]json_ld=1(&|$)/);
      const all = await t.get("/events", { as: "editor", query: { start_date: "2030-01-01", end_date: "2030-12-31", per_page: 50, json_ld: 1 } });
      const unannounced = all.body.events.find((e: { id: number }) => e.id === draft.id);
      expect(unannounced, "the editor lists the draft").to.not.equal(undefined);
      expect(unannounced).to.not.have.property("json_ld");
      expect(all.body.events.find((e: { id: number }) => e.id === event.id).json_ld.name).to.equal("Winter Concert");
    });

    it("is declared, so the index and the OpenAPI document show it", async () => {
      const t = site();
      const index = await t.get("");
      const args = index.body.routes["/calendar/events/v1/events"].endpoints[0].args;
      expect(args.json_ld).to.deep.include({ type: "boolean", default: false, required: false });
      const doc = await t.get("/doc");
      const params: Array<{ name: string; in: string }> = doc.body.paths["/events"].get.parameters;
      expect(params.find((p) => p.name === "json_ld")).to.include({ in: "query" });
    });
  });

  describe("_fields on every route: the full answer, filtered", () => {
    const cases = (): Array<[string, string, Record<string, string | number>?]> => [
      ["/events", "events,total", { start_date: "2030-01-01", end_date: "2030-12-31" }],
      ["/events", "id,title"],
      ["/events", "events.id,total_pages,rest_url"],
      ["/events", "events", { start_date: "2030-01-01", end_date: "2030-12-31", json_ld: 1 }],
      [`/events/${event.id}`, "id,title"],
      [`/events/${event.id}`, "id,venue.venue,venue.address,organizer"],
      [`/events/${event.id}`, "json_ld"],
      [`/events/${event.id}`, "json_ld.location.address,json_ld.offers.price,start_date"],
      [`/events/${event.id}`, "categories,tags,image,cost_details.values"],
      [`/events/${event.id}`, "venue,venue.city"],
      [`/events/${event.id}`, "categories.name"],
      [`/events/by-slug/${event.slug}`, "id,slug,venue.geo_lat"],
      [`/events/by-slug/${event.slug}`, "json_ld.name,json_ld.startDate"],
      ["/venues", "venues,total"],
      ["/venues", "venues.venue"],
      [`/venues/${venue.id}`, "id,venue,address"],
      [`/venues/${venue.id}`, "json_ld.address,json_ld.geo"],
      [`/venues/by-slug/${venue.slug}`, "venue,image"],
      ["/organizers", "organizers,total_pages"],
      [`/organizers/${organizer.id}`, "organizer,email,json_ld"],
      [`/organizers/by-slug/${organizer.slug}`, "id"],
      ["/categories", "categories,total"],
      ["/categories", "total"],
      [`/categories/${categoryId}`, "id,name"],
      [`/categories/${categoryId}`, "url,urls.self"],
      ["/tags", "tags"],
      [`/tags/${tagId}`, "name,slug,count"],
      ["/doc", "openapi,info,servers"],
    ];

    async function compare(t: TestSite, path: string, fields: string, query: Record<string, string | number> = {}, as?: string): Promise<void> {
      const full = await t.get(path, { query, as });
      expect(full.status, `${path} ${JSON.stringify(full.body)}`).to.equal(200);
      const part = await t.get(path, { query: { ...query, _fields: fields }, as });
      expect(part.status, path).to.equal(200);
      const expected = filtered(full.body, fieldTree(fields));
      expect(part.body, `${path}?_fields=${fields}`).to.deep.equal(expected);
      // A filter that keeps nothing here would prove nothing.
      if (!(path === "/events" && fields === "id,title")) expect(Object.keys(part.body as object).length, `${path}?_fields=${fields}`).to.be.above(0);
    }

    it("anonymous readers get exactly the full answer filtered", async () => {
      const t = site();
      for (const [path, fields, query] of cases()) await compare(t, path, fields, query);
    });

    it("as an editor too (the Allow header's permission checks share the lookup)", async () => {
      const t = site();
      for (const [path, fields, query] of cases()) if (path.startsWith("/events")) await compare(t, path, fields, query, "editor");
      await compare(t, `/events/${draft.id}`, "id,status,venue,json_ld", {}, "editor");
    });

    it("in the request body and as a list of names, like the filter", async () => {
      const t = site();
      const full = await t.get(`/events/${event.id}`);
      const listed = await t.get(`/events/${event.id}`, { query: { _fields: ["id", "venue.venue"] } });
      expect(listed.body).to.deep.equal(filtered(full.body, fieldTree("id,venue.venue")));
      expect(listed.body.venue).to.deep.equal({ venue: "Harbour Hall" });
    });

    it("a write's answer is filtered the same way", async () => {
      const t = site();
      const created = await makeEvent(t, { title: "Filtered Write", status: "publish", venue: venue.id, categories: [categoryId] });
      const res = await t.post(`/events/${created.id}`, { as: "editor", json: { title: "Filtered Write 2", venue: venue.id, categories: [categoryId] }, query: { _fields: "id,title,venue.venue,categories" } });
      expect(res.status).to.equal(200);
      const full = await t.get(`/events/${created.id}`);
      const { json_ld: _ld, ...record } = full.body;
      expect(res.body).to.deep.equal(filtered(record, fieldTree("id,title,venue.venue,categories")));
    });
  });
});
