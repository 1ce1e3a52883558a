/**
 * The VTIMEZONEs of an imported file whose TZID names no known zone
 * (Outlook's "Customized Time Zone" and the like), read under a budget.
 *
 * ical.js's own Timezone expands each observance rule as written, up to the
 * year asked for, again for every later year: a `FREQ=SECONDLY` observance
 * ran the process out of memory. Here an observance repeats yearly at most
 * (the shape every real zone rule has: a weekday of a month, a day of a
 * month, or DTSTART's date), its onsets are computed year by year from
 * DTSTART up to `LAST_ZONE_YEAR`, and every onset (DTSTART, RDATE, rule)
 * and every year a rule is followed is a step of the file's budget
 * (`timezoneSteps`). Anything else in a rule refuses the file before an
 * event is written.
 */
import ICAL from "ical.js";
import { ImportBudgetError } from "./budgets";

type Component = InstanceType<typeof ICAL.Component>;
type Time = InstanceType<typeof ICAL.Time>;

/** Rules are followed through this year; a later time takes the offset of the zone's last transition. */
export const LAST_ZONE_YEAR = 2200;

/** One change of offset: at `at` (Unix seconds, UTC) the offset goes from `from` to `to` (seconds east of UTC). */
interface Transition {
  at: number;
  from: number;
  to: number;
}

/** The rule parts a zone's observance may use, and nothing else (see `onsetDays`). */
const ALLOWED_PARTS: ReadonlySet<string> = new Set(["BYMONTH", "BYDAY", "BYMONTHDAY"]);
const WEEKDAYS = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"];
const DAY_SECONDS = 86_400;

