/**
 * A series whose every occurrence is cancelled (EXDATE) or detached (an
 * event of its own) has no occurrence left, and still repeats: the events
 * list shows its occurrences in its place, so it shows nothing of it, not
 * the series' post at its own start (which doubled the detached occurrence
 * that replaced that instance). The engine keeps "this post repeats" apart
 * from its instance rows (posts.repeats, lib/posts/occurrences.ts): the
 * published index (anonymous lists), the SQL lists (editors), totals,
 * X-WP-Total and the changes feed read it. The series is still read by id,
 * and `recurrence: []` makes it a single event, listed again.
 */
import { expect } from "chai";
import type { ImportReport } from "../../lib/calendar/import/ics";
import { migrateCore } from "../../lib/db/migrations";
import { forEachDatabase } from "../support/databases";
import type { TestSite } from "../support/site";
import { makeEvent, useSite } from "./events-support";

interface Listed {
  id: number;
  title: string;
  start_date: string;
  series_id: number | null;
}

/**
 * Each case has a month of its own next year, so a window's total is that
 * case's alone, and every case is in the upcoming list (no dates: from
 * today to 24 months on).
 */
const YEAR = new Date().getUTCFullYear() + 1;
type Month = string;
const monthOf = (month: number): Month => `${YEAR}-${String(month).padStart(2, "0")}`;
const windowOf = (month: Month): { start_date: string; end_date: string } => ({ start_date: `${month}-01`, end_date: `${month}-28` });

/** A page of the list (per_page 50), with its totals checked against the headers. */
async function list(t: TestSite, as: string | undefined, query: Record<string, string | number>): Promise<{ events: Listed[]; total: number }> {
  const res = await t.get("/events", { query: { per_page: 50, ...query }, ...(as === undefined ? {} : { as }) });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  const total = Number(res.body.total);
  expect(res.headers.get("x-wp-total"), "X-WP-Total").to.equal(String(total));
  expect(res.headers.get("x-wp-totalpages"), "X-WP-TotalPages").to.equal(String(res.body.total_pages));
  return { events: res.body.events as Listed[], total };
}

/**
 * What each reader lists of the series, in its month's window and in the
 * upcoming list (no dates): anonymous (the published index) and an editor
 * (SQL), with the window's total. The series' own post is never among them.
 */
async function expectListedWithoutSeries(t: TestSite, seriesId: number, month: Month, wanted: Array<[string, string]>): Promise<void> {
  for (const as of [undefined, "editor"]) {
    const who = as ?? "anonymous";
    const inWindow = await list(t, as, windowOf(month));
    expect(inWindow.events.map((e) => e.id), `${who}: the series itself`).to.not.include(seriesId);
    expect(
      inWindow.events.map((e) => [e.title, e.start_date]),
      `${who}: the window`,
    ).to.deep.equal(wanted);
    expect(inWindow.total, `${who}: the window's total`).to.equal(wanted.length);
    // The upcoming list, no date filter: every event from today on.
    const upcoming = await list(t, as, {});
    expect(upcoming.events.map((e) => e.id), `${who}: upcoming`).to.not.include(seriesId);
    expect(upcoming.total, `${who}: upcoming total`).to.equal(upcoming.events.length);
    // Counted with `include` (ids): an id names the post, never listed as itself.
    const included = await list(t, as, { ...windowOf(month), include: seriesId });
    expect(included.events.map((e) => e.id), `${who}: include=series`).to.not.include(seriesId);
    expect(included.total, `${who}: include=series total`).to.equal(included.events.length);
  }
}

/** Reads the series by id (anonymous and editor): it is still there, as a series. */
async function expectReadable(t: TestSite, seriesId: number): Promise<Record<string, unknown>> {
  const anonymous = await t.get(`/events/${seriesId}`);
  expect(anonymous.status, JSON.stringify(anonymous.body)).to.equal(200);
  expect((await t.get(`/events/${seriesId}`, { as: "editor" })).status).to.equal(200);
  expect(anonymous.body.id).to.equal(seriesId);
  expect(anonymous.body.recurrence).to.not.deep.equal([]);
  return anonymous.body as Record<string, unknown>;
}

