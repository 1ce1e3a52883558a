/**
 * VTIMEZONE components (RFC 5545 §3.6.5) from the time zone data the
 * process has (luxon over Intl), for the iCalendar feed.
 *
 * ical-generator has no zone database of its own and asks a generator for
 * each TZID it writes. A VTIMEZONE has two parts:
 *
 * - The zone's current rules, as observances with a yearly RRULE and no
 *   UNTIL (a subscriber's app expands a never-ending series, and with it the
 *   zone, for ever). They are written only where the data luxon/Intl gives
 *   follows them: each of the zone's changes in every year from 2072 to
 *   ERA_CHECK_END (2100), which holds every kind of year, must be one the
 *   same yearly rule gives (the nth or last weekday of a month, the weekday
 *   on or after a day, a fixed day), at the same wall clock between the
 *   same offsets; the era goes back as far as that holds and is needed. A
 *   zone without DST has no changes in its era: one observance. Intl past
 *   2100 follows the same final rules (tzdata's last rule lines hold "to
 *   max"), so the era does.
 * - Before the era (history, or a zone whose future changes follow no yearly
 *   rule), each offset change in the years the feed's events reach (each
 *   with the year before and after) is its own observance, with one more at
 *   the start of each run of consecutive years for the offset in force then.
 *   A series without end reaches to the era's start, or, for a zone without
 *   an era, to ERA_CHECK_END (past it the last offset stays, a bound rather
 *   than per-year observances for ever).
 *
 * A reader finds the exact offset of every event, whatever the zone's
 * history, and the same data gives the same bytes. The work is per year
 * covered before the era, and the years are those of the feed's own records
 * (a far RDATE adds its year, not the years up to it); at most MAX_YEARS
 * are covered.
 */
import { DateTime, IANAZone } from "luxon";
import { BoundedMemo } from "../../format/memo";

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

/** The era's rules must hold up to this year in the zone data (the data beyond repeats the same final rules). */
export const ERA_CHECK_END = 2100;

/**
 * The era must hold at least from this year: 2072–2100 has each of the
 * fourteen kinds of year (the weekday of 1 January, leap or not), so rules
 * that give every change of those years give every year's.
 */
const ERA_SURE_FROM = ERA_CHECK_END - 28;

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

/** The wall clock of a change, read in the offset in force before it: an observance's DTSTART (§3.6.5). */
function localOf(at: number, from: number): DateTime {
  return DateTime.fromMillis(at + from * MINUTE_MS, { zone: "UTC" });
}

/** An observance from `at` on; with `rrule`, the first of a yearly series of them. */
function observance(name: string, at: number, from: number, to: number, rrule?: string): string[] {
  const after = DateTime.fromMillis(at, { zone: name });
  const kind = after.isInDST ? "DAYLIGHT" : "STANDARD";
  const abbreviation = abbreviationOf(after) ?? utcOffset(to);
  return [
    `BEGIN:${kind}`,
    `DTSTART:${localOf(at, from).toFormat("yyyyMMdd'T'HHmmss")}`,
    ...(rrule === undefined ? [] : [`RRULE:${rrule}`]),
    `TZOFFSETFROM:${utcOffset(from)}`,
    `TZOFFSETTO:${utcOffset(to)}`,
    `TZNAME:${abbreviation}`,
    `END:${kind}`,
  ];
}

/** Whether a TZID can be written with a VTIMEZONE (an IANA name other than UTC; fixed offsets are written in UTC instead). */
export function hasVtimezone(zone: string): boolean {
  return !/^(utc|gmt|z)$/i.test(zone) && IANAZone.isValidZone(zone);
}

const components = new BoundedMemo<string>(200);

/** At most this many years per VTIMEZONE written observance by observance (a feed page's records reach far fewer). */
export const MAX_YEARS = 2000;

/** A zone's offset changes within one year, kept: every feed covering that year writes them. */
const yearTransitions = new BoundedMemo<Transition[]>(20_000);

function transitionsIn(name: string, zone: IANAZone, year: number): Transition[] {
  return yearTransitions.get(`${name}\u0000${year}`, () => transitions(zone, Date.UTC(year, 0, 1), Date.UTC(year + 1, 0, 1)));
}

/**
 * Years a record needs covered, first and last (inclusive); the last is
 * Infinity for a series that never ends (it then reaches the zone's era,
 * or ERA_CHECK_END).
 */
export type YearSpan = readonly [number, number];

const validSpan = ([from, to]: YearSpan): boolean => Number.isInteger(from) && from >= 1 && (Number.isInteger(to) || to === Infinity) && from <= to;

