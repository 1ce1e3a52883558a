/**
 * An event's `recurrence`: RFC 5545 lines as Google Calendar's events
 * resource takes them (`RRULE:FREQ=WEEKLY;BYDAY=TU`, `RDATE;TZID=Europe/Rome:
 * 20260601T190000`, `EXDATE;VALUE=DATE:20260815`), parsed and checked here
 * so that a bad line is a clear 400 naming the line and the part at fault.
 *
 * What calpress expands (lib/calendar/recurrence/expand.ts): DAILY, WEEKLY,
 * MONTHLY and YEARLY rules with INTERVAL, COUNT or UNTIL, BYDAY (with
 * ordinals in monthly and yearly rules), BYMONTHDAY, BYMONTH, BYYEARDAY,
 * BYWEEKNO, BYSETPOS and WKST; RDATE and EXDATE as dates or date-times (UTC,
 * floating, or with a TZID). Refused as unsupported rather than half done:
 * rules more often than daily (SECONDLY to HOURLY, BYHOUR, BYMINUTE,
 * BYSECOND), EXRULE (deprecated by RFC 5545) and RDATE periods.
 */
import { Info } from "luxon";
import { RecurrenceError } from "./errors";
import { ruleParts, type RuleParts } from "./rrule";

export { RecurrenceError };

/**
 * INTERVAL and COUNT: RFC 5545 §3.3.10 allows any positive integer. calpress
 * takes any up to 2^31 - 1 (the largest a signed 32-bit integer holds, which
 * other readers of the feed can take too): far past what a calendar up to
 * year 9999 can use. Expansion stays bounded whatever the value: a stored
 * series keeps at most MAX_OCCURRENCES up to its horizon, every expansion
 * tests at most its StepBudget of days, and an INTERVAL that leaves no second
 * occurrence before year 9999 is a rule that never repeats (refused).
 */
export const MAX_INTERVAL = 2_147_483_647;
export const MAX_COUNT = 2_147_483_647;

/** At most this many lines, and dates in all RDATE/EXDATE lines together. */
export const MAX_RECURRENCE_LINES = 20;
export const MAX_RECURRENCE_DATES = 1000;
const MAX_LINE_LENGTH = 2000;

export type { Frequency } from "./rrule";
import type { Frequency } from "./rrule";

/** A date or date-time of an RDATE, EXDATE or UNTIL, as written. */
export interface RuleDate {
  year: number;
  month: number;
  day: number;
  /** Absent for a DATE value. */
  time?: { hour: number; minute: number; second: number };
  /** `utc`: written with Z; a zone name: TZID; absent: floating (the event's own zone). */
  zone?: "utc" | string;
}

export interface ParsedRule {
  /** The rule's text, normalised (names upper case, as written otherwise), without `RRULE:`. */
  text: string;
  /** Its line's position in the recurrence, for messages naming it. */
  index: number;
  freq: Frequency;
  until?: RuleDate;
  count?: number;
  /** Its BY parts, INTERVAL and WKST, for the expansion (lib/calendar/recurrence/rrule.ts). */
  parts: RuleParts;
}

export interface ParsedRecurrence {
  /** The lines as stored and shown: names upper case, values as written. */
  lines: string[];
  rules: ParsedRule[];
  rdates: RuleDate[];
  exdates: RuleDate[];
}

/** A RuleDate's day as `YYYY-MM-DD` (its time and zone left out). */
export function ruleDay(d: RuleDate): string {
  return `${String(d.year).padStart(4, "0")}-${String(d.month).padStart(2, "0")}-${String(d.day).padStart(2, "0")}`;
}

const FREQUENCIES = new Set(["DAILY", "WEEKLY", "MONTHLY", "YEARLY"]);
const TOO_OFTEN = new Set(["SECONDLY", "MINUTELY", "HOURLY"]);
const WEEKDAY = "(?:MO|TU|WE|TH|FR|SA|SU)";

/** Each rule part: what its value must look like (a whole-value pattern, or a list of items with a range). */
const PARTS: Readonly<Record<string, { list?: { min: number; max: number; signed: boolean }; pattern?: RegExp; max?: number; describe: string }>> = {
  FREQ: { describe: "DAILY, WEEKLY, MONTHLY or YEARLY" },
  INTERVAL: { pattern: /^0*[1-9]\d{0,9}$/, max: MAX_INTERVAL, describe: `a positive integer up to ${MAX_INTERVAL}` },
  COUNT: { pattern: /^0*[1-9]\d{0,9}$/, max: MAX_COUNT, describe: `a positive integer up to ${MAX_COUNT}` },
  UNTIL: { pattern: /^\d{8}(T\d{6}Z?)?$/, describe: "a date (YYYYMMDD) or date-time (YYYYMMDDTHHMMSS[Z])" },
  BYDAY: { pattern: new RegExp(`^[+-]?(?:[1-9]|[1-4]\\d|5[0-3])?${WEEKDAY}(?:,[+-]?(?:[1-9]|[1-4]\\d|5[0-3])?${WEEKDAY})*$`), describe: "weekdays (MO…SU), each with an optional ordinal (1TU, -1FR)" },
  BYMONTHDAY: { list: { min: 1, max: 31, signed: true }, describe: "days of the month, ±1 to ±31" },
  BYMONTH: { list: { min: 1, max: 12, signed: false }, describe: "months, 1 to 12" },
  BYYEARDAY: { list: { min: 1, max: 366, signed: true }, describe: "days of the year, ±1 to ±366" },
  BYWEEKNO: { list: { min: 1, max: 53, signed: true }, describe: "weeks of the year, ±1 to ±53" },
  BYSETPOS: { list: { min: 1, max: 366, signed: true }, describe: "positions, ±1 to ±366" },
  WKST: { pattern: new RegExp(`^${WEEKDAY}$`), describe: "a weekday (MO…SU)" },
};
const UNSUPPORTED_PARTS = new Set(["BYHOUR", "BYMINUTE", "BYSECOND", "RSCALE", "SKIP"]);

