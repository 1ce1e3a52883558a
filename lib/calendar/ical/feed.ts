/**
 * Event records as an iCalendar (RFC 5545) feed: one VEVENT per record of
 * the events list, so that the feed shows exactly what the JSON list shows
 * to the same reader (filters, paging, visibility, password masking) — it
 * is built from the same records, not from the posts.
 *
 * ical-generator writes the properties, text escaping (`\,` `\;` `\n`) and
 * line folding (75 octets); this module decides what goes in them. Nothing
 * here reads the clock: the same records give the same bytes.
 */
import { ICalCalendar, type ICalEventData, type ICalLocation, type ICalOrganizer } from "ical-generator";
import { DateTime } from "luxon";
import { plainText } from "../../format/plain-text";
import type { Json, JsonObject } from "../records/context";
import { str } from "../records/common";
import { hasVtimezone, vtimezoneGenerator, type YearSpan } from "./vtimezone";
import { feedRecurrence, type FeedRecurrence } from "../recurrence/ical";
import { parseRecurrence, type ParsedRecurrence } from "../recurrence/rules";

export const ICAL_CONTENT_TYPE = "text/calendar; charset=utf-8";

export interface FeedSite {
  /** The site's host name: event UIDs are `<id>@<host>`, stable across requests and pages. */
  readonly host: string;
  /** The calendar's name (X-WR-CALNAME): the site name. */
  readonly name: string;
}

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function objects(value: Json | undefined): JsonObject[] {
  if (Array.isArray(value)) return value.filter(isObject);
  return isObject(value) ? [value] : [];
}

/** Rendered HTML to plain text that keeps its paragraphs and line breaks (DESCRIPTION is read as text). */
export function plainParagraphs(html: string): string {
  return html
    .split(/<br\s*\/?>|<\/p\s*>|<\/(?:h[1-6]|li|div|blockquote)\s*>/i)
    .map(plainText)
    .filter((line) => line !== "")
    .join("\n");
}

const utc = (sql: string): DateTime => DateTime.fromSQL(sql, { zone: "UTC" });

/** `YYYY-MM-DD` of a wall clock `YYYY-MM-DD HH:MM:SS`, as a date-only value. */
const day = (sql: string): DateTime => DateTime.fromISO(sql.slice(0, 10), { zone: "UTC" });

function location(record: JsonObject): ICalLocation | undefined {
  const [venue] = objects(record.venue);
  if (venue === undefined) return undefined;
  const cityLine = [str(venue.zip), str(venue.city)].filter((part) => part !== "").join(" ");
  const parts = [plainText(str(venue.venue)), str(venue.address), cityLine, str(venue.stateprovince), str(venue.country)].filter((part) => part !== "");
  if (parts.length === 0) return undefined;
  const lat = venue.geo_lat;
  const lng = venue.geo_lng;
  // One line, comma-separated (ical-generator would put the address on a second line of LOCATION).
  const title = parts.join(", ");
  return typeof lat === "number" && typeof lng === "number" && (lat !== 0 || lng !== 0) ? { title, geo: { lat, lon: lng } } : { title };
}

/**
 * ORGANIZER is a calendar address (a URI): the first organizer that shows an
 * email (a protected event shows none) is written with its name and
 * `mailto:`. Organizers without one are left out: an ORGANIZER without an
 * address is invalid, and ical-generator only writes `mailto:` addresses.
 */
