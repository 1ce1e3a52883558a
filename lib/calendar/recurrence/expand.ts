/**
 * Expanding a series: its occurrences from its own start up to a horizon.
 *
 * Rules are expanded in the event's wall clock (ical.js's iterator on
 * floating times), and each occurrence's wall clock is then placed in the
 * event's zone with the API's own rules (PHP's, for a wall clock in a DST
 * gap or overlap): 19:00 in Rome stays 19:00 in summer and in winter. An
 * occurrence lasts as long as the series' first one on the wall clock (a
 * start moved out of a DST gap moves its end along); all-day occurrences
 * are whole days of the zone, as all-day events are.
 *
 * RDATE and EXDATE values written in UTC or with a TZID are first moved to
 * the event's wall clock. An EXDATE date (no time) removes every occurrence
 * starting that day; an RDATE date (no time) of a timed series starts at
 * the series' time of day.
 */
import ICAL from "ical.js";
import { DateTime, type Duration } from "luxon";
import { eventTimes, luxonZone, type EventTimeFields } from "../event-times";
import type { ParsedRecurrence, ParsedRule, RuleDate } from "./rules";
import { RecurrenceError, ruleDay } from "./rules";

/** What one occurrence stores: its times, as an event's time fields. */
export type OccurrenceTimes = Pick<EventTimeFields, "start_local" | "end_local" | "start_utc" | "end_utc">;

/** An occurrence: its key (the wall clock its rule made it at, RFC 5545's RECURRENCE-ID) and its times. */
export interface ExpandedOccurrence {
  key: string;
  times: OccurrenceTimes;
}

export interface SeriesBase {
  /** The series' own (first) start and end, wall clocks `YYYY-MM-DD HH:MM:SS` in `zone`. */
  startLocal: string;
  endLocal: string;
  zone: string;
  allDay: boolean;
}

/** A series may have at most this many occurrences up to the horizon (daily for 2 years is 731). */
export const MAX_OCCURRENCES = 5000;

const SQL = "yyyy-MM-dd HH:mm:ss";

function wall(text: string): DateTime {
  // Wall clocks as UTC DateTimes: arithmetic on them is wall-clock arithmetic, with no DST in between.
  return DateTime.fromFormat(text, SQL, { zone: "UTC" });
}

/** A RuleDate as a wall clock in `zone` (`YYYY-MM-DD HH:MM:SS`), or only its day (`YYYY-MM-DD`) for a DATE value. */
function wallOf(d: RuleDate, zone: string): string {
  const pad = (n: number): string => String(n).padStart(2, "0");
  const day = ruleDay(d);
  if (d.time === undefined) return day;
  const { hour, minute, second } = d.time;
  if (d.zone === undefined) return `${day} ${pad(hour)}:${pad(minute)}:${pad(second)}`;
  const from = d.zone === "utc" ? "UTC" : d.zone;
  return DateTime.fromObject({ year: d.year, month: d.month, day: d.day, hour, minute, second }, { zone: from }).setZone(luxonZone(zone)).toFormat(SQL);
}

function icalTime(wallClock: string, isDate: boolean): ICAL.Time {
  const w = wall(wallClock);
  return ICAL.Time.fromData({ year: w.year, month: w.month, day: w.day, hour: isDate ? 0 : w.hour, minute: isDate ? 0 : w.minute, second: isDate ? 0 : w.second, isDate });
}

function wallText(t: ICAL.Time): string {
  const pad = (n: number, w = 2): string => String(n).padStart(w, "0");
  return `${pad(t.year, 4)}-${pad(t.month)}-${pad(t.day)} ${pad(t.hour)}:${pad(t.minute)}:${pad(t.second)}`;
}

/** What every occurrence of a series shares: its first times, its length, its time of day. */
interface SeriesShape {
  base: SeriesBase;
  /** The wall-clock length of a timed occurrence. */
  length: Duration;
  /** The number of whole days an all-day occurrence spans after its first. */
  days: number;
  /** `HH:MM:SS` of the series' start: all-day rules and RDATE dates start there. */
  timeOfDay: string;
}

function seriesShape(base: SeriesBase): SeriesShape {
  const first = eventTimes(base.startLocal, base.endLocal, base.zone, base.allDay);
  if (first === null) throw new RecurrenceError("the series' start or end is not a real date.");
  return {
    base,
    length: wall(first.end_local).diff(wall(first.start_local)),
    days: wall(first.end_local.slice(0, 10) + " 00:00:00").diff(wall(first.start_local.slice(0, 10) + " 00:00:00")).as("days"),
    timeOfDay: base.startLocal.slice(11),
  };
}

