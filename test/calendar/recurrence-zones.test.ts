/**
 * Issue 42: a series' occurrences in its zone as RFC 5545 places them
 * (lib/calendar/recurrence/instants.ts, expand.ts): a wall clock in a
 * repeated hour is its first instant, one in a DST gap is read with the
 * offset before the gap and only that occurrence moves (§3.3.5); every
 * occurrence lasts the first one's exact duration (§3.8.5.3); UNTIL, EXDATE
 * and RDATE written in UTC or with a TZID are instants (§3.3.10, §3.8.5);
 * INTERVAL and COUNT go up to 2^31 - 1. Expected values are python-dateutil
 * 2.9's (rrulestr on the wall clock, localised with zoneinfo, fold=0), the
 * usual reference, except where noted.
 *
 * Then every class of the issue's table through the anonymous
 * `GET /recurrence-preview`, and the DST ones through a stored series' list.
 */
import { expect } from "chai";
import { DateTime } from "luxon";
import { expandSeries, MAX_OCCURRENCES, occurrencesToStore, previewSeries, type SeriesBase } from "../../lib/calendar/recurrence/expand";
import { StepBudget } from "../../lib/calendar/recurrence/rrule";
import { feedRecurrence } from "../../lib/calendar/recurrence/ical";
import { MAX_COUNT, MAX_INTERVAL, parseRecurrence, RecurrenceError } from "../../lib/calendar/recurrence/rules";
import { forEachDatabase } from "../support/databases";
import { useSite } from "./events-support";

const ROME = "Europe/Rome";
const SYDNEY = "Australia/Sydney";
const NEW_YORK = "America/New_York";
const FAR = "2100-01-01 00:00:00";

/** [start_local, end_local, start_utc, end_utc] of each occurrence. */
type Row = [string, string, string, string];

function timed(zone: string, start: string, end: string): SeriesBase {
  return { startLocal: start, endLocal: end, zone, allDay: false };
}

function expand(lines: string[], base: SeriesBase, horizon = FAR): Row[] {
  return expandSeries(parseRecurrence(lines), base, horizon).map(({ times: o }) => [o.start_local, o.end_local, o.start_utc, o.end_utc]);
}

const startsUtc = (lines: string[], base: SeriesBase): string[] => expand(lines, base).map((r) => r[2]);

