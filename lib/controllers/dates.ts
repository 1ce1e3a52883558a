/**
 * Dates as WordPress's posts controller reads and writes them: records show
 * `mysql_to_rfc3339()` wall clocks, writes take `rest_get_date_with_gmt()`'s
 * forms, and `after`/`before` filters compare site wall clocks
 * (`WP_Date_Query::build_mysql_datetime()`).
 */
import { DateTime } from "luxon";
import { localToUtc, siteZone, SQL_FORMAT, utcToLocal, ZERO_DATE } from "../posts/dates";

/** `rest_parse_date()`'s pattern: RFC 3339, `T` or a space, optional fraction and offset. */
const REST_DATE = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:[.,]\d+)?([Zz]|[+-]\d{2}(?::?\d{2})?)?$/;

/** `mysql_to_rfc3339()`: `2024-01-10 09:00:00` → `2024-01-10T09:00:00`. */
export function rfc3339(wallClock: string): string {
  return wallClock.replace(" ", "T");
}

/** A stored UTC date as a record shows it: null for the floating (zero) date. */
export function rfc3339OrNull(utc: string): string | null {
  return utc === ZERO_DATE ? null : rfc3339(utc);
}

/**
 * `rest_get_date_with_gmt()`: the local and UTC wall clocks of a date given
 * as site time (`isUtc` false) or UTC; a date with an offset is an instant
 * whatever `isUtc` says. Null when the text is no date.
 */
export function dateWithGmt(value: string, isUtc: boolean, timezone: string): { local: string; utc: string } | null {
  const m = REST_DATE.exec(value.trim());
  if (!m) return null;
  const zone = siteZone(timezone);
  const [, y, mo, d, h, mi, s, offset] = m;
  const wall = `${y}-${mo}-${d} ${h}:${mi}:${s}`;
  if (!DateTime.fromFormat(wall, SQL_FORMAT, { zone: "UTC" }).isValid) return null;
  if (offset === undefined) {
    return isUtc ? { local: utcToLocal(wall, zone), utc: wall } : { local: wall, utc: localToUtc(wall, zone) };
  }
  const instant = DateTime.fromISO(`${y}-${mo}-${d}T${h}:${mi}:${s}${offset.toUpperCase() === "Z" ? "Z" : normaliseOffset(offset)}`, { setZone: true });
  if (!instant.isValid) return null;
  const utc = instant.toUTC().toFormat(SQL_FORMAT);
  return { local: utcToLocal(utc, zone), utc };
}

function normaliseOffset(offset: string): string {
  const digits = offset.slice(1).replace(":", "");
  return `${offset[0]}${digits.slice(0, 2)}:${digits.length > 2 ? digits.slice(2, 4) : "00"}`;
}

/** A bound of `after`/`before`: a date with an offset is that instant in site time; one without is site time already. */
export function siteWallClock(value: string, timezone: string): string | null {
  return dateWithGmt(value, false, timezone)?.local ?? null;
}
