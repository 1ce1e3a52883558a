/**
 * VTIMEZONE components (RFC 5545 §3.6.5) from the time zone data the
 * process has (luxon over Intl), for the iCalendar feed.
 *
 * ical-generator has no zone database of its own and asks a generator for
 * each TZID it writes. Rather than RRULEs (which would claim today's DST
 * rules held in every year), each offset change in the years the feed's
 * events reach (each with the year before and after) is written as its own
 * observance, with one more at the start of each run of consecutive years
 * for the offset in force then: a reader finds the exact offset of every
 * event, whatever the zone's history, and the same data gives the same
 * bytes. The work is per year covered, and the years are those of the
 * feed's own records (a far RDATE adds its year, not the years up to it);
 * at most MAX_YEARS are covered.
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

/** At most this many years per VTIMEZONE (a feed page's records reach far fewer). */
export const MAX_YEARS = 2000;

/** A zone's offset changes within one year, kept: every feed covering that year writes them. */
const yearTransitions = new BoundedMemo<Transition[]>(20_000);

function transitionsIn(name: string, zone: IANAZone, year: number): Transition[] {
  return yearTransitions.get(`${name}\u0000${year}`, () => transitions(zone, Date.UTC(year, 0, 1), Date.UTC(year + 1, 0, 1)));
}

/** Runs of consecutive years: the spans, each widened by a year either side, merged, in order, at most MAX_YEARS in all. */
export function coveredYears(spans: ReadonlyArray<readonly [number, number]>): Array<[number, number]> {
  const sorted = spans
    .filter(([from, to]) => Number.isInteger(from) && Number.isInteger(to) && from <= to)
    .map(([from, to]) => [Math.max(1, from - 1), Math.min(9999, to + 1)] as [number, number])
    .sort((a, b) => a[0] - b[0]);
  const runs: Array<[number, number]> = [];
  let years = 0;
  for (const [from, to] of sorted) {
    const last = runs.at(-1);
    const start = last !== undefined && from <= last[1] + 1 ? last[1] + 1 : from;
    if (start > to) continue;
    const end = Math.min(to, start + (MAX_YEARS - years) - 1);
    if (end < start) break;
    if (last !== undefined && start === last[1] + 1) last[1] = end;
    else runs.push([start, end]);
    years += end - start + 1;
  }
  return runs;
}

/** The VTIMEZONE of an IANA zone covering the runs of years given (each inclusive, in order). */
export function vtimezone(name: string, runs: ReadonlyArray<readonly [number, number]>): string {
  return components.get(`${name}\u0000${runs.map(([a, b]) => `${a}-${b}`).join(",")}`, () => {
    const zone = IANAZone.create(name);
    const lines = ["BEGIN:VTIMEZONE", `TZID:${name}`];
    for (const [fromYear, toYear] of runs) {
      // The offset in force when the run begins, then each change within it.
      const start = Date.UTC(fromYear, 0, 1);
      const initial = offsetAt(zone, start);
      lines.push(...observance(name, start, initial, initial));
      for (let year = fromYear; year <= toYear; year++) for (const t of transitionsIn(name, zone, year)) lines.push(...observance(name, t.at, t.from, t.to));
    }
    lines.push("END:VTIMEZONE");
    return lines.join("\r\n");
  });
}

/**
 * A generator for ical-generator's calendar: the VTIMEZONE of each zone it
 * is asked for, covering the years of the feed's records (`spans`, with the
 * year before and after each, so that an event near New Year, read in any
 * zone, is covered).
 */
export function vtimezoneGenerator(spans: ReadonlyArray<readonly [number, number]>): (zone: string) => string | null {
  const runs = coveredYears(spans);
  // No events, no zones to describe.
  if (runs.length === 0) return () => null;
  return (zone) => (hasVtimezone(zone) ? vtimezone(zone, runs) : null);
}
