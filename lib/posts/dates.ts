import { DateTime, FixedOffsetZone, IANAZone, Zone } from "luxon";
import { EngineError } from "../engine-errors";

/** WordPress's storage format for post dates. */
export const SQL_FORMAT = "yyyy-MM-dd HH:mm:ss";
/** WordPress's "no date yet" value of `post_date_gmt` for drafts (a floating date). */
export const ZERO_DATE = "0000-00-00 00:00:00";

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})$/;

/**
 * The site time zone option as a luxon zone. WordPress stores either an IANA
 * name or a manual offset written `UTC+5`, `UTC-3.5` (decimal hours); luxon
 * itself understands `UTC+5` and `UTC+5:30` but not the decimal form, so the
 * offsets are converted here. Never the process zone.
 */
export function siteZone(name: string): Zone {
  const z = parseZone(name);
  if (!z) throw new EngineError("invalid_timezone", `unknown time zone: ${name}`);
  return z;
}

export function parseZone(name: string): Zone | undefined {
  const n = name.trim();
  if (n === "" || n === "UTC" || n === "Z") return FixedOffsetZone.utcInstance;
  const m = /^UTC([+-])(\d{1,2})(?:(?:\.(\d+))|(?::(\d{2})))?$/i.exec(n);
  if (m) {
    const sign = m[1] === "-" ? -1 : 1;
    const hours = Number(m[2]);
    const minutes = m[3] !== undefined ? Math.round(Number(`0.${m[3]}`) * 60) : m[4] !== undefined ? Number(m[4]) : 0;
    const total = sign * (hours * 60 + minutes);
    if (Math.abs(total) > 14 * 60) return undefined;
    return FixedOffsetZone.instance(total);
  }
  if (IANAZone.isValidZone(n)) return IANAZone.create(n);
  return undefined;
}

/** Checks and normalises a stored date (`T` separator accepted); the zero date passes. */
export function normaliseSqlDate(value: string, field: string): string {
  const v = value.trim();
  if (v === ZERO_DATE) return v;
  const m = DATE_RE.exec(v);
  if (!m) throw new EngineError("invalid_date", `${field} must be YYYY-MM-DD HH:MM:SS`, { field });
  const dt = DateTime.fromObject(
    { year: +m[1], month: +m[2], day: +m[3], hour: +m[4], minute: +m[5], second: +m[6] },
    { zone: FixedOffsetZone.utcInstance },
  );
  if (!dt.isValid) throw new EngineError("invalid_date", `${field} is not a valid date`, { field });
  return dt.toFormat(SQL_FORMAT);
}

/** Wall-clock time in `zone` → the same instant as UTC wall clock. */
export function localToUtc(local: string, zone: Zone): string {
  const dt = DateTime.fromFormat(local, SQL_FORMAT, { zone });
  return dt.toUTC().toFormat(SQL_FORMAT);
}

/** UTC wall clock → wall-clock time in `zone`. */
export function utcToLocal(utc: string, zone: Zone): string {
  const dt = DateTime.fromFormat(utc, SQL_FORMAT, { zone: FixedOffsetZone.utcInstance });
  return dt.setZone(zone).toFormat(SQL_FORMAT);
}

export function formatUtc(now: Date): string {
  return DateTime.fromJSDate(now, { zone: FixedOffsetZone.utcInstance }).toFormat(SQL_FORMAT);
}

export function formatLocal(now: Date, zone: Zone): string {
  return DateTime.fromJSDate(now).setZone(zone).toFormat(SQL_FORMAT);
}

export interface DerivedDates {
  dateLocal: string;
  dateUtc: string;
}

/**
 * WordPress's date rules for a post (wp_insert_post): both given → stored as
 * given; one given → the other derived through the site zone; none → now,
 * except that a draft/pending post without a date gets the floating UTC date
 * (`0000-00-00 00:00:00`) and the current site time as its local date.
 */
export function derivePostDates(
  input: { dateLocal?: string; dateUtc?: string },
  zone: Zone,
  now: Date,
  floatingIfMissing: boolean,
): DerivedDates {
  const local = input.dateLocal !== undefined && input.dateLocal !== "" ? normaliseSqlDate(input.dateLocal, "dateLocal") : undefined;
  const utc = input.dateUtc !== undefined && input.dateUtc !== "" ? normaliseSqlDate(input.dateUtc, "dateUtc") : undefined;
  if (local !== undefined && utc !== undefined) return { dateLocal: local, dateUtc: utc };
  if (local !== undefined && local !== ZERO_DATE) return { dateLocal: local, dateUtc: localToUtc(local, zone) };
  if (utc !== undefined && utc !== ZERO_DATE) return { dateLocal: utcToLocal(utc, zone), dateUtc: utc };
  const nowLocal = formatLocal(now, zone);
  if (floatingIfMissing || utc === ZERO_DATE) return { dateLocal: nowLocal, dateUtc: ZERO_DATE };
  return { dateLocal: nowLocal, dateUtc: formatUtc(now) };
}
