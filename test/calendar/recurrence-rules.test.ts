import { expect } from "chai";
import { expandSeries, horizonWall, MAX_OCCURRENCES, occurrencesToStore, type SeriesBase } from "../../lib/calendar/recurrence/expand";
import { parseRecurrence, RecurrenceError } from "../../lib/calendar/recurrence/rules";
import { endsBefore } from "../../lib/calendar/recurrence/series";

const FAR = "2030-12-31 23:59:59";

function expand(lines: string[], base: SeriesBase, horizon = FAR): Array<[string, string, string, string]> {
  return expandSeries(parseRecurrence(lines), base, horizon).map(({ times: o }) => [o.start_local, o.end_local, o.start_utc, o.end_utc]);
}
function starts(lines: string[], base: SeriesBase, horizon = FAR): string[] {
  return expandSeries(parseRecurrence(lines), base, horizon).map((o) => o.times.start_local);
}
const rome = (start: string, end: string): SeriesBase => ({ startLocal: start, endLocal: end, zone: "Europe/Rome", allDay: false });
const utc = (start: string, end: string): SeriesBase => ({ startLocal: start, endLocal: end, zone: "UTC", allDay: false });

describe("recurrence: parsing RFC 5545 lines", () => {
  it("normalises names and keeps values, as they will be shown", () => {
    const r = parseRecurrence(["rrule:freq=weekly;byday=tu,th;count=10", "exdate;tzid=Europe/Rome:20260310T190000", "RDATE;VALUE=DATE:20260401,20260402"]);
    expect(r.lines).to.deep.equal(["RRULE:FREQ=WEEKLY;BYDAY=TU,TH;COUNT=10", "EXDATE;TZID=Europe/Rome:20260310T190000", "RDATE;VALUE=DATE:20260401,20260402"]);
    expect(r.rules[0]).to.include({ freq: "WEEKLY", count: 10 });
    expect(r.rdates).to.have.length(2);
    expect(r.exdates[0]).to.deep.equal({ year: 2026, month: 3, day: 10, time: { hour: 19, minute: 0, second: 0 }, zone: "Europe/Rome" });
  });

  const refused: Array<[unknown, RegExp]> = [
    ["RRULE:FREQ=WEEKLY", /must be an array/],
    [[42], /recurrence\[0\]: each line must be a string/],
    [["RRULE:COUNT=3"], /FREQ is required/],
    [["RRULE:FREQ=HOURLY"], /FREQ=HOURLY is not supported/],
    [["RRULE:FREQ=FORTNIGHTLY"], /FREQ must be DAILY, WEEKLY, MONTHLY or YEARLY/],
    [["RRULE:FREQ=DAILY;BYHOUR=9,18"], /BYHOUR is not supported/],
    [["RRULE:FREQ=DAILY;COUNT=2;UNTIL=20260101"], /COUNT and UNTIL cannot both be given/],
    [["RRULE:FREQ=DAILY;COUNT=0"], /COUNT must be a positive integer/],
    [["RRULE:FREQ=DAILY;FREQ=WEEKLY"], /FREQ is given twice/],
    [["RRULE:FREQ=DAILY;COLOR=red"], /COLOR is not a rule part/],
    [["RRULE:FREQ=WEEKLY;BYDAY=1MO"], /ordinals .* only allowed with FREQ=MONTHLY or YEARLY/],
    [["RRULE:FREQ=MONTHLY;BYMONTHDAY=32"], /BYMONTHDAY must be days of the month/],
    [["RRULE:FREQ=MONTHLY;BYSETPOS=1"], /BYSETPOS needs another BY/],
    [["RRULE:FREQ=MONTHLY;BYWEEKNO=3"], /BYWEEKNO is only allowed with FREQ=YEARLY/],
    [["RRULE:FREQ=DAILY;UNTIL=20260231"], /UNTIL 20260231 is not a real date/],
    [["EXRULE:FREQ=DAILY"], /EXRULE is not supported/],
    [["DTSTART:20260101T100000"], /DTSTART is not a recurrence line/],
    [["RDATE;VALUE=PERIOD:20260101T100000Z/PT1H"], /periods are not supported/],
    [["RDATE:20260230T100000"], /20260230T100000 is not a date or date-time/],
    [["RDATE;VALUE=DATE:20260201T100000"], /is not a date \(YYYYMMDD\)/],
    [["EXDATE;TZID=Mars/Olympus:20260101T100000"], /TZID Mars\/Olympus is not a time zone/],
    [["EXDATE;TZID=Europe/Rome:20260101T100000Z"], /without Z \(TZID is given\)/],
    [["RRULE:FREQ=DAILY", "RRULE"], /recurrence\[1\]: "RRULE" is not a NAME:VALUE line/],
    [Array.from({ length: 21 }, () => "RRULE:FREQ=DAILY"), /at most 20 lines/],
    // ical.js would step such a daily rule day by day forever.
    [["RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30"], /no day of BYMONTHDAY falls in a month of BYMONTH/],
    [["RRULE:FREQ=DAILY;BYMONTH=4,6;BYMONTHDAY=31,-31"], /no day of BYMONTHDAY falls in a month of BYMONTH/],
  ];
  for (const [value, message] of refused) {
    it(`refuses ${JSON.stringify(value).slice(0, 60)} with a message naming the fault`, () => {
      expect(() => parseRecurrence(value)).to.throw(RecurrenceError, message);
    });
  }
  it("takes a daily rule whose days exist in some year (29 February, the last day of any month)", () => {
    for (const rule of ["RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29", "RRULE:FREQ=DAILY;BYMONTH=2,4;BYMONTHDAY=30", "RRULE:FREQ=DAILY;BYMONTHDAY=-1", "RRULE:FREQ=DAILY;BYMONTHDAY=31"]) {
      expect(parseRecurrence([rule]).rules, rule).to.have.length(1);
    }
  });
});

