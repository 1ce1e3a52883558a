/**
 * A series' lines as the iCalendar feed writes them, in the form RFC 5545
 * wants beside the feed's DTSTART (lib/calendar/ical/feed.ts): with a TZID
 * when the event is written in its IANA zone, in UTC otherwise, as dates
 * for an all-day series. The stored lines may mix forms (a floating EXDATE,
 * a date UNTIL on a timed series); a reader must find the same occurrences
 * as the API does (lib/calendar/recurrence/expand.ts), which places wall
 * clocks as RFC 5545 §3.3.5 does (lib/calendar/recurrence/instants.ts), as
 * a reader of the feed does:
 *
 * - UNTIL: UTC (`Z`) for a timed series, the instant the API compares with
 *   (a date alone ends with that day), a date for an all-day one;
 * - RDATE/EXDATE: floating values keep their wall clock as written (the
 *   API compares them with the rule's wall clock: 02:30 on a spring-forward
 *   day names the occurrence the gap moved to 03:30, as in a reader);
 *   values in UTC or with a TZID are instants, written as the event's wall
 *   clock with its TZID when that wall clock reads back as the same instant,
 *   in UTC otherwise (the second 01:30 of a repeated hour); dates stay
 *   dates. A date alone on a timed series stands for the series' time of
 *   day on that date (what the API's expansion means by it).
 */
import { DateTime } from "luxon";
import { parseRecurrence, type RuleDate } from "./rules";
import { instantOf, instantOfFields, wallAt, zoneOf } from "./instants";

const ICAL_LOCAL = "yyyyMMdd'T'HHmmss";

export interface FeedRecurrence {
  lines: string[];
  /**
   * The years its VTIMEZONE must cover, as spans (first, last): its rules'
   * (to their UNTIL, else ten years on) and each RDATE's own year, so that a
   * far RDATE adds one year, not every year up to it.
   */
  spans: Array<readonly [number, number]>;
}

const pad = (n: number, width = 2): string => String(n).padStart(width, "0");

/**
 * `lines` (stored, valid) of a series starting at `startLocal` in `zone`,
 * for a feed whose DTSTART is written with TZID `tzid` (null: in UTC, or a
 * date when `allDay`).
 */
export function feedRecurrence(lines: readonly string[], startLocal: string, zone: string, allDay: boolean, tzid: string | null): FeedRecurrence {
  const z = zoneOf(zone);
  const timeOfDay = { hour: Number(startLocal.slice(11, 13)), minute: Number(startLocal.slice(14, 16)), second: Number(startLocal.slice(17, 19)) };
  /** A value's wall clock in the event's zone (`YYYYMMDDTHHMMSS`): as written when floating, else its instant's. */
  const wallOf = (d: RuleDate, dayEnd: boolean): string => {
    const time = d.time ?? (dayEnd ? { hour: 23, minute: 59, second: 59 } : timeOfDay);
    if (d.zone === undefined) return `${pad(d.year, 4)}${pad(d.month)}${pad(d.day)}T${pad(time.hour)}${pad(time.minute)}${pad(time.second)}`;
    return toLocal(wallAt(instantOfDate(d, time), z));
  };
  /** A value's instant (ms): its own when in UTC or with a TZID, its wall clock's in the event's zone otherwise (§3.3.5). */
  const instantOfValue = (d: RuleDate, dayEnd: boolean): number => {
    const time = d.time ?? (dayEnd ? { hour: 23, minute: 59, second: 59 } : timeOfDay);
    return d.zone === undefined ? instantOfFields({ year: d.year, month: d.month, day: d.day, ...time }, z) : instantOfDate(d, time);
  };
  const utcValue = (ms: number): string => `${DateTime.fromMillis(ms, { zone: "UTC" }).toFormat(ICAL_LOCAL)}Z`;
  const parsed = parseRecurrence([...lines]);
  const firstYear = Number(startLocal.slice(0, 4));
  let lastYear = firstYear + 10;
  const spans: Array<readonly [number, number]> = [];
  const out: string[] = [];
  for (const rule of parsed.rules) {
    if (rule.until === undefined) {
      out.push(`RRULE:${rule.text}`);
      continue;
    }
    const wall = wallOf(rule.until, true);
    lastYear = Math.min(lastYear, Number(wall.slice(0, 4)));
    const value = allDay ? wall.slice(0, 8) : utcValue(instantOfValue(rule.until, true));
    out.push(`RRULE:${rule.text.replace(/UNTIL=[^;]*/, `UNTIL=${value}`)}`);
  }
  const dates = (name: "RDATE" | "EXDATE", values: RuleDate[]): void => {
    if (values.length === 0) return;
    const walls = values.map((d) => wallOf(d, false));
    for (const w of walls) spans.push([Number(w.slice(0, 4)), Number(w.slice(0, 4))]);
    if (allDay) {
      out.push(`${name};VALUE=DATE:${walls.map((w) => w.slice(0, 8)).join(",")}`);
      return;
    }
    if (tzid === null) {
      out.push(`${name}:${values.map((d) => utcValue(instantOfValue(d, false))).join(",")}`);
      return;
    }
    // A zoned value whose wall clock reads back as another instant (a repeated hour's second pass) is written in UTC.
    const local: string[] = [];
    const inUtc: string[] = [];
    values.forEach((d, i) => {
      const at = instantOfValue(d, false);
      if (d.zone === undefined || instantOf(fromLocal(walls[i]), z) === at) local.push(walls[i]);
      else inUtc.push(utcValue(at));
    });
    if (local.length > 0) out.push(`${name};TZID=${tzid}:${local.join(",")}`);
    if (inUtc.length > 0) out.push(`${name}:${inUtc.join(",")}`);
  };
  dates("RDATE", parsed.rdates);
  dates("EXDATE", parsed.exdates);
  return { lines: out, spans: [[firstYear, Math.max(firstYear, lastYear)], ...spans] };
}

/** A UTC or TZID value's instant (ms), with `time` for a date alone. */
function instantOfDate(d: RuleDate, time: { hour: number; minute: number; second: number }): number {
  return instantOfFields({ year: d.year, month: d.month, day: d.day, ...time }, zoneOf(d.zone === "utc" || d.zone === undefined ? "UTC" : d.zone));
}

/** `YYYY-MM-DD HH:MM:SS` → `YYYYMMDDTHHMMSS`. */
function toLocal(wall: string): string {
  return `${wall.slice(0, 4)}${wall.slice(5, 7)}${wall.slice(8, 10)}T${wall.slice(11, 13)}${wall.slice(14, 16)}${wall.slice(17, 19)}`;
}

/** `YYYYMMDDTHHMMSS` → `YYYY-MM-DD HH:MM:SS`. */
function fromLocal(local: string): string {
  return `${local.slice(0, 4)}-${local.slice(4, 6)}-${local.slice(6, 8)} ${local.slice(9, 11)}:${local.slice(11, 13)}:${local.slice(13, 15)}`;
}