/** A wall clock as seconds, read as if it were UTC. */
function wallSeconds(year: number, month: number, day: number, hour: number, minute: number, second: number): number {
  const d = new Date(0);
  // Year, month and day set together: Date.UTC would read years 0-99 as 1900-1999.
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute, second);
  return d.getTime() / 1000;
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysIn(year: number, month: number): number {
  return month === 2 && isLeap(year) ? 29 : (MONTH_DAYS[month - 1] ?? 31);
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** 0 = Sunday. */
function weekday(year: number, month: number, day: number): number {
  return new Date(wallSeconds(year, month, day, 12, 0, 0) * 1000).getUTCDay();
}

/** A rule's budget problem: the file is refused, naming what is allowed. */
function refuse(tzid: string, detail: string): never {
  throw new ImportBudgetError("timezoneRules", `VTIMEZONE ${tzid}: ${detail}. An observance may repeat yearly only (FREQ=YEARLY with BYMONTH, BYDAY and BYMONTHDAY).`);
}

interface YearlyRule {
  interval: number;
  count: number | null;
  /** The last onset allowed, as Unix seconds (UNTIL in UTC) or as a wall clock (a floating UNTIL). */
  until: { utc: number } | { wall: number } | null;
  month: number | null;
  /** Weekday (0 = Sunday) with its ordinal in the month (0: every such weekday). */
  byDay: { weekday: number; ordinal: number } | null;
  monthDays: number[];
}

function yearlyRule(tzid: string, recur: InstanceType<typeof ICAL.Recur>): YearlyRule {
  if (recur.freq !== "YEARLY") refuse(tzid, `an observance repeats ${String(recur.freq)}`);
  const parts = recur.parts as Record<string, Array<string | number> | undefined>;
  for (const name of Object.keys(parts)) if (!ALLOWED_PARTS.has(name)) refuse(tzid, `an observance rule uses ${name}`);
  const months = parts.BYMONTH ?? [];
  if (months.length > 1) refuse(tzid, "an observance rule names more than one month");
  const month = months.length === 1 ? Number(months[0]) : null;
  if (month !== null && !(month >= 1 && month <= 12)) refuse(tzid, `an observance rule names month ${String(months[0])}`);
  const days = parts.BYDAY ?? [];
  if (days.length > 1) refuse(tzid, "an observance rule names more than one weekday");
  let byDay: YearlyRule["byDay"] = null;
  if (days.length === 1) {
    const m = /^([+-]?[1-5])?(SU|MO|TU|WE|TH|FR|SA)$/.exec(String(days[0]));
    if (m === null) refuse(tzid, `an observance rule names the day ${String(days[0])}`);
    byDay = { weekday: WEEKDAYS.indexOf(m[2] ?? ""), ordinal: m[1] === undefined ? 0 : Number(m[1]) };
  }
  const monthDays = (parts.BYMONTHDAY ?? []).map(Number);
  if (monthDays.some((d) => !Number.isInteger(d) || d === 0 || d < -31 || d > 31)) refuse(tzid, "an observance rule names an impossible day of the month");
  if (month === null && (byDay !== null || monthDays.length > 0)) refuse(tzid, "an observance rule names days without BYMONTH");
  const interval = recur.interval ?? 1;
  if (!Number.isInteger(interval) || interval < 1) refuse(tzid, "an observance rule has an invalid INTERVAL");
  const count = typeof recur.count === "number" ? recur.count : null;
  let until: YearlyRule["until"] = null;
  if (recur.until) {
    const u = recur.until;
    const wall = wallSeconds(u.year, u.month, u.day, u.isDate ? 23 : u.hour, u.isDate ? 59 : u.minute, u.isDate ? 59 : u.second);
    until = u.zone?.tzid === "UTC" ? { utc: wall } : { wall };
  }
  return { interval, count, until, month, byDay, monthDays };
}

/** The days of `month` in `year` a rule names (DTSTART's day when it names none), in order. */
function onsetDays(rule: YearlyRule, year: number, month: number, startDay: number): number[] {
  const last = daysIn(year, month);
  if (rule.byDay === null && rule.monthDays.length === 0) return startDay <= last ? [startDay] : [];
  let candidates: number[];
  if (rule.monthDays.length > 0) {
    candidates = [...new Set(rule.monthDays.map((d) => (d > 0 ? d : last + 1 + d)).filter((d) => d >= 1 && d <= last))].sort((a, b) => a - b);
  } else {
    candidates = Array.from({ length: last }, (_, i) => i + 1);
  }
  const byDay = rule.byDay;
  if (byDay === null) return candidates;
  const matching = candidates.filter((d) => weekday(year, month, d) === byDay.weekday);
  if (byDay.ordinal === 0) return matching;
  // The nth (or nth from the end) such weekday of the month, if the days named include it.
  const all = Array.from({ length: last }, (_, i) => i + 1).filter((d) => weekday(year, month, d) === byDay.weekday);
  const nth = byDay.ordinal > 0 ? all[byDay.ordinal - 1] : all[all.length + byDay.ordinal];
  return nth !== undefined && matching.includes(nth) ? [nth] : [];
}

/** Pushes the onsets of a yearly rule after DTSTART, through LAST_ZONE_YEAR, within its UNTIL and COUNT. */
function expandRule(rule: YearlyRule, start: Time, startWall: number, from: number, step: () => void, push: (wall: number, utc: boolean) => void): void {
  // DTSTART is the first onset (pushed by the caller) and counts towards COUNT.
  let made = 1;
  const month = rule.month ?? start.month;
  for (let year = start.year; year <= LAST_ZONE_YEAR; year += rule.interval) {
    // A year costs a step even when the rule names no day in it (February 30th), so no rule is followed for free.
    step();
    for (const day of onsetDays(rule, year, month, start.day)) {
      const wall = wallSeconds(year, month, day, start.hour, start.minute, start.second);
      if (wall <= startWall) continue;
      if (rule.until !== null && ("utc" in rule.until ? wall - from > rule.until.utc : wall > rule.until.wall)) return;
      if (rule.count !== null && made >= rule.count) return;
      made++;
      push(wall, false);
    }
  }
}

/** A file's custom zones and the budget they share. */
export class FileZones {
  private readonly zones = new Map<string, Transition[]>();
  private steps = 0;

  constructor(private readonly maxSteps: number) {}

  /** One step of reading the file's zones: an onset, or a year of a rule followed. */
  private take(tzid: string): void {
    if (++this.steps > this.maxSteps) {
      throw new ImportBudgetError(
        "timezoneSteps",
        `VTIMEZONE ${tzid}: the file's time zones take more than ${this.maxSteps} steps to read up to ${LAST_ZONE_YEAR} (a step is an onset, or a year of a rule).`,
      );
    }
  }

  /** Reads a VTIMEZONE: throws ImportBudgetError for a rule past the budget. */
  add(vtimezone: Component, tzid: string): void {
    const out: Transition[] = [];
    for (const observance of vtimezone.getAllSubcomponents()) {
      if (observance.name !== "standard" && observance.name !== "daylight") continue;
      const start = observance.getFirstPropertyValue("dtstart");
      const fromValue = observance.getFirstPropertyValue("tzoffsetfrom");
      const toValue = observance.getFirstPropertyValue("tzoffsetto");
      // As ical.js does: an observance without its onset or offsets is ignored.
      if (!(start instanceof ICAL.Time) || !(fromValue instanceof ICAL.UtcOffset) || !(toValue instanceof ICAL.UtcOffset)) continue;
      const from = fromValue.toSeconds();
      const to = toValue.toSeconds();
      // Onsets are wall clocks in the offset before the change (RFC 5545 §3.6.5), or UTC.
      const push = (wall: number, utc: boolean): void => {
        this.take(tzid);
        out.push({ at: utc ? wall : wall - from, from, to });
      };
      const startWall = wallSeconds(start.year, start.month, start.day, start.hour, start.minute, start.second);
      push(startWall, start.zone?.tzid === "UTC");
      for (const prop of observance.getAllProperties("rdate")) {
        for (const v of prop.getValues()) {
          if (!(v instanceof ICAL.Time)) continue;
          // A date starts at DTSTART's time of day.
          const wall = v.isDate ? wallSeconds(v.year, v.month, v.day, start.hour, start.minute, start.second) : wallSeconds(v.year, v.month, v.day, v.hour, v.minute, v.second);
          if (wall !== startWall) push(wall, !v.isDate && v.zone?.tzid === "UTC");
        }
      }
      for (const prop of observance.getAllProperties("rrule")) {
        const recur = prop.getFirstValue();
        if (!(recur instanceof ICAL.Recur)) continue;
        expandRule(yearlyRule(tzid, recur), start, startWall, from, () => this.take(tzid), push);
      }
    }
    out.sort((a, b) => a.at - b.at);
    this.zones.set(tzid, out);
  }

  has(tzid: string): boolean {
    return this.zones.has(tzid);
  }

  /** The offset (seconds east of UTC) of a file's zone at an instant (Unix seconds); before its first transition, the offset that one changes from. */
  offsetAt(tzid: string, utc: number): number {
    const transitions = this.zones.get(tzid) ?? [];
    if (transitions.length === 0) return 0;
    const n = upTo(transitions, utc);
    return n === 0 ? (transitions[0] as Transition).from : (transitions[n - 1] as Transition).to;
  }

  /** The instants (Unix seconds) in [from, to) at which a file's zone changes its offset (an observance that keeps the offset is no change). */
  changesBetween(tzid: string, from: number, to: number): number[] {
    return (this.zones.get(tzid) ?? []).filter((t) => t.at >= from && t.at < to && t.from !== t.to).map((t) => t.at);
  }

  /**
   * The instant (Unix seconds) of a wall clock in a file's zone: in an
   * overlap the earlier one, in a gap the wall clock read with the offset
   * before the change (so 02:30 in a spring-forward gap is 03:30), as the
   * API reads wall clocks of IANA zones.
   */
  toUtc(tzid: string, year: number, month: number, day: number, hour: number, minute: number, second: number): number {
    const transitions = this.zones.get(tzid) ?? [];
    const wall = wallSeconds(year, month, day, hour, minute, second);
    if (transitions.length === 0) return wall;
    const offsetAt = (utc: number): number => this.offsetAt(tzid, utc);
    // Offsets never reach a day: the transitions within two days of the wall clock are all that can matter.
    const near = transitions.slice(upTo(transitions, wall - 2 * DAY_SECONDS - 1), upTo(transitions, wall + 2 * DAY_SECONDS));
    const candidates = [...new Set([offsetAt(wall - 2 * DAY_SECONDS), ...near.map((t) => t.to)])].sort((a, b) => b - a);
    for (const offset of candidates) if (offsetAt(wall - offset) === offset) return wall - offset;
    const gap = near.find((t) => t.to > t.from && wall >= t.at + t.from && wall < t.at + t.to);
    return wall - (gap?.from ?? offsetAt(wall));
  }
}

/** How many of the (sorted) transitions are at or before `utc`: a binary search, as a zone may have thousands. */
function upTo(transitions: readonly Transition[], utc: number): number {
  let lo = 0;
  let hi = transitions.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((transitions[mid] as Transition).at <= utc) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