describe("recurrence in a zone: RFC 5545 §3.3.5, §3.8.5.3, instants", () => {
  it("takes the first instant of a repeated hour, east and west of Greenwich (Rome, Sydney, New York)", () => {
    // Rome falls back on 31 October 2027 (03:00 CEST → 02:00 CET): 02:30 is 00:30Z (CEST), not 01:30Z.
    expect(startsUtc(["RRULE:FREQ=DAILY;COUNT=4"], timed(ROME, "2027-10-29 02:30:00", "2027-10-29 03:00:00"))).to.deep.equal([
      "2027-10-29 00:30:00",
      "2027-10-30 00:30:00",
      "2027-10-31 00:30:00",
      "2027-11-01 01:30:00",
    ]);
    // Sydney falls back on 4 April 2027 (03:00 AEDT → 02:00 AEST).
    expect(startsUtc(["RRULE:FREQ=DAILY;COUNT=4"], timed(SYDNEY, "2027-04-02 02:30:00", "2027-04-02 03:00:00"))).to.deep.equal([
      "2027-04-01 15:30:00",
      "2027-04-02 15:30:00",
      "2027-04-03 15:30:00",
      "2027-04-04 16:30:00",
    ]);
    // New York falls back on 7 November 2027 (02:00 EDT → 01:00 EST).
    expect(startsUtc(["RRULE:FREQ=DAILY;COUNT=4"], timed(NEW_YORK, "2027-11-05 01:30:00", "2027-11-05 01:45:00"))).to.deep.equal([
      "2027-11-05 05:30:00",
      "2027-11-06 05:30:00",
      "2027-11-07 05:30:00",
      "2027-11-08 06:30:00",
    ]);
  });

  it("moves only the occurrence in a DST gap, by the gap; the others keep the series' wall clock", () => {
    // New York springs forward on 14 March 2027: 02:30 does not exist; read with EST it is 03:30 EDT (07:30Z).
    const ny = expand(["RRULE:FREQ=WEEKLY;COUNT=3"], timed(NEW_YORK, "2027-03-07 02:30:00", "2027-03-07 03:00:00"));
    expect(ny).to.deep.equal([
      ["2027-03-07 02:30:00", "2027-03-07 03:00:00", "2027-03-07 07:30:00", "2027-03-07 08:00:00"],
      ["2027-03-14 03:30:00", "2027-03-14 04:00:00", "2027-03-14 07:30:00", "2027-03-14 08:00:00"],
      ["2027-03-21 02:30:00", "2027-03-21 03:00:00", "2027-03-21 06:30:00", "2027-03-21 07:00:00"],
    ]);
    // The series' own start in the gap (the issue's example): its first occurrence moves, the next week's is at 02:30.
    const fromGap = expandSeries(parseRecurrence(["RRULE:FREQ=WEEKLY;COUNT=3"]), timed(NEW_YORK, "2027-03-14 02:30:00", "2027-03-14 04:30:00"), FAR);
    expect(fromGap.map((o) => [o.key, o.times.start_local, o.times.start_utc])).to.deep.equal([
      ["2027-03-14 02:30:00", "2027-03-14 03:30:00", "2027-03-14 07:30:00"],
      ["2027-03-21 02:30:00", "2027-03-21 02:30:00", "2027-03-21 06:30:00"],
      ["2027-03-28 02:30:00", "2027-03-28 02:30:00", "2027-03-28 06:30:00"],
    ]);
    // Sydney springs forward on 3 October 2027.
    expect(expand(["RRULE:FREQ=DAILY;COUNT=3"], timed(SYDNEY, "2027-10-01 02:30:00", "2027-10-01 03:30:00")).map((r) => [r[0], r[2]])).to.deep.equal([
      ["2027-10-01 02:30:00", "2027-09-30 16:30:00"],
      ["2027-10-02 02:30:00", "2027-10-01 16:30:00"],
      ["2027-10-03 03:30:00", "2027-10-02 16:30:00"],
    ]);
  });

  it("gives every occurrence the first one's exact duration (§3.8.5.3), across a fall-back day", () => {
    // 01:30 EDT to 03:00 EST on the fall-back day is 2 h 30 min; a week later 01:30 EST + 2:30 is 04:00.
    expect(expand(["RRULE:FREQ=WEEKLY;COUNT=2"], timed(NEW_YORK, "2027-11-07 01:30:00", "2027-11-07 03:00:00"))).to.deep.equal([
      ["2027-11-07 01:30:00", "2027-11-07 03:00:00", "2027-11-07 05:30:00", "2027-11-07 08:00:00"],
      ["2027-11-14 01:30:00", "2027-11-14 04:00:00", "2027-11-14 06:30:00", "2027-11-14 09:00:00"],
    ]);
    // 2 hours from 00:30 on the fall-back day ends at 01:30 EST, an hour earlier on the wall clock than the first's 02:30.
    expect(expand(["RRULE:FREQ=DAILY;COUNT=2"], timed(NEW_YORK, "2027-11-06 00:30:00", "2027-11-06 02:30:00"))[1]).to.deep.equal([
      "2027-11-07 00:30:00",
      "2027-11-07 01:30:00",
      "2027-11-07 04:30:00",
      "2027-11-07 06:30:00",
    ]);
    // A first occurrence overnight across spring-forward lasts 11 hours: so does every other, ending at 07:00.
    const overnight = expand(["RRULE:FREQ=DAILY;COUNT=3"], timed(ROME, "2027-03-27 20:00:00", "2027-03-28 08:00:00"));
    expect(overnight.map((r) => [r[0], r[1]])).to.deep.equal([
      ["2027-03-27 20:00:00", "2027-03-28 08:00:00"],
      ["2027-03-28 20:00:00", "2027-03-29 07:00:00"],
      ["2027-03-29 20:00:00", "2027-03-30 07:00:00"],
    ]);
  });

  it("compares a UTC UNTIL with each occurrence's instant; a floating one with its wall clock; a date with its day", () => {
    const ny = timed(NEW_YORK, "2027-02-28 02:30:00", "2027-02-28 03:00:00");
    // The 14 March occurrence is 07:30Z, after 07:00Z: excluded (on the wall clock, 02:30 < 03:00 EDT, it was kept).
    expect(expand(["RRULE:FREQ=WEEKLY;UNTIL=20270314T070000Z"], ny).map((r) => r[0])).to.deep.equal(["2027-02-28 02:30:00", "2027-03-07 02:30:00"]);
    expect(expand(["RRULE:FREQ=WEEKLY;UNTIL=20270314T073000Z"], ny).map((r) => r[0])).to.deep.equal(["2027-02-28 02:30:00", "2027-03-07 02:30:00", "2027-03-14 03:30:00"]);
    // Floating: the rule's wall clock 02:30 is not after 02:30.
    expect(expand(["RRULE:FREQ=WEEKLY;UNTIL=20270314T023000"], ny)).to.have.length(3);
    expect(expand(["RRULE:FREQ=WEEKLY;UNTIL=20270314"], ny)).to.have.length(3);
    // In a repeated hour: 01:30 EDT is 05:30Z, so an UNTIL of 05:45Z keeps the fall-back day's 01:30.
    const fold = timed(NEW_YORK, "2027-11-06 01:30:00", "2027-11-06 02:00:00");
    expect(expand(["RRULE:FREQ=DAILY;UNTIL=20271107T054500Z"], fold)).to.have.length(2);
    expect(expand(["RRULE:FREQ=DAILY;UNTIL=20271107T052959Z"], fold)).to.have.length(1);
  });

  it("removes an occurrence by an EXDATE's instant when written in UTC or with a TZID, by its wall clock when floating", () => {
    const daily = timed(NEW_YORK, "2027-03-12 02:30:00", "2027-03-12 03:00:00");
    const keys = (lines: string[]): string[] => expandSeries(parseRecurrence(["RRULE:FREQ=DAILY;COUNT=4", ...lines]), daily, FAR).map((o) => o.key);
    const all = ["2027-03-12 02:30:00", "2027-03-13 02:30:00", "2027-03-14 02:30:00", "2027-03-15 02:30:00"];
    const without14 = ["2027-03-12 02:30:00", "2027-03-13 02:30:00", "2027-03-15 02:30:00"];
    expect(keys([])).to.deep.equal(all);
    // The gap day's occurrence is 07:30Z (03:30 EDT): named in UTC, with a TZID at 03:30 or at 02:30, or floating at 02:30.
    expect(keys(["EXDATE:20270314T073000Z"])).to.deep.equal(without14);
    expect(keys(["EXDATE;TZID=America/New_York:20270314T033000"])).to.deep.equal(without14);
    expect(keys(["EXDATE;TZID=America/New_York:20270314T023000"])).to.deep.equal(without14);
    expect(keys(["EXDATE;TZID=Europe/London:20270314T073000"])).to.deep.equal(without14);
    expect(keys(["EXDATE:20270314T023000"])).to.deep.equal(without14);
    // Floating values are wall clocks: 03:30 is not the rule's 02:30.
    expect(keys(["EXDATE:20270314T033000"])).to.deep.equal(all);
    // Another instant removes nothing.
    expect(keys(["EXDATE:20270314T063000Z"])).to.deep.equal(all);
    // A repeated hour: the occurrence is the first 01:30 (05:30Z); an EXDATE at the second (06:30Z) is another instant.
    const fold = timed(NEW_YORK, "2027-11-06 01:30:00", "2027-11-06 02:00:00");
    const foldKeys = (lines: string[]): string[] => expandSeries(parseRecurrence(["RRULE:FREQ=DAILY;COUNT=3", ...lines]), fold, FAR).map((o) => o.key);
    expect(foldKeys(["EXDATE:20271107T063000Z"])).to.have.length(3);
    expect(foldKeys(["EXDATE:20271107T053000Z"])).to.deep.equal(["2027-11-06 01:30:00", "2027-11-08 01:30:00"]);
  });

  it("adds an RDATE at its instant, also the second pass of a repeated hour", () => {
    const base = timed(NEW_YORK, "2027-11-01 09:00:00", "2027-11-01 10:00:00");
    // 06:30Z on 7 November is 01:30 EST, the second 01:30: kept at that instant, not moved to the first.
    expect(expand(["RDATE:20271107T063000Z", "RDATE;TZID=Europe/Rome:20271108T150000"], base)).to.deep.equal([
      ["2027-11-01 09:00:00", "2027-11-01 10:00:00", "2027-11-01 13:00:00", "2027-11-01 14:00:00"],
      ["2027-11-07 01:30:00", "2027-11-07 02:30:00", "2027-11-07 06:30:00", "2027-11-07 07:30:00"],
      ["2027-11-08 09:00:00", "2027-11-08 10:00:00", "2027-11-08 14:00:00", "2027-11-08 15:00:00"],
    ]);
  });

  it("keeps one occurrence per instant (§3.8.5.3: duplicate instances are ignored), the rule's over an RDATE's", () => {
    // The rule's 10 March 02:00 is in the gap (03:00 EDT, 07:00Z); the RDATE names the same instant.
    const ny = timed(NEW_YORK, "2030-03-09 02:00:00", "2030-03-09 02:30:00");
    const lines = ["RRULE:FREQ=DAILY;COUNT=2", "RDATE:20300310T070000Z"];
    const got = expandSeries(parseRecurrence(lines), ny, FAR).map((o) => [o.key, o.times.start_local, o.times.start_utc]);
    expect(got).to.deep.equal([
      ["2030-03-09 02:00:00", "2030-03-09 02:00:00", "2030-03-09 07:00:00"],
      ["2030-03-10 02:00:00", "2030-03-10 03:00:00", "2030-03-10 07:00:00"],
    ]);
    const preview = previewSeries(parseRecurrence(lines), ny, { count: 10, budget: new StepBudget(100_000) });
    expect(preview.occurrences.map((o) => o.key)).to.deep.equal(["2030-03-09 02:00:00", "2030-03-10 02:00:00"]);
    expect(preview.total).to.equal(2);
    // Two RDATEs at one instant (a floating wall clock in the gap and its UTC instant): one.
    const rome = timed(ROME, "2028-03-19 23:45:00", "2028-03-20 00:45:00");
    const twice = ["RRULE:FREQ=MONTHLY;COUNT=2", "RDATE:20280326T020000", "RDATE:20280326T010000Z"];
    expect(expandSeries(parseRecurrence(twice), rome, FAR).map((o) => o.times.start_utc)).to.deep.equal(["2028-03-19 22:45:00", "2028-03-26 01:00:00", "2028-04-19 21:45:00"]);
    expect(previewSeries(parseRecurrence(twice), rome, { count: 10, budget: new StepBudget(100_000) }).total).to.equal(3);
  });

  it("takes INTERVAL and COUNT up to 2^31 - 1, refuses more, and stays bounded", () => {
    expect(MAX_INTERVAL).to.equal(2 ** 31 - 1);
    expect(MAX_COUNT).to.equal(2 ** 31 - 1);
    for (const rule of [`RRULE:FREQ=DAILY;INTERVAL=${MAX_INTERVAL};COUNT=${MAX_COUNT}`, "RRULE:FREQ=DAILY;INTERVAL=10000", "RRULE:FREQ=WEEKLY;COUNT=100000", "RRULE:FREQ=DAILY;INTERVAL=007"]) {
      expect(parseRecurrence([rule]).rules, rule).to.have.length(1);
    }
    for (const rule of [`RRULE:FREQ=DAILY;INTERVAL=${MAX_INTERVAL + 1}`, `RRULE:FREQ=DAILY;COUNT=${MAX_COUNT + 1}`, "RRULE:FREQ=DAILY;COUNT=0", "RRULE:FREQ=DAILY;INTERVAL=+2", "RRULE:FREQ=DAILY;COUNT=99999999999"]) {
      expect(() => parseRecurrence([rule]), rule).to.throw(RecurrenceError, /must be a positive integer up to 2147483647/);
    }
    const base = timed("UTC", "2027-01-01 10:00:00", "2027-01-01 11:00:00");
    expect(expand(["RRULE:FREQ=DAILY;INTERVAL=10000;COUNT=3"], base).map((r) => r[0])).to.deep.equal(["2027-01-01 10:00:00", "2054-05-19 10:00:00", "2081-10-04 10:00:00"]);
    // A COUNT of a million daily: more than a series stores, so stored up to its horizon (730 days on), as an open one is.
    // (2028 is a leap year: 730 days after 1 January 2027 is 31 December 2028.)
    const now = new Date("2027-01-01T00:00:00Z");
    const started = Date.now();
    const stored = occurrencesToStore(parseRecurrence(["RRULE:FREQ=DAILY;COUNT=1000000"]), base, now, 730);
    expect(stored).to.have.length(731);
    expect(stored.at(-1)?.key).to.equal("2028-12-31 10:00:00");
    expect(stored.length).to.be.below(MAX_OCCURRENCES);
    // The largest INTERVAL leaves no second occurrence before year 9999: a rule that never repeats.
    expect(() => occurrencesToStore(parseRecurrence([`RRULE:FREQ=YEARLY;INTERVAL=${MAX_INTERVAL}`]), base, now, 730)).to.throw(RecurrenceError, /never repeat/);
    expect(Date.now() - started).to.be.below(5000);
  });
});