function fail(index: number, message: string): never {
  throw new RecurrenceError(`recurrence[${index}]: ${message}`);
}

function listOk(value: string, range: { min: number; max: number; signed: boolean }): boolean {
  return value.split(",").every((item) => {
    const m = (range.signed ? /^[+-]?(\d{1,3})$/ : /^(\d{1,3})$/).exec(item);
    return m !== null && Number(m[1]) >= range.min && Number(m[1]) <= range.max;
  });
}

/** `YYYYMMDD` or `YYYYMMDDTHHMMSS[Z]` → a RuleDate, or null when it is not a real date. */
function ruleDate(value: string, zone: string | undefined, asDate: boolean | undefined): RuleDate | null {
  const m = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z)?)?$/.exec(value);
  if (!m) return null;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return null;
  if (m[4] === undefined) return asDate === false ? null : { year, month, day };
  if (asDate === true) return null;
  const time = { hour: Number(m[4]), minute: Number(m[5]), second: Number(m[6]) };
  if (time.hour > 23 || time.minute > 59 || time.second > 59) return null;
  if (m[7] !== undefined) return zone !== undefined ? null : { year, month, day, time, zone: "utc" };
  return zone !== undefined ? { year, month, day, time, zone } : { year, month, day, time };
}

/** The most days each month can have (February in a leap year). */
const LONGEST_MONTHS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Whether some day of `byMonthDay` (±1 to ±31) exists in some month of `byMonth` (all months when absent), in some year. */
function someDayFits(byMonthDay: string, byMonth: string | undefined): boolean {
  const months = byMonth === undefined ? [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12] : byMonth.split(",").map(Number);
  const days = byMonthDay.split(",").map((d) => Math.abs(Number(d)));
  return months.some((m) => days.some((d) => d <= (LONGEST_MONTHS[m - 1] ?? 0)));
}

function parseRule(value: string, index: number): ParsedRule {
  const seen = new Map<string, string>();
  for (const part of value.split(";")) {
    const eq = part.indexOf("=");
    if (eq <= 0) fail(index, `"${part}" is not a NAME=VALUE rule part.`);
    const name = part.slice(0, eq).toUpperCase();
    const v = part.slice(eq + 1).toUpperCase();
    if (seen.has(name)) fail(index, `${name} is given twice.`);
    if (UNSUPPORTED_PARTS.has(name)) fail(index, `${name} is not supported (calpress repeats events at most daily).`);
    const spec = PARTS[name];
    if (spec === undefined) fail(index, `${name} is not a rule part calpress knows.`);
    if (name === "FREQ") {
      if (TOO_OFTEN.has(v)) fail(index, `FREQ=${v} is not supported (calpress repeats events at most daily).`);
      if (!FREQUENCIES.has(v)) fail(index, `FREQ must be ${spec.describe}.`);
    } else if ((spec.pattern && !spec.pattern.test(v)) || (spec.list && !listOk(v, spec.list)) || (spec.max !== undefined && Number(v) > spec.max)) {
      fail(index, `${name} must be ${spec.describe}.`);
    }
    seen.set(name, v);
  }
  const freq = seen.get("FREQ") as Frequency | undefined;
  if (freq === undefined) fail(index, "FREQ is required.");
  if (seen.has("COUNT") && seen.has("UNTIL")) fail(index, "COUNT and UNTIL cannot both be given.");
  if (seen.has("BYWEEKNO") && freq !== "YEARLY") fail(index, "BYWEEKNO is only allowed with FREQ=YEARLY.");
  if (seen.has("BYYEARDAY") && (freq === "DAILY" || freq === "WEEKLY" || freq === "MONTHLY")) fail(index, "BYYEARDAY is only allowed with FREQ=YEARLY.");
  if (seen.has("BYMONTHDAY") && freq === "WEEKLY") fail(index, "BYMONTHDAY is not allowed with FREQ=WEEKLY.");
  if (/[+-]?\d/.test(seen.get("BYDAY") ?? "") && freq !== "MONTHLY" && freq !== "YEARLY") fail(index, "BYDAY ordinals (1MO, -1FR) are only allowed with FREQ=MONTHLY or YEARLY.");
  if (/[+-]?\d/.test(seen.get("BYDAY") ?? "") && seen.has("BYWEEKNO")) fail(index, "BYDAY ordinals (1MO, -1FR) cannot be given with BYWEEKNO.");
  if (seen.has("BYSETPOS") && ![...seen.keys()].some((k) => k.startsWith("BY") && k !== "BYSETPOS")) fail(index, "BYSETPOS needs another BY… part to select from.");
  // Said before any expansion, which would find the same (lib/calendar/recurrence/expand.ts `checkRepeats`), in plainer words.
  if (seen.has("BYMONTHDAY") && !someDayFits(seen.get("BYMONTHDAY") ?? "", seen.get("BYMONTH"))) {
    fail(index, "no day of BYMONTHDAY falls in a month of BYMONTH: the rule would never repeat.");
  }
  let until: RuleDate | undefined;
  const untilText = seen.get("UNTIL");
  if (untilText !== undefined) {
    const parsed = ruleDate(untilText, undefined, undefined);
    if (parsed === null) fail(index, `UNTIL ${untilText} is not a real date.`);
    until = parsed;
  }
  const text = [...seen].map(([k, v]) => `${k}=${v}`).join(";");
  return { text, index, freq, until, count: seen.has("COUNT") ? Number(seen.get("COUNT")) : undefined, parts: ruleParts(text) };
}

