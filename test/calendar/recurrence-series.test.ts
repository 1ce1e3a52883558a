import { expect } from "chai";
import { extendSeries, RECURRENCE_HORIZON_OPTION } from "../../lib/calendar/recurrence/series";
import { forEachDatabase } from "../support/databases";
import type { TestSite } from "../support/site";
import { useSite } from "./events-support";

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
      expect(await extendSeries(engine, new Date(Date.now() + 30 * 86_400_000))).to.be.at.least(1);
      const later = await occurrences(t, res.body.id);
      expect(later.length).to.be.within(now.length + 3, now.length + 5);
      expect(later.slice(0, now.length).map((o) => o.id)).to.deep.equal(now.map((o) => o.id));

      await engine.posts.delete(res.body.id);
      expect(await occurrences(t, res.body.id)).to.deep.equal([]);
    } finally {
      await engine.options.set(RECURRENCE_HORIZON_OPTION, "");
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
});
