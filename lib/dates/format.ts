/**
 * Date value formats of the calendar API (reference §1): MySQL-style wall
 * clocks, `*_details` objects, zone abbreviations and ISO strings with offset.
 */
import { DateTime, IANAZone } from "luxon";
import { BoundedMemo } from "../format/memo";
import { offsetLabelMinutes, resolveZone, wallClockToInstant } from "./strtotime";

const MYSQL = "yyyy-MM-dd HH:mm:ss";

/** `YYYY-MM-DD HH:MM:SS` of `dt`'s wall clock (in its own zone). */
export function toMysql(dt: DateTime): string {
  return dt.toFormat(MYSQL);
}

/** A wall clock's fields. */
export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** Lenient split of `YYYY-MM-DD[ HH:MM[:SS]]` (single digits allowed). */
function splitWallClock(s: string): WallClock | null {
  const m = /^(\d{1,4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{1,2})(?::(\d{1,2}))?)?$/.exec(s.trim());
  if (!m) return null;
  return {
    year: Number(m[1]),
    month: Number(m[2]),
    day: Number(m[3]),
    hour: Number(m[4] ?? 0),
    minute: Number(m[5] ?? 0),
    second: Number(m[6] ?? 0),
  };
}

function isRealDate(w: WallClock): boolean {
  if (w.month < 1 || w.month > 12 || w.day < 1 || w.hour > 23 || w.minute > 59 || w.second > 59) return false;
  return w.day <= DateTime.utc(w.year, w.month, 1).daysInMonth!;
}

/**
 * The instant of a stored `YYYY-MM-DD HH:MM:SS` wall clock in `zone` (IANA
 * name or offset label), or null when it is not a real date-time
 * (`0000-00-00 00:00:00`, 30 February). Wall clocks skipped or repeated by a
 * DST change resolve as PHP's `new DateTime($s, $zone)` does. Throws
 * RangeError for an unknown zone.
 */
export function parseMysql(s: string, zone: string): DateTime | null {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(s.trim());
  if (!m) return null;
  const w = splitWallClock(s)!;
  if (!isRealDate(w)) return null;
  const dt = wallClockToInstant(w, resolveZone(zone));
  return dt.isValid ? dt : null;
}

/**
 * The `*_details` object of a wall clock: zero-padded strings, as the
 * original returns them. Throws TypeError when `wallClock` is not a date.
 */
export function dateDetails(wallClock: string): {
  year: string;
  month: string;
  day: string;
  hour: string;
  minutes: string;
  seconds: string;
} {
  const w = splitWallClock(wallClock);
  if (!w) throw new TypeError(`Not a YYYY-MM-DD HH:MM:SS value: ${wallClock}`);
  const pad = (n: number, width = 2): string => String(n).padStart(width, "0");
  return {
    year: pad(w.year, 4),
    month: pad(w.month),
    day: pad(w.day),
    hour: pad(w.hour),
    minutes: pad(w.minute),
    seconds: pad(w.second),
  };
}

/**
 * Luxon zone name for a stored time-zone setting: WordPress offset labels
 * (`UTC+2`, `UTC-5:30`, `UTC+5.5`) become luxon fixed offsets (`UTC+2`,
 * `UTC-5:30`, `UTC+5:30`; zero is `UTC`); anything else is returned trimmed,
 * empty meaning UTC. Idempotent.
 */
export function zoneForLuxon(name: string): string {
  const minutes = offsetLabelMinutes(name);
  if (minutes === null) return name.trim() === "" ? "UTC" : name.trim();
  if (minutes === 0) return "UTC";
  const abs = Math.abs(minutes);
  const mm = abs % 60;
  return `UTC${minutes < 0 ? "-" : "+"}${Math.floor(abs / 60)}${mm ? `:${String(mm).padStart(2, "0")}` : ""}`;
}

/** IANA names (any case, links included), `UTC`, and WordPress `UTC±N` labels. */
export function isValidTimeZone(name: string): boolean {
  if (typeof name !== "string") return false;
  if (offsetLabelMinutes(name) !== null || /^UTC$/i.test(name)) return true;
  // Intl also takes bare offsets such as "+05:00"; PHP settings never do.
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name)) return false;
  return IANAZone.isValidZone(name);
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function shortZoneName(zone: string, locale: string, ms: number): string {
  const key = `${locale}|${zone}`;
  let f = formatters.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(locale, { timeZone: zone, timeZoneName: "short" });
    formatters.set(key, f);
  }
  return f.formatToParts(ms).find((p) => p.type === "timeZoneName")?.value ?? "";
}

/**
 * English locales whose short names match the tz database's abbreviations for
 * the zone's region (en-US alone knows no CET/BST/AEDT, and en-GB invents
 * "GST" for Dubai where PHP prints "+04").
 */
function localesFor(zone: string): string[] {
  const z = zone.toLowerCase();
  if (z === "europe/dublin" || z === "eire") return ["en-IE"];
  if (z.startsWith("europe/") || ["gb", "gb-eire", "wet", "cet", "met", "eet", "portugal"].includes(z)) return ["en-GB"];
  if (z.startsWith("australia/")) return ["en-AU"];
  if (z === "pacific/auckland" || z === "nz" || z === "antarctica/mcmurdo") return ["en-NZ"];
  if (z.startsWith("canada/") || ["america/st_johns", "america/halifax", "america/glace_bay", "america/moncton", "america/goose_bay"].includes(z)) {
    return ["en-CA", "en-US"];
  }
  if (z === "asia/kolkata" || z === "asia/calcutta") return ["en-IN"];
  if (z === "asia/hong_kong" || z === "hongkong") return ["en-HK"];
  if (z.startsWith("africa/")) return ["en-ZA"];
  return ["en-US"];
}