/**
 * Runs of consecutive years: the spans, each widened by a year either side,
 * merged, in order, none past `last`, at most MAX_YEARS in all.
 */
export function coveredYears(spans: ReadonlyArray<YearSpan>, last = 9999): Array<[number, number]> {
  const sorted = spans
    .filter(validSpan)
    .map(([from, to]) => [Math.max(1, from - 1), Math.min(last, 9999, to + 1)] as [number, number])
    .filter(([from, to]) => from <= to)
    .sort((a, b) => a[0] - b[0]);
  const runs: Array<[number, number]> = [];
  let years = 0;
  for (const [from, to] of sorted) {
    const previous = runs.at(-1);
    const start = previous !== undefined && from <= previous[1] + 1 ? previous[1] + 1 : from;
    if (start > to) continue;
    const end = Math.min(to, start + (MAX_YEARS - years) - 1);
    if (end < start) break;
    if (previous !== undefined && start === previous[1] + 1) previous[1] = end;
    else runs.push([start, end]);
    years += end - start + 1;
  }
  return runs;
}

const WEEKDAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"] as const;

/** A yearly rule for the day of one change: its RRULE parts after BYMONTH, and whether it gives `day` in a year. */
interface DayRule {
  readonly text: string;
  matches(year: number, month: number, day: number): boolean;
}

const weekdayOf = (year: number, month: number, day: number): number => (new Date(Date.UTC(year, month - 1, day)).getUTCDay() + 6) % 7;
const daysIn = (year: number, month: number): number => new Date(Date.UTC(year, month, 0)).getUTCDate();

/**
 * The yearly rules that give a change's local date, most usual first: its
 * weekday's nth or last in the month, the weekday on or after a day (Chile's
 * `Sun>=2`), the fixed day. Each gives one day a year, so a rule that gives
 * every year's change gives no other.
 */
function dayRules(local: DateTime): DayRule[] {
  const { month, day } = local;
  const weekday = weekdayOf(local.year, month, day);
  const name = WEEKDAYS[weekday] ?? "SU";
  const sameWeekday = (year: number, d: number): boolean => weekdayOf(year, month, d) === weekday;
  const rules: DayRule[] = [];
  const nth = Math.ceil(day / 7);
  if (nth <= 4) rules.push({ text: `BYDAY=${nth}${name}`, matches: (year, m, d) => m === month && sameWeekday(year, d) && Math.ceil(d / 7) === nth });
  if (day + 7 > daysIn(local.year, month)) rules.push({ text: `BYDAY=-1${name}`, matches: (year, m, d) => m === month && sameWeekday(year, d) && d + 7 > daysIn(year, month) });
  // Seven days that every year's month has (February's 28 at most).
  const shortest = month === 2 ? 28 : daysIn(2001, month);
  for (let first = Math.max(1, day - 6); first <= day && first + 6 <= shortest; first++) {
    if ((first - 1) % 7 === 0) continue;
    const days = Array.from({ length: 7 }, (_, i) => first + i);
    rules.push({ text: `BYMONTHDAY=${days.join(",")};BYDAY=${name}`, matches: (year, m, d) => m === month && sameWeekday(year, d) && d >= first && d < first + 7 });
  }
  if (day <= 28) rules.push({ text: `BYMONTHDAY=${day}`, matches: (_year, m, d) => m === month && d === day });
  return rules;
}

/** The zone's final rules: from `from` (a year) on, each year's changes are those the rules give. */
interface Era {
  from: number;
  /** One per change of a year, in the year's order (none: one offset all year). */
  rules: string[];
}

const eras = new BoundedMemo<Era | null>(2000);

const timeOfDay = (t: DateTime): string => t.toFormat("HHmmss");

/**
 * The zone's era as far back as `floor` (no earlier year is needed), or
 * null when the changes of ERA_SURE_FROM to ERA_CHECK_END follow no yearly
 * rules. Each year,
 * walking back from ERA_CHECK_END, must have as many changes, between the
 * same offsets, at the same wall clock in the same months, each on a day
 * some rule that gave every later year's day gives too.
 */
