import { expect } from "chai";
import { forEachDatabase } from "../support/databases";
import { DATE_TIME, expectInvalidParam, makeEvent, postId, useSite } from "./events-support";

const DETAILS_KEYS = ["year", "month", "day", "hour", "minutes", "seconds"];

function expectDetails(details: any, wallClock: string): void {
  expect(details).to.have.all.keys(...DETAILS_KEYS);
  const [date, time] = wallClock.split(" ");
  const [year, month, day] = date.split("-");
  const [hour, minutes, seconds] = time.split(":");
  expect(details).to.deep.equal({ year, month, day, hour, minutes, seconds });
}

forEachDatabase("GET /events/{id} and /events/by-slug/{slug}", (db) => {
  const site = useSite(db);

  it("returns every member of the event record with its type and format, and json_ld", async () => {
    const t = site();
    const id = await postId(t, "Jazz Concert");
    const res = await t.get(`/events/${id}`);
    expect(res.status).to.equal(200);
    const e = res.body;
    expect(Object.keys(e)).to.deep.equal([
      "id", "global_id", "global_id_lineage", "author", "status", "date", "date_utc", "modified", "modified_utc", "url",
      "rest_url", "title", "description", "excerpt", "slug", "image", "all_day", "start_date", "start_date_details",
      "end_date", "end_date_details", "utc_start_date", "utc_start_date_details", "utc_end_date", "utc_end_date_details",
      "timezone", "timezone_abbr", "cost", "cost_details", "website", "show_map", "show_map_link", "hide_from_listings",
      "sticky", "featured", "categories", "tags", "venue", "organizer", "custom_fields",
      // calpress additions (issue 22).
      "recurrence", "series_id", "original_start_date", "utc_original_start_date", "json_ld",
    ]);
    expect(e.recurrence).to.deep.equal([]);
    expect(e.series_id).to.equal(null);
    expect(e.original_start_date).to.equal(null);
    expect(e.utc_original_start_date).to.equal(null);
    expect(e.id).to.equal(id);
    expect(e.global_id).to.equal(`127.0.0.1?id=${id}`);
    expect(e.global_id_lineage).to.deep.equal([e.global_id]);
    expect(e.author).to.be.a("string").and.match(/^\d+$/);
    expect(e.status).to.equal("publish");
    for (const k of ["date", "date_utc", "modified", "modified_utc", "start_date", "end_date", "utc_start_date", "utc_end_date"]) {
      expect(e[k], k).to.match(DATE_TIME);
    }
    expect(e.url).to.equal(`${t.home}/event/jazz-concert/`);
    expect(e.rest_url).to.equal(`${t.ns}/events/${id}`);
    expect(e.title).to.equal("Jazz Concert");
    expect(e.description).to.equal("<p>An evening of jazz standards.</p>\n<p>Doors open at 19:30.</p>");
    expect(e.excerpt).to.equal("<p>Jazz standards at the Town Hall.</p>");
    expect(e.slug).to.equal("jazz-concert");
    expect(e.image).to.equal(false);
    expect(e.all_day).to.equal(false);
    expect(e.start_date).to.equal("2030-01-15 20:00:00");
    expect(e.end_date).to.equal("2030-01-15 22:30:00");
    expect(e.utc_start_date).to.equal("2030-01-15 19:00:00");
    expect(e.utc_end_date).to.equal("2030-01-15 21:30:00");
    expectDetails(e.start_date_details, e.start_date);
    expectDetails(e.end_date_details, e.end_date);
    expectDetails(e.utc_start_date_details, e.utc_start_date);
    expectDetails(e.utc_end_date_details, e.utc_end_date);
    expect(e.timezone).to.equal("Europe/Amsterdam");
    expect(e.timezone_abbr).to.equal("CET");
    expect(e.cost).to.equal("Free");
    expect(e.cost_details).to.have.all.keys("currency_symbol", "currency_code", "currency_position", "values");
    expect(e.website).to.equal("https://tickets.example.com/jazz-concert");
    expect(e).to.include({ show_map: true, show_map_link: true, hide_from_listings: false, sticky: false, featured: true });
    expect(e.categories.map((c: any) => c.slug)).to.deep.equal(["music", "jazz"]);
    const jazz = e.categories[1];
    expect(jazz).to.include({ taxonomy: "calendar_events_cat", filter: "raw", name: "Jazz" });
    expect(jazz.id).to.be.a("number");
    expect(jazz.urls.self).to.equal(`${t.ns}/categories/${jazz.id}`);
    expect(jazz.urls.up).to.equal(`${t.ns}/categories/${e.categories[0].id}`);
    expect(e.tags.map((c: any) => [c.slug, c.taxonomy])).to.deep.equal([["free", "post_tag"]]);
    expect(e.venue).to.be.an("object").and.include({ venue: "Town Hall", city: "Amsterdam" });
    expect(e.venue).to.not.have.property("json_ld");
    expect(e.organizer.map((o: any) => o.organizer)).to.deep.equal(["Jazz Club", "Friends of Music"]);
    expect(e.custom_fields).to.deep.equal([]);
    expect(e.json_ld).to.include({ "@context": "http://schema.org", "@type": "Event", name: "Jazz Concert", url: e.url });
    expect(e.json_ld.startDate).to.equal("2030-01-15T20:00:00+01:00");
    expect(e.json_ld.endDate).to.equal("2030-01-15T22:30:00+01:00");
  });

  it("reads by slug, normalising the slug, with the same record", async () => {
    const t = site();
    const byId = await t.get(`/events/${await postId(t, "Jazz Concert")}`);
    const bySlug = await t.get("/events/by-slug/Jazz-Concert");
    expect(bySlug.status).to.equal(200);
    expect(bySlug.body).to.deep.equal(byId.body);
  });

  it("answers 404 rest-event-not-found naming the ID, for 0 and unknown IDs", async () => {
    const t = site();
    for (const id of [0, 987654]) {
      const res = await t.get(`/events/${id}`);
      expect(res.status).to.equal(404);
      expect(res.body.code).to.equal("rest-event-not-found");
      expect(res.body.message).to.equal(`Event with ID ${id} does not exist.`);
    }
  });

  it("answers 404 rest_no_route for a non-digit ID", async () => {
    const res = await site().get("/events/foo");
    expect(res.status).to.equal(404);
    expect(res.body.code).to.equal("rest_no_route");
  });

  it("answers 400 rest-invalid-event-id for a post that is not an event", async () => {
    const t = site();
    const res = await t.get(`/events/${await postId(t, "Town Hall")}`);
    expect(res.status).to.equal(400);
    expect(res.body.code).to.equal("rest-invalid-event-id");
  });

  it("answers 400 rest_invalid_param for an unknown slug", async () => {
    expectInvalidParam(await site().get("/events/by-slug/no-such-event"), "slug");
  });

  it("answers 403 event-no-longer-available for a trashed event, and its old slug is gone", async () => {
    const t = site();
    const e = await makeEvent(t, { title: "Soon Trashed" });
    expect((await t.request("DELETE", `/events/${e.id}`, { as: "editor" })).status).to.equal(200);
    const res = await t.get(`/events/${e.id}`, { as: "editor" });
    expect(res.status).to.equal(403);
    expect(res.body.code).to.equal("event-no-longer-available");
    expectInvalidParam(await t.get("/events/by-slug/soon-trashed"), "slug");
  });

  it("answers 403 event-not-accessible to readers who may not read a draft, pending or private event", async () => {
    const t = site();
    const draft = await postId(t, "Draft Event"); // by the author
    const pending = await postId(t, "Pending Event"); // by the contributor
    const priv = await postId(t, "Private Event"); // by the author
    const cases: Array<[number, string | undefined, number]> = [
      [draft, undefined, 403],
      [draft, "subscriber", 403],
      [draft, "contributor", 403],
      [draft, "author", 200],
      [draft, "editor", 200],
      [pending, "contributor", 200],
      [pending, "author", 403],
      [pending, "admin", 200],
      [priv, undefined, 403],
      [priv, "contributor", 403],
      [priv, "author", 200],
      [priv, "editor", 200],
    ];
    for (const [id, as, status] of cases) {
      const res = await t.get(`/events/${id}`, as ? { as } : {});
      expect(res.status, `${id} as ${as}`).to.equal(status);
      if (status === 403) expect(res.body.code).to.equal("event-not-accessible");
      // Not a public page: no JSON-LD for the readers who may see it.
      else expect(res.body).to.not.have.property("json_ld");
    }
  });

  it("guards a password-protected event: 403 without access, the password or context=edit unlock it", async () => {
    const t = site();
    const id = await postId(t, "Protected Event");
    const anon = await t.get(`/events/${id}`);
    expect(anon.status).to.equal(403);
    expect(anon.body.code).to.equal("event-password-protected");
    const wrong = await t.get(`/events/${id}`, { query: { password: "nope" } });
    expect(wrong.body.code).to.equal("event-password-protected");
    const editorView = await t.get(`/events/${id}`, { as: "editor" });
    expect(editorView.body.code).to.equal("event-password-protected");

    const withPassword = await t.get(`/events/${id}`, { query: { password: "secret" } });
    expect(withPassword.status).to.equal(200);
    expect(withPassword.body.description).to.equal("<p>The content is behind a password.</p>");
    expect(withPassword.body.cost).to.equal("€25");
    // Not a public page: no JSON-LD even with the password.
    expect(withPassword.body).to.not.have.property("json_ld");

    const edit = await t.get(`/events/${id}`, { as: "editor", query: { context: "edit" } });
    expect(edit.status).to.equal(200);
    expect(edit.body.venue.venue).to.equal("Town Hall");
    const contributorEdit = await t.get(`/events/${id}`, { as: "contributor", query: { context: "edit" } });
    expect(contributorEdit.body.code).to.equal("event-password-protected");
    expectInvalidParam(await t.get(`/events/${id}`, { query: { password: "" } }), "password");
  });

  it("reads by slug in the request language first", async () => {
    const t = site();
    const fr = await t.get("/events/by-slug/concert-de-jazz", { query: { i18n_language: "fr" } });
    expect(fr.status).to.equal(200);
    expect(fr.body.title).to.equal("Concert de jazz");
    // A record of another language is still found by its slug.
    expect((await t.get("/events/by-slug/concert-de-jazz")).status).to.equal(200);
    // Embedded venue/organizers of an event read in L are their L translations.
    const en = await t.get(`/events/${await postId(t, "Jazz Concert")}`, { query: { i18n_language: "fr" } });
    expect(en.body.venue.venue).to.equal("Hôtel de Ville");
    expectInvalidParam(await t.get("/events/by-slug/concert-de-jazz", { query: { i18n_language: "EN" } }), "i18n_language");
  });

  it("sends Allow with the methods the user may use", async () => {
    const t = site();
    const id = await postId(t, "Jazz Concert");
    expect((await t.get(`/events/${id}`)).headers.get("allow")).to.equal("GET");
    expect((await t.get(`/events/${id}`, { as: "admin" })).headers.get("allow")).to.equal("GET, DELETE, POST, PUT, PATCH");
    // The author may edit only their own events.
    expect((await t.get(`/events/${id}`, { as: "author" })).headers.get("allow")).to.equal("GET");
  });
});
