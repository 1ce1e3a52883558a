/**
 * Expanding a series: its occurrences from its own start up to a horizon.
 *
 * Rules are expanded in the event's wall clock by calpress's own RRULE
 * engine (lib/calendar/recurrence/rrule.ts: days, with the series' time of
 * day), and each occurrence's wall clock is then placed in the event's zone
 * with the API's own rules (PHP's, for a wall clock in a DST gap or
 * overlap): 19:00 in Rome stays 19:00 in summer and in winter. An
 * occurrence lasts as long as the series' first one on the wall clock (a
 * start moved out of a DST gap moves its end along); all-day occurrences
 * are whole days of the zone, as all-day events are.
 *
 * RDATE and EXDATE values written in UTC or with a TZID are first moved to
 * the event's wall clock. An EXDATE date (no time) removes every occurrence
 * starting that day; an RDATE date (no time) of a timed series starts at
 * the series' time of day.
 *
 * Every expansion is bounded by a `StepBudget` (days the engine may test,
 * all rules together) besides its horizon and MAX_OCCURRENCES, so no rule,
 * however sparse, makes one run for long.
 */
import { DateTime, type Duration } from "luxon";
import { eventTimes, luxonZone, type EventTimeFields } from "../event-times";
import type { ParsedRecurrence, ParsedRule, RuleDate } from "./rules";
import { RecurrenceError, ruleDay } from "./rules";
import { dayOf, dayText, ExpansionBudgetError, neverRepeats, ruleDays, StepBudget } from "./rrule";
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

/**
 * Days the engine may test in one stored expansion, all rules together: a
 * daily rule over 1,300 years, a yearly one over 5,000 (a few tens of
 * milliseconds at most). Rules sparser than that are refused (400).
 */
export const EXPANSION_BUDGET = 500_000;

/** A budget for one expansion of a stored series. */
export function expansionBudget(): StepBudget {
  return new StepBudget(EXPANSION_BUDGET, `the recurrence is too sparse to expand: its rules test more than ${EXPANSION_BUDGET} days`);
}

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