/** `recurrence: []`: a single event again, listed at its own start to every reader. */
async function expectSingleAgain(t: TestSite, seriesId: number, month: Month): Promise<void> {
  const res = await t.post(`/events/${seriesId}`, { as: "editor", json: { recurrence: [] } });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  expect(res.body.recurrence).to.deep.equal([]);
  for (const as of [undefined, "editor"]) {
    const { events, total } = await list(t, as, windowOf(month));
    expect(events.filter((e) => e.id === seriesId).length, as ?? "anonymous").to.equal(1);
    expect(total).to.equal(events.length);
    expect((await list(t, as, {})).events.map((e) => e.id)).to.include(seriesId);
  }
}

/** A weekly series of three in `month`, in UTC. */
async function weeklyOfThree(t: TestSite, title: string, month: Month): Promise<{ id: number; occurrences: Listed[] }> {
  const series = (await makeEvent(t, {
    title,
    status: "publish",
    start_date: `${month}-06 19:00:00`,
    end_date: `${month}-06 21:00:00`,
    recurrence: ["RRULE:FREQ=WEEKLY;COUNT=3"],
  })) as { id: number };
  const { events } = await list(t, "editor", windowOf(month));
  const occurrences = events.filter((e) => e.series_id === series.id);
  expect(occurrences.map((e) => e.start_date)).to.deep.equal([`${month}-06 19:00:00`, `${month}-13 19:00:00`, `${month}-20 19:00:00`]);
  return { id: series.id, occurrences };
}

/** A Google export that wrote every instance of a weekly series of three again, each with a RECURRENCE-ID. */
function everyInstanceRewritten(uid: string, month: Month): string {
  const day = (d: number): string => `${month.replace("-", "")}${String(d).padStart(2, "0")}`;
  const changed = [6, 13, 20].map((d, i) =>
    [
      "BEGIN:VEVENT",
      `UID:${uid}`,
      `RECURRENCE-ID:${day(d)}T190000Z`,
      `DTSTART:${day(d)}T180000Z`,
      `DTEND:${day(d)}T200000Z`,
      `SUMMARY:Book club, session ${i + 1}`,
      "DTSTAMP:20240101T000000Z",
      "END:VEVENT",
    ].join("\r\n"),
  );
  return [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//Google Inc//Google Calendar 70.9054//EN",
    "BEGIN:VEVENT",
    `UID:${uid}`,
    `DTSTART:${day(6)}T190000Z`,
    `DTEND:${day(6)}T210000Z`,
    "RRULE:FREQ=WEEKLY;COUNT=3",
    "SUMMARY:Book club",
    "DTSTAMP:20240101T000000Z",
    "END:VEVENT",
    ...changed,
    "END:VCALENDAR",
    "",
  ].join("\r\n");
}