/** The preview's occurrences as [start_date, utc_start_date] pairs. */
type Pair = [string, string];

forEachDatabase("recurrence in a zone: the issue's classes through the API", (db) => {
  const site = useSite(db);
  const preview = async (recurrence: string[], start_date: string, more: Record<string, string | number> = {}): Promise<{ status: number; body: any }> =>
    site().get("/recurrence-preview", { query: { recurrence, start_date, count: 6, ...more } });
  const starts = async (recurrence: string[], start_date: string, more: Record<string, string | number> = {}): Promise<string[]> => {
    const res = await preview(recurrence, start_date, more);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.occurrences.map((o: { start_date: string }) => o.start_date);
  };
  const pairs = async (recurrence: string[], start_date: string, more: Record<string, string | number>): Promise<Pair[]> => {
    const res = await preview(recurrence, start_date, more);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.occurrences.map((o: { start_date: string; utc_start_date: string }) => [o.start_date, o.utc_start_date]);
  };

  it("answers each rule class of the issue as python-dateutil does (DTSTART first, as RFC 5545 counts it)", async function () {
    this.timeout(30_000);
    const at = (days: string[]): string[] => days.map((d) => `${d} 10:00:00`);
    // Endless expansion: any all-negative BYMONTHDAY answers at once.
    expect(await starts(["RRULE:FREQ=DAILY;BYMONTHDAY=-1"], "2027-01-31 10:00", { count: 4 })).to.deep.equal(at(["2027-01-31", "2027-02-28", "2027-03-31", "2027-04-30"]));
    // BYWEEKNO: the Monday of week 1 each year.
    expect(await starts(["RRULE:FREQ=YEARLY;BYWEEKNO=1;BYDAY=MO;COUNT=3"], "2027-01-04 10:00")).to.deep.equal(at(["2027-01-04", "2028-01-03", "2029-01-01"]));
    // WEEKLY + BYSETPOS: the first of Monday, Wednesday, Friday each week.
    expect(await starts(["RRULE:FREQ=WEEKLY;BYDAY=MO,WE,FR;BYSETPOS=1"], "2027-01-04 10:00", { count: 4 })).to.deep.equal(at(["2027-01-04", "2027-01-11", "2027-01-18", "2027-01-25"]));
    // MONTHLY INTERVAL + BYMONTH: every other month, in the first half-year.
    expect(await starts(["RRULE:FREQ=MONTHLY;INTERVAL=2;BYMONTH=1,2,3,4,5,6"], "2027-01-10 10:00", { count: 5 })).to.deep.equal(
      at(["2027-01-10", "2027-03-10", "2027-05-10", "2028-01-10", "2028-03-10"]),
    );
    // COUNT: five, none deduplicated away.
    const five = await preview(["RRULE:FREQ=MONTHLY;BYMONTH=1,5,9;COUNT=5"], "2027-05-10 10:00");
    expect(five.body.occurrences.map((o: { start_date: string }) => o.start_date)).to.deep.equal(at(["2027-05-10", "2027-09-10", "2028-01-10", "2028-05-10", "2028-09-10"]));
    expect(five.body.total_known).to.equal(5);
    // Mixed-sign BYMONTHDAY: the first and the last of each month.
    expect(await starts(["RRULE:FREQ=DAILY;BYMONTHDAY=1,-1"], "2027-01-01 10:00", { count: 5 })).to.deep.equal(at(["2027-01-01", "2027-01-31", "2027-02-01", "2027-02-28", "2027-03-01"]));
    // A big BYDAY ordinal: the 20th Monday of each year.
    expect(await starts(["RRULE:FREQ=YEARLY;BYDAY=20MO"], "2027-05-17 10:00", { count: 3 })).to.deep.equal(at(["2027-05-17", "2028-05-15", "2029-05-14"]));
    // 29 February: the years that have one.
    expect(await starts(["RRULE:FREQ=YEARLY;COUNT=3"], "2028-02-29 10:00")).to.deep.equal(at(["2028-02-29", "2032-02-29", "2036-02-29"]));
    // A negative BYMONTHDAY with several months: the day before each month's last.
    expect(await starts(["RRULE:FREQ=YEARLY;BYMONTH=3,4;BYMONTHDAY=-2"], "2027-03-30 10:00", { count: 4 })).to.deep.equal(at(["2027-03-30", "2027-04-29", "2028-03-30", "2028-04-29"]));
    // BYSETPOS past the set selects nothing (dateutil: no instance): refused naming the rule, by the preview once its
    // budget is spent (proving it would take 400 years of days), by an event write as a rule that never repeats.
    const past = await preview(["RRULE:FREQ=YEARLY;BYSETPOS=366;BYYEARDAY=1,366"], "2027-01-01 10:00");
    expect(past.status).to.equal(400);
    expect(past.body.data.params.recurrence).to.match(/too sparse/);
    const write = await site().post("/events", { as: "editor", json: { title: "Past the set", start_date: "2027-01-01 10:00", end_date: "2027-01-01 11:00", recurrence: ["RRULE:FREQ=YEARLY;BYSETPOS=366;BYYEARDAY=1,366"] } });
    expect(write.status).to.equal(400);
    expect(write.body.data.params.recurrence).to.match(/^recurrence\[0\]: .*never repeat/);
  });

  it("answers the DST classes as RFC 5545 §3.3.5 says: fold, gap, EXDATE in a gap, UTC UNTIL, durations", async () => {
    // DST fold: the first 02:30 in Rome and Sydney, the first 01:30 in New York.
    expect(await pairs(["RRULE:FREQ=DAILY"], "2027-10-29 02:30", { timezone: ROME, count: 4 })).to.deep.equal([
      ["2027-10-29 02:30:00", "2027-10-29 00:30:00"],
      ["2027-10-30 02:30:00", "2027-10-30 00:30:00"],
      ["2027-10-31 02:30:00", "2027-10-31 00:30:00"],
      ["2027-11-01 02:30:00", "2027-11-01 01:30:00"],
    ]);
    expect((await pairs(["RRULE:FREQ=DAILY"], "2027-04-02 02:30", { timezone: SYDNEY, count: 3 }))[2]).to.deep.equal(["2027-04-04 02:30:00", "2027-04-03 15:30:00"]);
    expect((await pairs(["RRULE:FREQ=DAILY"], "2027-11-05 01:30", { timezone: NEW_YORK, count: 3 }))[2]).to.deep.equal(["2027-11-07 01:30:00", "2027-11-07 05:30:00"]);
    // DST gap: the series starts in New York's gap; only that occurrence moves.
    expect(await pairs(["RRULE:FREQ=WEEKLY"], "2027-03-14 02:30", { timezone: NEW_YORK, count: 3 })).to.deep.equal([
      ["2027-03-14 03:30:00", "2027-03-14 07:30:00"],
      ["2027-03-21 02:30:00", "2027-03-21 06:30:00"],
      ["2027-03-28 02:30:00", "2027-03-28 06:30:00"],
    ]);
    // EXDATE in a gap, in UTC.
    expect(await starts(["RRULE:FREQ=DAILY;COUNT=4", "EXDATE:20270314T073000Z"], "2027-03-12 02:30", { timezone: NEW_YORK })).to.deep.equal([
      "2027-03-12 02:30:00",
      "2027-03-13 02:30:00",
      "2027-03-15 02:30:00",
    ]);
    // UTC UNTIL, compared as an instant.
    const until = await preview(["RRULE:FREQ=WEEKLY;UNTIL=20270314T070000Z"], "2027-02-28 02:30", { timezone: NEW_YORK });
    expect(until.body.occurrences.map((o: { start_date: string }) => o.start_date)).to.deep.equal(["2027-02-28 02:30:00", "2027-03-07 02:30:00"]);
    expect(until.body.total_known).to.equal(2);
    // Durations: the exact 2 h 30 min of the fall-back day's 01:30 EDT–03:00 EST.
    const long = await preview(["RRULE:FREQ=WEEKLY;COUNT=2"], "2027-11-07 01:30", { timezone: NEW_YORK, end_date: "2027-11-07 03:00" });
    expect(long.body.occurrences.map((o: { start_date: string; end_date: string; utc_end_date: string }) => [o.start_date, o.end_date, o.utc_end_date])).to.deep.equal([
      ["2027-11-07 01:30:00", "2027-11-07 03:00:00", "2027-11-07 08:00:00"],
      ["2027-11-14 01:30:00", "2027-11-14 04:00:00", "2027-11-14 09:00:00"],
    ]);
  });

  it("takes the limits: INTERVAL past 9999 and COUNT past 99999, bounded", async () => {
    expect(await starts(["RRULE:FREQ=DAILY;INTERVAL=10000"], "2027-01-01 10:00", { count: 3 })).to.deep.equal(["2027-01-01 10:00:00", "2054-05-19 10:00:00", "2081-10-04 10:00:00"]);
    const many = await preview(["RRULE:FREQ=WEEKLY;COUNT=100000"], "2027-01-01 10:00", { count: 3 });
    expect(many.status).to.equal(200);
    // 100,000 weeks reach past year 3900: more than the preview steps through, so the total is not known.
    expect(many.body).to.deep.include({ total_known: null, bounded: true });
    const refused = await preview([`RRULE:FREQ=DAILY;COUNT=${MAX_COUNT + 1}`], "2027-01-01 10:00");
    expect(refused.status).to.equal(400);
    expect(refused.body.data.params.recurrence).to.match(/COUNT must be a positive integer up to 2147483647/);
  });

  it("stores a series' fold and gap occurrences as the preview answers them, and lists them so", async () => {
    const t = site();
    const make = async (title: string, body: Record<string, unknown>): Promise<number> => {
      const res = await t.post("/events", { as: "editor", json: { title, status: "publish", ...body } });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      return res.body.id as number;
    };
    const listed = async (search: string): Promise<Array<[string, string, string]>> => {
      const res = await t.get("/events", { query: { search, start_date: "2027-01-01", end_date: "2028-12-31", per_page: 50 } });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      return res.body.events.map((e: { start_date: string; end_date: string; utc_start_date: string }) => [e.start_date, e.end_date, e.utc_start_date]);
    };
    const fold = { timezone: ROME, start_date: "2027-10-30 02:30:00", end_date: "2027-10-30 03:00:00", recurrence: ["RRULE:FREQ=DAILY;COUNT=3"] };
    const foldId = await make("Rome fold", fold);
    expect(await listed("Rome fold")).to.deep.equal([
      ["2027-10-30 02:30:00", "2027-10-30 03:00:00", "2027-10-30 00:30:00"],
      ["2027-10-31 02:30:00", "2027-10-31 02:00:00", "2027-10-31 00:30:00"],
      ["2027-11-01 02:30:00", "2027-11-01 03:00:00", "2027-11-01 01:30:00"],
    ]);
    const gap = { timezone: NEW_YORK, start_date: "2027-03-14 02:30:00", end_date: "2027-03-14 04:30:00", recurrence: ["RRULE:FREQ=WEEKLY;COUNT=3"] };
    const gapId = await make("New York gap", gap);
    // The event itself starts where the API reads 02:30 (03:30, as PHP), its series repeats 02:30 (only the first moved).
    expect((await t.get(`/events/${gapId}`)).body.start_date).to.equal("2027-03-14 03:30:00");
    expect((await listed("New York gap")).map((r) => [r[0], r[2]])).to.deep.equal([
      ["2027-03-14 03:30:00", "2027-03-14 07:30:00"],
      ["2027-03-21 02:30:00", "2027-03-21 06:30:00"],
      ["2027-03-28 02:30:00", "2027-03-28 06:30:00"],
    ]);
    // The stored occurrences are the preview's.
    for (const [id, event] of [[foldId, fold], [gapId, gap]] as const) {
      const stored = (await t.site.engine.occurrences.list(id)).map((o) => [o.start_local, o.end_local, o.start_utc, o.end_utc]);
      const res = await preview(event.recurrence, event.start_date, { timezone: event.timezone, end_date: event.end_date });
      expect(res.body.occurrences.map((o: { start_date: string; end_date: string; utc_start_date: string; utc_end_date: string }) => [o.start_date, o.end_date, o.utc_start_date, o.utc_end_date])).to.deep.equal(stored);
    }
    expect((await t.site.engine.posts.get(gapId))?.fields.recurrence_start).to.equal("2027-03-14 02:30:00");
    // Its JSON-LD schedule says the time its rules repeat.
    expect((await t.get(`/events/${gapId}`)).body.json_ld.eventSchedule).to.deep.include({ startDate: "2027-03-14", startTime: "02:30:00", scheduleTimezone: NEW_YORK });
    // An edit that leaves the start alone keeps the series' 02:30; a new start that exists drops it.
    expect((await t.post(`/events/${gapId}`, { as: "editor", json: { title: "New York gap, renamed" } })).status).to.equal(200);
    expect((await listed("New York gap"))[1][0]).to.equal("2027-03-21 02:30:00");
    expect((await t.post(`/events/${gapId}`, { as: "editor", json: { start_date: "2027-03-14 05:00:00", end_date: "2027-03-14 06:00:00" } })).status).to.equal(200);
    expect((await listed("New York gap")).map((r) => r[0])).to.deep.equal(["2027-03-14 05:00:00", "2027-03-21 05:00:00", "2027-03-28 05:00:00"]);
    // Cancelling the gap day's occurrence of a daily series names its key (02:30), which removes it.
    const dailyId = await make("Gap daily", { timezone: NEW_YORK, start_date: "2027-03-13 02:30:00", end_date: "2027-03-13 03:00:00", recurrence: ["RRULE:FREQ=DAILY;COUNT=3"] });
    const occurrence = (await t.get("/events", { query: { search: "Gap daily", start_date: "2027-03-14", end_date: "2027-03-14", per_page: 50 } })).body.events[0];
    expect(occurrence.start_date).to.equal("2027-03-14 03:30:00");
    expect((await t.request("DELETE", `/events/${occurrence.id}`, { as: "editor" })).status).to.equal(200);
    expect((await t.get(`/events/${dailyId}`)).body.recurrence).to.deep.equal(["RRULE:FREQ=DAILY;COUNT=3", "EXDATE:20270314T023000"]);
    expect((await listed("Gap daily")).map((r) => r[0])).to.deep.equal(["2027-03-13 02:30:00", "2027-03-15 02:30:00"]);
    // A schedule's excepted dates and end are the series' own days: 03:30Z on 16 March is the 15th in New York.
    const evening = await make("Evening", { timezone: NEW_YORK, start_date: "2027-03-12 23:30:00", end_date: "2027-03-13 00:30:00", recurrence: ["RRULE:FREQ=DAILY;UNTIL=20270318T033000Z", "EXDATE:20270316T033000Z"] });
    expect((await listed("Evening")).map((r) => r[0])).to.deep.equal(["2027-03-12 23:30:00", "2027-03-13 23:30:00", "2027-03-14 23:30:00", "2027-03-16 23:30:00", "2027-03-17 23:30:00"]);
    expect((await t.get(`/events/${evening}`)).body.json_ld.eventSchedule).to.deep.include({ endDate: "2027-03-17", exceptDate: ["2027-03-15"] });
    // An occurrence detached from a series started in a gap is a single event, which keeps no start as written.
    const detachId = await make("Detach gap", gap);
    expect((await t.site.engine.posts.get(detachId))?.fields.recurrence_start).to.equal("2027-03-14 02:30:00");
    const first = (await t.get("/events", { query: { search: "Detach gap", start_date: "2027-03-14", end_date: "2027-03-14" } })).body.events[0];
    const detached = await t.post(`/events/${first.id}`, { as: "editor", json: { title: "Detach gap, first time" } });
    expect(detached.status, JSON.stringify(detached.body)).to.equal(200);
    expect(detached.body.start_date).to.equal("2027-03-14 03:30:00");
    expect((await t.site.engine.posts.get(detached.body.id))?.fields.recurrence_start).to.equal(null);
  });
});