describe("recurrence: expanding a series", () => {
  it("keeps the wall-clock time across DST: 19:00 in Rome in winter and in summer", () => {
    expect(expand(["RRULE:FREQ=WEEKLY;COUNT=3"], rome("2026-03-17 19:00:00", "2026-03-17 21:00:00"))).to.deep.equal([
      ["2026-03-17 19:00:00", "2026-03-17 21:00:00", "2026-03-17 18:00:00", "2026-03-17 20:00:00"],
      ["2026-03-24 19:00:00", "2026-03-24 21:00:00", "2026-03-24 18:00:00", "2026-03-24 20:00:00"],
      ["2026-03-31 19:00:00", "2026-03-31 21:00:00", "2026-03-31 17:00:00", "2026-03-31 19:00:00"],
    ]);
  });

  it("moves a start in a DST gap forward by the gap (RFC 5545 §3.3.5), its end the exact length later; takes an overlap's first instant", () => {
    expect(expand(["RRULE:FREQ=DAILY;COUNT=3"], rome("2026-03-28 02:30:00", "2026-03-28 03:30:00"))[1]).to.deep.equal([
      "2026-03-29 03:30:00",
      "2026-03-29 04:30:00",
      "2026-03-29 01:30:00",
      "2026-03-29 02:30:00",
    ]);
    const ny: SeriesBase = { startLocal: "2026-10-31 01:30:00", endLocal: "2026-10-31 02:00:00", zone: "America/New_York", allDay: false };
    // 01:30 EDT (the first 01:30), and 30 minutes later is 01:00 EST: the wall clock runs back (§3.8.5.3: exact durations).
    expect(expand(["RRULE:FREQ=DAILY;COUNT=2"], ny)[1]).to.deep.equal(["2026-11-01 01:30:00", "2026-11-01 01:00:00", "2026-11-01 05:30:00", "2026-11-01 06:00:00"]);
  });

  it("repeats all-day events as whole days of their zone, multi-day ones too", () => {
    const holiday: SeriesBase = { startLocal: "2026-12-25 00:00:00", endLocal: "2026-12-26 23:59:59", zone: "Europe/Rome", allDay: true };
    expect(expand(["RRULE:FREQ=YEARLY;COUNT=2"], holiday)).to.deep.equal([
      ["2026-12-25 00:00:00", "2026-12-26 23:59:59", "2026-12-24 23:00:00", "2026-12-26 22:59:59"],
      ["2027-12-25 00:00:00", "2027-12-26 23:59:59", "2027-12-24 23:00:00", "2027-12-26 22:59:59"],
    ]);
    // A summer all-day series: the UTC times follow the zone's offset of each day.
    const summer: SeriesBase = { startLocal: "2026-03-28 00:00:00", endLocal: "2026-03-28 23:59:59", zone: "Europe/Rome", allDay: true };
    expect(expand(["RRULE:FREQ=DAILY;COUNT=2"], summer)[1]).to.deep.equal(["2026-03-29 00:00:00", "2026-03-29 23:59:59", "2026-03-28 23:00:00", "2026-03-29 21:59:59"]);
  });

  it("stops at COUNT (the series' own start counted) and at UNTIL, read on the event's wall clock", () => {
    expect(starts(["RRULE:FREQ=DAILY;COUNT=2"], utc("2026-01-01 10:00:00", "2026-01-01 11:00:00"))).to.deep.equal(["2026-01-01 10:00:00", "2026-01-02 10:00:00"]);
    // 18:00Z is 19:00 in Rome in winter: the 4th's 19:00 is included.
    expect(starts(["RRULE:FREQ=DAILY;UNTIL=20260104T180000Z"], rome("2026-01-01 19:00:00", "2026-01-01 20:00:00"))).to.have.length(4);
    expect(starts(["RRULE:FREQ=DAILY;UNTIL=20260104T175959Z"], rome("2026-01-01 19:00:00", "2026-01-01 20:00:00"))).to.have.length(3);
    // A date UNTIL includes that whole day.
    expect(starts(["RRULE:FREQ=DAILY;UNTIL=20260104"], rome("2026-01-01 19:00:00", "2026-01-01 20:00:00"))).to.have.length(4);
  });

  it("expands BYDAY, BYMONTHDAY, BYSETPOS and INTERVAL", () => {
    const base = utc("2026-01-05 18:00:00", "2026-01-05 19:00:00"); // a Monday
    expect(starts(["RRULE:FREQ=WEEKLY;BYDAY=MO,WE;COUNT=4"], base)).to.deep.equal(["2026-01-05 18:00:00", "2026-01-07 18:00:00", "2026-01-12 18:00:00", "2026-01-14 18:00:00"]);
    expect(starts(["RRULE:FREQ=WEEKLY;INTERVAL=2;COUNT=3"], base)).to.deep.equal(["2026-01-05 18:00:00", "2026-01-19 18:00:00", "2026-02-02 18:00:00"]);
    // The last weekday of each month.
    expect(starts(["RRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;COUNT=3"], utc("2026-01-30 18:00:00", "2026-01-30 19:00:00"))).to.deep.equal([
      "2026-01-30 18:00:00",
      "2026-02-27 18:00:00",
      "2026-03-31 18:00:00",
    ]);
    // The last day of each month, and the first Monday.
    expect(starts(["RRULE:FREQ=MONTHLY;BYMONTHDAY=-1;COUNT=3"], utc("2026-01-31 09:00:00", "2026-01-31 10:00:00"))).to.deep.equal(["2026-01-31 09:00:00", "2026-02-28 09:00:00", "2026-03-31 09:00:00"]);
    expect(starts(["RRULE:FREQ=MONTHLY;BYDAY=1MO;COUNT=3"], base)).to.deep.equal(["2026-01-05 18:00:00", "2026-02-02 18:00:00", "2026-03-02 18:00:00"]);
  });

  it("adds RDATEs and removes EXDATEs given in UTC, with a TZID or as dates", () => {
    const lines = [
      "RRULE:FREQ=MONTHLY;BYDAY=TU;BYSETPOS=2;UNTIL=20260601T000000Z",
      "RDATE;TZID=America/New_York:20260420T130000",
      "EXDATE:20260414T170000Z",
      "EXDATE;VALUE=DATE:20260210",
      "RDATE;VALUE=DATE:20260301",
    ];
    expect(starts(lines, rome("2026-01-13 19:00:00", "2026-01-13 20:00:00"))).to.deep.equal([
      "2026-01-13 19:00:00",
      "2026-03-01 19:00:00",
      "2026-03-10 19:00:00",
      "2026-04-20 19:00:00",
      "2026-05-12 19:00:00",
    ]);
    // An EXDATE may remove the series' own start.
    expect(starts(["RRULE:FREQ=DAILY;COUNT=3", "EXDATE:20260101T100000Z"], utc("2026-01-01 10:00:00", "2026-01-01 11:00:00"))).to.deep.equal(["2026-01-02 10:00:00", "2026-01-03 10:00:00"]);
  });

  it("materialises an unbounded rule up to the horizon only, and refuses more than the bound", () => {
    const base = utc("2026-01-01 10:00:00", "2026-01-01 11:00:00");
    expect(starts(["RRULE:FREQ=WEEKLY"], base, "2026-02-01 00:00:00")).to.have.length(5);
    expect(horizonWall(new Date("2026-01-01T12:00:00Z"), 730, "Europe/Rome")).to.equal("2028-01-01 13:00:00");
    expect(() => starts(["RRULE:FREQ=DAILY"], utc("2000-01-01 10:00:00", "2000-01-01 11:00:00"), "2028-01-01 00:00:00")).to.throw(RecurrenceError, new RegExp(`more than ${MAX_OCCURRENCES} occurrences`));
  });

  it("stores a series whose rules end in full wherever it starts; an open-ended one up to its horizon from the later of now and its start", () => {
    const now = new Date("2026-06-01T00:00:00Z");
    const in2030 = utc("2030-03-05 18:00:00", "2030-03-05 19:00:00");
    const store = (lines: string[], base: SeriesBase, days = 730): string[] => occurrencesToStore(parseRecurrence(lines), base, now, days).map((o) => o.key);
    // Weekly, ten times, four years from now: all ten (the horizon counted from today would keep one).
    expect(store(["RRULE:FREQ=WEEKLY;COUNT=10"], in2030)).to.have.length(10);
    expect(store(["RRULE:FREQ=MONTHLY;UNTIL=20400101T000000Z"], in2030)).to.have.length(118);
    // Open-ended: 730 days from its own start, not from today.
    const open = store(["RRULE:FREQ=WEEKLY"], in2030);
    expect(open[0]).to.equal("2030-03-05 18:00:00");
    expect(open.at(-1)).to.equal("2032-03-02 18:00:00");
    // Open-ended and started long ago: from today.
    expect(store(["RRULE:FREQ=MONTHLY"], utc("2020-01-10 18:00:00", "2020-01-10 19:00:00")).at(-1)).to.equal("2028-05-10 18:00:00");
    // Finite but past the bound: up to the horizon, as an open-ended one (the daily extension adds the rest).
    const long = store(["RRULE:FREQ=DAILY;COUNT=99999"], utc("2026-06-01 18:00:00", "2026-06-01 19:00:00"));
    expect(long).to.have.length(731);
  });

  it("keys each occurrence by the wall clock its rule made it at, also when a DST gap moved its start", () => {
    const keys = expandSeries(parseRecurrence(["RRULE:FREQ=DAILY;COUNT=2"]), rome("2026-03-28 02:30:00", "2026-03-28 03:30:00"), FAR).map((o) => [o.key, o.times.start_local]);
    expect(keys).to.deep.equal([
      ["2026-03-28 02:30:00", "2026-03-28 02:30:00"],
      ["2026-03-29 02:30:00", "2026-03-29 03:30:00"],
    ]);
  });

  it("refuses a rule that would never repeat from the series' start, naming its line (what ical.js looped on)", () => {
    const monday = utc("2030-01-07 10:00:00", "2030-01-07 11:00:00");
    const now = new Date("2026-06-01T00:00:00Z");
    for (const rule of ["RRULE:FREQ=DAILY;INTERVAL=7;BYDAY=TU", "RRULE:FREQ=DAILY;INTERVAL=14;BYDAY=WE", "RRULE:FREQ=YEARLY;BYYEARDAY=366;BYMONTH=1", "RRULE:FREQ=YEARLY;BYSETPOS=366;BYYEARDAY=1,366"]) {
      expect(() => occurrencesToStore(parseRecurrence(["RDATE;VALUE=DATE:20300301", rule]), monday, now, 730), rule).to.throw(RecurrenceError, /^recurrence\[1\]: the rule makes no occurrence after the start \(2030-01-07\): it would never repeat\.$/);
    }
    // From a Tuesday the first rule is weekly; a finite series is stored in full, wherever it starts.
    expect(occurrencesToStore(parseRecurrence(["RRULE:FREQ=DAILY;INTERVAL=7;BYDAY=TU;COUNT=3"]), utc("2040-01-03 10:00:00", "2040-01-03 11:00:00"), now, 730).map((o) => o.key)).to.deep.equal([
      "2040-01-03 10:00:00",
      "2040-01-10 10:00:00",
      "2040-01-17 10:00:00",
    ]);
  });

  it("without rules is the event itself", () => {
    expect(starts([], utc("2026-01-01 10:00:00", "2026-01-01 11:00:00"))).to.deep.equal(["2026-01-01 10:00:00"]);
  });
});

