import { expect } from "chai";
import { DateTime } from "luxon";
import { defaultListBound, defaultListEnd, defaultListStart, listBound } from "../../lib/calendar/events/dates";
import { forEachDatabase } from "../support/databases";
import { startTestSite, type TestSite } from "../support/site";
import { dayAt, expectInvalidParam, ids, makeEvent, postId, useSite } from "./events-support";

function titles(res: { body: any }): string[] {
  return res.body.events.map((e: any) => e.title);
}

function params(url: string): Record<string, string> {
  return Object.fromEntries(new URL(url).searchParams.entries());
}

forEachDatabase("GET /events", (db) => {
  const site = useSite(db);
  /** Weekly Yoga 1..10: day 1, 8, 15, … at 18:00–19:00 UTC. */
  const yoga: number[] = [];
  let yesterdayEvent = 0;
  let featured = 0;
  let oldPublication = 0;
  let trashed = 0;

  before(async function () {
    this.timeout(60_000);
    const t = site();
    for (let i = 0; i < 10; i++) {
      const e = await makeEvent(t, {
        title: `Weekly Yoga ${i + 1}`,
        start_date: dayAt(1 + 7 * i, "18:00:00"),
        end_date: dayAt(1 + 7 * i, "19:00:00"),
        categories: "Yoga",
        tags: "calm",
      });
      yoga.push(e.id);
    }
    yesterdayEvent = (await makeEvent(t, { title: "Yesterday Event", start_date: dayAt(-1, "10:00:00"), end_date: dayAt(-1, "11:00:00") })).id;
    await makeEvent(t, { title: "Two Days Ago", start_date: dayAt(-2, "10:00:00"), end_date: dayAt(-2, "11:00:00") });
    await makeEvent(t, { title: "Far Future", start_date: dayAt(800, "10:00:00"), end_date: dayAt(800, "11:00:00") });
    await makeEvent(t, { title: "Hidden Event", hide_from_listings: true });
    featured = (await makeEvent(t, { title: "Featured Gala", featured: true, start_date: dayAt(2, "20:00:00"), end_date: dayAt(2, "23:00:00") })).id;
    oldPublication = (await makeEvent(t, { title: "Old Publication", date: "2019-01-01 10:00:00", start_date: dayAt(3, "10:00:00"), end_date: dayAt(3, "11:00:00") })).id;
    trashed = (await makeEvent(t, { title: "Trashed Event" })).id;
    await t.request("DELETE", `/events/${trashed}`, { as: "editor" });
  });

  it("answers the envelope, in order, with the counting headers", async () => {
    const t = site();
    const res = await t.get("/events", { query: { per_page: 50 } });
    expect(res.status).to.equal(200);
    expect(Object.keys(res.body)).to.deep.equal(["events", "rest_url", "total", "total_pages"]);
    expect(res.body.total).to.equal(res.body.events.length);
    expect(res.body.total_pages).to.equal(1);
    for (const [name, value] of [["x-cal-total", res.body.total], ["x-cal-totalpages", res.body.total_pages], ["x-wp-total", res.body.total], ["x-wp-totalpages", res.body.total_pages]]) {
      expect(res.headers.get(name as string), name as string).to.equal(String(value));
    }
    expect(res.body.events[0]).to.not.have.property("json_ld");
    const url = new URL(res.body.rest_url);
    expect(url.origin + url.pathname).to.equal(`${t.ns}/events/`);
  });

  it("lists published events to anonymous readers, by start date then ID, within the default bounds", async () => {
    const t = site();
    const res = await t.get("/events", { query: { per_page: 50 } });
    const list = titles(res);
    expect(list).to.include.members(["Yesterday Event", "Next Week Rehearsal", "Protected Event", "Featured Gala", "Weekly Yoga 1"]);
    // Default bounds: from the start of yesterday (UTC site) to 24 months ahead.
    expect(list).to.not.include.members(["Two Days Ago", "Far Future", "Past Lecture", "Jazz Concert"]);
    // Never: hidden, unpublished, trashed.
    expect(list).to.not.include.members(["Hidden Event", "Draft Event", "Pending Event", "Private Event", "Trashed Event"]);
    expect(list[0]).to.equal("Yesterday Event");
    const starts = res.body.events.map((e: any) => `${e.start_date}#${String(e.id).padStart(8, "0")}`);
    expect(starts).to.deep.equal([...starts].sort());
    const defaults = params(res.body.rest_url);
    expect(defaults.start_date).to.equal(dayAt(-1, "00:00:00"));
    expect(defaults.end_date).to.equal(`${DateTime.utc().plus({ months: 24 }).toFormat("yyyy-MM-dd")} 23:59:59`);
  });

  it("lists password-protected events masked", async () => {
    const res = await site().get("/events", { query: { search: "Protected" } });
    const [e] = res.body.events;
    expect(e.title).to.equal("Protected Event");
    expect(e).to.include({ description: "", excerpt: "", cost: "", website: "", image: false, featured: null, all_day: null });
    expect(e.venue).to.deep.equal([]);
    expect(e.categories).to.deep.equal([]);
    expect(e.cost_details).to.deep.equal({ currency_symbol: "", currency_position: "", currency_code: "", values: [] });
    const unlocked = await site().get("/events", { as: "editor", query: { search: "Protected", context: "edit" } });
    expect(unlocked.body.events[0].cost).to.equal("€25");
  });

  it("lists every status but trash to users who can edit events, others' included; never hidden events", async () => {
    const t = site();
    for (const as of ["editor", "contributor"]) {
      const list = titles(await t.get("/events", { as, query: { per_page: 50 } }));
      expect(list, as).to.include.members(["Draft Event", "Pending Event", "Private Event"]);
      expect(list, as).to.not.include.members(["Trashed Event", "Hidden Event"]);
    }
    const sub = titles(await t.get("/events", { as: "subscriber", query: { per_page: 50 } }));
    expect(sub).to.not.include.members(["Draft Event", "Private Event"]);
  });

  it("filters by status with the permission rules", async () => {
    const t = site();
    expect(titles(await t.get("/events", { as: "editor", query: { status: "draft" } }))).to.deep.equal(["Draft Event"]);
    const two = titles(await t.get("/events", { as: "editor", query: { status: "draft, pending", per_page: 50 } }));
    expect(two).to.have.members(["Draft Event", "Pending Event"]);
    const asArray = titles(await t.get("/events", { as: "editor", query: { status: ["draft", "pending"] } }));
    expect(asArray).to.have.members(["Draft Event", "Pending Event"]);
    const trash = await t.get("/events", { as: "editor", query: { status: "trash" } });
    expect(titles(trash)).to.deep.equal(["Trashed Event"]);
    expect((await t.get("/events", { query: { status: "publish" } })).status).to.equal(200);
    expectInvalidParam(await t.get("/events", { query: { status: "publish, draft" } }), "status");
    expectInvalidParam(await t.get("/events", { as: "subscriber", query: { status: "draft" } }), "status");
    expectInvalidParam(await t.get("/events", { as: "editor", query: { status: "foo" } }), "status");
    expectInvalidParam(await t.get("/events", { as: "editor", query: { status: "foo, bar, publish" } }), "status");
  });

  it("start_date and end_date bound by start and end, whole days by default", async () => {
    const t = site();
    const res = await t.get("/events", { query: { search: "Yoga", start_date: "+10 days", end_date: "+30 days" } });
    expect(titles(res)).to.deep.equal(["Weekly Yoga 3", "Weekly Yoga 4", "Weekly Yoga 5"]);
    // Timestamps are accepted.
    const ts = Math.floor(DateTime.utc().plus({ days: 10 }).toSeconds());
    expect(titles(await t.get("/events", { query: { search: "Yoga", start_date: String(ts), end_date: "+30 days" } }))).to.have.length(3);
    expectInvalidParam(await t.get("/events", { query: { start_date: "before my birthday" } }), "start_date");
    expectInvalidParam(await t.get("/events", { query: { end_date: "foo" } }), "end_date");
  });

  it("strict_dates uses the exact instants; inclusive mode widens to whole days", async () => {
    const t = site();
    const day8 = dayAt(8, "20:00:00");
    const until = dayAt(20, "00:00:00");
    const inclusive = await t.get("/events", { query: { search: "Yoga", start_date: day8, end_date: until } });
    expect(titles(inclusive)).to.deep.equal(["Weekly Yoga 2", "Weekly Yoga 3"]);
    expect(params(inclusive.body.rest_url).start_date).to.equal(dayAt(8, "00:00:00"));
    const strict = await t.get("/events", { query: { search: "Yoga", start_date: day8, end_date: until, strict_dates: "true" } });
    expect(titles(strict)).to.deep.equal(["Weekly Yoga 3"]);
    expect(params(strict.body.rest_url)).to.include({ start_date: day8, strict_dates: "true" });
    expectInvalidParam(await t.get("/events", { query: { strict_dates: "" } }), "strict_dates");
  });

  it("starts_*/ends_* drop the default bounds that are not given explicitly", async () => {
    const t = site();
    const after = await t.get("/events", { query: { search: "Yoga", starts_after: dayAt(8, "12:00:00") } });
    // starts_after = end of day 8: Yoga 3 and later; no default upper bound.
    expect(titles(after)).to.have.length(8);
    expect(titles(after)[0]).to.equal("Weekly Yoga 3");
    const before = await t.get("/events", { query: { search: "Yoga", ends_before: dayAt(15, "00:00:00") } });
    expect(titles(before)).to.deep.equal(["Weekly Yoga 1", "Weekly Yoga 2", "Weekly Yoga 3"]);
    const wide = await t.get("/events", { query: { starts_after: "2019-01-01", per_page: 50 } });
    expect(titles(wide)).to.include.members(["Past Lecture", "Jazz Concert", "Two Days Ago", "Far Future"]);
    expect(params(wide.body.rest_url)).to.not.have.property("start_date");
    // An explicit start_date is kept next to a starts_* bound.
    const both = await t.get("/events", { query: { starts_before: "2021-01-01", start_date: "2020-03-10", per_page: 50 } });
    expect(titles(both)).to.deep.equal(["Past Lecture"]);
    const startsBefore = await t.get("/events", { query: { search: "Yoga", starts_before: dayAt(8, "00:00:00"), strict_dates: "1" } });
    expect(titles(startsBefore)).to.deep.equal(["Weekly Yoga 1"]);
    const endsAfter = await t.get("/events", { query: { search: "Yoga", ends_after: dayAt(57, "00:00:00") } });
    expect(titles(endsAfter)).to.deep.equal(["Weekly Yoga 10"]);
  });

  it("include ignores every date bound and orders by publication date then ID", async () => {
    const t = site();
    const past = await postId(t, "Past Lecture");
    const res = await t.get("/events", { query: { include: `${yoga[9]},${past},${oldPublication},${yesterdayEvent}`, start_date: "+100 days" } });
    expect(ids(res.body.events)[0]).to.equal(oldPublication);
    expect(ids(res.body.events)).to.have.members([yoga[9], past, oldPublication, yesterdayEvent]);
    expect(params(res.body.rest_url)).to.not.have.property("start_date");
    // starts_* still apply; invisible IDs are simply absent.
    const narrowed = await t.get("/events", { query: { include: [yoga[9], past, trashed], starts_after: "2021-01-01" } });
    expect(ids(narrowed.body.events)).to.deep.equal([yoga[9]]);
    expectInvalidParam(await t.get("/events", { query: { include: "1,foo" } }), "include");
    expectInvalidParam(await t.get("/events", { query: { include: "-3" } }), "include");
  });

  it("search needs every word in the title, excerpt or description", async () => {
    const t = site();
    expect(titles(await t.get("/events", { query: { search: "yoga" } }))).to.have.length(10);
    expect(titles(await t.get("/events", { query: { search: "weekly yoga 3" } }))).to.deep.equal(["Weekly Yoga 3"]);
    expect(titles(await t.get("/events", { query: { search: "rehearsal loaded" } }))).to.deep.equal(["Next Week Rehearsal"]);
    expect(titles(await t.get("/events", { query: { search: "yoga nothing" } }))).to.deep.equal([]);
    expectInvalidParam(await t.get("/events", { query: { search: "" } }), "search");
  });

  it("filters by categories and tags, by ID or slug, any of them, across the translation group", async () => {
    const t = site();
    const yogaCat = (await t.get(`/events/${yoga[0]}`)).body.categories[0];
    expect(yogaCat.slug).to.equal("yoga");
    expect(titles(await t.get("/events", { query: { categories: yogaCat.id } }))).to.have.length(10);
    expect(titles(await t.get("/events", { query: { categories: "yoga" } }))).to.have.length(10);
    const music = await t.site.engine.terms.bySlug("calendar_events_cat", "music");
    const both = titles(await t.get("/events", { query: { categories: ["yoga", music!.id], per_page: 50 } }));
    expect(both).to.include.members(["Weekly Yoga 1", "Next Week Rehearsal"]);
    expect(titles(await t.get("/events", { query: { tags: "calm" } }))).to.have.length(10);
    const free = titles(await t.get("/events", { query: { tags: "free, calm", starts_after: "2029-01-01" } }));
    expect(free).to.include.members(["Jazz Concert", "Summer Festival"]);
    // languages.md §2.4: the English category ID matches the French event in its translation group.
    const fr = await t.get("/events", { query: { categories: music!.id, i18n_language: "fr", starts_after: "2029-01-01" } });
    expect(titles(fr)).to.deep.equal(["Concert de jazz"]);
    expectInvalidParam(await t.get("/events", { query: { categories: "no-such-category" } }), "categories");
    expectInvalidParam(await t.get("/events", { query: { categories: "987654" } }), "categories");
    expectInvalidParam(await t.get("/events", { query: { tags: "yoga" } }), "tags");
  });

  it("filters by venue and organizer IDs, as lists or comma strings, across the translation group", async () => {
    const t = site();
    const townHall = await postId(t, "Town Hall");
    const cityPark = await postId(t, "City Park");
    const jazzClub = await postId(t, "Jazz Club");
    const friends = await postId(t, "Friends of Music");
    const wide = { starts_after: "2019-01-01" };
    expect(titles(await t.get("/events", { query: { venue: townHall, ...wide } }))).to.deep.equal(["Next Week Rehearsal", "Protected Event", "Jazz Concert"]);
    expect(titles(await t.get("/events", { query: { venue: `${townHall},${cityPark}`, ...wide } }))).to.have.length(4);
    expect(titles(await t.get("/events", { query: { organizer: jazzClub, ...wide } }))).to.deep.equal(["Next Week Rehearsal", "Jazz Concert"]);
    expect(titles(await t.get("/events", { query: { organizer: [jazzClub, friends], ...wide } }))).to.deep.equal(["Next Week Rehearsal", "Jazz Concert", "Summer Festival"]);
    const fr = await t.get("/events", { query: { venue: townHall, i18n_language: "fr", ...wide } });
    expect(titles(fr)).to.deep.equal(["Concert de jazz"]);
    expectInvalidParam(await t.get("/events", { query: { venue: "foo" } }), "venue");
    expectInvalidParam(await t.get("/events", { query: { venue: 987654 } }), "venue");
    expectInvalidParam(await t.get("/events", { query: { venue: jazzClub } }), "venue");
    expectInvalidParam(await t.get("/events", { query: { organizer: townHall } }), "organizer");
  });

  it("filters by venue without a statement per list for its venues' translations: each venue's group is read once per revision", async () => {
    const t = site();
    const wide = { starts_after: "2019-01-01" };
    const [townHall, cityPark] = [await postId(t, "Town Hall"), await postId(t, "City Park")];
    // Town Hall's group, then City Park's (Town Hall's held): each read once.
    await t.get("/events", { query: { venue: townHall, ...wide } });
    await t.get("/events", { query: { venue: `${cityPark},${townHall}`, ...wide } });
    const sql: string[] = [];
    const onQuery = (q: { sql: string }): void => {
      sql.push(q.sql);
    };
    t.site.engine.knex.on("query", onQuery);
    try {
      expect(titles(await t.get("/events", { query: { venue: cityPark, ...wide } })).length).to.be.greaterThan(0);
      expect(titles(await t.get("/events", { query: { venue: townHall, i18n_language: "fr", ...wide } }))).to.deep.equal(["Concert de jazz"]);
    } finally {
      t.site.engine.knex.removeListener("query", onQuery);
    }
    expect(sql.filter((s) => s.includes("translation_group"))).to.deep.equal([]);
  });

  it("filters by featured", async () => {
    const t = site();
    expect(ids((await t.get("/events", { query: { featured: "true" } })).body.events)).to.deep.equal([featured]);
    const notFeatured = await t.get("/events", { query: { featured: "0", per_page: 50 } });
    expect(ids(notFeatured.body.events)).to.not.include(featured);
    expect(notFeatured.body.total).to.be.greaterThan(5);
    expectInvalidParam(await t.get("/events", { query: { featured: "maybe" } }), "featured");
  });

  it("combines filters with AND", async () => {
    const t = site();
    const yogaCat = (await t.get(`/events/${yoga[0]}`)).body.categories[0].id;
    const combined = await t.get("/events", {
      query: { search: "Yoga", categories: yogaCat, tags: "calm", featured: "false", starts_after: dayAt(8, "00:00:00"), ends_before: dayAt(29, "00:00:00"), status: "publish" },
    });
    expect(titles(combined)).to.deep.equal(["Weekly Yoga 3", "Weekly Yoga 4", "Weekly Yoga 5"]);
    expect(params(combined.body.rest_url)).to.include({ search: "Yoga", categories: String(yogaCat), featured: "false", status: "publish" });
    const none = await t.get("/events", { query: { search: "Yoga", featured: "true" } });
    expect(none.body.total).to.equal(0);
    const venueAndCategory = await t.get("/events", { query: { venue: await postId(t, "Town Hall"), categories: "jazz", per_page: 50 } });
    expect(titles(venueAndCategory)).to.deep.equal(["Protected Event"]);
  });

  it("filters by post_parent", async () => {
    const t = site();
    const child = await makeEvent(t, { title: "Child Session" });
    await t.site.engine.posts.update(child.id, { parent: yoga[0] });
    expect(titles(await t.get("/events", { query: { post_parent: yoga[0] } }))).to.deep.equal(["Child Session"]);
    expect(titles(await t.get("/events", { query: { post_parent: yoga[1] } }))).to.deep.equal([]);
    expectInvalidParam(await t.get("/events", { query: { post_parent: "foo-bar" } }), "post_parent");
    expectInvalidParam(await t.get("/events", { query: { post_parent: 987654 } }), "post_parent");
    expectInvalidParam(await t.get("/events", { query: { post_parent: await postId(t, "Town Hall") } }), "post_parent");
  });

  it("geoloc filters by venues with coordinates; lat and lng come together", async () => {
    const t = site();
    expect(titles(await t.get("/events", { query: { geoloc: "true" } }))).to.deep.equal(["Next Week Rehearsal", "Protected Event"]);
    expect(titles(await t.get("/events", { query: { geoloc: "true", geoloc_lat: "52.37", geoloc_lng: "4.90" } }))).to.deep.equal([
      "Next Week Rehearsal",
      "Protected Event",
    ]);
    expect(titles(await t.get("/events", { query: { geoloc_lat: "40.7", geoloc_lng: "-74" } }))).to.deep.equal([]);
    expect((await t.get("/events", { query: { geoloc: "false" } })).status).to.equal(200);
    expectInvalidParam(await t.get("/events", { query: { geoloc_lat: "52.37" } }), "geoloc_lat");
    expectInvalidParam(await t.get("/events", { query: { geoloc_lng: "4.9" } }), "geoloc_lng");
    expectInvalidParam(await t.get("/events", { query: { geoloc_lat: "north", geoloc_lng: "4.9" } }), "geoloc_lat");
  });

  it("refuses ticketed=true with event-tickets-not-active, accepts false", async () => {
    const t = site();
    const res = await t.get("/events", { query: { ticketed: "true" } });
    expectInvalidParam(res, "ticketed");
    expect(res.body.data.details.ticketed.code).to.equal("event-tickets-not-active");
    expect((await t.get("/events", { query: { ticketed: "false" } })).status).to.equal(200);
  });

  it("pages with links at the edges, 404 past the end, an empty first page is 200", async () => {
    const t = site();
    const q = { search: "Yoga", per_page: 4, end_date: "+3 years" };
    const p1 = await t.get("/events", { query: q });
    expect(p1.body).to.include({ total: 10, total_pages: 3 });
    expect(Object.keys(p1.body)).to.deep.equal(["events", "rest_url", "next_rest_url", "total", "total_pages"]);
    expect(params(p1.body.next_rest_url)).to.include({ page: "2", per_page: "4", search: "Yoga" });
    expect(p1.headers.get("link")).to.include(`<${p1.body.next_rest_url}>; rel="next"`).and.not.include('rel="prev"');

    const p2 = await t.get(p1.body.next_rest_url);
    expect(titles(p2)).to.deep.equal(["Weekly Yoga 5", "Weekly Yoga 6", "Weekly Yoga 7", "Weekly Yoga 8"]);
    expect(Object.keys(p2.body)).to.deep.equal(["events", "rest_url", "next_rest_url", "previous_rest_url", "total", "total_pages"]);
    expect(params(p2.body.previous_rest_url)).to.not.have.property("page");
    expect(params(p2.body.next_rest_url).page).to.equal("3");
    expect(p2.headers.get("link")).to.include(`<${p2.body.previous_rest_url}>; rel="prev", <${p2.body.next_rest_url}>; rel="next"`);

    const p3 = await t.get("/events", { query: { ...q, page: 3 } });
    expect(titles(p3)).to.deep.equal(["Weekly Yoga 9", "Weekly Yoga 10"]);
    expect(p3.body).to.not.have.property("next_rest_url");
    expect(params(p3.body.previous_rest_url).page).to.equal("2");
    expect(p3.headers.get("x-cal-totalpages")).to.equal("3");

    const p4 = await t.get("/events", { query: { ...q, page: 4 } });
    expect(p4.status).to.equal(404);
    expect(p4.body.code).to.equal("event-archive-page-not-found");

    const empty = await t.get("/events", { query: { search: "nothing-matches-this" } });
    expect(empty.status).to.equal(200);
    expect(empty.body).to.deep.equal({ events: [], rest_url: empty.body.rest_url, total: 0, total_pages: 0 });
    expect(empty.headers.get("x-cal-total")).to.equal("0");
    expect(empty.headers.get("x-cal-totalpages")).to.equal("0");
  });

  it("clamps per_page to 50 and rejects bad page arguments", async () => {
    const t = site();
    const res = await t.get("/events", { query: { per_page: 100, starts_after: "2000-01-01" } });
    expect(res.status).to.equal(200);
    expect(params(res.body.rest_url).per_page).to.equal("50");
    for (const bad of ["foo", "-1", "0", "foo bar"]) {
      expectInvalidParam(await t.get("/events", { query: { page: bad } }), "page");
      expectInvalidParam(await t.get("/events", { query: { per_page: bad } }), "per_page");
    }
  });

  it("lists only events of the request language; the links keep it; an unknown language is a 400", async () => {
    const t = site();
    const fr = await t.get("/events", { query: { i18n_language: "fr", starts_after: "2019-01-01" } });
    expect(titles(fr)).to.deep.equal(["Concert de jazz"]);
    expect(params(fr.body.rest_url).i18n_language).to.equal("fr");
    const en = titles(await t.get("/events", { query: { starts_after: "2019-01-01", per_page: 50 } }));
    expect(en).to.not.include("Concert de jazz");
    const bad = await t.get("/events", { query: { i18n_language: "EN" } });
    expectInvalidParam(bad, "i18n_language");
    expect(bad.body.data.details.i18n_language.code).to.equal("rest_not_in_enum");
  });

  it("loads a page with a fixed number of queries, whatever its size", async () => {
    const t = site();
    const count = async (perPage: number): Promise<number> => {
      let n = 0;
      // The options cache re-reads its revision row now and then; that is not per event.
      const onQuery = (q: { sql: string }): void => {
        if (!/options/.test(q.sql)) n++;
      };
      // Warm: the total is cached until the next write, so a first request of either size counts one more query.
      await t.get("/events", { query: { search: "Yoga", per_page: perPage } });
      t.site.engine.knex.on("query", onQuery);
      try {
        const res = await t.get("/events", { query: { search: "Yoga", per_page: perPage } });
        expect(res.body.events).to.have.length(perPage);
      } finally {
        t.site.engine.knex.removeListener("query", onQuery);
      }
      return n;
    };
    expect(await count(8)).to.equal(await count(2));
  });
});

