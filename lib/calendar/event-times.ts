import { DateTime } from "luxon";
import { zoneForLuxon } from "../dates/format";
import { wallClockToInstant } from "../dates/strtotime";

/** The stored time fields of an event (typed columns of `<prefix>fields_event`). */
export interface EventTimeFields {
  start_local: string;
  end_local: string;
  start_utc: string;
  end_utc: string;
  timezone: string;
  all_day: boolean;
}
/** Kept for the fixture loader, which names them so. */
export type EventTimes = EventTimeFields;

const SQL = "yyyy-MM-dd HH:mm:ss";
const WALL_CLOCK = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

/** Luxon zone for a stored time-zone label: IANA names as they are, WordPress `UTC+N` labels as fixed offsets. */
export function luxonZone(label: string): string {
  return label.trim() === "" ? "UTC" : zoneForLuxon(label.trim());
}

/**
 * The stored time fields from a start and an end instant. All-day events
 * span whole days of their zone: 00:00:00 of the start day to 23:59:59 of
 * the end day (multi-day allowed), as the original stores them.
 */
export function eventTimeFields(start: DateTime, end: DateTime, zoneLabel: string, allDay: boolean): EventTimeFields {
  const zone = zoneForLuxon(zoneLabel);
  let s: DateTime = start.setZone(zone);
  let e: DateTime = end.setZone(zone);
  if (allDay) {
    s = wallClockToInstant({ year: s.year, month: s.month, day: s.day }, zone);
    e = wallClockToInstant({ year: e.year, month: e.month, day: e.day, hour: 23, minute: 59, second: 59 }, zone);
  }
  return {
    start_local: s.toFormat(SQL),
    end_local: e.toFormat(SQL),
    start_utc: s.toUTC().toFormat(SQL),
    end_utc: e.toUTC().toFormat(SQL),
    timezone: zoneLabel,
    all_day: allDay,
  };
}

/**
 * The same fields from wall clocks (`YYYY-MM-DD HH:MM:SS`) in `zone`, with
 * PHP's rules for wall clocks in a DST gap or overlap, as the API reads them.
 * Null when a wall clock is not a real date.
 */
export function eventTimes(startLocal: string, endLocal: string, zone: string, allDay: boolean): EventTimeFields | null {
  const z = luxonZone(zone);
  const instant = (wall: string): DateTime | null => {
    const m = WALL_CLOCK.exec(wall);
    if (!m) return null;
    const [year, month, day, hour, minute, second] = m.slice(1).map(Number);
    const check = DateTime.fromObject({ year, month, day }, { zone: "UTC" });
    if (!check.isValid || check.day !== day || hour > 23 || minute > 59 || second > 59) return null;
    return wallClockToInstant({ year, month, day, hour, minute, second }, z);
  };
  const start = instant(startLocal);
  const end = instant(endLocal);
  return start && end ? eventTimeFields(start, end, zone, allDay) : null;
}
