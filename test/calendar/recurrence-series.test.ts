import { expect } from "chai";
import { extendSeries, RECURRENCE_HORIZON_OPTION } from "../../lib/calendar/recurrence/series";
import { forEachDatabase } from "../support/databases";
import type { TestSite } from "../support/site";
import { feedEvents } from "./ical-read";
import { countingLoads, useSite } from "./events-support";

async function occurrences(t: TestSite, id: number): Promise<Array<{ id: number; key: string; start_local: string; end_local: string; start_utc: string }>> {
  return (await t.site.engine.occurrences.list(id)).map((o) => ({ id: o.id, key: o.key, start_local: o.start_local, end_local: o.end_local, start_utc: o.start_utc }));
}

async function postCount(t: TestSite): Promise<number> {
  const row = (await t.site.engine.knex(t.site.engine.tables.posts).count("* as n").first()) as { n: number | string };
  return Number(row.n);
}

const WEEKLY_ROME = {
  title: "Choir rehearsal",
  status: "publish",
  timezone: "Europe/Rome",
  start_date: "2027-03-16 19:00:00",
  end_date: "2027-03-16 21:00:00",
  recurrence: ["rrule:freq=weekly;count=4"],
};

forEachDatabase("recurring events: series through the API", (db) => {
  const site = useSite(db);

  it("creates a series: shows its lines, and materialises its occurrences on the wall clock across DST", async () => {
    const t = site();
    const res = await t.post("/events", { as: "editor", json: WEEKLY_ROME });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body.recurrence).to.deep.equal(["RRULE:FREQ=WEEKLY;COUNT=4"]);
    expect(res.body.series_id).to.equal(null);
    const read = await t.get(`/events/${res.body.id}`);
    expect(read.body.recurrence).to.deep.equal(["RRULE:FREQ=WEEKLY;COUNT=4"]);
    const rows = await occurrences(t, res.body.id);
    expect(rows.map((o) => [o.start_local, o.end_local, o.start_utc])).to.deep.equal([
      ["2027-03-16 19:00:00", "2027-03-16 21:00:00", "2027-03-16 18:00:00"],
      ["2027-03-23 19:00:00", "2027-03-23 21:00:00", "2027-03-23 18:00:00"],
      // Rome moves to summer time on 28 March 2027: still 19:00 on the wall clock.
      ["2027-03-30 19:00:00", "2027-03-30 21:00:00", "2027-03-30 17:00:00"],
      ["2027-04-06 19:00:00", "2027-04-06 21:00:00", "2027-04-06 17:00:00"],
    ]);
    // A single event has no occurrence rows, and shows no lines.
    const single = await t.post("/events", { as: "editor", json: { ...WEEKLY_ROME, recurrence: undefined, title: "Once" } });
    expect(single.body.recurrence).to.deep.equal([]);
    expect(await occurrences(t, single.body.id)).to.deep.equal([]);
  });

  it("says how a series repeats in its JSON-LD (schema.org eventSchedule)", async () => {
    const t = site();
    const res = await t.post("/events", {
      as: "editor",
      json: { ...WEEKLY_ROME, title: "Meetup", recurrence: ["RRULE:FREQ=MONTHLY;INTERVAL=2;BYDAY=-1FR;UNTIL=20271231", "EXDATE:20270430T190000"] },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    const read = await t.get(`/events/${res.body.id}`);
    expect(read.body.json_ld.eventSchedule).to.deep.equal({
      "@type": "Schedule",
      repeatFrequency: "P2M",
      startDate: "2027-03-16",
      startTime: "19:00:00",
      endTime: "21:00:00",
      scheduleTimezone: "Europe/Rome",
      byDay: ["https://schema.org/Friday"],
      byMonthWeek: -1,
      endDate: "2027-12-31",
      exceptDate: ["2027-04-30"],
    });
    const single = await t.get(`/events/${(await t.post("/events", { as: "editor", json: { ...WEEKLY_ROME, recurrence: [] } })).body.id}`);
    expect(single.body.json_ld).to.not.have.property("eventSchedule");
  });

  it("refuses malformed or unsupported lines with a 400 naming recurrence, and writes nothing", async () => {
    const t = site();
    const before = await postCount(t);
    for (const recurrence of [["RRULE:FREQ=HOURLY"], ["RRULE:FREQ=DAILY;COUNT=2;UNTIL=20270101"], "RRULE:FREQ=DAILY", ["EXDATE:2027-01-01"]]) {
      const res = await t.post("/events", { as: "editor", json: { ...WEEKLY_ROME, recurrence } });
      expect(res.status, JSON.stringify(recurrence)).to.equal(400);
      expect(res.body.code).to.equal("rest_invalid_param");
      expect(res.body.data.params.recurrence).to.be.a("string").and.not.equal("");
    }
    // Valid lines, but too many occurrences up to the horizon: refused when expanded, in the write's transaction.
    const tooMany = await t.post("/events", { as: "editor", json: { ...WEEKLY_ROME, start_date: "2000-01-01 10:00:00", end_date: "2000-01-01 11:00:00", recurrence: ["RRULE:FREQ=DAILY"] } });
    expect(tooMany.status, JSON.stringify(tooMany.body)).to.equal(400);
    expect(tooMany.body.data.params.recurrence).to.match(/more than 5000 occurrences/);
    expect(await postCount(t)).to.equal(before);
  });

  it("regenerates on update: kept dates keep their occurrence ids, a title edit keeps the lines, [] ends the series", async () => {
    const t = site();
    const created = (await t.post("/events", { as: "editor", json: WEEKLY_ROME })).body;
    const first = await occurrences(t, created.id);
    const shorter = await t.post(`/events/${created.id}`, { as: "editor", json: { recurrence: ["RRULE:FREQ=WEEKLY;COUNT=2"] } });
    expect(shorter.status, JSON.stringify(shorter.body)).to.equal(200);
    const two = await occurrences(t, created.id);
    expect(two.map((o) => o.id)).to.deep.equal(first.slice(0, 2).map((o) => o.id));

    const retitled = await t.post(`/events/${created.id}`, { as: "editor", json: { title: "Choir (renamed)" } });
    expect(retitled.body.recurrence).to.deep.equal(["RRULE:FREQ=WEEKLY;COUNT=2"]);
    expect((await occurrences(t, created.id)).map((o) => o.id)).to.deep.equal(two.map((o) => o.id));

    // Moving the series moves every occurrence (new keys).
    const moved = await t.post(`/events/${created.id}`, { as: "editor", json: { start_date: "2027-03-17 20:00:00", end_date: "2027-03-17 21:00:00" } });
    expect(moved.status).to.equal(200);
    expect((await occurrences(t, created.id)).map((o) => o.start_local)).to.deep.equal(["2027-03-17 20:00:00", "2027-03-24 20:00:00"]);

    const ended = await t.post(`/events/${created.id}`, { as: "editor", json: { recurrence: [] } });
    expect(ended.body.recurrence).to.deep.equal([]);
    expect(await occurrences(t, created.id)).to.deep.equal([]);
  });

  it("materialises an unbounded rule up to the horizon option, extends it as time passes, and drops it with its event", async () => {
    const t = site();
    const { engine } = t.site;
    await engine.options.set(RECURRENCE_HORIZON_OPTION, "60");
    try {
      const start = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
      const res = await t.post("/events", { as: "editor", json: { title: "Weekly forever", status: "publish", timezone: "UTC", start_date: `${start} 10:00:00`, end_date: `${start} 11:00:00`, recurrence: ["RRULE:FREQ=WEEKLY"] } });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      const now = await occurrences(t, res.body.id);
      expect(now.length).to.be.within(8, 10);
      // Thirty days on, the horizon has moved: the existing rows stay, new ones follow.
      const thirty = new Date(Date.now() + 30 * 86_400_000);
      expect(await extendSeries(engine, thirty)).to.be.at.least(1);
      // Run again at the same moment: every series already has its occurrences, and none is written.
      expect(await extendSeries(engine, thirty)).to.equal(0);
      const later = await occurrences(t, res.body.id);
      expect(later.length).to.be.within(now.length + 3, now.length + 5);
      expect(later.slice(0, now.length).map((o) => o.id)).to.deep.equal(now.map((o) => o.id));

      await engine.posts.delete(res.body.id);
      expect(await occurrences(t, res.body.id)).to.deep.equal([]);
    } finally {
      await engine.options.set(RECURRENCE_HORIZON_OPTION, "");
    }
  });

  it("lists every occurrence of a finite series that starts past the horizon (weekly, COUNT=10, in 2030)", async () => {
    const t = site();
    const res = await t.post("/events", { as: "editor", json: { ...WEEKLY_ROME, title: "Far choir", start_date: "2030-09-03 19:00:00", end_date: "2030-09-03 21:00:00", recurrence: ["RRULE:FREQ=WEEKLY;COUNT=10"] } });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    const listed = await t.get("/events", { query: { include: res.body.id, start_date: "2030-01-01", end_date: "2031-12-31", per_page: 50 } });
    expect((listed.body.events as Array<{ start_date: string }>).map((e) => e.start_date)).to.deep.equal(
      Array.from({ length: 10 }, (_, i) => `2030-${["09-03", "09-10", "09-17", "09-24", "10-01", "10-08", "10-15", "10-22", "10-29", "11-05"][i]} 19:00:00`),
    );
  });

  it("bounds the occurrences of the series of authors and contributors (recurrence_author_occurrences), not editors'", async () => {
    const t = site();
    await t.site.engine.options.set("recurrence_author_occurrences", "100");
    try {
      const daily = (title: string, count: number, extra: Record<string, unknown> = {}) =>
        ({ ...WEEKLY_ROME, title, status: "draft", start_date: "2031-01-05 10:00:00", end_date: "2031-01-05 11:00:00", recurrence: [`RRULE:FREQ=DAILY;COUNT=${count}`], ...extra });
      const first = await t.post("/events", { as: "contributor", json: daily("Contributor's first", 60) });
      expect(first.status, JSON.stringify(first.body)).to.equal(201);
      const before = await postCount(t);
      const second = await t.post("/events", { as: "contributor", json: daily("Contributor's second", 60) });
      expect(second.status, JSON.stringify(second.body)).to.equal(400);
      expect(second.body.data.params.recurrence).to.match(/at most 100 occurrences in all, and this one would make 60 besides the 60 of their other series/);
      expect(await postCount(t)).to.equal(before);
      // A single series past the bound alone, and the same through an update of an existing event.
      expect((await t.post("/events", { as: "contributor", json: daily("Contributor's long", 101) })).status).to.equal(400);
      const single = await t.post("/events", { as: "contributor", json: daily("Contributor's single", 1, { recurrence: undefined }) });
      expect(single.status).to.equal(201);
      expect((await t.post(`/events/${single.body.id}`, { as: "contributor", json: { recurrence: ["RRULE:FREQ=DAILY;COUNT=41"] } })).status).to.equal(400);
      expect((await t.post(`/events/${single.body.id}`, { as: "contributor", json: { recurrence: ["RRULE:FREQ=DAILY;COUNT=40"] } })).status).to.equal(200);
      // Shortening the first series makes room; each user has a bound of their own; editors have none but the per-series one.
      expect((await t.post(`/events/${first.body.id}`, { as: "contributor", json: { recurrence: ["RRULE:FREQ=DAILY;COUNT=20"] } })).status).to.equal(200);
      expect((await t.post("/events", { as: "contributor", json: daily("Contributor's second", 40) })).status).to.equal(201);
      expect((await t.post("/events", { as: "author", json: daily("Author's", 100) })).status).to.equal(201);
      expect((await t.post("/events", { as: "editor", json: daily("Editor's", 500) })).status).to.equal(201);
      // The bound lowered below what the contributor has: an edit that does not grow a series still goes through
      // (also an editor's: the author's bound applies), one that grows it does not.
      await t.site.engine.options.set("recurrence_author_occurrences", "50");
      const retitled = await t.post(`/events/${first.body.id}`, { as: "editor", json: { title: "Contributor's first, retitled" } });
      expect(retitled.status, JSON.stringify(retitled.body)).to.equal(200);
      expect((await t.post(`/events/${first.body.id}`, { as: "editor", json: { recurrence: ["RRULE:FREQ=DAILY;COUNT=21"] } })).status).to.equal(400);
    } finally {
      await t.site.engine.options.set("recurrence_author_occurrences", "");
    }
  });

  it("keeps an all-day yearly series as whole days of its zone, with an EXDATE", async () => {
    const t = site();
    // Past the default horizon (two years): asked for here.
    await t.site.engine.options.set(RECURRENCE_HORIZON_OPTION, "2000");
    const res = await t.post("/events", {
      as: "editor",
      json: { title: "Holiday", status: "publish", timezone: "Europe/Rome", all_day: true, start_date: "2027-12-25", end_date: "2027-12-25", recurrence: ["RRULE:FREQ=YEARLY;COUNT=3", "EXDATE;VALUE=DATE:20281225"] },
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect((await occurrences(t, res.body.id)).map((o) => [o.start_local, o.end_local, o.start_utc])).to.deep.equal([
      ["2027-12-25 00:00:00", "2027-12-25 23:59:59", "2027-12-24 23:00:00"],
      ["2029-12-25 00:00:00", "2029-12-25 23:59:59", "2029-12-24 23:00:00"],
    ]);
    await t.site.engine.options.set(RECURRENCE_HORIZON_OPTION, "");
  });

  it("lists each occurrence as its series' record with its own id, dates and URL: the record built on its own", async () => {
    const t = site();
    const category = await t.post("/categories", { as: "editor", json: { name: "Rehearsals" } });
    expect(category.status, JSON.stringify(category.body)).to.equal(201);
    const make = async (body: Record<string, unknown>): Promise<number> => {
      const res = await t.post("/events", { as: "editor", json: { ...WEEKLY_ROME, ...body } });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      return res.body.id as number;
    };
    // Across Rome's DST change (CET, then CEST); one with no website (each shows its own URL), one with a
    // website and a fixed slug, one protected with no website (masked for anonymous readers), and a single event between them.
    const rome = await make({ title: "Across DST", categories: [category.body.id], recurrence: ["RRULE:FREQ=WEEKLY;COUNT=5"] });
    const site2 = await make({ title: "With a website", slug: "site-series", website: "https://example.org/choir", start_date: "2027-03-17 08:00:00", end_date: "2027-03-17 09:00:00", recurrence: ["RRULE:FREQ=DAILY;COUNT=4"] });
    const locked = await make({ title: "Protected", start_date: "2027-03-18 12:00:00", end_date: "2027-03-18 13:00:00", recurrence: ["RRULE:FREQ=WEEKLY;COUNT=3"] });
    await make({ title: "Once", start_date: "2027-03-20 10:00:00", end_date: "2027-03-20 11:00:00", recurrence: [] });
    await t.site.engine.knex(t.site.engine.tables.posts).where({ id: locked }).update({ password: "sesame" });
    const window = { start_date: "2027-03-01", end_date: "2027-06-01", per_page: 50 };
    // Anonymous (the kept records' path) and the editor's edit context (built each time; the protected series unmasked).
    for (const as of [undefined, "editor"]) {
      const query = as === undefined ? window : { ...window, context: "edit" };
      // First the list, so that no record it shows was kept by a single read.
      const list = await t.get("/events", { as, query });
      expect(list.status, JSON.stringify(list.body)).to.equal(200);
      const events = list.body.events as Array<Record<string, unknown>>;
      const bySeries = (id: number): Array<Record<string, unknown>> => events.filter((e) => e.series_id === id);
      expect([bySeries(rome).length, bySeries(site2).length, bySeries(locked).length]).to.deep.equal([5, 4, 3]);
      expect(new Set(bySeries(rome).map((e) => e.timezone_abbr))).to.deep.equal(new Set(["CET", "CEST"]));
      expect(new Set(bySeries(rome).map((e) => e.website)).size).to.equal(5);
      // Its website is its URL, masked for anonymous readers.
      expect(bySeries(locked).map((e) => e.website)).to.deep.equal(as === undefined ? ["", "", ""] : bySeries(locked).map((e) => e.url));
      // Each record built on its own: one a page (no other occurrence of its series to start from), not kept (`_pretty`).
      for (const [i, listed] of events.entries()) {
        const alone = await t.get("/events", { as, query: { ...query, per_page: 1, page: i + 1, _pretty: true } });
        expect(alone.status, JSON.stringify(alone.body)).to.equal(200);
        expect(listed, `${as ?? "anonymous"}: ${String(listed.id)}`).to.deep.equal(alone.body.events[0]);
      }
    }
  });

  it("makes an occurrence's record from its kept series (no load, no build), fresh after the series changes", async () => {
    const t = site();
    const category = await t.post("/categories", { as: "editor", json: { name: "Kept series" } });
    const id = await (async () => {
      const res = await t.post("/events", { as: "editor", json: { ...WEEKLY_ROME, title: "Kept weekly", categories: [category.body.id], recurrence: ["RRULE:FREQ=WEEKLY;COUNT=5"] } });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      return res.body.id as number;
    })();
    // The events each page loads to build records.
    await countingLoads(t, async (loaded) => {
      for (const title of ["Kept weekly", "Renamed weekly"]) {
        if (title !== "Kept weekly") expect((await t.post(`/events/${id}`, { as: "editor", json: { title } })).status).to.equal(200);
        const loads: number[] = [];
        for (let page = 1; page <= 5; page++) {
          loaded();
          const query = { start_date: "2027-03-01", end_date: "2027-06-01", categories: category.body.id, per_page: 1, page };
          const res = await t.get("/events", { query });
          expect(res.status, JSON.stringify(res.body)).to.equal(200);
          loads.push(loaded());
          const [event] = res.body.events as Array<Record<string, unknown>>;
          expect(event.series_id).to.equal(id);
          expect(event.title).to.equal(title);
          const alone = await t.get("/events", { query: { ...query, _pretty: true } });
          expect(event).to.deep.equal(alone.body.events[0]);
        }
        // The first page builds the first occurrence and keeps the series; the others are made from it.
        expect(loads, title).to.deep.equal([1, 0, 0, 0, 0]);
      }
    });
  });
});

// eslint-disable-next-line @typescript-eslint/no-require-imports
const ICAL = require("ical.js") as typeof import("ical.js").default;

forEachDatabase("recurring events: the iCal feed writes a series as its rules", (db) => {
  const site = useSite(db);

  const SERIES: Array<{ name: string; body: Record<string, unknown> }> = [
    {
      name: "weekly in Rome across DST, an EXDATE with TZID, a floating RDATE and a UTC UNTIL",
      body: { timezone: "Europe/Rome", start_date: "2027-03-02 19:00:00", end_date: "2027-03-02 21:00:00", recurrence: ["RRULE:FREQ=WEEKLY;UNTIL=20270601T000000Z", "EXDATE;TZID=Europe/Rome:20270406T190000", "RDATE:20270408T180000"] },
    },
    {
      name: "the last weekday of each month in New York, a date EXDATE and a date UNTIL",
      body: { timezone: "America/New_York", start_date: "2027-01-29 08:30:00", end_date: "2027-01-29 09:00:00", recurrence: ["RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;UNTIL=20271231", "EXDATE;VALUE=DATE:20270430"] },
    },
    {
      name: "an all-day yearly holiday with COUNT",
      body: { timezone: "Europe/Rome", all_day: true, start_date: "2027-01-06", end_date: "2027-01-06", recurrence: ["RRULE:FREQ=YEARLY;COUNT=2"] },
    },
    {
      name: "a fixed-offset zone, written in UTC",
      body: { timezone: "UTC+2", start_date: "2027-05-03 10:00:00", end_date: "2027-05-03 11:00:00", recurrence: ["RRULE:FREQ=DAILY;COUNT=3", "EXDATE:20270504T100000"] },
    },
  ];

  for (const { name, body } of SERIES) {
    it(`expands to the API's occurrences when read back with ical.js: ${name}`, async () => {
      const t = site();
      const created = await t.post("/events", { as: "editor", json: { title: `Feed series: ${name}`, status: "publish", ...body } });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const feed = await t.get("/events.ics", { query: { include: created.body.id } });
      expect(feed.status, feed.text).to.equal(200);
      const vevents = feedEvents(feed.text);
      expect(vevents).to.have.length(1);
      const event = new ICAL.Event(vevents[0]);
      expect(event.isRecurring()).to.equal(true);
      const fromFeed: string[] = [];
      const iterator = event.iterator();
      for (let next = iterator.next(); next && fromFeed.length < 100; next = iterator.next()) {
        const at = next.isDate ? next.toString().slice(0, 10) : new Date(next.toUnixTime() * 1000).toISOString().slice(0, 19).replace("T", " ");
        fromFeed.push(at);
      }
      const stored = (await t.site.engine.occurrences.list(created.body.id)).map((o) => (body.all_day === true ? o.start_local.slice(0, 10) : o.start_utc));
      expect(stored.length).to.be.greaterThan(1);
      expect(fromFeed).to.deep.equal(stored);
      // The API lists the same occurrences (the feed of that list writes the series once).
      const listed = await t.get("/events", { query: { include: created.body.id, per_page: 50 } });
      const api = (listed.body.events as Array<{ series_id: number; start_date: string; utc_start_date: string }>).map((e) => {
        expect(e.series_id).to.equal(created.body.id);
        return body.all_day === true ? e.start_date.slice(0, 10) : e.utc_start_date;
      });
      expect(api).to.deep.equal(stored);
    });
  }
});
