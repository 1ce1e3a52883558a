/**
 * VTIMEZONE components (RFC 5545 §3.6.5) from the time zone data the
 * process has (luxon over Intl), for the iCalendar feed.
 *
 * ical-generator has no zone database of its own and asks a generator for
 * each TZID it writes. Rather than RRULEs (which would claim today's DST
 * rules held in every year), each offset change between the start of the
 * year before the first event and the end of the year after the last one is
 * written as its own observance, with one more at the start of that span for
 * the offset in force then: a reader finds the exact offset of every event,
 * whatever the zone's history, and the same data gives the same bytes.
 */
import { DateTime, IANAZone } from "luxon";
import { BoundedMemo } from "../../format/memo";

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

/** Offset (minutes) of a zone at an instant. */
function offsetAt(zone: IANAZone, ms: number): number {
  return zone.offset(ms);
}

/** The first instant (to the minute) at which the offset differs from the one at `from`, knowing it changes by `to`. */
function changeBetween(zone: IANAZone, from: number, to: number): number {
  const before = offsetAt(zone, from);
  let lo = from;
  let hi = to;
  while (hi - lo > MINUTE_MS) {
    const mid = lo + Math.floor((hi - lo) / 2 / MINUTE_MS) * MINUTE_MS;
    if (mid <= lo) break;
    if (offsetAt(zone, mid) === before) lo = mid;
    else hi = mid;
  }
  return hi;
}

interface Transition {
  at: number;
  from: number;
  to: number;
}

/** Offset changes in [start, end), found day by day (no zone changes twice within a day) then to the minute. */
function transitions(zone: IANAZone, start: number, end: number): Transition[] {
  const out: Transition[] = [];
  let previous = offsetAt(zone, start);
  for (let day = start; day < end; day += DAY_MS) {
    const next = Math.min(day + DAY_MS, end);
    const offset = offsetAt(zone, next);
    if (offset === previous) continue;
    const at = changeBetween(zone, day, next);
    out.push({ at, from: previous, to: offsetAt(zone, at) });
    previous = offset;
  }
  return out;
}

/** `+0100`, `-0430`: a UTC offset as RFC 5545 writes it. */
function utcOffset(minutes: number): string {
  const sign = minutes < 0 ? "-" : "+";
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}${String(abs % 60).padStart(2, "0")}`;
}

/**
 * The zone's usual abbreviation at an instant: Intl's en-US names know the
 * American ones (EST) and give `GMT+1` elsewhere, where en-GB knows CET/CEST.
 */
function abbreviationOf(at: DateTime): string | null {
  const american = at.setLocale("en-US").offsetNameShort;
  if (american !== null && !american.startsWith("GMT")) return american;
  return at.setLocale("en-GB").offsetNameShort ?? american;
}

/** An observance: DTSTART is the wall clock at the change, read in the offset in force before it (§3.6.5). */
function observance(name: string, at: number, from: number, to: number): string[] {
  const local = DateTime.fromMillis(at + from * MINUTE_MS, { zone: "UTC" }).toFormat("yyyyMMdd'T'HHmmss");
  const after = DateTime.fromMillis(at, { zone: name });
  const kind = after.isInDST ? "DAYLIGHT" : "STANDARD";
  const abbreviation = abbreviationOf(after) ?? utcOffset(to);
  return [`BEGIN:${kind}`, `DTSTART:${local}`, `TZOFFSETFROM:${utcOffset(from)}`, `TZOFFSETTO:${utcOffset(to)}`, `TZNAME:${abbreviation}`, `END:${kind}`];
}

/** Whether a TZID can be written with a VTIMEZONE (an IANA name other than UTC; fixed offsets are written in UTC instead). */
export function hasVtimezone(zone: string): boolean {
  return !/^(utc|gmt|z)$/i.test(zone) && IANAZone.isValidZone(zone);
}

const components = new BoundedMemo<string>(200);

/** The VTIMEZONE of an IANA zone covering the years `fromYear`..`toYear` (inclusive). */
export function vtimezone(name: string, fromYear: number, toYear: number): string {
  return components.get(`${name}\u0000${fromYear}\u0000${toYear}`, () => {
    const zone = IANAZone.create(name);
    const start = Date.UTC(fromYear, 0, 1);
    const end = Date.UTC(toYear + 1, 0, 1);
    const initial = offsetAt(zone, start);
    const lines = ["BEGIN:VTIMEZONE", `TZID:${name}`, ...observance(name, start, initial, initial)];
    for (const t of transitions(zone, start, end)) lines.push(...observance(name, t.at, t.from, t.to));
    lines.push("END:VTIMEZONE");
    return lines.join("\r\n");
  });
}

/**
 * A generator for ical-generator's calendar: the VTIMEZONE of each zone it
 * is asked for, covering the year before the first and after the last year
 * of the feed (so that an event near New Year, read in any zone, is covered).
 */
export function vtimezoneGenerator(years: readonly number[]): (zone: string) => string | null {
  // No events, no zones to describe.
  if (years.length === 0) return () => null;
  const fromYear = Math.min(...years) - 1;
  const toYear = Math.max(...years) + 1;
  return (zone) => (hasVtimezone(zone) ? vtimezone(zone, fromYear, toYear) : null);
}
