/**
 * Wall clocks of a series as instants, as RFC 5545 §3.3.5 places them
 * (FORM #3, DATE WITH LOCAL TIME AND TIME ZONE REFERENCE):
 *
 * - a wall clock that occurs twice (the hour repeated when DST ends) is the
 *   FIRST of the two instants, the one with the offset before the change;
 * - a wall clock that does not occur (skipped when DST begins) is read with
 *   the offset in force before the gap, which puts it the gap's length later
 *   on the wall clock: 02:30 in New York's spring-forward gap is 03:30 EDT.
 *
 * This is what python-dateutil with zoneinfo (fold=0) and npm `rrule` give,
 * and what a subscriber's calendar app applies to the feed's DTSTART;TZID.
 *
 * A single event's start and end are read otherwise: as PHP reads them
 * (lib/dates/strtotime.ts `wallClockToInstant`), which the reference's
 * vectors pin (test/vectors/dates.json, a copy of the reference's vectors: 02:30 in a New York or Sydney
 * gap → 03:30, 01:30 in New York's repeated hour → the EDT instant, both as
 * here). They differ only in a repeated hour east of Greenwich (Rome,
 * Sydney), which the vectors do not cover: PHP takes the later instant
 * there, RFC 5545 the earlier. A series follows the RFC throughout, its
 * first occurrence included, so that the API's occurrences are the ones
 * a reader of the feed's RRULE computes.
 */
import { DateTime, Info, type Zone } from "luxon";
import { luxonZone } from "../event-times";
import type { WallClock } from "../../dates/format";

const SQL = "yyyy-MM-dd HH:mm:ss";
const WALL = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;
const DAY_MS = 86_400_000;

/** A wall clock's fields. */
export type WallFields = WallClock;

/** The luxon zone of a stored zone label (IANA name, `UTC`, WordPress `UTC+N`). */
export function zoneOf(label: string): Zone {
  return Info.normalizeZone(luxonZone(label));
}

/** The wall clock's fields read as if they were UTC, in milliseconds (years below 100 included). */
function localMs(f: WallFields): number {
  const d = new Date(Date.UTC(2000, f.month - 1, f.day, f.hour, f.minute, f.second));
  d.setUTCFullYear(f.year);
  return d.getTime();
}

/** The instant (ms) of a wall clock in `zone`, per RFC 5545 §3.3.5 (see the module comment). */
export function instantOfFields(f: WallFields, zone: Zone): number {
  const local = localMs(f);
  // DST changes are months apart: the offsets a day either side are the two a wall clock can have.
  const before = zone.offset(local - DAY_MS);
  const after = zone.offset(local + DAY_MS);
  let best: number | null = null;
  for (const offset of before === after ? [before] : [before, after]) {
    const t = local - offset * 60_000;
    if (zone.offset(t) === offset && (best === null || t < best)) best = t;
  }
  if (best !== null) return best;
  // In a gap: read with the offset before it.
  return local - before * 60_000;
}

/** The fields of a `YYYY-MM-DD HH:MM:SS` wall clock, or null when it is not one. */
export function wallFields(wall: string): WallFields | null {
  const m = WALL.exec(wall);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1).map(Number);
  return { year, month, day, hour, minute, second };
}

/** The instant (ms) of a `YYYY-MM-DD HH:MM:SS` wall clock in `zone` (§3.3.5), or null when it is not one. */
export function instantOf(wall: string, zone: Zone): number | null {
  const f = wallFields(wall);
  return f === null ? null : instantOfFields(f, zone);
}

/** An instant's wall clock in `zone` (`YYYY-MM-DD HH:MM:SS`). */
export function wallAt(ms: number, zone: Zone): string {
  return DateTime.fromMillis(ms, { zone }).toFormat(SQL);
}

/** An instant in UTC (`YYYY-MM-DD HH:MM:SS`). */
export function utcAt(ms: number): string {
  return DateTime.fromMillis(ms, { zone: "UTC" }).toFormat(SQL);
}

/** Whether a wall clock falls in a DST gap of `zone` (it does not occur there). */
export function inGap(wall: string, zone: Zone): boolean {
  const t = instantOf(wall, zone);
  return t !== null && wallAt(t, zone) !== wall;
}
