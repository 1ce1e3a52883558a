/**
 * Expanding a series: its occurrences from its own start up to a horizon.
 *
 * Rules are expanded in the event's wall clock by calpress's own RRULE
 * engine (lib/calendar/recurrence/rrule.ts: days, with the series' time of
 * day): 19:00 in Rome stays 19:00 in summer and in winter. Each
 * occurrence's wall clock is then placed in the event's zone as RFC 5545
 * §3.3.5 says (lib/calendar/recurrence/instants.ts): in a repeated hour the
 * first instant, in a DST gap the offset before the gap (02:30 → 03:30),
 * and only that occurrence moves; the others keep the series' wall clock.
 *
 * Every timed occurrence lasts exactly as long as the series' first one,
 * DTSTART to DTEND as instants (§3.8.5.3), so one that crosses a DST change
 * ends at the wall clock that exact length gives. All-day occurrences are
 * whole days of the zone, as all-day events are.
 *
 * Values written in UTC or with a TZID are instants, and are compared as
 * instants (§3.3.10 UNTIL, §3.8.5.1 EXDATE, §3.8.5.2 RDATE): a UTC UNTIL
 * ends the series at that instant, an EXDATE at 07:30Z removes the New York
 * 02:30 occurrence of the spring-forward day (whose instant is 07:30Z).
 * Floating values (no Z, no TZID) are wall clocks of the event's zone and
 * compared as wall clocks. A date alone (EXDATE, UNTIL) is that whole day;
 * an RDATE date of a timed series starts at the series' time of day.
 *
 * Every expansion is bounded by a `StepBudget` (days the engine may test,
 * all rules together) besides its horizon and MAX_OCCURRENCES, so no rule,
 * however sparse or however large its INTERVAL or COUNT, makes one run for
 * long.
 */
import { DateTime, type Zone } from "luxon";
import { eventTimes, luxonZone, type EventTimeFields } from "../event-times";
import type { ParsedRecurrence, ParsedRule, RuleDate } from "./rules";
import { RecurrenceError, ruleDay } from "./rules";
import { dayOf, dayText, ExpansionBudgetError, neverRepeats, ruleDays, StepBudget } from "./rrule";
import { instantOf, instantOfFields, utcAt, wallAt, zoneOf } from "./instants";
/** What one occurrence stores: its times, as an event's time fields. */
export type OccurrenceTimes = Pick<EventTimeFields, "start_local" | "end_local" | "start_utc" | "end_utc">;

/** An occurrence: its key (the wall clock its rule made it at, RFC 5545's RECURRENCE-ID) and its times. */
export interface ExpandedOccurrence {
  key: string;
  times: OccurrenceTimes;
}