function organizer(record: JsonObject): ICalOrganizer | undefined {
  const chosen = objects(record.organizer).find((o) => str(o.email) !== "");
  if (chosen === undefined) return undefined;
  // A quoted parameter value cannot hold a double quote (RFC 5545 §3.1).
  return { name: plainText(str(chosen.organizer)).replace(/"/g, "'"), email: str(chosen.email) };
}

function eventData(record: JsonObject, site: FeedSite): ICalEventData {
  const zone = str(record.timezone);
  const allDay = record.all_day === true;
  // RFC 5545 §3.6.1: an all-day event's DTEND is the day after its last day.
  const start = allDay ? day(str(record.start_date)) : utc(str(record.utc_start_date));
  const end = allDay ? day(str(record.end_date)).plus({ days: 1 }) : utc(str(record.utc_end_date));
  const data: ICalEventData = {
    start,
    end,
    allDay,
    id: `${str(record.id)}@${site.host}`,
    // The record's last change, not the time of the request: same data, same bytes.
    stamp: utc(str(record.modified_utc)),
    lastModified: utc(str(record.modified_utc)),
    summary: plainText(str(record.title)),
    url: str(record.url) || null,
    categories: objects(record.categories).map((term) => ({ name: plainText(str(term.name)) })),
  };
  // Timed events in an IANA zone are written as local time with a TZID (and a VTIMEZONE); fixed offsets (`UTC+2`) and UTC in UTC.
  if (!allDay && hasVtimezone(zone)) data.timezone = zone;
  // A series is one VEVENT with its rules (lib/calendar/recurrence/ical.ts).
  const series = recurrenceOf(record);
  if (series !== null) data.repeating = series.lines.join("\n");
  // A detached occurrence replaces its series' instance: the series' UID and the instance's RECURRENCE-ID, a date
  // for an all-day event, else the instant (ical-generator writes it as it writes DTSTART; its own zone may not be the series').
  const seriesId = record.series_id;
  const original = record.original_start_date;
  const originalUtc = record.utc_original_start_date;
  if (series === null && typeof seriesId === "number" && typeof original === "string" && typeof originalUtc === "string") {
    data.id = `${seriesId}@${site.host}`;
    data.recurrenceId = allDay ? day(original) : utc(originalUtc);
  }
  const description = plainParagraphs(str(record.description));
  if (description !== "") data.description = description;
  const where = location(record);
  if (where !== undefined) data.location = where;
  const who = organizer(record);
  if (who !== undefined) data.organizer = who;
  return data;
}

/** A series' lines for the feed, or null for a single event (or a masked record, which shows none). */
function recurrenceOf(record: JsonObject): FeedRecurrence | null {
  const lines = Array.isArray(record.recurrence) ? record.recurrence.filter((l): l is string => typeof l === "string") : [];
  if (lines.length === 0) return null;
  const zone = str(record.timezone);
  const allDay = record.all_day === true;
  return feedRecurrence(lines, str(record.start_date), zone, allDay, !allDay && hasVtimezone(zone) ? zone : null);
}

/**
 * The years an event's dates fall in, as spans (the VTIMEZONE observances
 * must cover them): its own dates; a series' rules from its start to their
 * UNTIL, or without end (Infinity) for a rule with COUNT or none, since a
 * subscriber's app expands it as far as it looks; each RDATE and EXDATE its
 * own year, so that a far one adds a year, not every year up to it. A year
 * either side is added later (a date read in another offset, an UNTIL in UTC).
 */
function years(record: JsonObject): YearSpan[] {
  const [first, last] = [str(record.start_date), str(record.end_date)].map((date) => Number(date.slice(0, 4)));
  const own: YearSpan[] = Number.isInteger(first) && first > 0 && Number.isInteger(last) && last >= first ? [[first, last]] : [];
  const lines = Array.isArray(record.recurrence) ? record.recurrence.filter((l): l is string => typeof l === "string") : [];
  if (lines.length === 0 || own.length === 0) return own;
  let parsed: ParsedRecurrence;
  try {
    parsed = parseRecurrence(lines);
  } catch {
    // Stored lines were valid when written; should one no longer parse, the feed still covers the event's own years.
    return own;
  }
  const rules: YearSpan[] = parsed.rules.map((rule) => [first as number, rule.until === undefined ? Infinity : Math.max(first as number, rule.until.year)]);
  const dates: YearSpan[] = [...parsed.rdates, ...parsed.exdates].map((d) => [d.year, d.year]);
  return [...own, ...rules, ...dates];
}

/**
 * The iCalendar text of a page of event records, in the list's order.
 * `writtenStarts`: a series' start as written (`YYYY-MM-DD HH:MM:SS`, by
 * record id) where it differs from the record's, i.e. written in a DST gap
 * (lib/calendar/recurrence/series.ts): its DTSTART must name that wall
 * clock, which a reader places as RFC 5545 §3.3.5 says (the same instant
 * as the record's start) and whose rule then repeats it, as the API does.
 */
export function icalFeed(records: readonly JsonObject[], site: FeedSite, writtenStarts: ReadonlyMap<number, string> = new Map()): string {
  const calendar = new ICalCalendar({
    prodId: { company: "calpress", product: "calpress events", language: "EN" },
    // ical-generator writes the name as it is: one line, escaped here (RFC 5545 §3.3.11).
    name: plainText(site.name).replace(/[\\;,]/g, "\\$&") || null,
    timezone: { name: null, generator: vtimezoneGenerator(records.flatMap(years)) },
  });
  for (const record of records) calendar.createEvent(eventData(record, site));
  return withWrittenStarts(calendar.toString(), records, site, writtenStarts);
}

const ICAL_LOCAL = "yyyyMMdd'T'HHmmss";

/**
 * ical-generator writes DTSTART from an instant in the zone, and a wall
 * clock in a DST gap is no instant there: the VEVENT of such a series gets
 * its DTSTART value replaced by the wall clock as written (one line per
 * VEVENT, found by its UID; the line is short enough never to be folded).
 */
function withWrittenStarts(text: string, records: readonly JsonObject[], site: FeedSite, writtenStarts: ReadonlyMap<number, string>): string {
  let out = text;
  for (const record of records) {
    const id = record.id;
    const written = typeof id === "number" ? writtenStarts.get(id) : undefined;
    const zone = str(record.timezone);
    if (written === undefined || record.all_day === true || !hasVtimezone(zone) || recurrenceOf(record) === null) continue;
    const placed = utc(str(record.utc_start_date)).setZone(zone).toFormat(ICAL_LOCAL);
    const wall = DateTime.fromFormat(written, "yyyy-MM-dd HH:mm:ss", { zone: "UTC" }).toFormat(ICAL_LOCAL);
    const uid = `UID:${String(id)}@${site.host}\r\n`;
    const at = out.indexOf(uid);
    const end = at < 0 ? -1 : out.indexOf("END:VEVENT", at);
    const begin = at < 0 ? -1 : out.lastIndexOf("BEGIN:VEVENT", at);
    if (begin < 0 || end < 0) continue;
    const line = `DTSTART;TZID=${zone}:${placed}\r\n`;
    const block = out.slice(begin, end);
    if (!block.includes(line)) continue;
    out = out.slice(0, begin) + block.replace(line, `DTSTART;TZID=${zone}:${wall}\r\n`) + out.slice(end);
  }
  return out;
}

/** The `q` of each media range of an Accept header, by lower-case type (`text/calendar` → 1). */
function acceptRanges(accept: string): Map<string, number> {
  const ranges = new Map<string, number>();
  for (const part of accept.split(",")) {
    const [type = "", ...params] = part.split(";").map((piece) => piece.trim());
    if (type === "") continue;
    const qParam = params.find((param) => /^q=/i.test(param));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    ranges.set(type.toLowerCase(), Math.max(ranges.get(type.toLowerCase()) ?? 0, Number.isFinite(q) ? q : 0));
  }
  return ranges;
}

/**
 * Whether an Accept header asks for iCalendar rather than JSON: it names
 * `text/calendar` (wildcards do not count: JSON stays the default for
 * browsers and `*\/*`) with a `q` above that of `application/json`, if that
 * is named too.
 */
export function wantsICalendar(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  const ranges = acceptRanges(accept);
  const calendar = ranges.get("text/calendar") ?? 0;
  return calendar > 0 && calendar > (ranges.get("application/json") ?? 0);
}
