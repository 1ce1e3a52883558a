/**
 * A series' lines as the iCalendar feed writes them, in the form RFC 5545
 * wants beside the feed's DTSTART (lib/calendar/ical/feed.ts): with a TZID
 * when the event is written in its IANA zone, in UTC otherwise, as dates
 * for an all-day series. The stored lines may mix forms (a floating EXDATE,
 * a date UNTIL on a timed series); a reader must find the same occurrences
 * as the API does, so each value is moved to the event's wall clock first:
 *
 * - UNTIL: UTC (`Z`) for a timed series (a date alone ends with that day),
 *   a date for an all-day one;
 * - RDATE/EXDATE: `TZID=<zone>` wall clocks, UTC, or dates, as DTSTART is
 *   written. A date alone on a timed series stands for the series' time of
 *   day on that date (what the API's expansion means by it).
 */
import { DateTime } from "luxon";
import { luxonZone } from "../event-times";
import { parseRecurrence, type RuleDate } from "./rules";

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

/**
 * `lines` (stored, valid) of a series starting at `startLocal` in `zone`,
 * for a feed whose DTSTART is written with TZID `tzid` (null: in UTC, or a
 * date when `allDay`).
 */
export function feedRecurrence(lines: readonly string[], startLocal: string, zone: string, allDay: boolean, tzid: string | null): FeedRecurrence {
  const z = luxonZone(zone);
  const timeOfDay = { hour: Number(startLocal.slice(11, 13)), minute: Number(startLocal.slice(14, 16)), second: Number(startLocal.slice(17, 19)) };
  // A value as an instant on the event's wall clock (a date alone: the series' time of day, or the day's end for UNTIL).
  const instant = (d: RuleDate, dayEnd: boolean): DateTime => {
    const time = d.time ?? (dayEnd ? { hour: 23, minute: 59, second: 59 } : timeOfDay);
    const from = d.zone === undefined ? z : d.zone === "utc" ? "UTC" : d.zone;
    return DateTime.fromObject({ year: d.year, month: d.month, day: d.day, ...time }, { zone: from }).setZone(z);
  };
  const dateValue = (at: DateTime): string => at.toFormat("yyyyMMdd");
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
    const until = instant(rule.until, true);
    lastYear = Math.min(lastYear, until.year);
    const value = allDay ? dateValue(until) : `${until.toUTC().toFormat(ICAL_LOCAL)}Z`;
    out.push(`RRULE:${rule.text.replace(/UNTIL=[^;]*/, `UNTIL=${value}`)}`);
  }
  const dates = (name: "RDATE" | "EXDATE", values: RuleDate[]): void => {
    if (values.length === 0) return;
    const at = values.map((d) => instant(d, false));
    if (allDay) out.push(`${name};VALUE=DATE:${at.map(dateValue).join(",")}`);
    else if (tzid !== null) out.push(`${name};TZID=${tzid}:${at.map((t) => t.toFormat(ICAL_LOCAL)).join(",")}`);
    else out.push(`${name}:${at.map((t) => `${t.toUTC().toFormat(ICAL_LOCAL)}Z`).join(",")}`);
    for (const t of at) spans.push([t.year, t.year]);
  };
  dates("RDATE", parsed.rdates);
  dates("EXDATE", parsed.exdates);
  return { lines: out, spans: [[firstYear, Math.max(firstYear, lastYear)], ...spans] };
}