describe("recurrence in a zone: the feed's lines name the API's instants", () => {
  it("keeps floating values as written, writes zoned ones as the event's wall clock with its TZID, or in UTC where that wall clock is another instant", () => {
    const lines = [
      "RRULE:FREQ=DAILY;UNTIL=20271108T063000Z",
      "EXDATE:20270314T073000Z",
      "EXDATE:20270315T023000",
      "RDATE:20271107T063000Z",
      "RDATE;TZID=Europe/Rome:20271108T150000",
    ];
    expect(feedRecurrence(lines, "2027-03-12 02:30:00", NEW_YORK, false, NEW_YORK).lines).to.deep.equal([
      "RRULE:FREQ=DAILY;UNTIL=20271108T063000Z",
      "RDATE;TZID=America/New_York:20271108T090000",
      // 06:30Z on 7 November is the second 01:30 (EST): 01:30 with the TZID would be read as the first (05:30Z).
      "RDATE:20271107T063000Z",
      // 07:30Z is 03:30 EDT, the instant of the gap day's 02:30 occurrence; the floating 02:30 stays as written.
      "EXDATE;TZID=America/New_York:20270314T033000,20270315T023000",
    ]);
    // A floating UNTIL in a repeated hour is its first instant, as the API compares it; in UTC without a VTIMEZONE.
    expect(feedRecurrence(["RRULE:FREQ=DAILY;UNTIL=20271107T013000", "EXDATE:20270314T023000"], "2027-03-12 02:30:00", NEW_YORK, false, null).lines).to.deep.equal([
      "RRULE:FREQ=DAILY;UNTIL=20271107T053000Z",
      "EXDATE:20270314T073000Z",
    ]);
  });
});