describe("GET /events: default date bounds in the site time zone", () => {
  it("starts at yesterday (UTC calendar) converted to the site zone, ends 24 months ahead", () => {
    const now = DateTime.fromISO("2024-05-10T10:00:00Z", { zone: "UTC" });
    expect(defaultListStart(now, "UTC")).to.equal("2024-05-09 00:00:00");
    expect(defaultListStart(now, "America/New_York")).to.equal("2024-05-09 00:00:00");
    // Positive offsets: yesterday 23:59 UTC is already today there.
    expect(defaultListStart(now, "Asia/Kolkata")).to.equal("2024-05-10 00:00:00");
    expect(defaultListStart(now, "UTC+3")).to.equal("2024-05-10 00:00:00");
    expect(defaultListEnd(now)).to.equal("2026-05-10 23:59:59");
  });

  it("are remembered per UTC calendar date and zone only: they move at UTC midnight", () => {
    const last = DateTime.fromISO("2024-05-10T23:59:59.999Z", { zone: "UTC" });
    const next = last.plus({ milliseconds: 1 });
    for (const [zone, before, after] of [
      ["UTC", "2024-05-09 00:00:00", "2024-05-10 00:00:00"],
      ["Asia/Kolkata", "2024-05-10 00:00:00", "2024-05-11 00:00:00"],
    ] as const) {
      expect(defaultListStart(last, zone)).to.equal(before);
      expect(defaultListStart(next, zone)).to.equal(after);
      expect(defaultListStart(last, zone)).to.equal(before);
    }
    expect(defaultListEnd(last)).to.equal("2026-05-10 23:59:59");
    expect(defaultListEnd(next)).to.equal("2026-05-11 23:59:59");
    // The stored wall clock of a default bound, remembered, is the one listBound reads.
    for (const strict of [false, true]) {
      for (const zone of ["UTC", "Asia/Kolkata", "America/New_York"]) {
        for (const [value, edge] of [[defaultListStart(next, zone), "start"], [defaultListEnd(next), "end"]] as const) {
          expect(defaultListBound(value, edge, strict, zone, next)).to.equal(listBound(value, edge, strict, zone, next));
          expect(defaultListBound(value, edge, strict, zone, last)).to.equal(listBound(value, edge, strict, zone, next));
        }
      }
    }
  });

  it("reads explicit bounds on the UTC calendar (inclusive) or as UTC instants (strict)", () => {
    const now = DateTime.fromISO("2024-05-10T22:30:00Z", { zone: "UTC" });
    expect(listBound("2024-05-12 15:00", "start", false, "Asia/Kolkata", now)).to.equal("2024-05-12 00:00:00");
    expect(listBound("2024-05-12 15:00", "end", false, "Asia/Kolkata", now)).to.equal("2024-05-12 23:59:59");
    expect(listBound("tomorrow", "start", false, "America/New_York", now)).to.equal("2024-05-11 00:00:00");
    expect(listBound("2024-05-12 15:00", "start", true, "Asia/Kolkata", now)).to.equal("2024-05-12 20:30:00");
    expect(listBound("2024-05-12T15:00:00+02:00", "start", true, "Europe/Rome", now)).to.equal("2024-05-12 15:00:00");
  });

  for (const zone of ["Asia/Kolkata", "America/New_York"]) {
    describe(`a site in ${zone}`, () => {
      let t: TestSite;
      before(async () => {
        t = await startTestSite({ fixture: "minimal", timezone: zone });
      });
      after(() => t.close());

      it("shows the computed defaults in the namespace index and applies them", async () => {
        const index = await t.get("");
        const args = index.body.routes["/calendar/events/v1/events"].endpoints[0].args;
        const now = DateTime.utc();
        expect(args.start_date.default).to.equal(defaultListStart(now, zone));
        expect(args.end_date.default).to.equal(defaultListEnd(now));
        const list = await t.get("/events");
        expect(params(list.body.rest_url).start_date).to.equal(defaultListStart(now, zone));
      });
    });
  }
});
