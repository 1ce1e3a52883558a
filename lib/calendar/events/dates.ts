/**
 * Dates of the events resource: how request values become stored event
 * times and publication dates (calendar-api.md §4.3, §4.4), and how the list
 * route turns its date arguments into bounds (§4.1). All zone arithmetic is
 * done with luxon in the site's or the event's zone, never the process's.
 */
import { DateTime } from "luxon";
import type { EngineApi } from "../../engine-api";
import { parseMysql, zoneForLuxon } from "../../dates/format";
import { parseApiDate, wallClockToInstant } from "../../dates/strtotime";
import { BoundedMemo } from "../../format/memo";
import { eventTimeFields, type EventTimeFields } from "../event-times";

export { eventTimeFields, type EventTimeFields };

export const SQL_FORMAT = "yyyy-MM-dd HH:mm:ss";
const DAY_FORMAT = "yyyy-MM-dd";

/** A date argument as the API accepts it: text for the date parser, or a Unix timestamp. */
export type DateValue = string | number;

/**
 * "Now" for relative dates. The engine's own clock when it has one (tests
 * pin it through EngineOptions.now), so that post dates and relative
 * arguments agree; the real time otherwise.
 */
export function nowOf(engine: EngineApi): DateTime {
  const clock = (engine as EngineApi & { now?: () => Date }).now;
  return typeof clock === "function" ? DateTime.fromJSDate(clock.call(engine), { zone: "UTC" }) : DateTime.utc();
}

/** The site time-zone option as stored (IANA name, `UTC`, or a `UTC+N` label). */
export async function siteZoneLabel(engine: EngineApi): Promise<string> {
  return engine.options.timezone();
}

function isTimestamp(value: DateValue): boolean {
  return typeof value === "number" || /^\s*\d+\s*$/.test(value);
}

/**
 * Whether a value parses as a date argument (a timestamp, or text PHP's
 * strtotime accepts). Text is checked in `zone`; whether a string parses
 * does not depend on the zone, only its instant does.
 */
export function isParseableDate(value: unknown, zone = "UTC", now?: DateTime): boolean {
  if (typeof value === "number") return Number.isFinite(value);
  if (typeof value !== "string" || value.trim() === "") return false;
  return parseApiDate(value, { zone: zoneForLuxon(zone), now }) !== null;
}

/**
 * An event's `start_date` / `end_date` as an instant in the event's zone
 * (calendar-api.md §4.4): text without an offset is the wall clock of
 * `zoneLabel`. Quirk of the original, matched: a Unix timestamp sent without
 * `timezone` becomes its UTC wall clock, which is then taken as a wall clock
 * of the event's zone (the site zone); with `timezone`, the timestamp is the
 * instant and the wall clock is that zone's.
 */
export function parseEventDate(value: DateValue, zoneLabel: string, timezoneSent: boolean, now: DateTime): DateTime | null {
  const zone = zoneForLuxon(zoneLabel);
  if (isTimestamp(value) && !timezoneSent) {
    const utc = parseApiDate(value, { zone: "UTC", now });
    if (!utc) return null;
    return wallClockToInstant({ year: utc.year, month: utc.month, day: utc.day, hour: utc.hour, minute: utc.minute, second: utc.second }, zone);
  }
  const dt = parseApiDate(value, { zone, now });
  return dt ? dt.setZone(zone) : null;
}

/** A stored event wall clock as an instant of its zone (DST gaps and overlaps resolved as PHP does). */
export function storedEventDate(wallClock: string, zoneLabel: string): DateTime | null {
  return parseMysql(wallClock, zoneForLuxon(zoneLabel));
}

/** The typed time fields of an event (lib/calendar/post-types.ts). */
/**
 * The publication `date` (calendar-api.md §4.3): the wall clock as written,
 * stored without conversion to site time; the event zone (else the site
 * zone) only places relative expressions and Unix timestamps.
 */
export function publicationDate(value: DateValue, zoneLabel: string, now: DateTime): string | null {
  const dt = parseApiDate(value, { zone: zoneForLuxon(zoneLabel), now });
  return dt ? dt.toFormat(SQL_FORMAT) : null;
}

/** `date_utc`: read in UTC, relative expressions on the UTC calendar. */
export function publicationDateUtc(value: DateValue, now: DateTime): string | null {
  const dt = parseApiDate(value, { zone: "UTC", now });
  return dt ? dt.toUTC().toFormat(SQL_FORMAT) : null;
}