/** The starts (wall clocks) one rule makes, first to last, lazily: a rule without COUNT or UNTIL never ends. */
function* ruleStarts(rule: ParsedRule, shape: SeriesShape): Generator<string, void> {
  const { base } = shape;
  // ical.js refuses some rules only once it expands them (`Invalid BYYEARDAY rule`): the client's rule, reported as such.
  const expanding = <T>(work: () => T): T => {
    try {
      return work();
    } catch (err) {
      throw new RecurrenceError(`recurrence: the rule ${rule.text} cannot be expanded${err instanceof Error ? ` (${err.message})` : ""}.`);
    }
  };
  const iterator = expanding(() => {
    const recur = ICAL.Recur.fromString(rule.text);
    if (rule.until !== undefined) {
      // UNTIL on the wall clock: a UTC or zoned value moved to the event's zone; a date alone is the whole day.
      const until = wallOf(rule.until, base.zone);
      recur.until = until.length === 10 ? icalTime(`${until} 23:59:59`, base.allDay) : icalTime(until, base.allDay);
    }
    return recur.iterator(icalTime(base.startLocal, base.allDay));
  });
  for (let next = expanding(() => iterator.next()); next; next = expanding(() => iterator.next())) {
    yield base.allDay ? `${wallText(next).slice(0, 10)} ${shape.timeOfDay}` : wallText(next);
  }
}

/** The start an RDATE adds: a date alone starts at the series' time of day. */
function rdateStart(d: RuleDate, shape: SeriesShape): string {
  const w = wallOf(d, shape.base.zone);
  return w.length === 10 ? `${w} ${shape.timeOfDay}` : shape.base.allDay ? `${w.slice(0, 10)} ${shape.timeOfDay}` : w;
}

/** Whether EXDATE removes a start: a date-time removes that start, a date (or any EXDATE of an all-day series) the whole day. */
function exclusions(recurrence: ParsedRecurrence, base: SeriesBase): (start: string) => boolean {
  const excluded = recurrence.exdates.map((d) => wallOf(d, base.zone));
  const excludedDays = new Set(excluded.filter((w) => w.length === 10 || base.allDay).map((w) => w.slice(0, 10)));
  const excludedTimes = new Set(excluded.filter((w) => w.length > 10));
  return (start) => excludedTimes.has(start) || excludedDays.has(start.slice(0, 10));
}

/** The occurrence a start makes, or null past year 9999 (a wall clock a rule makes is otherwise a real date). */
function occurrenceAt(start: string, shape: SeriesShape): ExpandedOccurrence | null {
  const { base } = shape;
  // All-day: the same number of whole days. Timed: the same length on the wall clock, read as the API reads
  // an event's wall clocks; a start moved out of a DST gap moves its end along.
  const endOf = (from: string): string => (base.allDay ? `${wall(from).plus({ days: shape.days }).toFormat("yyyy-MM-dd")} 00:00:00` : wall(from).plus(shape.length).toFormat(SQL));
  let times = eventTimes(start, endOf(start), base.zone, base.allDay);
  if (times !== null && !base.allDay && times.start_local !== start) times = eventTimes(times.start_local, endOf(times.start_local), base.zone, false);
  if (times === null) return null;
  return { key: start, times: { start_local: times.start_local, end_local: times.end_local, start_utc: times.start_utc, end_utc: times.end_utc } };
}

/**
 * The occurrences of a series whose start is at or before `horizon` (a
 * wall clock in the series' zone), first to last: the series' own start
 * first. Throws RecurrenceError past MAX_OCCURRENCES.
 */
export function expandSeries(recurrence: ParsedRecurrence, base: SeriesBase, horizon: string): ExpandedOccurrence[] {
  const shape = seriesShape(base);
  const starts = new Set<string>([base.startLocal]);
  const tooMany = (): never => {
    throw new RecurrenceError(`recurrence makes more than ${MAX_OCCURRENCES} occurrences up to ${horizon.slice(0, 10)}: give COUNT or UNTIL, or a less frequent rule.`);
  };

  for (const rule of recurrence.rules) {
    for (const text of ruleStarts(rule, shape)) {
      if (text > horizon) break;
      starts.add(text);
      if (starts.size > MAX_OCCURRENCES) tooMany();
    }
  }
  for (const d of recurrence.rdates) {
    const text = rdateStart(d, shape);
    if (text <= horizon) starts.add(text);
  }
  if (starts.size > MAX_OCCURRENCES) tooMany();
  const isExcluded = exclusions(recurrence, base);

  const out: ExpandedOccurrence[] = [];
  for (const start of [...starts].sort()) {
    if (isExcluded(start)) continue;
    const occurrence = occurrenceAt(start, shape);
    if (occurrence !== null) out.push(occurrence);
  }
  return out;
}

