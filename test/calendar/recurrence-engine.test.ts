/**
 * calpress's RRULE engine (lib/calendar/recurrence/rrule.ts) against recorded
 * python-dateutil expansions (test/vectors/rrule: how they were made and the
 * RFC 5545 reading they follow), and its bounds.
 */
import fs from "node:fs";
import path from "node:path";
import { expect } from "chai";
import { seriesStarts, type SeriesBase } from "../../lib/calendar/recurrence/expand";
import { parseRecurrence, RecurrenceError } from "../../lib/calendar/recurrence/rules";
import { civil, cycleOf, dayNumber, dayText, neverRepeats, ruleDays, ruleParts, StepBudget, weekdayOf } from "../../lib/calendar/recurrence/rrule";

interface Case {
  rule: string;
  start: string;
  /** How many days the series has up to the horizon. */
  total: number;
  /** The first of them, as days after DTSTART. */
  offsets: number[];
}

const vectors = JSON.parse(fs.readFileSync(path.join(__dirname, "../vectors/rrule/dateutil.json"), "utf8")) as { generator: string; horizon_years: number; cases: Case[] };

describe("recurrence engine: the calendar", () => {
  it("numbers days as the proleptic Gregorian calendar does, both ways, with weekdays", () => {
    expect(dayNumber(1970, 1, 1)).to.equal(0);
    expect(weekdayOf(0)).to.equal(3); // a Thursday
    expect(dayText(dayNumber(2000, 2, 29))).to.equal("2000-02-29");
    for (let n = dayNumber(1600, 1, 1); n < dayNumber(2401, 1, 1); n += 97) {
      const { year, month, day } = civil(n);
      expect(dayNumber(year, month, day)).to.equal(n);
      expect(weekdayOf(n)).to.equal((new Date(Date.UTC(year, month - 1, day)).getUTCDay() + 6) % 7);
    }
  });
});

describe(`recurrence engine: agrees with ${vectors.generator} on ${vectors.cases.length} generated rules`, () => {
  it("makes the same days for every case (DTSTART first, counted, as RFC 5545 says)", () => {
    const wrong: string[] = [];
    for (const c of vectors.cases) {
      const base: SeriesBase = { startLocal: `${c.start} 10:00:00`, endLocal: `${c.start} 11:00:00`, zone: "UTC", allDay: false };
      const horizon = `${Number(c.start.slice(0, 4)) + vectors.horizon_years}-${c.start.slice(5, 7)}-01 00:00:00`;
      const start = dayNumber(Number(c.start.slice(0, 4)), Number(c.start.slice(5, 7)), Number(c.start.slice(8, 10)));
      let got: number[];
      try {
        got = seriesStarts(parseRecurrence([`RRULE:${c.rule}`]), base, horizon).map((key) => dayNumber(Number(key.slice(0, 4)), Number(key.slice(5, 7)), Number(key.slice(8, 10))) - start);
      } catch (err) {
        if (err instanceof RecurrenceError && /more than \d+ occurrences/.test(err.message) && c.total > 5000) continue;
        // Refused as never repeating: dateutil found nothing but DTSTART either.
        if (err instanceof RecurrenceError && /would never repeat/.test(err.message) && c.total === 1) continue;
        throw err;
      }
      if (got.length !== c.total || JSON.stringify(got.slice(0, c.offsets.length)) !== JSON.stringify(c.offsets)) {
        wrong.push(`${c.rule} from ${c.start}: got ${got.slice(0, 8).join(" ")}… (${got.length}), want ${c.offsets.slice(0, 8).join(" ")}… (${c.total})`);
      }
    }
    expect(wrong, wrong.slice(0, 10).join("\n")).to.deep.equal([]);
  });
});

describe("recurrence engine: bounds", () => {
  it("ends a rule that keeps no day within one calendar cycle of periods (the issue's rules among them)", () => {
    const monday = dayNumber(2030, 1, 7);
    for (const rule of ["FREQ=DAILY;INTERVAL=7;BYDAY=TU", "FREQ=DAILY;INTERVAL=14;BYDAY=WE", "FREQ=DAILY;INTERVAL=1461;BYMONTH=2;BYMONTHDAY=29", "FREQ=YEARLY;BYSETPOS=366;BYYEARDAY=1,366", "FREQ=MONTHLY;BYDAY=5MO;BYMONTHDAY=1,2"]) {
      const budget = new StepBudget(Number.POSITIVE_INFINITY);
      const parts = ruleParts(rule);
      expect(neverRepeats(parts, monday, budget), rule).to.equal(true);
      // At most one cycle of periods, each at most a year of days.
      expect(budget.used, rule).to.be.at.most(cycleOf(parts.freq, parts.interval) * 366);
    }
  });

  it("steps a sparse but productive rule to its next day, whatever the gap", () => {
    const days: string[] = [];
    for (const n of ruleDays(ruleParts("FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO"), dayNumber(2030, 1, 7), { budget: new StepBudget(1_000_000) })) {
      days.push(dayText(n));
      if (days.length === 3) break;
    }
    expect(days).to.deep.equal(["2044-02-29", "2072-02-29", "2112-02-29"]);
  });

  it("charges every day tested to the budget, and stops with a RecurrenceError past it", () => {
    const budget = new StepBudget(1000);
    const run = (): number => [...ruleDays(ruleParts("FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO"), dayNumber(2030, 1, 7), { budget })].length;
    expect(run).to.throw(RecurrenceError, /too sparse/);
    expect(budget.used).to.be.within(1001, 1001 + 366);
  });

  it("ends at year 9999", () => {
    const budget = new StepBudget(Number.POSITIVE_INFINITY);
    const days = [...ruleDays(ruleParts("FREQ=YEARLY;INTERVAL=1000"), dayNumber(2030, 6, 1), { budget })].map(dayText);
    expect(days).to.deep.equal(["2030-06-01", "3030-06-01", "4030-06-01", "5030-06-01", "6030-06-01", "7030-06-01", "8030-06-01", "9030-06-01"]);
  });
});