function finalEra(name: string, zone: IANAZone, floor: number): Era | null {
  return eras.get(`${name}\u0000${floor}`, () => {
    const last = transitionsIn(name, zone, ERA_CHECK_END);
    const lastLocal = last.map((t) => localOf(t.at, t.from));
    let candidates = lastLocal.map(dayRules);
    if (candidates.some((rules) => rules.length === 0)) return null;
    let from = ERA_CHECK_END;
    for (let year = ERA_CHECK_END - 1; year >= Math.min(floor, ERA_SURE_FROM); year--) {
      const changes = transitionsIn(name, zone, year);
      if (changes.length !== last.length) break;
      const next = candidates.map((rules, i) => {
        const change = changes[i] as Transition;
        const model = last[i] as Transition;
        const local = localOf(change.at, change.from);
        const modelLocal = lastLocal[i] as DateTime;
        if (change.from !== model.from || change.to !== model.to || local.month !== modelLocal.month || timeOfDay(local) !== timeOfDay(modelLocal)) return [];
        return rules.filter((rule) => rule.matches(local.year, local.month, local.day));
      });
      if (next.some((rules) => rules.length === 0)) break;
      candidates = next;
      from = year;
    }
    // Fewer years than every kind of year (a rule that fits only some, as Cairo's Thursday 24:00, which is 1 November in some years).
    if (from > ERA_SURE_FROM) return null;
    return { from, rules: candidates.map((rules, i) => `FREQ=YEARLY;BYMONTH=${(lastLocal[i] as DateTime).month};${(rules[0] as DayRule).text}`) };
  });
}

/** Overlapping and adjacent spans merged, in order: the same years, a shorter memo key. */
function mergedSpans(spans: ReadonlyArray<YearSpan>): Array<[number, number]> {
  const merged: Array<[number, number]> = [];
  for (const [from, to] of spans.filter(validSpan).sort((a, b) => a[0] - b[0] || a[1] - b[1])) {
    const previous = merged.at(-1);
    if (previous !== undefined && from <= previous[1] + 1) previous[1] = Math.max(previous[1], to);
    else merged.push([from, to]);
  }
  return merged;
}

/** The VTIMEZONE of an IANA zone covering the spans of years given (see YearSpan). */
export function vtimezone(name: string, spans: ReadonlyArray<YearSpan>): string {
  const merged = mergedSpans(spans);
  return components.get(`${name}\u0000${merged.map(([a, b]) => `${a}-${b}`).join(",")}`, () => {
    const zone = IANAZone.create(name);
    const lines = ["BEGIN:VTIMEZONE", `TZID:${name}`];
    // No year before the first span's (widened) is needed, so the era need not be followed back further.
    const floor = Math.max(1, (merged[0]?.[0] ?? ERA_CHECK_END) - 1);
    const era = finalEra(name, zone, floor);
    // The era's observances begin with the first year that needs them; before it, year by year.
    const eraStart = era === null ? null : Math.max(era.from, floor);
    const runs = coveredYears(
      merged.map(([from, to]) => [from, to === Infinity ? ERA_CHECK_END : to]),
      eraStart === null ? 9999 : eraStart - 1,
    );
    for (const [fromYear, toYear] of runs) {
      // The offset in force when the run begins, then each change within it.
      const start = Date.UTC(fromYear, 0, 1);
      const initial = offsetAt(zone, start);
      lines.push(...observance(name, start, initial, initial));
      for (let year = fromYear; year <= toYear; year++) for (const t of transitionsIn(name, zone, year)) lines.push(...observance(name, t.at, t.from, t.to));
    }
    if (era !== null && eraStart !== null) {
      // Where no run ends just before the era, the offset in force as it begins (a zone without DST: its one observance).
      if (runs.at(-1)?.[1] !== eraStart - 1 || era.rules.length === 0) {
        const start = Date.UTC(eraStart, 0, 1);
        const initial = offsetAt(zone, start);
        lines.push(...observance(name, start, initial, initial));
      }
      const first = transitionsIn(name, zone, eraStart);
      era.rules.forEach((rule, i) => {
        const t = first[i] as Transition;
        lines.push(...observance(name, t.at, t.from, t.to, rule));
      });
    }
    lines.push("END:VTIMEZONE");
    return lines.join("\r\n");
  });
}

/**
 * A generator for ical-generator's calendar: the VTIMEZONE of each zone it
 * is asked for, covering the years of the feed's records (`spans`, with the
 * year before and after each, so that an event near New Year, read in any
 * zone, is covered), and every year after the zone's era begins.
 */
export function vtimezoneGenerator(spans: ReadonlyArray<YearSpan>): (zone: string) => string | null {
  const merged = mergedSpans(spans);
  // No events, no zones to describe.
  if (merged.length === 0) return () => null;
  return (zone) => (hasVtimezone(zone) ? vtimezone(zone, merged) : null);
}
