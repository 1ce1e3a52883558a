import * as fs from "fs";
import * as path from "path";
import { expect } from "chai";
import { DateTime } from "luxon";
import { hasExplicitOffset, parseApiDate, strtotime, wallClockToInstant } from "../../lib/dates/strtotime";

interface DateCase {
  base_utc: string;
  zone: string;
  input: string;
  local: string | null;
  utc: string | null;
}

const vectors = JSON.parse(
  fs.readFileSync(path.resolve(__dirname, "../vectors/dates.json"), "utf8"),
) as { cases: DateCase[] };

const SQL = "yyyy-MM-dd HH:mm:ss";

function read(input: string, zone: string, baseUtc: string): { local: string | null; utc: string | null } {
  const now = DateTime.fromFormat(baseUtc, SQL, { zone: "UTC" });
  const dt = strtotime(input, { zone, now });
  return dt ? { local: dt.toFormat(SQL), utc: dt.toUTC().toFormat(SQL) } : { local: null, utc: null };
}

describe("dates/strtotime: PHP vectors (test/vectors/dates.json)", () => {
  it("has the expected number of cases", () => {
    expect(vectors.cases).to.have.length(1674);
  });

  for (const c of vectors.cases) {
    it(`${c.zone} | ${c.base_utc} | ${JSON.stringify(c.input)}`, () => {
      expect(read(c.input, c.zone, c.base_utc)).to.deep.equal({ local: c.local, utc: c.utc });
    });
  }

  it("reads every case the same again, in reverse order, when its text was scanned before (kept scans are copied, never changed)", () => {
    const wrong = [...vectors.cases].reverse().filter((c) => {
      const again = read(c.input, c.zone, c.base_utc);
      return again.local !== c.local || again.utc !== c.utc;
    });
    expect(wrong.map((c) => `${c.zone} | ${c.base_utc} | ${c.input}`)).to.deep.equal([]);
  });
});

describe("dates/strtotime: neighbouring forms", () => {
  // Wednesday 2026-03-11 08:30 UTC = 04:30 EDT in New York.
  const base = "2026-03-11 08:30:00";
  const ny = (input: string): string | null => read(input, "America/New_York", base).local;

  it("reads month names, ordinals and textual dates", () => {
    expect(ny("1 January 2030")).to.equal("2030-01-01 00:00:00");
    expect(ny("31st December 2030")).to.equal("2030-12-31 00:00:00");
    expect(ny("Dec 31st, 2030")).to.equal("2030-12-31 00:00:00");
    expect(ny("January 2030")).to.equal("2030-01-01 00:00:00");
    expect(ny("12 Dec 2030 5:30 pm")).to.equal("2030-12-12 17:30:00");
  });

  it("combines day words, weekdays and units with times", () => {
    expect(ny("tomorrow 5:30pm")).to.equal("2026-03-12 17:30:00");
    expect(ny("Tomorrow 9AM")).to.equal("2026-03-12 09:00:00");
    expect(ny("tomorrow 9 a.m.")).to.equal("2026-03-12 09:00:00");
    expect(ny("yesterday noon")).to.equal("2026-03-10 12:00:00");
    expect(ny("this friday")).to.equal("2026-03-13 00:00:00");
    expect(ny("wednesday")).to.equal("2026-03-11 00:00:00");
    expect(ny("next wednesday")).to.equal("2026-03-18 00:00:00");
    expect(ny("+1 week 10am")).to.equal("2026-03-18 10:00:00");
    expect(ny("+1 hour")).to.equal("2026-03-11 05:30:00");
    expect(ny("-90 minutes")).to.equal("2026-03-11 03:00:00");
    expect(ny("2 days ago")).to.equal("2026-03-09 04:30:00");
    expect(ny("first day of next month 9am")).to.equal("2026-04-01 09:00:00");
    expect(ny("last friday of next month")).to.equal("2026-04-24 00:00:00");
    expect(ny("sunday this week")).to.equal("2026-03-15 00:00:00");
  });

  it("keeps PHP's order quirks: a day word after a time resets it", () => {
    expect(ny("noon tomorrow")).to.equal("2026-03-12 00:00:00");
    expect(ny("tomorrow noon")).to.equal("2026-03-12 12:00:00");
  });

  it("honours offsets and zone names in the text", () => {
    expect(read("2030-01-01T10:00:00.5Z", "Europe/Rome", base).utc).to.equal("2030-01-01 10:00:00");
    expect(read("2030-01-01 10:00 EST", "UTC", base).utc).to.equal("2030-01-01 15:00:00");
    expect(read("2030-07-01 10:00 Europe/Rome", "UTC", base).utc).to.equal("2030-07-01 08:00:00");
  });

  it("rejects what PHP rejects", () => {
    for (const bad of ["", "next", "2030-01-01 2030-01-02", "31/12/2030", "2030-13-01", "9am 10am", "'now'"]) {
      expect(strtotime(bad, { zone: "UTC", now: Date.UTC(2026, 2, 11) }), bad).to.equal(null);
    }
  });

  it("accepts Date and millisecond bases", () => {
    const ms = Date.UTC(2026, 2, 11, 8, 30);
    expect(strtotime("now", { zone: "UTC", now: ms })!.toMillis()).to.equal(ms);
    expect(strtotime("+1 day", { zone: "UTC", now: new Date(ms) })!.toMillis()).to.equal(ms + 86400000);
  });
});

