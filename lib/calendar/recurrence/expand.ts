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
import { DateTime } from "luxon";
import { eventTimes, luxonZone, type EventTimeFields } from "../event-times";
import type { ParsedRecurrence, RuleDate } from "./rules";
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

/**
 * The occurrences of a series whose start is at or before `horizon` (a
 * wall clock in the series' zone), first to last: the series' own start
 * first. Throws RecurrenceError past MAX_OCCURRENCES.
 */
export function expandSeries(recurrence: ParsedRecurrence, base: SeriesBase, horizon: string): ExpandedOccurrence[] {
  const first = eventTimes(base.startLocal, base.endLocal, base.zone, base.allDay);
  if (first === null) throw new RecurrenceError("the series' start or end is not a real date.");
  const length = wall(first.end_local).diff(wall(first.start_local));
  const days = wall(first.end_local.slice(0, 10) + " 00:00:00").diff(wall(first.start_local.slice(0, 10) + " 00:00:00")).as("days");
  const timeOfDay = base.startLocal.slice(11);
  const starts = new Set<string>([base.startLocal]);
  const tooMany = (): never => {
    throw new RecurrenceError(`recurrence makes more than ${MAX_OCCURRENCES} occurrences up to ${horizon.slice(0, 10)}: give COUNT or UNTIL, or a less frequent rule.`);
  };

  for (const rule of recurrence.rules) {
    const recur = ICAL.Recur.fromString(rule.text);
    if (rule.until !== undefined) {
      // UNTIL on the wall clock: a UTC or zoned value moved to the event's zone; a date alone is the whole day.
      const until = wallOf(rule.until, base.zone);
      recur.until = until.length === 10 ? icalTime(`${until} 23:59:59`, base.allDay) : icalTime(until, base.allDay);
    }
    const iterator = recur.iterator(icalTime(base.startLocal, base.allDay));
    for (let next = iterator.next(); next; next = iterator.next()) {
      const text = base.allDay ? `${wallText(next).slice(0, 10)} ${timeOfDay}` : wallText(next);
      if (text > horizon) break;
      starts.add(text);
      if (starts.size > MAX_OCCURRENCES) tooMany();
    }
  }
  for (const d of recurrence.rdates) {
    const w = wallOf(d, base.zone);
    const text = w.length === 10 ? `${w} ${timeOfDay}` : base.allDay ? `${w.slice(0, 10)} ${timeOfDay}` : w;
    if (text <= horizon) starts.add(text);
  }
  if (starts.size > MAX_OCCURRENCES) tooMany();
  const excluded = recurrence.exdates.map((d) => wallOf(d, base.zone));
  const excludedDays = new Set(excluded.filter((w) => w.length === 10 || base.allDay).map((w) => w.slice(0, 10)));
  const excludedTimes = new Set(excluded.filter((w) => w.length > 10));

  const out: ExpandedOccurrence[] = [];
  for (const start of [...starts].sort()) {
    if (excludedTimes.has(start) || excludedDays.has(start.slice(0, 10))) continue;
    // All-day: the same number of whole days. Timed: the same length on the wall clock, read as the API reads
    // an event's wall clocks; a start moved out of a DST gap moves its end along.
    const endOf = (from: string): string => (base.allDay ? `${wall(from).plus({ days }).toFormat("yyyy-MM-dd")} 00:00:00` : wall(from).plus(length).toFormat(SQL));
    let times = eventTimes(start, endOf(start), base.zone, base.allDay);
    if (times !== null && !base.allDay && times.start_local !== start) times = eventTimes(times.start_local, endOf(times.start_local), base.zone, false);
    // A wall clock the rule makes is a real date; only an overflow past year 9999 could fail.
    if (times === null) continue;
    out.push({ key: start, times: { start_local: times.start_local, end_local: times.end_local, start_utc: times.start_utc, end_utc: times.end_utc } });
  }
  return out;
}

/** The horizon as a wall clock in `zone`: `days` after `now`. */
export function horizonWall(now: Date, days: number, zone: string): string {
  return DateTime.fromJSDate(now).setZone(luxonZone(zone)).plus({ days }).toFormat(SQL);
}