describe("recurrence in a zone: what an occurrence stores is one pair of instants", () => {
  it("stores each local time as its UTC time's wall clock, every occurrence as long as the first, across every DST change of four years", () => {
    const zones = [ROME, SYDNEY, NEW_YORK, "America/Sao_Paulo", "Pacific/Chatham", "Europe/London", "Asia/Kolkata", "Australia/Lord_Howe"];
    for (const zone of zones) {
      for (const [start, end] of [
        ["2020-01-01 02:30:00", "2020-01-01 03:15:00"],
        ["2020-01-01 01:45:00", "2020-01-01 02:45:00"],
        ["2020-01-01 23:30:00", "2020-01-02 02:30:00"],
      ]) {
        const rows = expandSeries(parseRecurrence(["RRULE:FREQ=DAILY;UNTIL=20240101"]), timed(zone, start, end), FAR);
        expect(rows.length, zone).to.be.within(1461, 1462);
        const ms = (utc: string): number => Date.parse(`${utc.replace(" ", "T")}Z`);
        const length = ms(rows[0].times.end_utc) - ms(rows[0].times.start_utc);
        for (const { key, times } of rows) {
          expect(DateTime.fromMillis(ms(times.start_utc), { zone }).toFormat("yyyy-MM-dd HH:mm:ss"), `${zone} ${key}`).to.equal(times.start_local);
          expect(DateTime.fromMillis(ms(times.end_utc), { zone }).toFormat("yyyy-MM-dd HH:mm:ss"), `${zone} ${key}`).to.equal(times.end_local);
          expect(ms(times.end_utc) - ms(times.start_utc), `${zone} ${key}`).to.equal(length);
          // The start is the key's wall clock, or (in a gap) later by at most the gap (Lord Howe's is 30 minutes).
          const moved = DateTime.fromSQL(times.start_local, { zone: "UTC" }).diff(DateTime.fromSQL(key, { zone: "UTC" }), "minutes").minutes;
          expect(moved === 0 || moved === 30 || moved === 60, `${zone} ${key}`).to.equal(true);
        }
      }
    }
  });
});

