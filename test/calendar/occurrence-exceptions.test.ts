/**
 * Issue 22, exceptions: deleting one occurrence adds an EXDATE to its
 * series; updating one detaches it into an event of its own (parent: the
 * series, `original_start_date`: its key), kept when the series changes and
 * trashed with it; the feed writes it as a RECURRENCE-ID VEVENT that
 * calendar apps expand into the API's occurrences.
 */
import { expect } from "chai";
import ICAL from "ical.js";
import { forEachDatabase } from "../support/databases";
import type { TestSite } from "../support/site";
import { feedEvents } from "./ical-read";
import { makeEvent, useSite } from "./events-support";

const WINDOW = { start_date: "2027-04-01", end_date: "2027-04-30", per_page: 50 };

interface Listed {
  id: number;
  title: string;
  start_date: string;
  utc_start_date: string;
  series_id: number | null;
  original_start_date: string | null;
  utc_original_start_date: string | null;
}

async function listed(t: TestSite, as?: string): Promise<Listed[]> {
  const res = await t.get("/events", as === undefined ? { query: WINDOW } : { query: WINDOW, as });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body.events as Listed[];
}

async function weekly(t: TestSite, title: string, extra: Record<string, unknown> = {}): Promise<any> {
  return makeEvent(t, {
    title,
    status: "publish",
    timezone: "Europe/Rome",
    start_date: "2027-04-06 19:00:00",
    end_date: "2027-04-06 21:00:00",
    recurrence: ["RRULE:FREQ=WEEKLY;COUNT=4"],
    ...extra,
  });
}

