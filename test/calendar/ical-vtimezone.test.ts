/**
 * The feed's VTIMEZONEs (lib/calendar/ical/vtimezone.ts) cover the years the
 * feed's records reach, year by year: a far date (an RDATE in 9999, an event
 * in 1900) adds its own years, never every year in between.
 */
import { expect } from "chai";
import ICAL from "ical.js";
import { DateTime } from "luxon";
import { coveredYears, MAX_YEARS, vtimezone } from "../../lib/calendar/ical/vtimezone";
import { startTestSite, type TestSite } from "../support/site";

describe("iCal feed: VTIMEZONE coverage", () => {
  it("covers each span with a year either side, merged into runs, at most MAX_YEARS in all", () => {
    expect(coveredYears([[2030, 2030], [9999, 9999], [1900, 1900], [2031, 2033]])).to.deep.equal([
      [1899, 1901],
      [2029, 2034],
      [9998, 9999],
    ]);
    expect(coveredYears([])).to.deep.equal([]);
    const many = coveredYears(Array.from({ length: 3000 }, (_, i) => [1000 + 3 * i, 1000 + 3 * i] as const));
    expect(many.reduce((n, [a, b]) => n + b - a + 1, 0)).to.equal(MAX_YEARS);
  });

  it("gives a reader the zone's exact offset at every instant of every run, gaps between runs included", () => {
    const runs: Array<[number, number]> = [
      [1979, 1981],
      [2029, 2031],
      [2990, 2990],
    ];
    const component = new ICAL.Component(ICAL.parse(vtimezone("Europe/Rome", runs)));
    const zone = new ICAL.Timezone(component);
    for (const [from, to] of runs) {
      for (let year = from; year <= to; year++) {
        for (const month of [1, 3, 4, 7, 10, 11]) {
          const at = DateTime.fromObject({ year, month, day: 15, hour: 12 }, { zone: "Europe/Rome" });
          const local = ICAL.Time.fromData({ year, month, day: 15, hour: 12, minute: 0, second: 0 }, zone);
          expect(local.toUnixTime(), `${year}-${month}`).to.equal(at.toSeconds());
        }
      }
    }
  });
});

describe("iCal feed: far dates cost their own years only", function () {
  this.timeout(60_000);
  let t: TestSite;
  before(async () => {
    t = await startTestSite({ fixture: "minimal", timezone: "UTC" });
  });
  after(async () => t?.close());

  it("a series with an RDATE in 9999 and an event in 1900 add a few observances, not one per year between", async () => {
    const write = (body: Record<string, unknown>) => t.post("/events", { as: "admin", json: { status: "publish", timezone: "Europe/Rome", ...body } });
    expect((await write({ title: "Far", start_date: "2030-03-05 19:00:00", end_date: "2030-03-05 21:00:00", recurrence: ["RRULE:FREQ=WEEKLY;COUNT=3", "RDATE:99991230T190000"] })).status).to.equal(201);
    expect((await write({ title: "Old", start_date: "1900-06-01 10:00:00", end_date: "1900-06-01 11:00:00" })).status).to.equal(201);
    const feed = await t.get("/events.ics", { query: { start_date: "1900-01-01", end_date: "2031-01-01", per_page: 50 } });
    expect(feed.status, feed.text).to.equal(200);
    const calendar = new ICAL.Component(ICAL.parse(feed.text));
    const rome = calendar.getAllSubcomponents("vtimezone").find((z) => z.getFirstPropertyValue("tzid") === "Europe/Rome");
    expect(rome, feed.text).to.not.equal(undefined);
    // 1899–1901, 2029–2041 (the series' ten years) and 9998–9999: a few dozen, where every year between made ~16,000.
    const observances = rome!.getAllSubcomponents().length;
    expect(observances).to.be.within(3, 60);
  });
});
