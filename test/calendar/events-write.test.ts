import { expect } from "chai";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { DateTime } from "luxon";
import { createEvent } from "../../lib/calendar/events/operations";
import { EngineError } from "../../lib/engine-errors";
import { isRestError } from "../../lib/routes/errors";
import { forEachDatabase } from "../support/databases";
import type { TestSite } from "../support/site";
import { SQL, dayAt, expectInvalidParam, ids, makeEvent, postId, useSite } from "./events-support";

/** A tiny web server for image URLs: an image, an HTML page, a 404. */
async function imageServer(): Promise<{ url: string; close(): Promise<void> }> {
  const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=", "base64");
  const server = http.createServer((req, res) => {
    if (req.url?.startsWith("/img")) {
      res.writeHead(200, { "content-type": "image/png", "content-length": png.length });
      res.end(png);
    } else if (req.url === "/page.html") {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<p>not an image</p>");
    } else {
      res.writeHead(404, { "content-type": "image/png" });
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Rows per table, to show that a refused write stored nothing. */
async function counts(t: TestSite): Promise<Record<string, number>> {
  const k = t.site.engine.knex;
  const out: Record<string, number> = {};
  for (const type of ["event", "venue", "organizer", "attachment"]) {
    const row = await k(t.site.engine.tables.posts).where({ type }).count({ n: "*" }).first();
    out[type] = Number(row?.n ?? 0);
  }
  out.terms = Number((await k(t.site.engine.tables.terms).count({ n: "*" }).first())?.n ?? 0);
  out.links = Number((await k(t.site.engine.tables.postLinks).count({ n: "*" }).first())?.n ?? 0);
  return out;
}

function localAndUtc(dt: DateTime): { local: string; utc: string } {
  return { local: dt.toFormat(SQL), utc: dt.toUTC().toFormat(SQL) };
}

/** What PHP's `tomorrow <hour>` gives in `zone` now. */
function tomorrowAt(zone: string, hour: number): DateTime {
  return DateTime.now().setZone(zone).startOf("day").plus({ days: 1 }).set({ hour });
}

forEachDatabase("POST /events (create)", (db) => {
  // The image server below listens on 127.0.0.1, which the fetch policy refuses unless allowed.
  const site = useSite(db, { fetch: { allowHosts: ["127.0.0.1"] } });

  it("creates an event: 201, Location, the record without json_ld", async () => {
    const t = site();
    const res = await t.post("/events", {
      as: "editor",
      json: { title: "Launch Party", description: "Come along.", excerpt: "Short.", start_date: "2030-05-01 18:00:00", end_date: "2030-05-01 22:00:00" },
    });
    expect(res.status).to.equal(201);
    expect(res.headers.get("location")).to.equal(`${t.ns}/events/${res.body.id}`);
    expect(res.body).to.include({ title: "Launch Party", description: "<p>Come along.</p>", excerpt: "<p>Short.</p>", slug: "launch-party", status: "publish" });
    expect(res.body).to.include({ start_date: "2030-05-01 18:00:00", end_date: "2030-05-01 22:00:00", timezone: "UTC", timezone_abbr: "UTC", all_day: false });
    // Omitted flags: show_map/show_map_link stored false (quirk of the original), website shows the page URL.
    expect(res.body).to.include({ show_map: false, show_map_link: false, hide_from_listings: false, sticky: false, featured: false });
    expect(res.body.website).to.equal(`${t.home}/event/launch-party/`);
    expect(res.body.author).to.equal(String((await t.site.engine.users.byLogin("editor"))!.id));
    expect(res.body).to.not.have.property("json_ld");
    expect(res.body.venue).to.deep.equal([]);
    expect(res.body.organizer).to.deep.equal([]);
  });

  it("checks permission after validation: anonymous 401, subscriber 403, invalid data 400 first", async () => {
    const t = site();
    const body = { title: "Nope", start_date: "tomorrow 10am", end_date: "tomorrow 11am" };
    const anon = await t.post("/events", { json: body });
    expect(anon.status).to.equal(401);
    expect(anon.body.code).to.equal("rest_forbidden");
    expect((await t.post("/events", { as: "subscriber", json: body })).status).to.equal(403);
    expectInvalidParam(await t.post("/events", { json: { ...body, title: "" } }), "title");
  });

  it("scales the status: contributors get draft or pending, publishers what they ask", async () => {
    const t = site();
    const contributorId = String((await t.site.engine.users.byLogin("contributor"))!.id);
    const draft = await makeEvent(t, { title: "Contributor Draft" }, "contributor");
    expect(draft.status).to.equal("draft");
    expect(draft.author).to.equal(contributorId);
    expect(draft.slug).to.equal("");
    expect((await makeEvent(t, { title: "Contributor Publish", status: "publish" }, "contributor")).status).to.equal("pending");
    expect((await makeEvent(t, { title: "Contributor Future", status: "future" }, "contributor")).status).to.equal("pending");
    expect((await makeEvent(t, { title: "Contributor Private", status: "private" }, "contributor")).status).to.equal("private");
    expect((await makeEvent(t, { title: "Author Default" }, "author")).status).to.equal("publish");
    expect((await makeEvent(t, { title: "Editor Draft", status: "draft" })).status).to.equal("draft");
    const future = await makeEvent(t, { title: "Scheduled", status: "future", date: dayAt(30, "09:00:00") }, "author");
    expect(future.status).to.equal("future");
    expect(future.date).to.equal(dayAt(30, "09:00:00"));
  });

  it("validates every field: 400 with the argument named", async () => {
    const t = site();
    const ok = { title: "Valid", start_date: "tomorrow 10am", end_date: "tomorrow 11am" };
    const missing = await t.post("/events", { as: "editor", json: { description: "no title" } });
    expect(missing.status).to.equal(400);
    expect(missing.body.code).to.equal("rest_missing_callback_param");
    expect(missing.body.data.params).to.deep.equal(["title", "start_date", "end_date"]);
    const cases: Array<[string, unknown]> = [
      ["title", ""],
      ["start_date", ""],
      ["start_date", "before my birthday"],
      ["end_date", "foo"],
      ["end_date", '"tomorrow"'],
      ["author", 987654],
      ["author", ""],
      ["status", "kinda_thinking_about_it"],
      ["website", "foo"],
      ["timezone", "Mars/Olympus_Mons"],
      ["description", ""],
      ["slug", ""],
      ["date", "foo"],
      ["date_utc", "foo"],
      ["all_day", "sometimes"],
      ["image", "not a url"],
      ["venue", "foo"],
      ["organizer", "foo"],
    ];
    for (const [name, value] of cases) expectInvalidParam(await t.post("/events", { as: "editor", json: { ...ok, [name]: value } }), name);
  });

  it("refuses an end before the start (calpress decision), naming end_date, writing nothing", async () => {
    const t = site();
    const before = await counts(t);
    const res = await t.post("/events", { as: "editor", json: { title: "Backwards", start_date: "2030-01-02 10:00", end_date: "2030-01-01 10:00", venue: { venue: "Never Written" } } });
    expectInvalidParam(res, "end_date");
    expect(await counts(t)).to.deep.equal(before);
    // The same day as an all-day event is fine.
    const allDay = await makeEvent(t, { title: "Same Day", all_day: true, start_date: "2030-01-02 10:00", end_date: "2030-01-02 09:00" });
    expect(allDay).to.include({ start_date: "2030-01-02 00:00:00", end_date: "2030-01-02 23:59:59" });
  });

  it("reads natural-language dates in the event time zone, DST changes included", async () => {
    const t = site();
    const cases: Array<{ zone: string; start: string; end: string; startAt: DateTime; endAt: DateTime; abbr?: string }> = [
      { zone: "America/New_York", start: "tomorrow 9am", end: "tomorrow 23:59:59", startAt: tomorrowAt("America/New_York", 9), endAt: tomorrowAt("America/New_York", 23).set({ minute: 59, second: 59 }) },
      { zone: "Europe/Rome", start: "2018-01-01 4pm", end: "2018-01-01 6pm", startAt: DateTime.fromISO("2018-01-01T16:00", { zone: "Europe/Rome" }), endAt: DateTime.fromISO("2018-01-01T18:00", { zone: "Europe/Rome" }), abbr: "CET" },
      { zone: "Asia/Kolkata", start: "2017-01-05 14:23:36", end: "+1 day 9am", startAt: DateTime.fromISO("2017-01-05T14:23:36", { zone: "Asia/Kolkata" }), endAt: DateTime.now().setZone("Asia/Kolkata").plus({ days: 1 }).set({ hour: 9, minute: 0, second: 0 }), abbr: "IST" },
      { zone: "UTC+3", start: "2024-02-29 12am", end: "2024-02-29 12pm", startAt: DateTime.fromISO("2024-02-29T00:00", { zone: "UTC+3" }), endAt: DateTime.fromISO("2024-02-29T12:00", { zone: "UTC+3" }), abbr: "+03" },
      // Across the spring-forward change in Rome (02:00 → 03:00): three hours of wall clock, two real hours.
      { zone: "Europe/Rome", start: "2025-03-30 01:00:00", end: "2025-03-30 04:00:00", startAt: DateTime.fromISO("2025-03-30T01:00", { zone: "Europe/Rome" }), endAt: DateTime.fromISO("2025-03-30T04:00", { zone: "Europe/Rome" }), abbr: "CET" },
      // Across the fall-back change in New York.
      { zone: "America/New_York", start: "2025-11-01 22:00:00", end: "2025-11-02 03:00:00", startAt: DateTime.fromISO("2025-11-01T22:00", { zone: "America/New_York" }), endAt: DateTime.fromISO("2025-11-02T03:00", { zone: "America/New_York" }), abbr: "EDT" },
    ];
    for (const c of cases) {
      const e = await makeEvent(t, { title: `Zone ${c.zone}`, timezone: c.zone, start_date: c.start, end_date: c.end });
      const s = localAndUtc(c.startAt);
      const en = localAndUtc(c.endAt);
      expect(e, c.start).to.include({ timezone: c.zone, start_date: s.local, utc_start_date: s.utc, end_date: en.local, utc_end_date: en.utc });
      if (c.abbr) expect(e.timezone_abbr).to.equal(c.abbr);
    }
    const rome = await makeEvent(t, { title: "Rome DST", timezone: "Europe/Rome", start_date: "2025-03-30 01:00:00", end_date: "2025-03-30 04:00:00" });
    expect([rome.utc_start_date, rome.utc_end_date]).to.deep.equal(["2025-03-30 00:00:00", "2025-03-30 02:00:00"]);
    const nextWednesday = await makeEvent(t, { title: "Next Wednesday", timezone: "Asia/Kolkata", start_date: "next wednesday 4pm", end_date: "next wednesday 5pm" });
    let wed = DateTime.now().setZone("Asia/Kolkata").startOf("day").plus({ days: 1 });
    while (wed.weekday !== 3) wed = wed.plus({ days: 1 });
    expect(nextWednesday.start_date).to.equal(wed.set({ hour: 16 }).toFormat(SQL));
  });

  it("reads dates in the site time zone without timezone; a timestamp is its UTC wall clock there (quirk)", async () => {
    const t = site();
    const ts = String(Date.UTC(2024, 4, 10, 12, 0, 0) / 1000);
    const utcSite = await makeEvent(t, { title: "Timestamp UTC", start_date: ts, end_date: String(Number(ts) + 3600) });
    expect(utcSite).to.include({ start_date: "2024-05-10 12:00:00", utc_start_date: "2024-05-10 12:00:00", timezone: "UTC" });
    const withZone = await makeEvent(t, { title: "Timestamp NY", timezone: "America/New_York", start_date: ts, end_date: String(Number(ts) + 3600) });
    expect(withZone).to.include({ start_date: "2024-05-10 08:00:00", utc_start_date: "2024-05-10 12:00:00" });
    await t.site.engine.options.set("timezone", "Europe/Rome");
    try {
      const rome = await makeEvent(t, { title: "Site Rome", start_date: "2024-07-01 10:00", end_date: "2024-07-01 11:00" });
      expect(rome).to.include({ timezone: "Europe/Rome", start_date: "2024-07-01 10:00:00", utc_start_date: "2024-07-01 08:00:00", timezone_abbr: "CEST" });
      const romeTs = await makeEvent(t, { title: "Site Rome Timestamp", start_date: ts, end_date: String(Number(ts) + 3600) });
      expect(romeTs).to.include({ timezone: "Europe/Rome", start_date: "2024-05-10 12:00:00", utc_start_date: "2024-05-10 10:00:00" });
    } finally {
      await t.site.engine.options.set("timezone", "UTC");
    }
  });

  it("stores date as written and date_utc in UTC, each as given when both are sent", async () => {
    const t = site();
    const local = await makeEvent(t, { title: "Dated", timezone: "America/New_York", date: "2017-01-05 14:23:36" });
    expect(local.date).to.equal("2017-01-05 14:23:36");
    expect(local.date_utc).to.equal("2017-01-05 14:23:36");
    const utc = await makeEvent(t, { title: "Dated UTC", date_utc: "tomorrow 9am" });
    expect(utc.date_utc).to.equal(`${DateTime.utc().plus({ days: 1 }).toFormat("yyyy-MM-dd")} 09:00:00`);
    const both = await makeEvent(t, { title: "Dated Both", date: "2017-01-05 10:00:00", date_utc: "2017-01-05 20:00:00" });
    expect([both.date, both.date_utc]).to.deep.equal(["2017-01-05 10:00:00", "2017-01-05 20:00:00"]);
  });

  it("makes all-day and multi-day events whole days", async () => {
    const t = site();
    const e = await makeEvent(t, { title: "Festival Days", all_day: "true", timezone: "Europe/Rome", start_date: "2025-06-01 15:00", end_date: "2025-06-03 10:00" });
    expect(e).to.include({ all_day: true, start_date: "2025-06-01 00:00:00", end_date: "2025-06-03 23:59:59" });
    expect(e).to.include({ utc_start_date: "2025-05-31 22:00:00", utc_end_date: "2025-06-03 21:59:59" });
  });

  it("formats costs", async () => {
    const t = site();
    const cases: Array<[unknown, string, Record<string, unknown>]> = [
      ["20$", "20$", { currency_symbol: "$", currency_position: "postfix", values: ["20"] }],
      ["$23", "$23", { currency_symbol: "$", currency_position: "prefix", values: ["23"] }],
      [["0$", "20$", "30$"], "Free – 30$", { currency_symbol: "$", currency_position: "postfix", values: ["0", "20", "30"] }],
      ["Donation", "Donation", {}],
    ];
    for (const [cost, shown, details] of cases) {
      const e = await makeEvent(t, { title: `Cost ${JSON.stringify(cost)}`, cost });
      expect(e.cost).to.equal(shown);
      expect(e.cost_details).to.include({ currency_code: "" });
      for (const [k, v] of Object.entries(details)) expect(e.cost_details[k]).to.deep.equal(v);
    }
  });

  it("sets website, booleans, slug (normalised, made unique)", async () => {
    const t = site();
    const e = await makeEvent(t, { title: "Flags", website: "https://example.com/flags", featured: true, sticky: "1", show_map: true, hide_from_listings: "false", slug: "My Custom Slug!" });
    expect(e).to.include({ website: "https://example.com/flags", featured: true, sticky: true, show_map: true, show_map_link: false, hide_from_listings: false, slug: "my-custom-slug" });
    expect((await makeEvent(t, { title: "Flags 2", slug: "my custom slug" })).slug).to.equal("my-custom-slug-2");
  });

  it("filters HTML for users without unfiltered_html", async () => {
    const t = site();
    const html = "Hello<script>alert(1)</script> <strong>there</strong>";
    const byContributor = await makeEvent(t, { title: "HTML C", description: html }, "contributor");
    expect(byContributor.description).to.not.include("<script");
    expect(byContributor.description).to.include("<strong>there</strong>");
    const byEditor = await makeEvent(t, { title: "HTML E", description: html });
    expect(byEditor.description).to.include("<script>");
  });

  it("links categories and tags by ID, slug or name, creating missing terms in order", async () => {
    const t = site();
    const first = await makeEvent(t, { title: "Terms 1", categories: "cat1,cat2", tags: ["fresh tag"] });
    expect(first.categories.map((c: any) => c.name)).to.deep.equal(["cat1", "cat2"]);
    expect(first.tags.map((c: any) => [c.name, c.slug])).to.deep.equal([["fresh tag", "fresh-tag"]]);
    const cat1 = first.categories[0].id;
    const music = await t.site.engine.terms.bySlug("calendar_events_cat", "music");
    const second = await makeEvent(t, { title: "Terms 2", categories: [cat2Slug(), cat1, "Brand New", music!.id, 987654] });
    expect(second.categories.map((c: any) => c.name)).to.deep.equal(["cat2", "cat1", "Brand New", "Music"]);
    // By name, case-insensitively: no second "cat1".
    const third = await makeEvent(t, { title: "Terms 3", categories: "CAT1" });
    expect(ids(third.categories)).to.deep.equal([cat1]);
    // A contributor creates terms this way too (quirk, matched).
    const byContributor = await makeEvent(t, { title: "Terms 4", tags: "contributed" }, "contributor");
    expect(byContributor.tags.map((c: any) => c.name)).to.deep.equal(["contributed"]);
    function cat2Slug(): string {
      return "cat2";
    }
  });

  it("creates a nested venue and organizers, reusing duplicates; links IDs and {id}", async () => {
    const t = site();
    const townHall = await postId(t, "Town Hall");
    const jazzClub = await postId(t, "Jazz Club");
    const friends = await postId(t, "Friends of Music");
    const first = await makeEvent(t, {
      title: "Nested",
      venue: { venue: "Nested Hall", city: "Rome", address: "Via Roma 1" },
      organizer: [{ organizer: "Org A" }, { id: jazzClub }, { id: friends }, { organizer: "Org C", email: "c@example.com" }],
    });
    expect(first.venue).to.include({ venue: "Nested Hall", city: "Rome", address: "Via Roma 1" });
    expect(first.organizer.map((o: any) => o.organizer)).to.deep.equal(["Org A", "Jazz Club", "Friends of Music", "Org C"]);
    const reused = await makeEvent(t, { title: "Nested Again", venue: { venue: "nested hall", phone: "+39 06 1234" }, organizer: { organizer: "ORG A" } });
    expect(reused.venue.id).to.equal(first.venue.id);
    expect(reused.venue.phone).to.equal("+39 06 1234");
    expect(ids(reused.organizer)).to.deep.equal([first.organizer[0].id]);
    for (const venue of [townHall, String(townHall), { id: townHall }, [townHall], [{ id: townHall }]]) {
      const e = await makeEvent(t, { title: "Venue by ID", venue });
      expect(e.venue.id, JSON.stringify(venue)).to.equal(townHall);
    }
    const commaList = await makeEvent(t, { title: "Comma Organizers", organizer: `${friends}, ${jazzClub}` });
    expect(ids(commaList.organizer)).to.deep.equal([friends, jazzClub]);
    const single = await makeEvent(t, { title: "One Organizer", organizer: jazzClub });
    expect(ids(single.organizer)).to.deep.equal([jazzClub]);
  });

  it("reads nested venue and organizer data in bracket notation", async () => {
    const t = site();
    const jazzClub = await postId(t, "Jazz Club");
    const res = await t.post("/events", {
      as: "editor",
      form: {
        title: "Form Event",
        start_date: "tomorrow 10am",
        end_date: "tomorrow 11am",
        all_day: "1",
        venue: { venue: "Form Hall", city: "Paris" },
        organizer: [{ organizer: "Form Org" }, { id: jazzClub }],
        categories: ["form-cat"],
      },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.all_day).to.equal(true);
    expect(res.body.venue).to.include({ venue: "Form Hall", city: "Paris" });
    expect(res.body.organizer.map((o: any) => o.organizer)).to.deep.equal(["Form Org", "Jazz Club"]);
    expect(res.body.categories.map((c: any) => c.name)).to.deep.equal(["form-cat"]);
  });

  it("refuses bad linked data with 400 under the argument", async () => {
    const t = site();
    const townHall = await postId(t, "Town Hall");
    const jazzClub = await postId(t, "Jazz Club");
    const cases: Array<[string, unknown]> = [
      ["venue", { id: jazzClub }],
      ["venue", jazzClub],
      ["venue", 987654],
      ["venue", [townHall, townHall]],
      ["venue", { city: "No Name" }],
      ["venue", { venue: "" }],
      ["venue", { venue: "Bad Site", website: "foo" }],
      ["organizer", [{ id: townHall }]],
      ["organizer", [{ organizer: "Fine" }, { email: "no-name@example.com" }]],
      ["organizer", { organizer: "" }],
      ["organizer", `${jazzClub},foo`],
    ];
    for (const [name, value] of cases) {
      const res = await t.post("/events", { as: "editor", json: { title: "Bad Link", start_date: "tomorrow 10am", end_date: "tomorrow 11am", [name]: value } });
      expectInvalidParam(res, name);
    }
  });

  it("writes nothing when a nested part is invalid (validation, and the transaction for in-process calls)", async () => {
    const t = site();
    const body = {
      title: "All Or Nothing",
      start_date: "tomorrow 10am",
      end_date: "tomorrow 11am",
      categories: "Never Created Category",
      tags: "never-created-tag",
      venue: { venue: "Never Created Venue" },
      organizer: [{ organizer: "Never Created Organizer" }, { email: "x@example.com" }],
    };
    const before = await counts(t);
    expectInvalidParam(await t.post("/events", { as: "editor", json: body }), "organizer");
    expect(await counts(t)).to.deep.equal(before);

    // In-process, with argument validation skipped: the venue and terms are
    // written inside the transaction before the organizer fails; all roll back.
    const admin = t.site.engine.users.currentUser((await t.site.engine.users.byLogin("admin"))!);
    let failure: unknown;
    try {
      await createEvent(t.site.engine, body, admin, { validated: true });
    } catch (err) {
      failure = err;
    }
    expect(isRestError(failure) && failure.code).to.equal("rest_invalid_param");
    expect(await counts(t)).to.deep.equal(before);
    expect(await t.site.engine.terms.bySlug("calendar_events_cat", "never-created-category")).to.equal(undefined);

    // A bad nested venue: the new terms are written first in the transaction, then rolled back.
    const badVenue = { ...body, organizer: [{ organizer: "Never Created Organizer" }], venue: { venue: "Never Created Venue", website: "not a url" } };
    expectInvalidParam(await t.post("/events", { as: "editor", json: badVenue }), "venue");
    expect(await counts(t)).to.deep.equal(before);
    failure = undefined;
    try {
      await createEvent(t.site.engine, badVenue, admin, { validated: true });
    } catch (err) {
      failure = err;
    }
    expect(isRestError(failure) && failure.data?.params).to.have.property("venue");
    expect(await counts(t)).to.deep.equal(before);
  });

  it("creates in the request language; inline venues get it too", async () => {
    const t = site();
    const res = await t.post("/events", {
      as: "editor",
      query: { i18n_language: "fr" },
      json: { title: "Soirée", start_date: dayAt(5, "20:00:00"), end_date: dayAt(5, "22:00:00"), venue: { venue: "Salle Française" } },
    });
    expect(res.status).to.equal(201);
    const post = await t.site.engine.posts.get(res.body.id);
    const venue = await t.site.engine.posts.get(res.body.venue.id);
    expect([post!.language, venue!.language]).to.deep.equal(["fr", "fr"]);
    const fr = await t.get("/events", { query: { i18n_language: "fr", search: "Soirée" } });
    expect(ids(fr.body.events)).to.deep.equal([res.body.id]);
    expect((await t.get("/events", { query: { search: "Soirée" } })).body.events).to.deep.equal([]);
  });

  describe("image", () => {
    let images: { url: string; close(): Promise<void> };
    before(async () => {
      images = await imageServer();
    });
    after(() => images.close());

    it("imports an image URL once as an attachment, for users who may upload files", async () => {
      const t = site();
      const url = `${images.url}/img-${db.name}.png`;
      const before = await counts(t);
      const first = await makeEvent(t, { title: "With Image", image: url }, "author");
      expect(first.image).to.include({ url, extension: "png" });
      expect(first.image.id).to.be.a("number");
      const second = await makeEvent(t, { title: "Same Image", image: url }, "author");
      expect(second.image.id).to.equal(first.image.id);
      expect((await counts(t)).attachment).to.equal(before.attachment + 1);
      const byId = await makeEvent(t, { title: "Image By ID", image: first.image.id });
      expect(byId.image.id).to.equal(first.image.id);
    });

    it("refuses a URL from a contributor, a non-image, a 404, an unreachable URL, a non-attachment ID", async () => {
      const t = site();
      const base = { title: "Bad Image", start_date: "tomorrow 10am", end_date: "tomorrow 11am" };
      expectInvalidParam(await t.post("/events", { as: "contributor", json: { ...base, image: `${images.url}/img-c.png` } }), "image");
      expectInvalidParam(await t.post("/events", { as: "editor", json: { ...base, image: `${images.url}/page.html` } }), "image");
      expectInvalidParam(await t.post("/events", { as: "editor", json: { ...base, image: `${images.url}/missing.png` } }), "image");
      expectInvalidParam(await t.post("/events", { as: "editor", json: { ...base, image: "http://127.0.0.1:1/nothing.png" } }), "image");
      expectInvalidParam(await t.post("/events", { as: "editor", json: { ...base, image: await postId(t, "Town Hall") } }), "image");
    });
  });
});

forEachDatabase("POST|PUT|PATCH /events/{id} and /events/by-slug/{slug} (update)", (db) => {
  const site = useSite(db);

  it("keeps omitted fields, resets status, flags and website as the original, keeps image and time zone", async () => {
    const t = site();
    const attachment = await t.site.engine.posts.create({ type: "attachment", status: "publish", title: "pic", fields: { url: "http://example.com/pic.jpg", mime_type: "image/jpeg" } });
    const townHall = await postId(t, "Town Hall");
    const jazzClub = await postId(t, "Jazz Club");
    const e = await makeEvent(t, {
      title: "Full Event",
      description: "Body",
      status: "draft",
      timezone: "America/New_York",
      start_date: "2030-03-01 10:00",
      end_date: "2030-03-01 12:00",
      all_day: true,
      featured: true,
      sticky: true,
      show_map: true,
      show_map_link: true,
      website: "https://example.com/full",
      cost: "15$",
      image: attachment.id,
      categories: "Keep Cat",
      tags: "keep-tag",
      venue: townHall,
      organizer: [jazzClub],
    });
    const res = await t.request("PATCH", `/events/${e.id}`, { as: "editor", json: { title: "Renamed" } });
    expect(res.status).to.equal(200);
    const u = res.body;
    expect(u).to.include({ id: e.id, title: "Renamed", description: "<p>Body</p>", status: "publish", cost: "15$", timezone: "America/New_York" });
    expect(u).to.include({ featured: false, sticky: false, show_map: false, show_map_link: false, hide_from_listings: false, all_day: false, website: "" });
    // all_day reset keeps the stored wall clocks.
    expect([u.start_date, u.end_date]).to.deep.equal(["2030-03-01 00:00:00", "2030-03-01 23:59:59"]);
    expect(u.image.id).to.equal(attachment.id);
    expect(u.categories.map((c: any) => c.name)).to.deep.equal(["Keep Cat"]);
    expect(u.tags.map((c: any) => c.name)).to.deep.equal(["keep-tag"]);
    expect(u.venue.id).to.equal(townHall);
    expect(ids(u.organizer)).to.deep.equal([jazzClub]);
    expect(u).to.not.have.property("json_ld");
  });

  it("updates dates: one side keeps the other, no timezone means the site zone, a timezone re-zones", async () => {
    const t = site();
    const e = await makeEvent(t, { title: "Moving", timezone: "America/New_York", start_date: "2030-03-01 10:00", end_date: "2030-03-01 12:00" });
    const onlyEnd = await t.post(`/events/${e.id}`, { as: "editor", json: { end_date: "2030-03-01 13:00", timezone: "America/New_York" } });
    expect(onlyEnd.body).to.include({ start_date: "2030-03-01 10:00:00", end_date: "2030-03-01 13:00:00", utc_start_date: "2030-03-01 15:00:00" });
    const siteZone = await t.post(`/events/${e.id}`, { as: "editor", json: { start_date: "2030-03-01 09:00" } });
    expect(siteZone.body).to.include({ timezone: "UTC", start_date: "2030-03-01 09:00:00", end_date: "2030-03-01 13:00:00", utc_start_date: "2030-03-01 09:00:00" });
    const rezoned = await t.request("PUT", `/events/${e.id}`, { as: "editor", json: { timezone: "Europe/Rome" } });
    expect(rezoned.body).to.include({ timezone: "Europe/Rome", start_date: "2030-03-01 09:00:00", utc_start_date: "2030-03-01 08:00:00" });
    const backwards = await t.post(`/events/${e.id}`, { as: "editor", json: { end_date: "2030-02-28 10:00", timezone: "Europe/Rome" } });
    expectInvalidParam(backwards, "end_date");
    expect((await t.get(`/events/${e.id}`)).body.end_date).to.equal("2030-03-01 13:00:00");
  });

  it("links and unlinks venue, organizers and terms; absent leaves them", async () => {
    const t = site();
    const townHall = await postId(t, "Town Hall");
    const jazzClub = await postId(t, "Jazz Club");
    const e = await makeEvent(t, { title: "Links", venue: townHall, organizer: jazzClub, categories: "Linked Cat" });
    const untouched = await t.post(`/events/${e.id}`, { as: "editor", json: { description: "x" } });
    expect(untouched.body.venue.id).to.equal(townHall);
    // The original's test sends venue=0 in a form to remove the venue.
    const unlinked = await t.post(`/events/${e.id}`, { as: "editor", form: { venue: "0", organizer: "" } });
    expect(unlinked.status).to.equal(200);
    expect(unlinked.body.venue).to.deep.equal([]);
    expect(unlinked.body.organizer).to.deep.equal([]);
    expect(unlinked.body.categories.map((c: any) => c.name)).to.deep.equal(["Linked Cat"]);
    const noTerms = await t.post(`/events/${e.id}`, { as: "editor", json: { categories: "" } });
    expect(noTerms.body.categories).to.deep.equal([]);
  });

  it("checks the permission on this event", async () => {
    const t = site();
    const own = await makeEvent(t, { title: "Contributor Own" }, "contributor");
    expect((await t.post(`/events/${own.id}`, { as: "contributor", json: { title: "Still Mine" } })).body).to.include({ title: "Still Mine", status: "draft" });
    const others = await makeEvent(t, { title: "Editor's" });
    expect((await t.post(`/events/${others.id}`, { as: "contributor", json: { title: "x" } })).status).to.equal(403);
    expect((await t.post(`/events/${others.id}`, { as: "author", json: { title: "x" } })).status).to.equal(403);
    expect((await t.post(`/events/${others.id}`, { json: { title: "x" } })).status).to.equal(401);
    expect((await t.post(`/events/${others.id}`, { as: "subscriber", json: { title: "x" } })).status).to.equal(403);
    // Published: the contributor may no longer edit it.
    expect((await t.post(`/events/${own.id}`, { as: "editor", json: { status: "publish" } })).body.status).to.equal("publish");
    expect((await t.post(`/events/${own.id}`, { as: "contributor", json: { title: "x" } })).status).to.equal(403);
    const authors = await makeEvent(t, { title: "Author's" }, "author");
    expect((await t.post(`/events/${authors.id}`, { as: "author", json: { title: "Author Edit" } })).status).to.equal(200);
    expect((await t.post(`/events/${authors.id}`, { as: "editor", json: { title: "Editor Edit" } })).status).to.equal(200);
    // Contributor publishing → pending.
    const mine = await makeEvent(t, { title: "Contributor Two" }, "contributor");
    expect((await t.post(`/events/${mine.id}`, { as: "contributor", json: { status: "publish" } })).body.status).to.equal("pending");
  });

  it("answers 404 for unknown IDs, 400 for non-events and unknown slugs", async () => {
    const t = site();
    const missing = await t.post("/events/987654", { as: "contributor", json: { title: "x" } });
    expect(missing.status).to.equal(404);
    expect(missing.body.code).to.equal("rest-event-not-found");
    const venue = await t.post(`/events/${await postId(t, "Town Hall")}`, { as: "editor", json: { title: "x" } });
    expect(venue.status).to.equal(400);
    expect(venue.body.code).to.equal("rest-invalid-event-id");
    expectInvalidParam(await t.post("/events/by-slug/no-such-event", { as: "editor", json: { title: "x" } }), "slug");
    expectInvalidParam(await t.post("/events/987654", { json: { title: "" } }), "title");
  });

  it("updates by slug, with PUT and PATCH too", async () => {
    const t = site();
    const e = await makeEvent(t, { title: "Slugged" });
    const res = await t.request("PATCH", "/events/by-slug/slugged", { as: "editor", json: { description: "By slug" } });
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ id: e.id, description: "<p>By slug</p>", slug: "slugged" });
    expect((await t.request("PUT", "/events/by-slug/SLUGGED", { as: "editor", json: { title: "Slugged Again" } })).body.title).to.equal("Slugged Again");
  });

  it("by slug, a body slug overrides the path slug (quirk of the original)", async () => {
    const t = site();
    const a = await makeEvent(t, { title: "Path Event" });
    const b = await makeEvent(t, { title: "Body Event" });
    const res = await t.post("/events/by-slug/path-event", { as: "editor", json: { slug: "body-event", description: "which one?" } });
    expect(res.status).to.equal(200);
    expect(res.body.id).to.equal(b.id);
    expect((await t.get(`/events/${a.id}`)).body.description).to.equal("");
    // A body slug that names no event is the lookup's 400.
    expectInvalidParam(await t.post("/events/by-slug/path-event", { as: "editor", json: { slug: "nothing-has-this-slug" } }), "slug");
  });

  it("keeps the event's language; records created with an update get it", async () => {
    const t = site();
    const e = await makeEvent(t, { title: "English Event" });
    const res = await t.post(`/events/${e.id}`, { as: "editor", query: { i18n_language: "de" }, json: { venue: { venue: "Update Venue" }, tags: "update-tag" } });
    expect(res.status).to.equal(200);
    const post = await t.site.engine.posts.get(e.id);
    const venue = await t.site.engine.posts.get(res.body.venue.id);
    const tag = await t.site.engine.terms.get(res.body.tags[0].id);
    expect([post!.language, venue!.language, tag!.language]).to.deep.equal(["en", "en", "en"]);
  });

  it("answers 403 could-not-update-event when storage refuses the update", async () => {
    const t = site();
    const e = await makeEvent(t, { title: "Refused Update" });
    const engine = t.site.engine;
    const original = engine.write;
    engine.write = async () => {
      throw new EngineError("slug_conflict", "simulated refusal");
    };
    try {
      const res = await t.post(`/events/${e.id}`, { as: "editor", json: { title: "x" } });
      expect([res.status, res.body.code]).to.deep.equal([403, "could-not-update-event"]);
    } finally {
      engine.write = original;
    }
  });

  it("restores a trashed event when a publisher updates it without a status", async () => {
    const t = site();
    const e = await makeEvent(t, { title: "Comeback" });
    await t.request("DELETE", `/events/${e.id}`, { as: "editor" });
    const res = await t.post(`/events/${e.id}`, { as: "editor", json: { description: "back" } });
    expect(res.body).to.include({ status: "publish", slug: "comeback" });
  });
});

forEachDatabase("DELETE /events/{id} and /events/by-slug/{slug}", (db) => {
  const site = useSite(db);

  it("moves to the trash, 200 with the record; again → 410; force is ignored", async () => {
    const t = site();
    const e = await makeEvent(t, { title: "To Trash" });
    const res = await t.request("DELETE", `/events/${e.id}`, { as: "editor", query: { force: "true" } });
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ id: e.id, status: "trash", slug: "to-trash__trashed" });
    expect(res.body).to.not.have.property("json_ld");
    expect((await t.site.engine.posts.get(e.id))?.status).to.equal("trash");
    const again = await t.request("DELETE", `/events/${e.id}`, { as: "editor" });
    expect(again.status).to.equal(410);
    expect(again.body.code).to.equal("event-is-in-trash");
  });

  it("answers 500 could-not-delete-event when storage refuses", async () => {
    const t = site();
    const e = await makeEvent(t, { title: "Refused Delete" });
    // The trash (with a series' detached occurrences) is one write: refused there.
    const engine = t.site.engine;
    const original = engine.write;
    engine.write = async () => {
      throw new EngineError("not_found", "simulated refusal");
    };
    try {
      const res = await t.request("DELETE", `/events/${e.id}`, { as: "editor" });
      expect([res.status, res.body.code]).to.deep.equal([500, "could-not-delete-event"]);
    } finally {
      engine.write = original;
    }
  });

  it("deletes by slug; the second delete finds no slug → 400", async () => {
    const t = site();
    const e = await makeEvent(t, { title: "Slug Trash" });
    const res = await t.request("DELETE", "/events/by-slug/slug-trash", { as: "editor" });
    expect(res.status).to.equal(200);
    expect(res.body.id).to.equal(e.id);
    expectInvalidParam(await t.request("DELETE", "/events/by-slug/slug-trash", { as: "editor" }), "slug");
  });

  it("checks the permission on this event and answers 404/400 for unknown IDs and non-events", async () => {
    const t = site();
    const editors = await makeEvent(t, { title: "Editors Event" });
    expect((await t.request("DELETE", `/events/${editors.id}`)).status).to.equal(401);
    expect((await t.request("DELETE", `/events/${editors.id}`, { as: "subscriber" })).status).to.equal(403);
    expect((await t.request("DELETE", `/events/${editors.id}`, { as: "contributor" })).status).to.equal(403);
    expect((await t.request("DELETE", `/events/${editors.id}`, { as: "author" })).status).to.equal(403);
    const draft = await makeEvent(t, { title: "Contributor Trash" }, "contributor");
    expect((await t.request("DELETE", `/events/${draft.id}`, { as: "contributor" })).status).to.equal(200);
    const authors = await makeEvent(t, { title: "Author Trash" }, "author");
    expect((await t.request("DELETE", `/events/${authors.id}`, { as: "author" })).status).to.equal(200);
    expect((await t.request("DELETE", `/events/${editors.id}`, { as: "admin" })).status).to.equal(200);
    const missing = await t.request("DELETE", "/events/987654", { as: "editor" });
    expect([missing.status, missing.body.code]).to.deep.equal([404, "rest-event-not-found"]);
    const venue = await t.request("DELETE", `/events/${await postId(t, "Town Hall")}`, { as: "editor" });
    expect([venue.status, venue.body.code]).to.deep.equal([400, "rest-invalid-event-id"]);
  });
});