export interface SeriesBase {
  /**
   * The series' own (first) start and end, wall clocks `YYYY-MM-DD HH:MM:SS`
   * in `zone`. The start is DTSTART as written: its rules repeat that wall
   * clock, which may be one a DST gap skips (the first occurrence then
   * starts the gap's length later, the others keep it).
   */
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

/** A RuleDate's instant (ms): a UTC value, or a TZID wall clock placed in that zone (§3.3.5); null for a floating value or a date. */
function instantOfDate(d: RuleDate): number | null {
  if (d.time === undefined || d.zone === undefined) return null;
  return instantOfFields({ year: d.year, month: d.month, day: d.day, ...d.time }, zoneOf(d.zone === "utc" ? "UTC" : d.zone));
}

/** A RuleDate as a wall clock in `zone` (`YYYY-MM-DD HH:MM:SS`), or only its day (`YYYY-MM-DD`) for a DATE value. */
function wallOf(d: RuleDate, zone: Zone): string {
  const pad = (n: number): string => String(n).padStart(2, "0");
  const day = ruleDay(d);
  if (d.time === undefined) return day;
  const at = instantOfDate(d);
  if (at === null) return `${day} ${pad(d.time.hour)}:${pad(d.time.minute)}:${pad(d.time.second)}`;
  return wallAt(at, zone);
}

/**
 * Where a rule's UNTIL ends it: a UTC (or zoned) value at that instant, a
 * floating one at that wall clock, a date alone after that whole day (of
 * the event's wall clock). `lastDay` bounds the days the engine steps
 * through (a day of margin around an instant: the wall day of an instant
 * and of a start at or before it may differ across a DST change).
 */
interface Until {
  /** A UTC or zoned value's instant (ms). */
  instant?: number;
  /** A floating date-time's wall clock. */
  wall?: string;
  /** The value's day on the event's wall clock (what an all-day series and a DATE value compare). */
  day: string;
  /** A DATE value: that whole day. */
  date: boolean;
  lastDay: string;
}

const LAST_WALL_DAY = "9999-12-31";

function untilOf(rule: ParsedRule, zone: Zone): Until | undefined {
  const u = rule.until;
  if (u === undefined) return undefined;
  const at = instantOfDate(u);
  if (at !== null) {
    // Past 9999-12-31 on the event's wall clock (a UTC UNTIL on the last day, east of Greenwich): no day after it.
    const w = wallAt(at, zone);
    const day = /^\d{4}-/.test(w) ? w.slice(0, 10) : LAST_WALL_DAY;
    return { instant: at, day, date: false, lastDay: day === LAST_WALL_DAY ? day : dayText(dayOf(day) + 1) };
  }
  const w = wallOf(u, zone);
  return w.length === 10 ? { day: w, date: true, lastDay: w } : { wall: w, day: w.slice(0, 10), date: false, lastDay: w.slice(0, 10) };
}

/** What every occurrence of a series shares: its first times, its length, its time of day. */
interface SeriesShape {
  base: SeriesBase;
  zone: Zone;
  /** The exact length (ms) of a timed occurrence: its first one's, DTSTART to DTEND as instants (§3.8.5.3). */
  length: number;
  /** The number of whole days an all-day occurrence spans after its first. */
  days: number;
  /** `HH:MM:SS` of the series' start: all-day rules and RDATE dates start there. */
  timeOfDay: string;
  /**
   * Starts whose instant is not the one §3.3.5 gives their wall clock: an
   * RDATE in UTC or with a TZID at the second pass of a repeated hour. Keyed
   * by the start (its wall clock in the event's zone): an occurrence is keyed
   * by its wall clock (its RECURRENCE-ID), so a rule's start at the same
   * wall clock that day is the same occurrence, at the RDATE's instant.
   */
  pinned: Map<string, number>;
}

function seriesShape(base: SeriesBase, recurrence: ParsedRecurrence): SeriesShape {
  // Real dates, as an event's are.
  const first = eventTimes(base.startLocal, base.endLocal, base.zone, base.allDay);
  if (first === null) throw new RecurrenceError("the series' start or end is not a real date.");
  const zone = zoneOf(base.zone);
  const pinned = new Map<string, number>();
  for (const d of recurrence.rdates) {
    const at = instantOfDate(d);
    if (at === null || base.allDay) continue;
    const key = wallAt(at, zone);
    if (instantOf(key, zone) !== at) pinned.set(key, at);
  }
  return {
    base,
    zone,
    length: base.allDay ? 0 : Math.max(0, (instantOf(base.endLocal, zone) ?? 0) - (instantOf(base.startLocal, zone) ?? 0)),
    days: wall(first.end_local.slice(0, 10) + " 00:00:00").diff(wall(first.start_local.slice(0, 10) + " 00:00:00")).as("days"),
    timeOfDay: base.startLocal.slice(11),
    pinned,
  };
}

/** The instant (ms) a timed start makes: a pinned RDATE's own, else its wall clock's (§3.3.5). */
function startInstant(start: string, shape: SeriesShape): number | null {
  return shape.pinned.get(start) ?? instantOf(start, shape.zone);
}

/**
 * The starts (wall clocks) one rule makes, first to last, lazily: the
 * series' own start first (RFC 5545: DTSTART is the first occurrence and
 * counts towards COUNT), then the days the rule keeps after it at the
 * series' time of day, up to COUNT and UNTIL (an instant, a wall clock or
 * a day, as written; an all-day series compares days). `lastDay`
 * (`YYYY-MM-DD`): the caller needs no start after that day, so the engine
 * stops stepping there.
 */
function* ruleStarts(rule: ParsedRule, shape: SeriesShape, budget: StepBudget, lastDay?: string): Generator<string, void> {
  const { base } = shape;
  const until = untilOf(rule, shape.zone);
  const startDay = dayOf(base.startLocal);
  /** Whether a start is past UNTIL. Starts are days apart at one time of day, so their instants increase too: the first past it ends the rule. */
  const pastUntil = (start: string): boolean => {
    if (until === undefined) return false;
    if (until.date || base.allDay) return start.slice(0, 10) > until.day;
    if (until.wall !== undefined) return start > until.wall;
    const at = instantOf(start, shape.zone);
    return at !== null && until.instant !== undefined && at > until.instant;
  };
  let made = 1;
  yield base.startLocal;
  const stop = [lastDay, until?.lastDay].filter((d): d is string => d !== undefined).sort()[0];
  for (const n of ruleDays(rule.parts, startDay, { budget, lastDay: stop === undefined ? undefined : dayOf(stop) })) {
    if (n === startDay) continue;
    if (rule.count !== undefined && made >= rule.count) return;
    const start = `${dayText(n)} ${shape.timeOfDay}`;
    if (pastUntil(start)) return;
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
  const w = wallOf(d, shape.zone);
  return w.length === 10 ? `${w} ${shape.timeOfDay}` : shape.base.allDay ? `${w.slice(0, 10)} ${shape.timeOfDay}` : w;
}

/**
 * Whether EXDATE removes a start. A date removes the whole day (as does any
 * EXDATE of an all-day series, on the event's wall clock); a floating
 * date-time the start at that wall clock; a UTC or TZID date-time the start
 * at that instant (§3.8.5.1: the same value type as DTSTART, compared as
 * the instants both denote).
 */
function exclusions(recurrence: ParsedRecurrence, shape: SeriesShape): (start: string) => boolean {
  const { base, zone } = shape;
  const excludedDays = new Set<string>();
  const excludedWalls = new Set<string>();
  const excludedInstants = new Set<number>();
  for (const d of recurrence.exdates) {
    const at = instantOfDate(d);
    if (d.time === undefined || base.allDay) excludedDays.add(wallOf(d, zone).slice(0, 10));
    else if (at === null) excludedWalls.add(wallOf(d, zone));
    else excludedInstants.add(at);
  }
  return (start) => {
    if (excludedWalls.has(start) || excludedDays.has(start.slice(0, 10))) return true;
    if (excludedInstants.size === 0) return false;
    const at = startInstant(start, shape);
    return at !== null && excludedInstants.has(at);
  };
}

const REAL_YEAR = /^\d{4}-/;

/** The occurrence a start makes, or null past year 9999 (a wall clock a rule makes is otherwise a real date). */
function occurrenceAt(start: string, shape: SeriesShape): ExpandedOccurrence | null {
  const { base, zone } = shape;
  if (!REAL_YEAR.test(start)) return null;
  if (base.allDay) {
    // The same number of whole days, as all-day events are stored.
    const times = eventTimes(start, `${wall(start).plus({ days: shape.days }).toFormat("yyyy-MM-dd")} 00:00:00`, base.zone, true);
    return times === null ? null : withinYears(start, pick(times));
  }
  // §3.3.5 places the start; the end is the exact length later (§3.8.5.3), whatever the wall clock shows then.
  const from = startInstant(start, shape);
  if (from === null) return null;
  const to = from + shape.length;
  return withinYears(start, { start_local: wallAt(from, zone), end_local: wallAt(to, zone), start_utc: utcAt(from), end_utc: utcAt(to) });
}

/** The occurrence, or null when a time of it is past year 9999 (the datetime columns end there). */
function withinYears(key: string, times: OccurrenceTimes): ExpandedOccurrence | null {
  return Object.values(times).every((t) => REAL_YEAR.test(t)) ? { key, times } : null;
}

function pick(t: EventTimeFields): OccurrenceTimes {
  return { start_local: t.start_local, end_local: t.end_local, start_utc: t.start_utc, end_utc: t.end_utc };
}

/**
 * The occurrences of a series whose start is at or before `horizon` (a
 * wall clock in the series' zone), first to last: the series' own start
 * first. Throws RecurrenceError past MAX_OCCURRENCES, or when the rules
 * use up `budget`.
 */
export function expandSeries(recurrence: ParsedRecurrence, base: SeriesBase, horizon: string, budget: StepBudget = expansionBudget()): ExpandedOccurrence[] {
  const shape = seriesShape(base, recurrence);
  const isExcluded = exclusions(recurrence, shape);
  const out: ExpandedOccurrence[] = [];
  for (const start of startsOf(recurrence, shape, horizon, budget)) {
    if (isExcluded(start)) continue;
    const occurrence = occurrenceAt(start, shape);
    if (occurrence !== null) out.push(occurrence);
  }
  return out;
}

/**
 * The wall clocks the rules and RDATEs make (EXDATEs not yet removed) at or
 * before `horizon`, sorted, each once (one per instant): the series' own
 * start first. Throws RecurrenceError past MAX_OCCURRENCES or the budget.
 */
export function seriesStarts(recurrence: ParsedRecurrence, base: SeriesBase, horizon: string, budget: StepBudget = expansionBudget()): string[] {
  return startsOf(recurrence, seriesShape(base, recurrence), horizon, budget);
}

function startsOf(recurrence: ParsedRecurrence, shape: SeriesShape, horizon: string, budget: StepBudget): string[] {
  const starts = new Set<string>([shape.base.startLocal]);
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
  const rdateOnly = new Set<string>();
  for (const d of recurrence.rdates) {
    const text = rdateStart(d, shape);
    if (text > horizon || starts.has(text)) continue;
    rdateOnly.add(text);
  }
  for (const text of rdateOnly) starts.add(text);
  const duplicates = duplicateStarts(starts, rdateOnly, shape);
  if (starts.size - duplicates.size > MAX_OCCURRENCES) tooMany();
  return [...starts].filter((s) => !duplicates.has(s)).sort();
}

/**
 * The starts to leave out because another start has the same instant
 * (§3.8.5.3: duplicate instances are ignored). Two wall clocks are one
 * instant only when one is in a DST gap (02:00 placed at 03:00) or an
 * RDATE is pinned, and a rule makes one start a day at one time of day, so
 * only an RDATE's start can meet another: only the starts within a day of
 * an RDATE-made one (`rdateOnly`, made by no rule) are placed. Of starts
 * at one instant the rules' (the series' own start included) is kept, its
 * key (RECURRENCE-ID) the rule's wall clock; among RDATEs' the first.
 */
function duplicateStarts(starts: Iterable<string>, rdateOnly: ReadonlySet<string>, shape: SeriesShape): Set<string> {
  const dropped = new Set<string>();
  if (rdateOnly.size === 0 || shape.base.allDay) return dropped;
  const days = new Set<string>();
  for (const key of rdateOnly) {
    const n = dayOf(key);
    for (const d of [n - 1, n, n + 1]) days.add(dayText(d));
  }
  const byInstant = new Map<number, string[]>();
  for (const key of starts) {
    if (!days.has(key.slice(0, 10))) continue;
    const at = startInstant(key, shape);
    if (at === null) continue;
    const group = byInstant.get(at);
    if (group === undefined) byInstant.set(at, [key]);
    else group.push(key);
  }
  for (const group of byInstant.values()) {
    if (group.length < 2) continue;
    group.sort();
    const kept = group.find((k) => !rdateOnly.has(k)) ?? group[0];
    for (const k of group) if (k !== kept) dropped.add(k);
  }
  return dropped;
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
  const shape = seriesShape(base, recurrence);
  const isExcluded = exclusions(recurrence, shape);
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
  // Every RDATE (at most MAX_RECURRENCE_DATES): one may turn out to repeat a rule's instant and be left out.
  const rdateKeys = new Set(recurrence.rdates.map((d) => rdateStart(d, shape)));
  for (const start of [...rdateKeys].sort()) consider(start);
  /** RDATE starts a rule makes too (the rule's, then). */
  const ruleMade = new Set<string>([base.startLocal]);
  const fromRule = (start: string): string => {
    if (rdateKeys.has(start)) ruleMade.add(start);
    return start;
  };

  let outOfBudget = false;
  /** The next start of `it`, or null when the rule or the budget has ended. */
  const step = (it: { starts: Generator<string, void>; done: boolean }): string | null => {
    if (it.done || outOfBudget) return null;
    try {
      const next = it.starts.next();
      if (next.done !== true) return fromRule(next.value);
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
  // One occurrence per instant, as `expandSeries` keeps (a rule's start met later than its RDATE twin is still known here).
  const duplicates = duplicateStarts(seen, new Set([...rdateKeys].filter((k) => !ruleMade.has(k))), shape);
  for (const key of duplicates) {
    found.delete(key);
    seen.delete(key);
  }
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