// ---------------------------------------------------------------- list bounds

/**
 * The default bounds, and their stored wall clocks, are asked by every list
 * without dates (luxon, then the date parser), with one answer all day.
 * Both defaults are functions of now's UTC calendar date (and the zone)
 * only: a UTC day is exactly 86,400,000 ms of JavaScript time.
 */
const defaultBounds = new BoundedMemo<string>(256);
const defaultWallClocks = new BoundedMemo<string | null>(256);
const DAY_MS = 86_400_000;

function utcDay(now: DateTime): number {
  return Math.floor(now.toMillis() / DAY_MS);
}

/**
 * Default lower bound of `GET /events` (calendar-api.md §4.1): "yesterday
 * 23:59" on the UTC calendar, converted to the site zone; that local date at
 * 00:00:00. The original computes `localize_date('yesterday 23:59')` and then
 * widens it to the start of its day.
 */
export function defaultListStart(now: DateTime, siteZone: string): string {
  return defaultBounds.get(`start ${utcDay(now)} ${siteZone}`, () => {
    const yesterday = now.toUTC().minus({ days: 1 }).set({ hour: 23, minute: 59, second: 0, millisecond: 0 });
    return `${yesterday.setZone(zoneForLuxon(siteZone)).toFormat(DAY_FORMAT)} 00:00:00`;
  });
}

/** Default upper bound: now + 24 months on the UTC calendar, end of that day (the original's `strtotime('+24 months')`). */
export function defaultListEnd(now: DateTime): string {
  return defaultBounds.get(`end ${utcDay(now)}`, () => `${now.toUTC().plus({ months: 24 }).toFormat(DAY_FORMAT)} 23:59:59`);
}

/**
 * `listBound` of a default bound (`defaultListStart` / `defaultListEnd`): a
 * full date and time, so what it reads is the same whatever now is.
 */
export function defaultListBound(value: string, edge: "start" | "end", strict: boolean, siteZone: string, now: DateTime): string | null {
  return defaultWallClocks.get(`${value} ${edge} ${strict} ${siteZone}`, () => listBound(value, edge, strict, siteZone, now));
}

/**
 * One list bound as a site-time wall clock, or null when it does not parse.
 *
 * Inclusive mode (default): the bound covers whole days, using the calendar
 * date of the value on the UTC calendar (the original's
 * `tribe_beginning_of_day` / `tribe_end_of_day` run with PHP's zone at UTC):
 * `start` → 00:00:00, `end` → 23:59:59 of that date, read as site time.
 *
 * Strict mode: the exact instant; text without an offset is read as UTC and
 * converted to site time (quirk of the original's `localize_date`, matched).
 */
export function listBound(value: DateValue, edge: "start" | "end", strict: boolean, siteZone: string, now: DateTime): string | null {
  const dt = parseApiDate(value, { zone: "UTC", now });
  if (!dt) return null;
  const wall = strict ? dt.setZone(zoneForLuxon(siteZone)) : dt.toUTC();
  // The parser reads years the storage format cannot write (PHP's zero date
  // `-0001-11-30`, far timestamps). Stored wall clocks are all within
  // 0000–9999, so such a bound lies before or after every event: it becomes
  // the first or last storable wall clock, which selects the same events.
  if (wall.year < 0) return FIRST_WALL_CLOCK;
  if (wall.year > 9999) return LAST_WALL_CLOCK;
  if (strict) return wall.toFormat(SQL_FORMAT);
  return `${wall.toFormat(DAY_FORMAT)} ${edge === "start" ? "00:00:00" : "23:59:59"}`;
}

/** The extremes of the `YYYY-MM-DD HH:MM:SS` storage format (see `listBound`). */
const FIRST_WALL_CLOCK = "0000-01-01 00:00:00";
const LAST_WALL_CLOCK = "9999-12-31 23:59:59";

/**
 * Whether a date argument of a write can be stored: the engine keeps dates
 * as `YYYY-MM-DD HH:MM:SS`, so years 0000–9999 only (PHP's zero date
 * `-0001-11-30` and far timestamps parse but do not fit). Read on the UTC
 * calendar; a value within a day of the edges that a zone pushes over is
 * still refused by the engine, which the operations report as a 400 too.
 */
export function isStorableDate(value: unknown): boolean {
  if (typeof value !== "string" && typeof value !== "number") return false;
  const dt = parseApiDate(value, { zone: "UTC" });
  return dt !== null && dt.year >= 0 && dt.year <= 9999;
}