/** The wall clock just past which a rule's UNTIL ends it (`YYYY-MM-DD HH:MM:SS` in `zone`): a date alone is that whole day. */
function untilWall(rule: ParsedRule, zone: string): string | undefined {
  if (rule.until === undefined) return undefined;
  const until = wallOf(rule.until, zone);
  return until.length === 10 ? `${until} 23:59:59` : until;
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

/**
 * The starts (wall clocks) one rule makes, first to last, lazily: the
 * series' own start first (RFC 5545: DTSTART is the first occurrence and
 * counts towards COUNT), then the days the rule keeps after it at the
 * series' time of day, up to COUNT and UNTIL (on the wall clock; an all-day
 * series compares days). `lastDay` (`YYYY-MM-DD`): the caller needs no
 * start after that day, so the engine stops stepping there.
 */
function* ruleStarts(rule: ParsedRule, shape: SeriesShape, budget: StepBudget, lastDay?: string): Generator<string, void> {
  const { base } = shape;
  const until = untilWall(rule, base.zone);
  const untilDay = until?.slice(0, 10);
  const startDay = dayOf(base.startLocal);
  let made = 1;
  yield base.startLocal;
  const stop = [lastDay, untilDay].filter((d): d is string => d !== undefined).sort()[0];
  for (const n of ruleDays(rule.parts, startDay, { budget, lastDay: stop === undefined ? undefined : dayOf(stop) })) {
    if (n === startDay) continue;
    if (rule.count !== undefined && made >= rule.count) return;
    const start = `${dayText(n)} ${shape.timeOfDay}`;
    if (until !== undefined && untilDay !== undefined && (base.allDay ? start.slice(0, 10) > untilDay : start > until)) return;
    made++;
    yield start;
  }
}

/**
 * Throws RecurrenceError, naming the line, for a rule that keeps no day
 * after the series' start ever (`FREQ=DAILY;INTERVAL=7;BYDAY=TU` from a
 * Monday): it would never repeat. Whatever its COUNT or UNTIL; at most one
 * calendar cycle of work per rule (lib/calendar/recurrence/rrule.ts).
 */
export function checkRepeats(recurrence: ParsedRecurrence, base: SeriesBase, budget: StepBudget): void {
  const startDay = dayOf(base.startLocal);
  for (const rule of recurrence.rules) {
    if (neverRepeats(rule.parts, startDay, budget)) {
      throw new RecurrenceError(`recurrence[${rule.index}]: the rule makes no occurrence after the start (${base.startLocal.slice(0, 10)}): it would never repeat.`);
    }
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
 * first. Throws RecurrenceError past MAX_OCCURRENCES, or when the rules
 * use up `budget`.
 */
export function expandSeries(recurrence: ParsedRecurrence, base: SeriesBase, horizon: string, budget: StepBudget = expansionBudget()): ExpandedOccurrence[] {
  const shape = seriesShape(base);
  const isExcluded = exclusions(recurrence, base);
  const out: ExpandedOccurrence[] = [];
  for (const start of seriesStarts(recurrence, base, horizon, budget)) {
    if (isExcluded(start)) continue;
    const occurrence = occurrenceAt(start, shape);
    if (occurrence !== null) out.push(occurrence);
  }
  return out;
}

/**
 * The wall clocks the rules and RDATEs make (EXDATEs not yet removed) at or
 * before `horizon`, sorted, each once: the series' own start first. Throws
 * RecurrenceError past MAX_OCCURRENCES or the budget.
 */
export function seriesStarts(recurrence: ParsedRecurrence, base: SeriesBase, horizon: string, budget: StepBudget = expansionBudget()): string[] {
  const shape = seriesShape(base);
  const starts = new Set<string>([base.startLocal]);
  const tooMany = (): never => {
    throw new TooManyOccurrences(`recurrence makes more than ${MAX_OCCURRENCES} occurrences up to ${horizon.slice(0, 10)}: give COUNT or UNTIL, or a less frequent rule.`);
  };
  for (const rule of recurrence.rules) {
    for (const text of ruleStarts(rule, shape, budget, horizon.slice(0, 10))) {
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
  return [...starts].sort();
}

/** More occurrences than a series may store. */
export class TooManyOccurrences extends RecurrenceError {}

/** The last wall clock any series reaches. */
const END_OF_TIME = "9999-12-31 23:59:59";

/** Whether the series ends: every rule has COUNT or UNTIL (RDATEs are finite). */
export function seriesEnds(recurrence: ParsedRecurrence): boolean {
  return recurrence.rules.every((r) => r.count !== undefined || r.until !== undefined);
}

/**
 * The occurrences a series stores. A series whose rules end is stored in
 * full, wherever it starts, when it fits MAX_OCCURRENCES and the budget;
 * otherwise (and for an open-ended series) up to its horizon: `days` after
 * the later of `now` and the series' start, so a series starting in five
 * years is stored as far ahead of its start as one starting today.
 * Throws RecurrenceError for a rule that never repeats or a series past
 * the bounds within its horizon.
 */
export function occurrencesToStore(recurrence: ParsedRecurrence, base: SeriesBase, now: Date, days: number): ExpandedOccurrence[] {
  const budget = expansionBudget();
  checkRepeats(recurrence, base, budget);
  if (seriesEnds(recurrence)) {
    try {
      return expandSeries(recurrence, base, END_OF_TIME, budget);
    } catch (err) {
      if (!(err instanceof RecurrenceError)) throw err;
      // Too long or too sparse to store in full: stored up to the horizon, as an open-ended series is.
    }
  }
  return expandSeries(recurrence, base, seriesHorizon(now, days, base));
}

/** An open-ended series' horizon: `days` after the later of `now` and its start, on its wall clock. */
export function seriesHorizon(now: Date, days: number, base: SeriesBase): string {
  const fromNow = horizonWall(now, days, base.zone);
  const fromStart = wall(base.startLocal).plus({ days }).toFormat(SQL);
  return fromNow > fromStart ? fromNow : fromStart;
}

/** What `previewSeries` found. */
export interface SeriesPreview {
  /** The first `count` occurrences starting at or after `afterUtc`, first to last (fewer when the series or the budget ends first). */
  occurrences: ExpandedOccurrence[];
  /** Every rule has COUNT or UNTIL: the series ends. */
  bounded: boolean;
  /** How many occurrences the whole series has, when it ends within the budget; null otherwise. */
  total: number | null;
}

/**
 * The first `count` occurrences of a series starting at or after
 * `afterUtc` (`YYYY-MM-DD HH:MM:SS` UTC; none: from the series' start),
 * with the same rules, exclusions and times as `expandSeries`, but with no
 * horizon: each rule is stepped only until it has given `count` of them,
 * and all rules together test at most `budget` days, so a rule that never
 * ends costs no more than the answer needs. With budget left and a series
 * that ends, its rules are stepped on to count it. Throws RecurrenceError
 * for a rule that never repeats, or one so sparse that proving it repeats
 * uses up the budget.
 */
export function previewSeries(recurrence: ParsedRecurrence, base: SeriesBase, opts: { count: number; afterUtc?: string; budget: StepBudget }): SeriesPreview {
  checkRepeats(recurrence, base, opts.budget);
  const shape = seriesShape(base);
  const isExcluded = exclusions(recurrence, base);
  const after = opts.afterUtc ?? "";
  // A start whose wall clock is two days before `after`'s is before it in any zone: its times (the costly
  // part, a zone lookup each) are not computed.
  const surelyBefore = after === "" ? "" : DateTime.fromFormat(after, SQL, { zone: "UTC" }).minus({ days: 2 }).setZone(luxonZone(base.zone)).toFormat(SQL);
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

  let outOfBudget = false;
  /** The next start of `it`, or null when the rule or the budget has ended. */
  const step = (it: { starts: Generator<string, void>; done: boolean }): string | null => {
    if (it.done || outOfBudget) return null;
    try {
      const next = it.starts.next();
      if (next.done !== true) return next.value;
      it.done = true;
    } catch (err) {
      if (!(err instanceof ExpansionBudgetError)) throw err;
      outOfBudget = true;
    }
    return null;
  };
  const iterators = recurrence.rules.map((rule) => ({ starts: ruleStarts(rule, shape, opts.budget), done: false }));
  // Each rule's first `count` kept starts: together they hold the series' first `count`.
  for (const it of iterators) {
    let kept = 0;
    for (let start = kept < opts.count ? step(it) : null; start !== null; start = kept < opts.count ? step(it) : null) {
      if (consider(start)) kept++;
    }
  }
  const bounded = seriesEnds(recurrence);
  if (bounded) {
    // Counting the rest: starts past the first `count` are seen, not kept.
    for (const it of iterators) {
      for (let start = step(it); start !== null; start = step(it)) if (!isExcluded(start)) seen.add(start);
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