forEachDatabase("a series without occurrences is listed nowhere as itself", (db) => {
  const site = useSite(db);

  it("every occurrence cancelled (EXDATE): nothing listed, the series read by id, single again listed", async () => {
    const t = site();
    const month = monthOf(5);
    const other = (await makeEvent(t, { title: "Neighbour", status: "publish", start_date: `${month}-07 10:00:00`, end_date: `${month}-07 11:00:00` })) as { id: number };
    const series = await weeklyOfThree(t, "Cancelled lectures", month);
    for (const o of series.occurrences) expect((await t.request("DELETE", `/events/${o.id}`, { as: "editor" })).status).to.equal(200);
    await expectListedWithoutSeries(t, series.id, month, [["Neighbour", `${month}-07 10:00:00`]]);
    const read = await expectReadable(t, series.id);
    expect(read.recurrence).to.deep.equal(["RRULE:FREQ=WEEKLY;COUNT=3", `EXDATE:${month.replace("-", "")}06T190000,${month.replace("-", "")}13T190000,${month.replace("-", "")}20T190000`]);
    await expectSingleAgain(t, series.id, month);
    expect((await list(t, undefined, windowOf(month))).events.map((e) => [e.id, e.start_date])).to.deep.equal([
      [series.id, `${month}-06 19:00:00`],
      [other.id, `${month}-07 10:00:00`],
    ]);
  });

  it("every occurrence detached: only the detached events listed, the series read by id, single again listed", async () => {
    const t = site();
    const month = monthOf(7);
    const series = await weeklyOfThree(t, "Choir", month);
    for (const [i, o] of series.occurrences.entries()) {
      const res = await t.post(`/events/${o.id}`, { as: "editor", json: { title: `Choir, rehearsal ${i + 1}` } });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.series_id).to.equal(series.id);
    }
    await expectListedWithoutSeries(t, series.id, month, [
      ["Choir, rehearsal 1", `${month}-06 19:00:00`],
      ["Choir, rehearsal 2", `${month}-13 19:00:00`],
      ["Choir, rehearsal 3", `${month}-20 19:00:00`],
    ]);
    await expectReadable(t, series.id);
    await expectSingleAgain(t, series.id, month);
  });

  it("an imported series whose every instance has a RECURRENCE-ID: its changed occurrences alone are listed", async () => {
    const t = site();
    const month = monthOf(9);
    const res = await fetch(`${t.ns}/import`, {
      method: "POST",
      headers: { "content-type": "text/calendar; charset=utf-8", authorization: `Basic ${Buffer.from("admin:admin-pass").toString("base64")}` },
      body: everyInstanceRewritten("book-club-every-instance@example.com", month),
    });
    const report = (await res.json()) as ImportReport;
    expect(res.status, JSON.stringify(report)).to.equal(200);
    // The series first, then its three changed occurrences.
    expect(report.created.length, JSON.stringify(report)).to.equal(4);
    const seriesId = report.created[0].id;
    await expectListedWithoutSeries(t, seriesId, month, [
      ["Book club, session 1", `${month}-06 18:00:00`],
      ["Book club, session 2", `${month}-13 18:00:00`],
      ["Book club, session 3", `${month}-20 18:00:00`],
    ]);
    const detached = (await list(t, undefined, windowOf(month))).events;
    expect(detached.map((e) => e.series_id)).to.deep.equal([seriesId, seriesId, seriesId]);
    await expectReadable(t, seriesId);
    // Imported again, nothing changes: still not listed as itself.
    const again = await fetch(`${t.ns}/import`, {
      method: "POST",
      headers: { "content-type": "text/calendar; charset=utf-8", authorization: `Basic ${Buffer.from("admin:admin-pass").toString("base64")}` },
      body: everyInstanceRewritten("book-club-every-instance@example.com", month),
    });
    expect(again.status).to.equal(200);
    expect((await list(t, undefined, windowOf(month))).events.map((e) => e.id)).to.deep.equal(detached.map((e) => e.id));
    await expectSingleAgain(t, seriesId, month);
  });

  it("the changes feed gives such a series an empty list of occurrences (a copy lists nothing in its place)", async () => {
    const t = site();
    const month = monthOf(11);
    const start = await t.get("/changes");
    expect(start.status).to.equal(200);
    let since = String(start.body.next);
    const series = await weeklyOfThree(t, "Feed lectures", month);
    for (const o of series.occurrences) expect((await t.request("DELETE", `/events/${o.id}`, { as: "editor" })).status).to.equal(200);
    const entries: Array<{ id: number; type: string; occurrences?: unknown[] }> = [];
    for (let page = 0; page < 100; page++) {
      const res = await t.get("/changes", { query: { since } });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      entries.push(...(res.body.changes as typeof entries));
      since = String(res.body.next);
      if (res.body.more !== true) break;
    }
    const last = entries.filter((e) => e.type === "event" && e.id === series.id).at(-1);
    expect(last?.occurrences, JSON.stringify(last)).to.deep.equal([]);
  });

  it("a database made before posts.repeats: the migration sets it for every post with occurrences", async () => {
    const t = site();
    const { knex, tables } = t.site.engine;
    const series = await weeklyOfThree(t, "Older series", monthOf(12));
    const single = (await makeEvent(t, { title: "Older single", status: "publish", start_date: `${monthOf(12)}-08 10:00:00`, end_date: `${monthOf(12)}-08 11:00:00` })) as { id: number };
    await knex.raw("alter table ?? drop column ??", [tables.posts, "repeats"]);
    await migrateCore(knex, tables);
    const rows = (await knex(tables.posts).whereIn("id", [series.id, single.id]).select("id", "repeats")) as Array<{ id: number | string; repeats: unknown }>;
    const flag = (id: number): boolean => [true, 1, "1"].includes(rows.find((r) => Number(r.id) === id)?.repeats as never);
    expect(flag(series.id), "the series").to.equal(true);
    expect(flag(single.id), "the single event").to.equal(false);
  });
});
