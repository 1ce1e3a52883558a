/**
 * The feed's VTIMEZONEs (lib/calendar/ical/vtimezone.ts): year by year for
 * the years the feed's records reach before the zone's current rules (a far
 * date, an RDATE in 9999 or an event in 1900, adds its own years, never every
 * year in between), then the current rules as yearly RRULEs that a
 * subscriber's app expands for ever. Read back by the RFC 5545 reader of
 * ./ical-read.ts and by ical.js's own Timezone, against luxon's offsets.
 */
import { expect } from "chai";
import ICAL from "ical.js";
import { DateTime, IANAZone } from "luxon";
import { coveredYears, ERA_CHECK_END, MAX_YEARS, vtimezone } from "../../lib/calendar/ical/vtimezone";
import { startTestSite, type TestSite } from "../support/site";
import { readVtimezone } from "./ical-read";

/** Observances of a VTIMEZONE: `kind DTSTART RRULE? FROM TO`. */
function observances(text: string): string[] {
  return new ICAL.Component(ICAL.parse(text)).getAllSubcomponents().map((o) => {
    const rrule = o.getFirstProperty("rrule");
    const rule = rrule === null ? "" : ` ${rrule.toICALString().slice("RRULE:".length)}`;
    return `${o.name} ${String(o.getFirstPropertyValue("dtstart"))}${rule} ${o.getFirstProperty("tzoffsetfrom")!.toICALString().slice(-5)} ${o.getFirstProperty("tzoffsetto")!.toICALString().slice(-5)}`;
  });
}

/**
 * Zones whose rules differ in kind: EU and US rules, the southern hemisphere, half-hour DST (Lord Howe), 45-minute
 * offsets (Chatham), `Sun>=2` (Santiago), `Fri>=23` (Jerusalem), negative DST (Dublin), no DST (Kolkata, Tokyo), DST
 * abolished lately (Sao Paulo, Mexico City, Tehran, Asuncion in 2024), DST restored (Cairo), and changes that
 * follow no yearly rule (Casablanca's around Ramadan).
 */
const ZONES = [
  "Europe/Rome",
  "Europe/London",
  "Europe/Dublin",
  "America/New_York",
  "America/Havana",
  "America/Santiago",
  "America/Asuncion",
  "America/Sao_Paulo",
  "America/Mexico_City",
  "America/Nuuk",
  "Australia/Sydney",
  "Australia/Lord_Howe",
  "Pacific/Auckland",
  "Pacific/Chatham",
  "Asia/Jerusalem",
  "Asia/Tehran",
  "Asia/Kolkata",
  "Asia/Tokyo",
  "Africa/Cairo",
  "Africa/Casablanca",
];

