/**
 * Issue 22: a series is listed, counted, filtered and searched once per
 * occurrence, each an event of its own id (OCCURRENCE_ID_BASE + row id) with
 * its own dates and the series' id; `GET /events/{occurrence id}` reads one.
 * Anonymous lists (the published index while no series is published) and
 * editors' lists (the database) must agree.
 */
import { expect } from "chai";
import { OCCURRENCE_ID_BASE } from "../../lib/posts/occurrence-ids";
import { forEachDatabase } from "../support/databases";
import type { TestSite } from "../support/site";
import { dayAt, ids, makeEvent, useSite } from "./events-support";

const RANGE = { start_date: "2027-01-01", end_date: "2027-12-31" };

/** The list's events as [start_date, series_id] pairs. */
function shape(events: Array<{ start_date: string; series_id: number | null }>): Array<[string, number | null]> {
  return events.map((e) => [e.start_date, e.series_id]);
}

async function listAll(t: TestSite, query: Record<string, string | number>, as?: string): Promise<any> {
  const res = await t.get("/events", as === undefined ? { query } : { query, as });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body;
}

forEachDatabase("recurring events: lists and reads per occurrence", (db) => {
  const site = useSite(db);
  let series: any;
  let single: any;

  before(async () => {
    const t = site();
    series = await makeEvent(t, {
      title: "Weekly pottery class",
      status: "publish",
      start_date: "2027-03-04 18:00:00",
      end_date: "2027-03-04 20:00:00",
      recurrence: ["RRULE:FREQ=WEEKLY;COUNT=4"],
    });
    single = await makeEvent(t, { title: "Spring fair", status: "publish", start_date: "2027-03-12 10:00:00", end_date: "2027-03-12 17:00:00" });
  });

  it("lists a series once per occurrence, in start order among other events, with its own ids and the series' id", async () => {
    for (const as of [undefined, "editor"]) {
      const body = await listAll(site(), { ...RANGE, per_page: 50 }, as);
      expect(shape(body.events), as).to.deep.equal([
        ["2027-03-04 18:00:00", series.id],
        ["2027-03-11 18:00:00", series.id],
        ["2027-03-12 10:00:00", null],
        ["2027-03-18 18:00:00", series.id],
        ["2027-03-25 18:00:00", series.id],
      ]);
      expect(body.total).to.equal(5);
      const occurrences = body.events.filter((e: any) => e.series_id !== null);
      for (const o of occurrences) {
        expect(o.id).to.be.above(OCCURRENCE_ID_BASE);
        expect(o.rest_url).to.match(new RegExp(`/events/${o.id}$`));
        expect(o.title).to.equal("Weekly pottery class");
        expect(o.recurrence).to.deep.equal(["RRULE:FREQ=WEEKLY;COUNT=4"]);
        expect(o.end_date.slice(11)).to.equal("20:00:00");
        expect(o.url).to.equal(`${series.url}${o.start_date.slice(0, 10)}/`);
      }
      expect(new Set(ids(occurrences)).size).to.equal(4);
      expect(body.events[2].id).to.equal(single.id);
    }
  });

  it("pages and counts occurrences", async () => {
    const t = site();
    const first = await listAll(t, { ...RANGE, per_page: 2 });
    expect(first.total).to.equal(5);
    expect(first.total_pages).to.equal(3);
    const third = await listAll(t, { ...RANGE, per_page: 2, page: 3 });
    expect(shape(third.events)).to.deep.equal([["2027-03-25 18:00:00", series.id]]);
  });

  it("applies date bounds to each occurrence's own dates", async () => {
    const body = await listAll(site(), { start_date: "2027-03-10", end_date: "2027-03-20" });
    expect(shape(body.events)).to.deep.equal([
      ["2027-03-11 18:00:00", series.id],
      ["2027-03-12 10:00:00", null],
      ["2027-03-18 18:00:00", series.id],
    ]);
    const after = await listAll(site(), { starts_after: "2027-03-20 00:00:00", ends_before: "2027-04-01 00:00:00", strict_dates: "true" });
    expect(shape(after.events)).to.deep.equal([["2027-03-25 18:00:00", series.id]]);
  });

  it("finds occurrences by search and the series' filters", async () => {
    const t = site();
    const found = await listAll(t, { ...RANGE, search: "pottery" });
    expect(found.total).to.equal(4);
    const category = await t.post("/categories", { as: "editor", json: { name: "Crafts" } });
    expect(category.status).to.equal(201);
    const tagged = await t.post(`/events/${series.id}`, { as: "editor", json: { categories: [category.body.id] } });
    expect(tagged.status, JSON.stringify(tagged.body)).to.equal(200);
    for (const as of [undefined, "editor"]) {
      const listed = await listAll(t, { ...RANGE, categories: category.body.id }, as);
      expect(shape(listed.events), as).to.deep.equal([
        ["2027-03-04 18:00:00", series.id],
        ["2027-03-11 18:00:00", series.id],
        ["2027-03-18 18:00:00", series.id],
        ["2027-03-25 18:00:00", series.id],
      ]);
      expect(listed.events[0].categories.map((c: any) => c.id)).to.deep.equal([category.body.id]);
    }
  });

  it("reads one occurrence by its id, as its series with the occurrence's dates", async () => {
    const t = site();
    const listed = (await listAll(t, RANGE)).events.filter((e: any) => e.series_id === series.id);
    const second = listed[1];
    const res = await t.get(`/events/${second.id}`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.id).to.equal(second.id);
    expect(res.body.series_id).to.equal(series.id);
    expect(res.body.start_date).to.equal("2027-03-11 18:00:00");
    expect(res.body.utc_end_date).to.equal("2027-03-11 20:00:00");
    expect(res.body.url).to.equal(`${series.url}2027-03-11/`);
    // An occurrence is one dated Event; the series carries the schedule.
    expect(res.body.json_ld.startDate).to.equal("2027-03-11T18:00:00+00:00");
    expect(res.body.json_ld).to.not.have.property("eventSchedule");
    const missing = await t.get(`/events/${OCCURRENCE_ID_BASE + 987654}`);
    expect(missing.status).to.equal(404);
    // The series itself is read as before.
    const whole = await t.get(`/events/${series.id}`);
    expect(whole.body.series_id).to.equal(null);
    expect(whole.body.start_date).to.equal("2027-03-04 18:00:00");
  });

  it("reads one occurrence by the series' slug and its date, as its url names it", async () => {
    const t = site();
    const listed = (await listAll(t, RANGE)).events.filter((e: any) => e.series_id === series.id);
    const res = await t.get(`/events/by-slug/${series.slug}`, { query: { occurrence_date: "2027-03-18" } });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.id).to.equal(listed[2].id);
    expect(res.body.start_date).to.equal("2027-03-18 18:00:00");
    expect(new URL(res.body.url).pathname).to.equal(`/event/${series.slug}/2027-03-18/`);
    const none = await t.get(`/events/by-slug/${series.slug}`, { query: { occurrence_date: "2027-03-19" } });
    expect(none.status).to.equal(404);
    expect(none.body.code).to.equal("event-occurrence-not-found");
    const bad = await t.get(`/events/by-slug/${series.slug}`, { query: { occurrence_date: "18 March" } });
    expect(bad.status).to.equal(400);
    expect(bad.body.data.params).to.have.property("occurrence_date");
    expect((await t.get(`/events/by-slug/${series.slug}`)).body.id).to.equal(series.id);
  });

  it("keeps an occurrence's id when the series changes but not that date", async () => {
    const t = site();
    const before = (await listAll(t, RANGE)).events.filter((e: any) => e.series_id === series.id);
    const res = await t.post(`/events/${series.id}`, { as: "editor", json: { recurrence: ["RRULE:FREQ=WEEKLY;COUNT=5"] } });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const after = (await listAll(t, RANGE)).events.filter((e: any) => e.series_id === series.id);
    expect(after.length).to.equal(5);
    expect(ids(after).slice(0, 4)).to.deep.equal(ids(before));
    await t.post(`/events/${series.id}`, { as: "editor", json: { recurrence: ["RRULE:FREQ=WEEKLY;COUNT=4"] } });
  });

  it("applies the series' status and password to its occurrences", async () => {
    const t = site();
    const draft = await makeEvent(t, {
      title: "Secret rehearsal",
      status: "draft",
      start_date: "2027-05-05 09:00:00",
      end_date: "2027-05-05 10:00:00",
      recurrence: ["RRULE:FREQ=DAILY;COUNT=3"],
    });
    const anonymous = await listAll(t, { start_date: "2027-05-01", end_date: "2027-05-31" });
    expect(anonymous.total).to.equal(0);
    const editor = await listAll(t, { start_date: "2027-05-01", end_date: "2027-05-31" }, "editor");
    expect(editor.total).to.equal(3);
    const occurrence = editor.events[1];
    expect((await t.get(`/events/${occurrence.id}`)).status).to.equal(403);
    expect((await t.get(`/events/${occurrence.id}`, { as: "editor" })).status).to.equal(200);

    const locked = await makeEvent(t, {
      title: "Members' evening",
      status: "publish",
      description: "The door code is 1234.",
      start_date: "2027-06-02 19:00:00",
      end_date: "2027-06-02 21:00:00",
      recurrence: ["RRULE:FREQ=WEEKLY;COUNT=2"],
    });
    // The API writes no passwords (as the original's); the engine does.
    await t.site.engine.posts.update(locked.id, { password: "sesame" });
    const listed = await listAll(t, { start_date: "2027-06-01", end_date: "2027-06-30" });
    expect(listed.total).to.equal(2);
    for (const e of listed.events) expect(e.description).to.equal("");
    const read = await t.get(`/events/${listed.events[1].id}`);
    expect(read.status).to.equal(403);
    const unlocked = await t.get(`/events/${listed.events[1].id}?password=sesame`);
    expect(unlocked.status).to.equal(200);
    expect(unlocked.body.description).to.contain("1234");

    // Trashing the series hides every occurrence; reading one says the event is gone, as for the series.
    expect((await t.request("DELETE", `/events/${locked.id}`, { as: "editor" })).status).to.equal(200);
    expect((await listAll(t, { start_date: "2027-06-01", end_date: "2027-06-30" })).total).to.equal(0);
    expect((await listAll(t, { start_date: "2027-06-01", end_date: "2027-06-30" }, "editor")).total).to.equal(0);
    expect((await t.get(`/events/${listed.events[0].id}`)).status).to.equal(403);
    expect(draft.id).to.be.a("number");
  });

  it("shows only the occurrences to come in the default upcoming window", async () => {
    const t = site();
    const from = dayAt(-15, "08:00:00");
    const running = await makeEvent(t, {
      title: "Daily standup",
      status: "publish",
      venue: { venue: "Standup Corner" },
      start_date: from,
      end_date: from.replace("08:00:00", "08:15:00"),
      recurrence: ["RRULE:FREQ=DAILY;COUNT=30"],
    });
    const body = await listAll(t, { per_page: 50 });
    const mine = body.events.filter((e: any) => e.series_id === running.id);
    // From yesterday (the default start_date is the start of yesterday, as the original's) to the end of the series.
    expect(mine.length).to.equal(16);
    expect(mine[0].start_date).to.equal(dayAt(-1, "08:00:00"));
    // Its venue has events to come: the occurrences count, not the series' first start (from memory and from SQL).
    for (const as of [undefined, "editor"]) {
      const venues = await t.get("/venues", as === undefined ? { query: { only_with_upcoming: 1, per_page: 50 } } : { query: { only_with_upcoming: 1, per_page: 50 }, as });
      expect(venues.body.venues.map((v: { venue: string }) => v.venue), as).to.include("Standup Corner");
    }
  });
});
