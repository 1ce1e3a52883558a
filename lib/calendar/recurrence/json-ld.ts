/**
 * A series' schema.org `eventSchedule` (https://schema.org/Schedule), one
 * per RRULE: the frequency as an ISO 8601 duration, weekdays as schema.org
 * day URLs, month days, months, `byMonthWeek` for one ordinal weekday
 * (`1MO`, `-1FR`), COUNT as `repeatCount`, UNTIL as `endDate`, EXDATEs as
 * `exceptDate`. What Schedule cannot say (BYSETPOS, BYYEARDAY, BYWEEKNO,
 * mixed ordinals) is left out: search engines read the occurrences' own
 * Event entries for the exact dates.
 */
import type { JsonObject } from "../records/context";
import { parseRecurrence, ruleDay, type RuleDate } from "./rules";
import { instantOfFields, wallAt, zoneOf } from "./instants";

const FREQ_UNIT: Readonly<Record<string, string>> = { DAILY: "D", WEEKLY: "W", MONTHLY: "M", YEARLY: "Y" };
const DAYS: Readonly<Record<string, string>> = {
  MO: "https://schema.org/Monday",
  TU: "https://schema.org/Tuesday",
  WE: "https://schema.org/Wednesday",
  TH: "https://schema.org/Thursday",
  FR: "https://schema.org/Friday",
  SA: "https://schema.org/Saturday",
  SU: "https://schema.org/Sunday",
};

function part(rule: string, name: string): string | undefined {
  return new RegExp(`(?:^|;)${name}=([^;]*)`).exec(rule)?.[1];
}

/**
 * A value's day in the series' zone: a UTC or TZID date-time is an instant
 * (RFC 5545 §3.8.5.1), whose day there may differ from the one written
 * (`EXDATE:20270315T033000Z` is 14 March in New York); dates and floating
 * values are the series' own days.
 */
function zoneDay(d: RuleDate, zone: string): string {
  if (d.time === undefined || d.zone === undefined) return ruleDay(d);
  const at = instantOfFields({ year: d.year, month: d.month, day: d.day, ...d.time }, zoneOf(d.zone === "utc" ? "UTC" : d.zone));
  return wallAt(at, zoneOf(zone)).slice(0, 10);
}

/** The schedules of a series' stored lines; `start`/`end`: its own wall clocks (the start its rules repeat); `zone`: its time zone. */
export function eventSchedules(lines: readonly string[], start: string, end: string, zone: string, allDay: boolean): JsonObject[] {
  const parsed = parseRecurrence([...lines]);
  const exceptDate = [...new Set(parsed.exdates.map((d) => zoneDay(d, zone)))];
  return parsed.rules.map((rule) => {
    const schedule: JsonObject = {
      "@type": "Schedule",
      repeatFrequency: `P${part(rule.text, "INTERVAL") ?? "1"}${FREQ_UNIT[rule.freq]}`,
      startDate: start.slice(0, 10),
    };
    if (!allDay) {
      schedule.startTime = start.slice(11);
      schedule.endTime = end.slice(11);
    }
    schedule.scheduleTimezone = zone;
    const byDay = part(rule.text, "BYDAY")?.split(",") ?? [];
    const ordinals = byDay.map((d) => /^([+-]?\d+)?([A-Z]{2})$/.exec(d)).filter((m) => m !== null);
    if (ordinals.length > 0) schedule.byDay = ordinals.map((m) => DAYS[m[2]]);
    const weeks = [...new Set(ordinals.map((m) => m[1]).filter((n) => n !== undefined))];
    if (weeks.length === 1 && ordinals.every((m) => m[1] !== undefined)) schedule.byMonthWeek = Number(weeks[0]);
    const monthDays = part(rule.text, "BYMONTHDAY");
    if (monthDays !== undefined) schedule.byMonthDay = monthDays.split(",").map(Number);
    const months = part(rule.text, "BYMONTH");
    if (months !== undefined) schedule.byMonth = months.split(",").map(Number);
    if (rule.count !== undefined) schedule.repeatCount = rule.count;
    if (rule.until !== undefined) schedule.endDate = zoneDay(rule.until, zone);
    if (exceptDate.length > 0) schedule.exceptDate = exceptDate;
    return schedule;
  });
}