describe("recurrence in a zone: the end of year 9999", () => {
  it("ends a UTC UNTIL on the last day in any zone, and leaves out an occurrence whose UTC times pass year 9999", () => {
    const lines = ["RRULE:FREQ=DAILY;UNTIL=99991231T235959Z"];
    const END = "9999-12-31 23:59:59";
    // East of Greenwich the UNTIL is already 10000-01-01 on the wall clock: every day to 31 December is kept.
    expect(expand(lines, timed(ROME, "9999-12-25 10:00:00", "9999-12-25 11:00:00"), END).map((r) => r[0]).at(-1)).to.equal("9999-12-31 10:00:00");
    // West of it, 31 December's 14:00 ends at 10000-01-01 00:00Z: left out, as a start past 9999 is.
    expect(expand(lines, timed("Pacific/Honolulu", "9999-12-25 14:00:00", "9999-12-25 15:00:00"), END).map((r) => r[0]).at(-1)).to.equal("9999-12-30 14:00:00");
    const allDay: SeriesBase = { startLocal: "9999-12-25 00:00:00", endLocal: "9999-12-25 23:59:59", zone: "Pacific/Honolulu", allDay: true };
    expect(expand(lines, allDay, END).map((r) => r[0]).at(-1)).to.equal("9999-12-30 00:00:00");
  });
});