/** What `previewSeries` found. */
export interface SeriesPreview {
  /** The first `count` occurrences starting at or after `afterUtc`, first to last (fewer when the series, the steps or the time allowed end first). */
  occurrences: ExpandedOccurrence[];
  /** Every rule has COUNT or UNTIL: the series ends. */
  bounded: boolean;
  /** How many occurrences the whole series has, when it ends within the steps and time allowed; null otherwise. */
  total: number | null;
}

/**
 * The first `count` occurrences of a series starting at or after
 * `afterUtc` (`YYYY-MM-DD HH:MM:SS` UTC; none: from the series' start),
 * with the same rules, exclusions and times as `expandSeries`, but with no
 * horizon: each rule is stepped only until it has given `count` of them,
 * and all rules together take at most `maxSteps` steps (RRULE iterations),
 * so a rule that never ends costs no more than the answer needs. With
 * steps left and a series that ends, its rules are stepped on to count it.
 *
 * `deadline` (a `Date.now()` value) also stops the stepping: one step of a
 * sparse rule (a daily rule on Mondays that are 29 February) walks ical.js
 * through years of days, which no count of steps bounds.
 */
export function previewSeries(
  recurrence: ParsedRecurrence,
  base: SeriesBase,
  opts: { count: number; afterUtc?: string; maxSteps: number; deadline?: number },
): SeriesPreview {
  const shape = seriesShape(base);
  const isExcluded = exclusions(recurrence, base);
  const after = opts.afterUtc ?? "";
  // A start whose wall clock is two days before `after`'s is before it in any zone: its times (the costly
  // part, a zone lookup each) are not computed.
  const surelyBefore = after === "" ? "" : DateTime.fromFormat(after, SQL, { zone: "UTC" }).minus({ days: 2 }).setZone(luxonZone(base.zone)).toFormat(SQL);
  let steps = 0;
  const deadline = opts.deadline ?? Number.POSITIVE_INFINITY;
  const mayStep = (): boolean => steps < opts.maxSteps && Date.now() < deadline;
  /** Every start made, kept or not (for the total), and the occurrences at or after `after`. */
  const seen = new Set<string>();
  const found = new Map<string, ExpandedOccurrence>();
  const consider = (start: string): boolean => {
    if (isExcluded(start) || seen.has(start)) return false;
    seen.add(start);
    if (start < surelyBefore) return false;
    const occurrence = occurrenceAt(start, shape);
    if (occurrence === null || occurrence.times.start_utc < after) return false;
    found.set(start, occurrence);
    return true;
  };
  consider(base.startLocal);
  // As for a rule: only the first `count` kept RDATEs can be among the first `count`; the others are only counted.
  let keptDates = 0;
  for (const start of [...new Set(recurrence.rdates.map((d) => rdateStart(d, shape)))].sort()) {
    if (keptDates < opts.count) keptDates += consider(start) ? 1 : 0;
    else if (!isExcluded(start)) seen.add(start);
  }

  const iterators = recurrence.rules.map((rule) => ({ starts: ruleStarts(rule, shape), done: false }));
  // Each rule's first `count` kept starts: together they hold the series' first `count`.
  for (const it of iterators) {
    let kept = 0;
    while (kept < opts.count && mayStep()) {
      const next = it.starts.next();
      steps++;
      if (next.done === true) {
        it.done = true;
        break;
      }
      if (consider(next.value)) kept++;
    }
  }
  const bounded = recurrence.rules.every((rule) => rule.count !== undefined || rule.until !== undefined);
  if (bounded) {
    // Counting the rest: starts past the first `count` are seen, not kept.
    for (const it of iterators) {
      while (!it.done && mayStep()) {
        const next = it.starts.next();
        steps++;
        if (next.done === true) it.done = true;
        else if (!isExcluded(next.value)) seen.add(next.value);
      }
    }
  }
  const complete = bounded && iterators.every((it) => it.done);
  const occurrences = [...found.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).slice(0, opts.count);
  return { occurrences, bounded, total: complete ? countable(seen) : null };
}

/** How many of the starts make an occurrence: a start past year 9999 (a five-digit year) makes none, as in `expandSeries`. */
function countable(starts: ReadonlySet<string>): number {
  let n = 0;
  for (const start of starts) if (/^\d{4}-/.test(start)) n++;
  return n;
}

/** The horizon as a wall clock in `zone`: `days` after `now`. */
export function horizonWall(now: Date, days: number, zone: string): string {
  return DateTime.fromJSDate(now).setZone(luxonZone(zone)).plus({ days }).toFormat(SQL);
}