describe("iCal feed: VTIMEZONE coverage", () => {
  it("covers each span with a year either side, merged into runs, none past the last year, at most MAX_YEARS in all", () => {
    expect(coveredYears([[2030, 2030], [9999, 9999], [1900, 1900], [2031, 2033]])).to.deep.equal([
      [1899, 1901],
      [2029, 2034],
      [9998, 9999],
    ]);
    expect(coveredYears([])).to.deep.equal([]);
    expect(coveredYears([[1990, Infinity], [2050, 2050]], 2006)).to.deep.equal([[1989, 2006]]);
    expect(coveredYears([[2024, 2030]], 2006)).to.deep.equal([]);
    const many = coveredYears(Array.from({ length: 3000 }, (_, i) => [1000 + 3 * i, 1000 + 3 * i] as const));
    expect(many.reduce((n, [a, b]) => n + b - a + 1, 0)).to.equal(MAX_YEARS);
  });

  it("gives a reader the zone's exact offset at every instant of every span, gaps between spans included", () => {
    const spans: Array<[number, number]> = [
      [1979, 1981],
      [2029, 2031],
      [2990, 2990],
    ];
    const component = new ICAL.Component(ICAL.parse(vtimezone("Europe/Rome", spans)));
    const zone = new ICAL.Timezone(component);
    for (const [from, to] of spans) {
      for (let year = from; year <= to; year++) {
        for (const month of [1, 3, 4, 7, 10, 11]) {
          const at = DateTime.fromObject({ year, month, day: 15, hour: 12 }, { zone: "Europe/Rome" });
          const local = ICAL.Time.fromData({ year, month, day: 15, hour: 12, minute: 0, second: 0 }, zone);
          expect(local.toUnixTime(), `${year}-${month}`).to.equal(at.toSeconds());
        }
      }
    }
  });

  it("ends with the zone's current rules as yearly RRULEs without UNTIL, one observance for a zone without DST", () => {
    const never = [[2024, Infinity]] as const;
    expect(observances(vtimezone("America/New_York", never))).to.deep.equal([
      "standard 2022-12-31T19:00:00 -0500 -0500",
      "daylight 2023-03-12T02:00:00 FREQ=YEARLY;BYMONTH=3;BYDAY=2SU -0500 -0400",
      "standard 2023-11-05T02:00:00 FREQ=YEARLY;BYMONTH=11;BYDAY=1SU -0400 -0500",
    ]);
    expect(observances(vtimezone("Europe/Rome", never))).to.deep.equal([
      "standard 2023-01-01T01:00:00 +0100 +0100",
      "daylight 2023-03-26T02:00:00 FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU +0100 +0200",
      "standard 2023-10-29T03:00:00 FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU +0200 +0100",
    ]);
    expect(observances(vtimezone("Australia/Sydney", never))).to.deep.equal([
      "daylight 2023-01-01T11:00:00 +1100 +1100",
      "standard 2023-04-02T03:00:00 FREQ=YEARLY;BYMONTH=4;BYDAY=1SU +1100 +1000",
      "daylight 2023-10-01T02:00:00 FREQ=YEARLY;BYMONTH=10;BYDAY=1SU +1000 +1100",
    ]);
    expect(observances(vtimezone("Asia/Kolkata", never))).to.deep.equal(["standard 2023-01-01T05:30:00 +0530 +0530"]);
    // Chile's `Sun>=2`: the Sunday among the 2nd to the 8th.
    expect(observances(vtimezone("America/Santiago", never))[1]).to.equal("standard 2023-04-02T00:00:00 FREQ=YEARLY;BYMONTH=4;BYMONTHDAY=2,3,4,5,6,7,8;BYDAY=SU -0300 -0400");
    // A series from 1990: year by year until the rules of 2007, then those.
    const old = observances(vtimezone("America/New_York", [[1990, Infinity]]));
    expect(old.filter((o) => o.includes("FREQ=YEARLY"))).to.deep.equal([
      "daylight 2007-03-11T02:00:00 FREQ=YEARLY;BYMONTH=3;BYDAY=2SU -0500 -0400",
      "standard 2007-11-04T02:00:00 FREQ=YEARLY;BYMONTH=11;BYDAY=1SU -0400 -0500",
    ]);
    expect(old).to.include("daylight 1990-04-01T02:00:00 -0500 -0400");
    expect(old).to.include("standard 2006-10-29T02:00:00 -0400 -0500");
    expect(old.length).to.equal(1 + 2 * 18 + 2);
    // Casablanca's changes follow Ramadan: year by year, up to ERA_CHECK_END, no RRULE.
    const casablanca = observances(vtimezone("Africa/Casablanca", never));
    expect(casablanca.some((o) => o.includes("FREQ"))).to.equal(false);
    expect(casablanca.length).to.be.within(50, 2 * (ERA_CHECK_END - 2023) + 2);
    // The same data, the same bytes.
    expect(vtimezone("Pacific/Chatham", never)).to.equal(vtimezone("Pacific/Chatham", [[2024, Infinity], [2030, 2031]]));
  });

  it("gives a never-ending series' reader the zone's offsets in every year to come, in zones of every kind of rule", function () {
    this.timeout(60_000);
    for (const name of ZONES) {
      const text = vtimezone(name, [[2024, Infinity]]);
      const reader = readVtimezone(new ICAL.Component(ICAL.parse(text)), 2400);
      const zone = IANAZone.create(name);
      const wrong: string[] = [];
      const check = (ms: number): void => {
        if (zone.offset(ms) * 60 !== reader.offsetAt(ms / 1000)) wrong.push(`${new Date(ms).toISOString()}: ${zone.offset(ms)} read as ${reader.offsetAt(ms / 1000) / 60}`);
      };
      // Both sides of every change luxon knows from 2023 to 2100, and every 5 days.
      for (let ms = Date.UTC(2023, 0, 1); ms < Date.UTC(ERA_CHECK_END + 1, 0, 1); ms += 5 * 86_400_000) {
        check(ms);
        const next = ms + 5 * 86_400_000;
        if (zone.offset(next) !== zone.offset(ms)) {
          // The minute of the change: the offset changes between `at - 1 min` and `at`.
          let lo = ms;
          let hi = next;
          while (hi - lo > 60_000) {
            const mid = lo + Math.floor((hi - lo) / 120_000) * 60_000;
            if (zone.offset(mid) === zone.offset(ms)) lo = mid;
            else hi = mid;
          }
          check(lo);
          check(hi);
        }
      }
      // Beyond the years checked, zones with an era keep following it (Casablanca's changes stop with its data's).
      if (text.includes("RRULE")) for (const year of [2150, 2222, 2399]) for (const month of [1, 4, 7, 10]) check(Date.UTC(year, month - 1, 10, 12));
      expect(wrong, `${name}\n${text}`).to.deep.equal([]);
    }
  });

  it("reads the same through ical.js's own Timezone: local noon in 2030, 2050 and 2090", () => {
    for (const name of ["Europe/Rome", "America/New_York", "Australia/Sydney", "Asia/Kolkata", "America/Santiago", "Asia/Jerusalem", "Pacific/Chatham"]) {
      const zone = new ICAL.Timezone(new ICAL.Component(ICAL.parse(vtimezone(name, [[2024, Infinity]]))));
      for (const year of [2030, 2050, 2090]) {
        for (let month = 1; month <= 12; month++) {
          const at = DateTime.fromObject({ year, month, day: 15, hour: 12 }, { zone: name });
          const local = ICAL.Time.fromData({ year, month, day: 15, hour: 12, minute: 0, second: 0 }, zone);
          expect(local.toUnixTime(), `${name} ${year}-${month}`).to.equal(at.toSeconds());
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