forEachDatabase("recurring events: cancelling and detaching one occurrence", (db) => {
  const site = useSite(db);

  it("deletes one occurrence as an EXDATE of its series; the others keep their ids", async () => {
    const t = site();
    const series = await weekly(t, "Yoga in the park");
    const before = (await listed(t)).filter((e) => e.series_id === series.id);
    expect(before.map((e) => e.start_date)).to.deep.equal(["2027-04-06 19:00:00", "2027-04-13 19:00:00", "2027-04-20 19:00:00", "2027-04-27 19:00:00"]);
    expect(before[1].original_start_date).to.equal("2027-04-13 19:00:00");
    expect(before[1].utc_original_start_date).to.equal("2027-04-13 17:00:00");

    expect((await t.request("DELETE", `/events/${before[1].id}`)).status, "anonymous").to.equal(401);
    const res = await t.request("DELETE", `/events/${before[1].id}`, { as: "editor" });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.id).to.equal(before[1].id);
    expect(res.body.start_date).to.equal("2027-04-13 19:00:00");
    // The first occurrence (the series' own start) too; both values in one EXDATE line.
    expect((await t.request("DELETE", `/events/${before[0].id}`, { as: "editor" })).status).to.equal(200);

    const read = await t.get(`/events/${series.id}`);
    expect(read.body.recurrence).to.deep.equal(["RRULE:FREQ=WEEKLY;COUNT=4", "EXDATE:20270413T190000,20270406T190000"]);
    expect(read.body.status).to.equal("publish");
    const after = (await listed(t)).filter((e) => e.series_id === series.id);
    expect(after.map((e) => [e.id, e.start_date])).to.deep.equal([
      [before[2].id, "2027-04-20 19:00:00"],
      [before[3].id, "2027-04-27 19:00:00"],
    ]);
    expect((await t.get(`/events/${before[1].id}`)).status).to.equal(404);
    expect((await t.request("DELETE", `/events/${before[1].id}`, { as: "editor" })).status).to.equal(404);
  });

  it("detaches an updated occurrence into an event of its own, kept when the series changes", async () => {
    const t = site();
    const series = await weekly(t, "Choir practice", { description: "Bring your scores." });
    const before = (await listed(t)).filter((e) => e.series_id === series.id);
    const third = before[2];

    // A contributor may not edit an editor's series, nor so one of its occurrences; nothing changes.
    expect((await t.post(`/events/${third.id}`, { as: "contributor", json: { title: "Mine" } })).status).to.equal(403);
    // An occurrence has no rules of its own.
    const refused = await t.post(`/events/${third.id}`, { as: "editor", json: { recurrence: ["RRULE:FREQ=DAILY;COUNT=2"] } });
    expect(refused.status).to.equal(400);
    expect(refused.body.data.params).to.have.property("recurrence");
    expect((await listed(t)).filter((e) => e.series_id === series.id).map((e) => e.id)).to.deep.equal(before.map((e) => e.id));

    const res = await t.post(`/events/${third.id}`, { as: "editor", json: { title: "Choir practice: dress rehearsal", start_date: "2027-04-20 18:00:00", end_date: "2027-04-20 22:00:00" } });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const detached = res.body;
    expect(detached.id).to.not.equal(third.id);
    expect(detached.series_id).to.equal(series.id);
    expect(detached.original_start_date).to.equal("2027-04-20 19:00:00");
    expect(detached.utc_original_start_date).to.equal("2027-04-20 17:00:00");
    // Dates sent without a timezone are in the site's (UTC here), as for any event.
    expect(detached.timezone).to.equal("UTC");
    expect(detached.recurrence).to.deep.equal([]);
    expect(detached.start_date).to.equal("2027-04-20 18:00:00");
    expect(detached.description).to.contain("Bring your scores.");
    expect(detached.slug).to.equal(`${series.slug}-2027-04-20`);

    const list = (await listed(t)).filter((e) => e.series_id === series.id);
    expect(list.map((e) => [e.id, e.start_date, e.title])).to.deep.equal([
      [before[0].id, "2027-04-06 19:00:00", "Choir practice"],
      [before[1].id, "2027-04-13 19:00:00", "Choir practice"],
      [detached.id, "2027-04-20 18:00:00", "Choir practice: dress rehearsal"],
      [before[3].id, "2027-04-27 19:00:00", "Choir practice"],
    ]);
    expect((await t.get(`/events/${third.id}`)).status).to.equal(404);

    // The series changes (title, one more week): the detached occurrence stays as it was, and is not made again.
    const changed = await t.post(`/events/${series.id}`, { as: "editor", json: { title: "Choir", recurrence: ["RRULE:FREQ=WEEKLY;COUNT=5"] } });
    expect(changed.status, JSON.stringify(changed.body)).to.equal(200);
    expect(changed.body.recurrence).to.deep.equal(["RRULE:FREQ=WEEKLY;COUNT=5"]);
    const again = (await listed(t)).filter((e) => e.series_id === series.id);
    expect(again.map((e) => [e.start_date, e.title])).to.deep.equal([
      ["2027-04-06 19:00:00", "Choir"],
      ["2027-04-13 19:00:00", "Choir"],
      ["2027-04-20 18:00:00", "Choir practice: dress rehearsal"],
      ["2027-04-27 19:00:00", "Choir"],
    ]);

    // Trashing the series hides every occurrence, the detached one too.
    expect((await t.request("DELETE", `/events/${series.id}`, { as: "editor" })).status).to.equal(200);
    expect((await listed(t)).filter((e) => e.series_id === series.id)).to.deep.equal([]);
    expect((await listed(t, "editor")).filter((e) => e.series_id === series.id)).to.deep.equal([]);
    expect((await t.site.engine.posts.get(detached.id))?.status).to.equal("trash");
  });

  it("a detached occurrence keeps its series' status and password unless the request names a status (single and batch updates)", async () => {
    const t = site();
    const inWindow = async (title: string, as?: string, status?: string): Promise<Listed[]> =>
      ((await t.get("/events", { query: { ...WINDOW, search: title, ...(status ? { status } : {}) }, ...(as ? { as } : {}) })).body.events as Listed[]) ?? [];
    for (const status of ["draft", "pending", "private"]) {
      const title = `Hidden ${status} rehearsal`;
      const series = await weekly(t, title, { status });
      const occurrences = await inWindow(title, "editor", status);
      expect(occurrences.map((e) => e.series_id), status).to.deep.equal([series.id, series.id, series.id, series.id]);
      const single = await t.post(`/events/${occurrences[1].id}`, { as: "editor", json: { title: `${title} (moved)` } });
      expect(single.status, JSON.stringify(single.body)).to.equal(200);
      expect(single.body.status, status).to.equal(status);
      const batched = await t.post("/wp-json/batch/v1", { as: "editor", json: { requests: [{ method: "PUT", path: `/calendar/events/v1/events/${occurrences[2].id}`, body: { title: `${title} (batched)` } }] } });
      expect(batched.body.responses[0].status, JSON.stringify(batched.body)).to.equal(200);
      expect(batched.body.responses[0].body.status, status).to.equal(status);
      // Nothing of the series reaches anonymous readers.
      expect(await inWindow(title), status).to.deep.equal([]);
      for (const id of [single.body.id, batched.body.responses[0].body.id]) expect((await t.get(`/events/${id}`)).status, `${status} ${id}`).to.be.oneOf([401, 403, 404]);
    }

    // A protected series' detached occurrence keeps its password: masked for anonymous readers.
    const guarded = await weekly(t, "Guarded rehearsal");
    await t.site.engine.posts.update(guarded.id, { password: "s3cret" });
    const guardedOccurrences = await inWindow("Guarded rehearsal", "editor");
    const moved = await t.post(`/events/${guardedOccurrences[1].id}`, { as: "editor", json: { title: "Guarded rehearsal (moved)", description: "The secret room." } });
    expect(moved.status, JSON.stringify(moved.body)).to.equal(200);
    expect((await t.site.engine.posts.get(moved.body.id))?.password).to.equal("s3cret");
    const anonymous = await t.get(`/events/${moved.body.id}`);
    expect(JSON.stringify(anonymous.body)).to.not.contain("The secret room.");

    // Naming a status is obeyed; and a plain update of an event (not an occurrence) still publishes, as the original does.
    const named = await weekly(t, "Named status rehearsal", { status: "draft" });
    const namedOccurrences = await inWindow("Named status rehearsal", "editor", "draft");
    const published = await t.post(`/events/${namedOccurrences[0].id}`, { as: "editor", json: { title: "Named status rehearsal (public)", status: "publish" } });
    expect(published.body.status).to.equal("publish");
    const plain = await t.post(`/events/${named.id}`, { as: "editor", json: { title: "Named status rehearsal (series)" } });
    expect(plain.body.status).to.equal("publish");
  });

  it("writes a detached occurrence in the feed as a RECURRENCE-ID VEVENT; ical.js expands the feed into the API's occurrences", async () => {
    const t = site();
    const series = await weekly(t, "Book club");
    const occurrences = (await listed(t)).filter((e) => e.series_id === series.id);
    const moved = await t.post(`/events/${occurrences[1].id}`, { as: "editor", json: { title: "Book club (moved)", timezone: "Europe/Rome", start_date: "2027-04-14 20:00:00", end_date: "2027-04-14 22:00:00" } });
    expect(moved.status, JSON.stringify(moved.body)).to.equal(200);
    expect((await t.request("DELETE", `/events/${occurrences[3].id}`, { as: "editor" })).status).to.equal(200);
    const api = (await listed(t)).filter((e) => e.series_id === series.id);

    const feed = await t.get("/events.ics", { query: { ...WINDOW, search: "Book club" } });
    expect(feed.status, feed.text).to.equal(200);
    const vevents = feedEvents(feed.text);
    expect(vevents).to.have.length(2);
    const master = new ICAL.Event(vevents.find((v) => !v.hasProperty("recurrence-id")));
    const exception = vevents.find((v) => v.hasProperty("recurrence-id"));
    expect(exception, feed.text).to.not.equal(undefined);
    expect(exception?.getFirstPropertyValue("uid")).to.equal(master.uid);
    master.relateException(new ICAL.Event(exception));
    const fromFeed: Array<[string, string]> = [];
    const iterator = master.iterator();
    for (let next = iterator.next(); next && fromFeed.length < 20; next = iterator.next()) {
      const details = master.getOccurrenceDetails(next);
      fromFeed.push([new Date(details.startDate.toUnixTime() * 1000).toISOString().slice(0, 19).replace("T", " "), details.item.summary]);
    }
    expect(fromFeed).to.deep.equal(api.map((e) => [e.utc_start_date, e.title]));
  });
});