describe("dates/strtotime: parseApiDate and hasExplicitOffset", () => {
  const now = DateTime.fromISO("2026-03-11T08:30:00Z");

  it("reads digits-only strings and numbers as Unix timestamps", () => {
    expect(parseApiDate("1700000000", { zone: "Europe/Rome", now })!.toUTC().toFormat(SQL)).to.equal("2023-11-14 22:13:20");
    expect(parseApiDate(1700000000, { zone: "UTC", now })!.toFormat(SQL)).to.equal("2023-11-14 22:13:20");
    expect(parseApiDate("1700000000", { zone: "Europe/Rome", now })!.zoneName).to.equal("Europe/Rome");
  });

  it("falls back to strtotime", () => {
    expect(parseApiDate("tomorrow 9am", { zone: "UTC", now })!.toFormat(SQL)).to.equal("2026-03-12 09:00:00");
    expect(parseApiDate("before my birthday", { zone: "UTC", now })).to.equal(null);
    expect(parseApiDate("now", { zone: "UTC" })).to.not.equal(null);
  });

  it("knows which inputs fix their own instant", () => {
    for (const yes of ["2030-01-01T10:00:00Z", "2030-01-01T10:00:00+02:00", "2030-01-01 10:00:00 -05:00", "@1700000000", "1700000000", "2030-01-01 10:00 Europe/Rome"]) {
      expect(hasExplicitOffset(yes), yes).to.equal(true);
    }
    for (const no of ["2030-01-01 10:00:00", "tomorrow 9am", "+1 day", "foo", ""]) {
      expect(hasExplicitOffset(no), no).to.equal(false);
    }
  });
});

describe("dates/strtotime: wallClockToInstant", () => {
  it("moves a time in a DST gap forward and picks PHP's side of an overlap", () => {
    const gap = wallClockToInstant({ year: 2026, month: 3, day: 8, hour: 2, minute: 30 }, "America/New_York");
    expect(gap.toFormat(SQL)).to.equal("2026-03-08 03:30:00");
    const westOverlap = wallClockToInstant({ year: 2026, month: 11, day: 1, hour: 1, minute: 30 }, "America/New_York");
    expect(westOverlap.toUTC().toFormat(SQL)).to.equal("2026-11-01 05:30:00");
    const eastOverlap = wallClockToInstant({ year: 2026, month: 10, day: 25, hour: 2, minute: 30 }, "Europe/Rome");
    expect(eastOverlap.toUTC().toFormat(SQL)).to.equal("2026-10-25 01:30:00");
  });
});
