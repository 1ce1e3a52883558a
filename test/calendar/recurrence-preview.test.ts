/**
 * `GET /recurrence-preview` (lib/calendar/routes/recurrence-preview.ts):
 * the occurrences a recurrence would make, computed as a stored series'
 * are, with the event write's own argument rules and a bound on the work.
 */
import { expect } from "chai";
import { forEachDatabase, type TestDatabase } from "../support/databases";
import { startTestSite, type TestSite } from "../support/site";

interface Occurrence {
  start_date: string;
  end_date: string;
  utc_start_date: string;
  utc_end_date: string;
}

const NEW_YORK = "America/New_York";

forEachDatabase("recurrence preview", (target) => {
  let db: TestDatabase;
  let ts: TestSite;

  before(async () => {
    db = await target.create();
    ts = await startTestSite({ target: db.target, fixture: "minimal" });
  });

  after(async () => {
    await ts?.close();
    await db?.drop();
  });

  const preview = (query: Record<string, string | number | boolean | Array<string | number>>, as?: string) => ts.get("/recurrence-preview", { query, as });
  const starts = (body: { occurrences: Occurrence[] }) => body.occurrences.map((o) => o.start_date);

  it("keeps the wall clock across a DST change and moves the UTC times (America/New_York, March 2026)", async () => {
    const res = await preview({ recurrence: ["RRULE:FREQ=WEEKLY;BYDAY=TH;COUNT=4"], start_date: "2026-02-26 18:30", end_date: "2026-02-26 20:00", timezone: NEW_YORK });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({
      occurrences: [
        { start_date: "2026-02-26 18:30:00", end_date: "2026-02-26 20:00:00", utc_start_date: "2026-02-26 23:30:00", utc_end_date: "2026-02-27 01:00:00" },
        { start_date: "2026-03-05 18:30:00", end_date: "2026-03-05 20:00:00", utc_start_date: "2026-03-05 23:30:00", utc_end_date: "2026-03-06 01:00:00" },
        // DST began on Sunday 8 March: 18:30 is now 22:30 UTC.
        { start_date: "2026-03-12 18:30:00", end_date: "2026-03-12 20:00:00", utc_start_date: "2026-03-12 22:30:00", utc_end_date: "2026-03-13 00:00:00" },
        { start_date: "2026-03-19 18:30:00", end_date: "2026-03-19 20:00:00", utc_start_date: "2026-03-19 22:30:00", utc_end_date: "2026-03-20 00:00:00" },
      ],
      total_known: 4,
      bounded: true,
    });
  });

  it("answers what a stored series materialises for the same event", async () => {
    const event = { title: "Choir", start_date: "2026-10-22 19:00", end_date: "2026-10-22 21:00", timezone: NEW_YORK, recurrence: ["RRULE:FREQ=WEEKLY;COUNT=6", "EXDATE;TZID=America/New_York:20261105T190000", "RDATE;TZID=America/New_York:20261103T120000"] };
    const created = await ts.post("/events", { as: "admin", json: { ...event, status: "publish" } });
    expect(created.status).to.equal(201);
    const stored = (await ts.site.engine.occurrences.list(created.body.id)).map((o) => ({ start_date: o.start_local, end_date: o.end_local, utc_start_date: o.start_utc, utc_end_date: o.end_utc }));
    const res = await preview({ recurrence: event.recurrence, start_date: event.start_date, end_date: event.end_date, timezone: NEW_YORK });
    expect(res.body.occurrences).to.deep.equal(stored);
    // Six weeks, one excluded, one added; across the end of DST (1 November).
    expect(starts(res.body)).to.deep.equal(["2026-10-22 19:00:00", "2026-10-29 19:00:00", "2026-11-03 12:00:00", "2026-11-12 19:00:00", "2026-11-19 19:00:00", "2026-11-26 19:00:00"]);
    expect(res.body.occurrences[1].utc_start_date).to.equal("2026-10-29 23:00:00");
    expect(res.body.occurrences[3].utc_start_date).to.equal("2026-11-13 00:00:00");
    expect(res.body).to.include({ total_known: 6, bounded: true });
  });

  it("refuses a bad rule with the 400 an event create gives, under params.recurrence", async () => {
    for (const recurrence of [["RRULE:FREQ=HOURLY"], ["RRULE:FREQ=WEEKLY;COUNT=2;UNTIL=20260101"], ["EXRULE:FREQ=DAILY"], ["RDATE:2026"]]) {
      const res = await preview({ recurrence, start_date: "2026-03-01 10:00" });
      expect(res.status, recurrence[0]).to.equal(400);
      expect(res.body.code).to.equal("rest_invalid_param");
      expect(res.body.data.params).to.have.keys("recurrence");
      const create = await ts.post("/events", { as: "admin", json: { title: "Bad", start_date: "2026-03-01 10:00", end_date: "2026-03-01 11:00", recurrence } });
      expect(create.status).to.equal(400);
      expect(res.body.data.params.recurrence, recurrence[0]).to.equal(create.body.data.params.recurrence);
    }
    const missing = await preview({ start_date: "2026-03-01 10:00" });
    expect(missing.status).to.equal(400);
    expect(missing.body).to.deep.include({ code: "rest_missing_callback_param" });
    expect(missing.body.data.params).to.deep.equal(["recurrence"]);
    const noStart = await preview({ recurrence: ["RRULE:FREQ=DAILY"] });
    expect(noStart.body.data.params).to.deep.equal(["start_date"]);
    const badDate = await preview({ recurrence: ["RRULE:FREQ=DAILY"], start_date: "not a date" });
    expect(badDate.body.data.params).to.have.keys("start_date");
    const backwards = await preview({ recurrence: ["RRULE:FREQ=DAILY"], start_date: "2026-03-01 10:00", end_date: "2026-03-01 09:00" });
    expect(backwards.status).to.equal(400);
    expect(backwards.body.data.params).to.have.keys("end_date");
    expect((await preview({ recurrence: ["RRULE:FREQ=DAILY"], start_date: "2026-03-01 10:00", timezone: "Mars/Olympus" })).body.data.params).to.have.keys("timezone");
  });

  it("answers `count` occurrences (default 10, at most 50) of a rule that never ends", async () => {
    const daily = { recurrence: ["RRULE:FREQ=DAILY"], start_date: "2026-03-01 10:00", timezone: "Europe/Rome" };
    const ten = await preview(daily);
    expect(ten.body.occurrences).to.have.length(10);
    expect(ten.body).to.include({ total_known: null, bounded: false });
    // End: one hour after the start by default.
    expect(ten.body.occurrences[0]).to.deep.equal({ start_date: "2026-03-01 10:00:00", end_date: "2026-03-01 11:00:00", utc_start_date: "2026-03-01 09:00:00", utc_end_date: "2026-03-01 10:00:00" });
    expect((await preview({ ...daily, count: 50 })).body.occurrences).to.have.length(50);
    for (const count of [0, 51, 1000]) {
      const res = await preview({ ...daily, count });
      expect(res.status, String(count)).to.equal(400);
      expect(res.body.data.params).to.have.keys("count");
    }
    expect(starts((await preview({ ...daily, count: 3 })).body)).to.deep.equal(["2026-03-01 10:00:00", "2026-03-02 10:00:00", "2026-03-03 10:00:00"]);
  });

  it("starts at or after `after`, read in the series' zone", async () => {
    const weekly = { recurrence: ["RRULE:FREQ=WEEKLY;BYDAY=TH"], start_date: "2026-02-26 18:30", timezone: NEW_YORK, count: 2 };
    expect(starts((await preview({ ...weekly, after: "2026-03-12 18:30" })).body)).to.deep.equal(["2026-03-12 18:30:00", "2026-03-19 18:30:00"]);
    expect(starts((await preview({ ...weekly, after: "2026-03-12 18:31" })).body)).to.deep.equal(["2026-03-19 18:30:00", "2026-03-26 18:30:00"]);
    expect((await preview({ ...weekly, after: "whenever" })).body.data.params).to.have.keys("after");
    // A series that ends before `after`: none, and its size is still known.
    const ended = await preview({ ...weekly, recurrence: ["RRULE:FREQ=WEEKLY;COUNT=3"], after: "2027-01-01" });
    expect(ended.body).to.deep.equal({ occurrences: [], total_known: 3, bounded: true });
  });

  it("bounds the work: a rule stepped past its budget answers at once, without a total", async () => {
    // 100,000 days tested at most (MAX_PREVIEW_DAYS): a daily rule reaches ~270 years past its start.
    const far = await preview({ recurrence: ["RRULE:FREQ=DAILY"], start_date: "2000-01-01 10:00", after: "2400-01-01" });
    expect(far.status).to.equal(200);
    expect(far.body).to.deep.equal({ occurrences: [], total_known: null, bounded: false });
    const reached = await preview({ recurrence: ["RRULE:FREQ=DAILY"], start_date: "2000-01-01 10:00", after: "2100-01-01", count: 1 });
    expect(starts(reached.body)).to.deep.equal(["2100-01-01 10:00:00"]);
    const long = await preview({ recurrence: ["RRULE:FREQ=WEEKLY;COUNT=99999"], start_date: "2026-01-01 10:00" });
    expect(long.body.occurrences).to.have.length(10);
    expect(long.body).to.include({ total_known: null, bounded: true });
    const counted = await preview({ recurrence: ["RRULE:FREQ=DAILY;COUNT=400", "RRULE:FREQ=WEEKLY;UNTIL=20260401"], start_date: "2026-01-01 10:00", count: 1 });
    // The weekly rule's starts are all daily ones too: 400 in all.
    expect(counted.body).to.include({ total_known: 400, bounded: true });
    // A sparse rule (Mondays that are 29 February): the budget ends the stepping, between two of its days if need be.
    const sparse = await preview({ recurrence: ["RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO"], start_date: "2026-01-01 10:00", count: 50 });
    expect(sparse.status).to.equal(200);
    expect(starts(sparse.body).slice(0, 3)).to.deep.equal(["2026-01-01 10:00:00", "2044-02-29 10:00:00", "2072-02-29 10:00:00"]);
    expect(sparse.body.occurrences.length).to.be.within(3, 49);
    expect(sparse.body).to.include({ total_known: null, bounded: false });
  });

  it("refuses, at once, rules that would never repeat, naming the line, as event writes do (the rules ical.js looped on forever)", async () => {
    const monday = "2030-01-07 10:00:00";
    for (const recurrence of [
      ["RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30"],
      ["RRULE:FREQ=YEARLY;BYYEARDAY=366;BYMONTH=1"],
      ["RRULE:FREQ=DAILY;INTERVAL=7;BYDAY=TU"],
      ["EXDATE:20300108T100000", "RRULE:FREQ=DAILY;INTERVAL=14;BYDAY=WE"],
      ["RRULE:FREQ=DAILY;INTERVAL=1461;BYMONTH=2;BYMONTHDAY=29"],
    ]) {
      const res = await preview({ recurrence, start_date: monday });
      expect(res.status, recurrence.join()).to.equal(400);
      expect(res.body.data.params.recurrence).to.match(new RegExp(`^recurrence\\[${recurrence.length - 1}\\]: `));
      const create = await ts.post("/events", { as: "contributor", json: { title: "Never", start_date: monday, end_date: "2030-01-07 11:00:00", recurrence } });
      expect(create.status, recurrence.join()).to.equal(400);
      expect(res.body.data.params.recurrence).to.equal(create.body.data.params.recurrence);
    }
    expect((await ts.get("/events", { query: { search: "Never", status: "draft" }, as: "admin" })).body.events).to.deep.equal([]);
  });

  it("repeats all-day events as whole days, in the site zone by default, for anyone", async () => {
    await ts.site.engine.options.set("timezone", "Europe/Rome");
    try {
      const res = await preview({ recurrence: ["RRULE:FREQ=DAILY;COUNT=2"], start_date: "2026-03-06", all_day: true });
      expect(res.status).to.equal(200);
      expect(res.body.occurrences).to.deep.equal([
        { start_date: "2026-03-06 00:00:00", end_date: "2026-03-06 23:59:59", utc_start_date: "2026-03-05 23:00:00", utc_end_date: "2026-03-06 22:59:59" },
        { start_date: "2026-03-07 00:00:00", end_date: "2026-03-07 23:59:59", utc_start_date: "2026-03-06 23:00:00", utc_end_date: "2026-03-07 22:59:59" },
      ]);
      // Public: a subscriber (or anyone) gets the same.
      expect((await preview({ recurrence: ["RRULE:FREQ=DAILY;COUNT=2"], start_date: "2026-03-06", all_day: true }, "subscriber")).body).to.deep.equal(res.body);
    } finally {
      await ts.site.engine.options.set("timezone", "UTC");
    }
  });
});