describe("recurrence: which series the daily extension may skip", () => {
  // For each rule and start: every horizon at which endsBefore says the series is complete must find no
  // occurrence on or after it when expanded far beyond (a skip never loses an occurrence).
  const RULES = [
    "RRULE:FREQ=DAILY;COUNT=30",
    "RRULE:FREQ=DAILY;INTERVAL=3;COUNT=10",
    "RRULE:FREQ=WEEKLY;COUNT=12",
    "RRULE:FREQ=WEEKLY;BYDAY=MO,WE,FR;COUNT=20",
    "RRULE:FREQ=MONTHLY;COUNT=6",
    "RRULE:FREQ=MONTHLY;BYDAY=-1FR;COUNT=8",
    "RRULE:FREQ=MONTHLY;BYDAY=5SU;COUNT=4",
    "RRULE:FREQ=YEARLY;COUNT=3",
    "RRULE:FREQ=MONTHLY;BYMONTHDAY=31;COUNT=5",
    "RRULE:FREQ=DAILY;BYMONTH=1;COUNT=40",
  ];
  const STARTS = ["2027-01-31 10:00:00", "2028-02-29 10:00:00", "2027-06-15 19:30:00"];

  it("skips only series whose every occurrence lies before the horizon", () => {
    let skipped = 0;
    for (const rule of RULES) {
      for (const start of STARTS) {
        const base: SeriesBase = { startLocal: start, endLocal: `${start.slice(0, 10)} 23:00:00`, zone: "UTC", allDay: false };
        const all = expandSeries(parseRecurrence([rule]), base, "2060-12-31 23:59:59").map((o) => o.key);
        for (let year = 2027; year <= 2046; year++) {
          for (const monthDay of ["01-01", "07-01"]) {
            const horizonDay = `${year}-${monthDay}`;
            if (!endsBefore([rule], horizonDay, start)) continue;
            skipped++;
            expect(all.filter((k) => k.slice(0, 10) >= horizonDay), `${rule} from ${start}, horizon ${horizonDay}`).to.deep.equal([]);
          }
        }
      }
    }
    // The bound lets most finished series be skipped.
    expect(skipped).to.be.greaterThan(300);
  });

  it("never skips a rule it cannot bound, nor one that may reach the horizon", () => {
    expect(endsBefore(["RRULE:FREQ=WEEKLY"], "2060-01-01", "2027-01-01 10:00:00")).to.equal(false);
    expect(endsBefore(["RRULE:FREQ=DAILY;BYMONTH=1;COUNT=40"], "2060-01-01", "2027-01-01 10:00:00")).to.equal(false);
    expect(endsBefore(["RRULE:FREQ=WEEKLY;COUNT=12"], "2027-03-01", "2027-01-01 10:00:00")).to.equal(false);
    expect(endsBefore(["RRULE:FREQ=WEEKLY;COUNT=12"], "2027-06-01", "2027-01-01 10:00:00")).to.equal(true);
    expect(endsBefore(["RRULE:FREQ=WEEKLY;COUNT=12", "RDATE;VALUE=DATE:20290101"], "2027-06-01", "2027-01-01 10:00:00")).to.equal(false);
  });
});