/** Parses and checks an event's `recurrence` (an array of lines). Throws RecurrenceError with a message naming the line. */
export function parseRecurrence(value: unknown): ParsedRecurrence {
  if (!Array.isArray(value)) throw new RecurrenceError("recurrence must be an array of RFC 5545 lines (RRULE, RDATE, EXDATE).");
  if (value.length > MAX_RECURRENCE_LINES) throw new RecurrenceError(`recurrence may have at most ${MAX_RECURRENCE_LINES} lines.`);
  const out: ParsedRecurrence = { lines: [], rules: [], rdates: [], exdates: [] };
  value.forEach((raw: unknown, index) => {
    if (typeof raw !== "string") fail(index, "each line must be a string.");
    const line = raw.trim();
    if (line.length > MAX_LINE_LENGTH) fail(index, `a line may be at most ${MAX_LINE_LENGTH} characters long.`);
    const colon = line.indexOf(":");
    if (colon <= 0) fail(index, `"${line}" is not a NAME:VALUE line.`);
    const [name, ...params] = line.slice(0, colon).split(";");
    const upper = name.toUpperCase();
    const body = line.slice(colon + 1);
    if (upper === "RRULE") {
      if (params.length > 0) fail(index, "RRULE takes no parameters.");
      const rule = parseRule(body, index);
      out.rules.push(rule);
      out.lines.push(`RRULE:${rule.text}`);
      return;
    }
    if (upper === "EXRULE") fail(index, "EXRULE is not supported (RFC 5545 deprecated it): use EXDATE.");
    if (upper !== "RDATE" && upper !== "EXDATE") fail(index, `${name} is not a recurrence line (RRULE, RDATE or EXDATE).`);
    let zone: string | undefined;
    let asDate: boolean | undefined;
    const shownParams: string[] = [];
    for (const param of params) {
      const eq = param.indexOf("=");
      const key = param.slice(0, eq).toUpperCase();
      const v = param.slice(eq + 1);
      if (eq <= 0) fail(index, `"${param}" is not a NAME=VALUE parameter.`);
      if (key === "TZID") {
        if (!Info.normalizeZone(v).isValid || v.trim() === "") fail(index, `TZID ${v} is not a time zone (an IANA name such as Europe/Rome).`);
        zone = v;
        shownParams.push(`TZID=${v}`);
      } else if (key === "VALUE") {
        const kind = v.toUpperCase();
        if (kind === "PERIOD") fail(index, `${upper} periods are not supported: give dates or date-times.`);
        if (kind !== "DATE" && kind !== "DATE-TIME") fail(index, "VALUE must be DATE or DATE-TIME.");
        asDate = kind === "DATE";
        shownParams.push(`VALUE=${kind}`);
      } else {
        fail(index, `${key} is not a parameter calpress takes on ${upper} (TZID, VALUE).`);
      }
    }
    if (zone !== undefined && asDate === true) fail(index, "TZID cannot be given with VALUE=DATE.");
    const dates = body.split(",").map((d) => {
      const parsed = ruleDate(d.trim(), zone, asDate);
      if (parsed === null) fail(index, `${d} is not a ${asDate === true ? "date (YYYYMMDD)" : asDate === false ? "date-time (YYYYMMDDTHHMMSS[Z])" : "date or date-time"}${zone !== undefined ? " without Z (TZID is given)" : ""}.`);
      return parsed;
    });
    (upper === "RDATE" ? out.rdates : out.exdates).push(...dates);
    if (out.rdates.length + out.exdates.length > MAX_RECURRENCE_DATES) throw new RecurrenceError(`recurrence may name at most ${MAX_RECURRENCE_DATES} RDATE and EXDATE dates.`);
    out.lines.push(`${[upper, ...shownParams].join(";")}:${dates.length === 0 ? body : body.split(",").map((d) => d.trim().toUpperCase()).join(",")}`);
  });
  return out;
}