/** tz-database style numeric abbreviation: `+03`, `-0330`. */
function numericAbbr(offsetMinutes: number): string {
  const abs = Math.abs(offsetMinutes);
  const mm = abs % 60;
  return `${offsetMinutes < 0 ? "-" : "+"}${String(Math.floor(abs / 60)).padStart(2, "0")}${mm ? String(mm).padStart(2, "0") : ""}`;
}

const abbreviations = new BoundedMemo<string>(5000);

/**
 * Zone abbreviation at instant `at`, like PHP's `T` format: `EST`/`EDT`,
 * `CET`/`CEST`, `BST`, `AEDT`, `UTC`; zones without a letter abbreviation get
 * the numeric form (`+03`). `zone` may be an IANA name or an offset label.
 */
export function timezoneAbbr(zone: string, at: DateTime): string {
  return timezoneAbbrAt(zone, at.toMillis());
}

/** `timezoneAbbr` at an instant given in epoch milliseconds. */
export function timezoneAbbrAt(zone: string, ms: number): string {
  if (!Number.isFinite(ms)) return abbreviations.get(`${zone}\u0000${ms}`, () => computeAbbr(zone, ms));
  // By the (UTC) day: events start at every minute of the year, but a zone
  // changes its abbreviation at most once a day. A day whose first and last
  // millisecond agree has one abbreviation throughout; the day of a change
  // is answered per instant.
  const start = Math.floor(ms / DAY_MS) * DAY_MS;
  const day = abbreviationDays.get(`${zone}\u0000${start}`, () => {
    const first = computeAbbr(zone, start);
    return first === computeAbbr(zone, start + DAY_MS - 1) ? first : "";
  });
  return day !== "" ? day : abbreviations.get(`${zone}\u0000${ms}`, () => computeAbbr(zone, ms));
}

const DAY_MS = 86_400_000;
const abbreviationDays = new BoundedMemo<string>(20000);

function computeAbbr(zone: string, ms: number): string {
  const name = zoneForLuxon(zone);
  const z = resolveZone(name);
  if (z.type !== "iana") {
    const offset = z.offset(ms);
    return offset === 0 ? "UTC" : numericAbbr(offset);
  }
  if (/^(etc\/)?(utc|uct|universal|zulu)$/i.test(name)) return "UTC";
  for (const locale of localesFor(name)) {
    const short = shortZoneName(name, locale, ms);
    if (/^[A-Z]{2,6}$/.test(short)) return short;
  }
  // The offset only when there is no letter abbreviation: it is another Intl call.
  return numericAbbr(z.offset(ms));
}

/**
 * Epoch milliseconds of a UTC `YYYY-MM-DD HH:MM:SS` value, as
 * `DateTime.fromSQL(value, { zone: "UTC" }).toMillis()` gives them (NaN for
 * what is not a real date-time), without luxon's parser for the usual case.
 */
export function utcSqlMillis(value: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(value);
  if (m) {
    const [y, mo, d, h, mi, se] = m.slice(1).map(Number) as [number, number, number, number, number, number];
    const date = new Date(0);
    date.setUTCFullYear(y, mo - 1, d);
    date.setUTCHours(h, mi, se, 0);
    // A value that does not come back unchanged (30 February, hour 24) is left to luxon's rules.
    if (date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d && date.getUTCHours() === h && date.getUTCMinutes() === mi && date.getUTCSeconds() === se) {
      return date.getTime();
    }
  }
  return DateTime.fromSQL(value, { zone: "UTC" }).toMillis();
}

/**
 * A stored wall clock in `zone` as ISO 8601 with offset, like PHP's `c`
 * format: `2017-01-05T14:23:36-05:00`. Throws TypeError for a value that is
 * not a date-time.
 */
export function isoWithOffset(wallClock: string, zone: string): string {
  // By the day, as the abbreviations: a wall-clock day whose first and last
  // second come back unchanged with one offset (no DST gap or overlap in it)
  // gives every second of it that offset.
  if (/^\d{4}-\d{2}-\d{2} (?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d$/.test(wallClock)) {
    const date = wallClock.slice(0, 10);
    const offset = isoDays.get(`${date}\u0000${zone}`, () => regularDayOffset(date, zone));
    if (offset !== "") return `${date}T${wallClock.slice(11)}${offset}`;
  }
  return exactIsoWithOffset(wallClock, zone);
}

/** The offset (`+01:00`) shared by every second of the wall-clock day `YYYY-MM-DD` in `zone`, or "" when they differ. */
function regularDayOffset(date: string, zone: string): string {
  const first = exactIsoWithOffset(`${date} 00:00:00`, zone);
  const offset = first.slice(19);
  return first === `${date}T00:00:00${offset}` && exactIsoWithOffset(`${date} 23:59:59`, zone) === `${date}T23:59:59${offset}` ? offset : "";
}

const isoDays = new BoundedMemo<string>(20000);

function exactIsoWithOffset(wallClock: string, zone: string): string {
  return isoValues.get(`${wallClock}\u0000${zone}`, () => {
    const w = splitWallClock(wallClock);
    if (!w) throw new TypeError(`Not a YYYY-MM-DD HH:MM:SS value: ${wallClock}`);
    return wallClockToInstant(w, resolveZone(zoneForLuxon(zone))).toFormat("yyyy-MM-dd'T'HH:mm:ssZZ");
  });
}

const isoValues = new BoundedMemo<string>(5000);
