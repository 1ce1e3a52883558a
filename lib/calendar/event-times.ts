import { DateTime } from "luxon";
import type { FieldValue } from "../posts/types";

export interface EventTimes {
  start_local: string;
  end_local: string;
  start_utc: string;
  end_utc: string;
  timezone: string;
  all_day: boolean;
}

const SQL = "yyyy-MM-dd HH:mm:ss";

/**
 * Luxon zone for a stored time-zone label: IANA names as they are, WordPress
 * offset labels (`UTC+2`, `UTC-5:30`) as fixed offsets.
 */
export function luxonZone(label: string): string {
  const m = /^UTC([+-])(\d{1,2})(?::?(\d{2}))?$/i.exec(label.trim());
  if (!m) return label.trim() === "" ? "UTC" : label.trim();
  const minutes = Number(m[3] ?? "0");
  return `UTC${m[1]}${Number(m[2])}${minutes ? `:${String(minutes).padStart(2, "0")}` : ""}`;
}

/**
 * The stored time fields of an event from its wall-clock start and end in
 * `zone`. All-day events span whole days (00:00:00 → 23:59:59) as in the
 * original. Returns null when a wall clock does not exist as a date.
 */
export function eventTimes(startLocal: string, endLocal: string, zone: string, allDay: boolean): EventTimes | null {
  const z = luxonZone(zone);
  let start = DateTime.fromFormat(startLocal, SQL, { zone: z });
  let end = DateTime.fromFormat(endLocal, SQL, { zone: z });
  if (!start.isValid || !end.isValid) return null;
  if (allDay) {
    start = start.startOf("day");
    end = end.set({ hour: 23, minute: 59, second: 59, millisecond: 0 });
  }
  return {
    start_local: start.toFormat(SQL),
    end_local: end.toFormat(SQL),
    start_utc: start.toUTC().toFormat(SQL),
    end_utc: end.toUTC().toFormat(SQL),
    timezone: zone,
    all_day: allDay,
  };
}

export function asFields(times: EventTimes): Record<string, FieldValue> {
  return { ...times };
}
