/**
 * iCalendar import (issue 22): the VEVENTs of a file exported by Google
 * Calendar, Apple Calendar, Outlook or another calpress become events,
 * through the same create and update operations as the API (their rules,
 * sanitising and one transaction per event).
 *
 * - Idempotent by UID and source: the UID is kept with the event (meta
 *   `_ical_uid`), so a second import of the same file updates, never
 *   duplicates; an event whose VEVENT text is unchanged since its last
 *   import is skipped.
 * - Times: a TZID that is an IANA name (or a known Outlook/Windows or
 *   Mozilla-style name for one) becomes the event's time zone with its wall
 *   clocks; any other TZID is read with the file's own VTIMEZONE and the
 *   event is kept in UTC. DATE values make all-day events (DTEND exclusive).
 * - LOCATION becomes the venue (matched by name, else created, as the API's
 *   duplicate rule does), ORGANIZER an organizer (CN and mailto), CATEGORIES
 *   categories, URL the website, RRULE/RDATE/EXDATE the recurrence.
 * - Exceptions: an occurrence cancelled in its own VEVENT (RECURRENCE-ID
 *   with STATUS:CANCELLED) becomes an EXDATE of its series; a changed one
 *   detaches that occurrence (lib/calendar/recurrence/exceptions.ts) with
 *   the VEVENT's fields, or updates the event an earlier import detached.
 * - DESCRIPTION is text: escaped and kept with its paragraphs; an HTML
 *   X-ALT-DESC is sanitised as any HTML from outside is.
 * - Third-party content, whoever imports it: every write runs as the
 *   importing user without `unfiltered_html`, so each field is sanitised as
 *   for an author (kses for titles and descriptions).
 * - Budgets (budgets.ts): the file is measured, parsed, and every event
 *   mapped and its occurrences counted before anything is written; a file
 *   past a budget is refused whole (IcsFormatError). Time is checked
 *   between events; those it did not reach are reported as skipped.
 * - UIDs belong to their source (meta `_ical_source` beside `_ical_uid`):
 *   the URL of a URL import, else the `source` given, else the calendar's
 *   own identity (X-WR-RELCALID, else X-WR-CALNAME, else ""). An event
 *   imported before sources were kept (a UID and no source) is matched by
 *   any source, and belongs to the first import that writes it.
 * - An import never undoes an editor: an event it made that is now a draft,
 *   pending, private or scheduled keeps that status when updated, and one
 *   in the trash is skipped (reported), unless `restore` is given, which
 *   publishes (and untrashes) them as the file says.
 */
import { createHash } from "node:crypto";
import { performance } from "node:perf_hooks";
import ICAL from "ical.js";
import { DateTime, IANAZone } from "luxon";
import type { EngineApi } from "../../engine-api";
import { sanitizeField } from "../../format/sanitize";
import { safeFetch, type FetchOptions } from "../../net/safe-fetch";
import { isRestError } from "../../routes/errors";
import { withoutCapabilities } from "../../users/restricted";
import type { CurrentUser } from "../../users/types";
import { nowOf } from "../events/dates";
import { createEvent, updateEvent, type EventWriteInput } from "../events/operations";
import { EVENT } from "../post-types";
import { occurrencesToStore } from "../recurrence/expand";
import { parseRecurrence } from "../recurrence/rules";
import { detachedOccurrences, horizonDays } from "../recurrence/series";
import { occurrenceId } from "../../posts/occurrence-ids";
import { IcsFormatError, ImportBudgetError, IMPORT_BUDGETS, measureIcs, type ImportBudgets } from "./budgets";
import { FileZones } from "./zones";
import { candidateZones, firstAgreeing, modernZone, spanInstants } from "./zone-match";
import { WINDOWS_ZONE_CANDIDATES } from "./windows-zones";

export { IcsFormatError, ImportBudgetError, IMPORT_BUDGETS, type ImportBudgets } from "./budgets";

export const ICAL_UID_META = "_ical_uid";
/** Where the event's UID comes from (see `ImportOptions.source`); absent on events imported before sources were kept. */
export const ICAL_SOURCE_META = "_ical_source";
const ICAL_HASH_META = "_ical_hash";
/** The longest source kept: a URL's length. */
export const MAX_SOURCE_LENGTH = 2048;

export interface ImportedEvent {
  uid: string;
  id: number;
  title: string;
}

export interface ImportReport {
  created: ImportedEvent[];
  updated: ImportedEvent[];
  /** Every VEVENT of the file not imported, and why: none is dropped without a line here. */
  skipped: Array<{ uid: string | null; title: string; reason: string }>;
  /** Events imported otherwise than the file wrote them (a zone only the file defines, kept as an IANA zone with its offsets), and how. */
  notes: Array<ImportedEvent & { note: string }>;
}

type Component = InstanceType<typeof ICAL.Component>;
type Time = InstanceType<typeof ICAL.Time>;

/** The IANA zone a TZID names by itself: an IANA name, or a Mozilla-style path ending in one. */
function namedZone(tzid: string): string | null {
  const name = tzid.trim();
  if (IANAZone.isValidZone(name)) return name;
  // Mozilla-style prefixes: /mozilla.org/20050126_1/Europe/Rome, /softwarestudio.org/Olson_20011030_5/America/New_York.
  const tail = /([A-Za-z_]+\/[A-Za-z_+-]+(?:\/[A-Za-z_+-]+)?)$/.exec(name)?.[1];
  return tail !== undefined && IANAZone.isValidZone(tail) ? tail : null;
}

/**
 * The IANA zone a TZID names, if any: an IANA name, a Mozilla-style path, or
 * a Windows name's zone of record (CLDR). A file that defines a Windows
 * name in its own VTIMEZONE has that definition checked first (see
 * TimeReader): this is the zone when the file has none.
 */
export function ianaZoneOf(tzid: string): string | null {
  const windows = WINDOWS_ZONE_CANDIDATES[tzid.trim()]?.split(" ")[0];
  return namedZone(tzid) ?? (windows !== undefined ? modernZone(windows) : null);
}

const SQL = "yyyy-MM-dd HH:mm:ss";

interface Placed {
  /** The event's zone; "" for the site's (a floating time in a file that names no zone); "UTC" for a zone only the file defines (`fileZone`). */
  zone: string;
  /** Wall clock in `zone` (`YYYY-MM-DD HH:MM:SS`), or the day (`YYYY-MM-DD`) of a DATE value. */
  wall: string;
  /** The instant (null for a DATE value, or a floating time in the site's zone). */
  utc: DateTime | null;
  /** A zone only the file defines (its VTIMEZONE), and the wall clock as the file wrote it in it: the event's IANA zone is chosen from its rules (keepZone). */
  fileZone?: string;
  fileWall?: string;
}

/** What an event's zone became when the file defined it itself: an IANA zone, and why when its rules are not the file's over the event's whole years. */
interface KeptZone {
  zone: string;
  note?: string;
}

/** Whole years, as Unix seconds: [1 January of `from`, 1 January of `to`). */
function yearSpan(from: number, to: number): { from: number; to: number } {
  return { from: Date.UTC(from, 0, 1) / 1000, to: Date.UTC(to, 0, 1) / 1000 };
}

/** Reads DATE and DATE-TIME values with their TZID: an IANA zone kept, another read through the file's VTIMEZONE. */
class TimeReader {
  /** The zone of floating times and all-day events: the file's X-WR-TIMEZONE (Google, Apple), else the site's (""). */
  readonly calendarZone: string;
  /** The X-LIC-LOCATION (an IANA name, as Lightning and Evolution write it) of the file's own zones. */
  private readonly locations = new Map<string, string>();
  /** The zone kept for a file's zone over whole years (tzid|from|to), as every event in those years shares it. */
  private readonly kept = new Map<string, string | null>();

  /** Reads the file's own zones now, before anything is written: a VTIMEZONE past the budget refuses the file. */
  constructor(
    calendar: Component,
    private readonly zones: FileZones,
    /** VTIMEZONEs of the file that could not be read, by TZID, with the reason (those whose values cannot be read are added here). */
    private readonly unreadableZones: Map<string, string> = new Map(),
  ) {
    const named = calendar.getFirstPropertyValue("x-wr-timezone");
    this.calendarZone = typeof named === "string" ? (ianaZoneOf(named) ?? "") : "";
    for (const vtimezone of calendar.getAllSubcomponents("vtimezone")) {
      const tzid = vtimezone.getFirstPropertyValue("tzid");
      // A zone the TZID names is used as it is: its VTIMEZONE is never read. A Windows name's is: the file's rules decide.
      if (typeof tzid !== "string" || namedZone(tzid) !== null) continue;
      try {
        zones.add(vtimezone, tzid);
      } catch (err) {
        // A budget refuses the file; a value that cannot be read (an offset that is no offset) leaves the TZID unknown, its events skipped saying why.
        if (err instanceof ImportBudgetError) throw err;
        unreadableZones.set(tzid, reasonOf(err));
        continue;
      }
      const location = vtimezone.getFirstPropertyValue("x-lic-location");
      if (typeof location === "string") this.locations.set(tzid, location);
    }
  }

  place(time: Time, tzid: string | null): Placed {
    const pad = (n: number, w = 2): string => String(n).padStart(w, "0");
    const day = `${pad(time.year, 4)}-${pad(time.month)}-${pad(time.day)}`;
    if (time.isDate) return { zone: "", wall: day, utc: null };
    const wall = `${day} ${pad(time.hour)}:${pad(time.minute)}:${pad(time.second)}`;
    if (time.zone?.tzid === "UTC") return { zone: "UTC", wall, utc: DateTime.fromFormat(wall, SQL, { zone: "UTC" }) };
    if (tzid === null) {
      // Floating: the calendar's zone (RFC 5545 leaves it to the reader).
      return { zone: this.calendarZone, wall, utc: this.calendarZone === "" ? null : DateTime.fromFormat(wall, SQL, { zone: this.calendarZone }) };
    }
    const named = namedZone(tzid);
    if (named !== null) return { zone: named, wall, utc: DateTime.fromFormat(wall, SQL, { zone: named }) };
    if (this.zones.has(tzid)) {
      // The file's own rules give the instant (RFC 5545 §3.2.19: the TZID names the file's VTIMEZONE).
      const utc = DateTime.fromSeconds(this.zones.toUtc(tzid, time.year, time.month, time.day, time.hour, time.minute, time.second), { zone: "UTC" });
      return { zone: "UTC", wall: utc.toFormat(SQL), utc, fileZone: tzid, fileWall: wall };
    }
    // A Windows name the file does not define: its zone of record.
    const windows = ianaZoneOf(tzid);
    if (windows !== null) return { zone: windows, wall, utc: DateTime.fromFormat(wall, SQL, { zone: windows }) };
    const unreadable = this.unreadableZones.get(tzid);
    throw new IcsFormatError(
      unreadable !== undefined ? `TZID ${tzid}: its VTIMEZONE cannot be read (${unreadable})` : `TZID ${tzid} is neither a known time zone nor defined by a VTIMEZONE of the file`,
    );
  }

  /** The instant (Unix seconds) of a wall clock (a UTC DateTime read as a wall clock) in a zone the file defines. */
  fileToUtc(tzid: string, wall: DateTime): number {
    return this.zones.toUtc(tzid, wall.year, wall.month, wall.day, wall.hour, wall.minute, wall.second);
  }

  /**
   * The IANA zone an event whose DTSTART is in a zone only the file defines
   * is kept in (zone-match.ts): one whose offsets are the file's over the
   * whole years its occurrences cover, else at each of their starts and
   * ends (said in the note), else none (IcsFormatError: the event is
   * skipped, never kept in UTC).
   */
  keepZone(tzid: string, occurrences: ReadonlyArray<{ start: number; end: number }>): KeptZone {
    const first = occurrences[0];
    const last = occurrences[occurrences.length - 1];
    if (first === undefined || last === undefined) throw new IcsFormatError(`TZID ${tzid}: the event has no occurrence to place`);
    const years = yearSpan(new Date(first.start * 1000).getUTCFullYear(), new Date(last.end * 1000).getUTCFullYear() + 1);
    const key = `${tzid}|${years.from}|${years.to}`;
    const offsetAt = (utc: number): number => this.zones.offsetAt(tzid, utc);
    const candidates = candidateZones(tzid, this.locations.get(tzid) ?? null);
    if (!this.kept.has(key)) this.kept.set(key, firstAgreeing(candidates, offsetAt, spanInstants(years.from, years.to, this.zones.changesBetween(tzid, years.from, years.to))));
    const whole = this.kept.get(key);
    if (whole !== null && whole !== undefined) return { zone: whole };
    const instants = occurrences.flatMap((o) => [o.start, o.end]);
    const at = firstAgreeing(candidates, offsetAt, instants);
    const yearsText = `${new Date(years.from * 1000).getUTCFullYear()}-${new Date(years.to * 1000).getUTCFullYear() - 1}`;
    if (at === null) throw new IcsFormatError(`TZID ${tzid}: no known time zone has the offsets of the file's VTIMEZONE at the event's times`);
    return { zone: at, note: `TZID ${tzid}: no known time zone follows the file's VTIMEZONE over ${yearsText}; kept in ${at}, which has its offsets at every start and end of the event` };
  }
}

function tzidOf(component: Component, name: string): string | null {
  const param = component.getFirstProperty(name)?.getParameter("tzid");
  return typeof param === "string" ? param : null;
}

function textOf(component: Component, name: string): string {
  const value = component.getFirstPropertyValue(name);
  return typeof value === "string" ? value : "";
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Plain DESCRIPTION text as HTML paragraphs with line breaks. */
function textToHtml(text: string): string {
  return text
    .replace(/\r\n?/g, "\n")
    .split(/\n{2,}/)
    .map((p) => p.trim())
    .filter((p) => p !== "")
    .map((p) => `<p>${escapeHtml(p).replace(/\n/g, "<br />\n")}</p>`)
    .join("\n");
}

function description(vevent: Component): string {
  const alt = vevent.getFirstProperty("x-alt-desc");
  const fmt = alt?.getParameter("fmttype");
  const html = alt?.getFirstValue();
  if (typeof html === "string" && typeof fmt === "string" && fmt.toLowerCase() === "text/html") {
    // HTML from outside the site: kses, whoever imports it.
    const body = /<body[^>]*>([\s\S]*)<\/body>/i.exec(html)?.[1] ?? html;
    const clean = sanitizeField("html", body, false).trim();
    if (clean !== "") return clean;
  }
  return textToHtml(textOf(vevent, "description"));
}

const ICAL_UTC = "yyyyMMdd'T'HHmmss'Z'";

/** RRULE, RDATE and EXDATE of a master VEVENT (plus EXDATEs for cancelled occurrences) as recurrence lines, values in UTC or as dates. */
type ZonedTime = { time: Time; tzid: string | null };

function recurrenceLines(vevent: Component, reader: TimeReader, cancelled: readonly ZonedTime[]): string[] {
  const lines: string[] = [];
  for (const prop of vevent.getAllProperties("rrule")) {
    const recur = prop.getFirstValue() as InstanceType<typeof ICAL.Recur>;
    let text = recur.toString();
    if (recur.until && !recur.until.isDate) {
      const placed = reader.place(recur.until, recur.until.zone?.tzid === "UTC" ? null : tzidOf(vevent, "dtstart"));
      if (placed.utc) text = text.replace(/UNTIL=[^;]*/, `UNTIL=${placed.utc.toUTC().toFormat(ICAL_UTC)}`);
    }
    lines.push(`RRULE:${text}`);
  }
  const dates = (name: "RDATE" | "EXDATE", times: readonly ZonedTime[]): void => {
    const dateValues = times.filter((t) => t.time.isDate).map((t) => reader.place(t.time, null).wall.replace(/-/g, ""));
    const timed = times.filter((t) => !t.time.isDate).map((t) => reader.place(t.time, t.tzid).utc?.toUTC().toFormat(ICAL_UTC) ?? "");
    if (dateValues.length > 0) lines.push(`${name};VALUE=DATE:${dateValues.join(",")}`);
    if (timed.length > 0) lines.push(`${name}:${timed.join(",")}`);
  };
  const valuesOf = (name: string): ZonedTime[] =>
    vevent.getAllProperties(name).flatMap((p) => {
      const tzid = p.getParameter("tzid");
      return p.getValues().filter((v): v is Time => v instanceof ICAL.Time).map((time) => ({ time, tzid: typeof tzid === "string" ? tzid : null }));
    });
  dates("RDATE", valuesOf("rdate"));
  dates("EXDATE", [...valuesOf("exdate"), ...cancelled]);
  return lines;
}

interface Mapped {
  uid: string;
  title: string;
  input: EventWriteInput;
  hash: string;
  /** What the report should say about an event imported otherwise than the file wrote it (its zone). */
  note?: string;
}

/** What mapping needs of the site: the clock and horizon its writes expand series with. */
interface SiteClock {
  now: Date;
  days: number;
}

const DATE_TEXT = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?Z?)?$/;

/** Whether a jCal date or date-time text names a real day and time (ical.js reads 2024-13-45 as 2025-02-14). */
function realDate(text: string): boolean {
  const m = DATE_TEXT.exec(text);
  if (m === null) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return false;
  // A leap second (60) is a valid DATE-TIME (RFC 5545 §3.3.12).
  return m[4] === undefined || (Number(m[4]) <= 23 && Number(m[5]) <= 59 && Number(m[6]) <= 60);
}

/** The date texts of a property's raw jCal values: dates, date-times, a period's start and end, a rule's UNTIL. */
function dateTexts(prop: InstanceType<typeof ICAL.Property>): string[] {
  const raw = prop.jCal.slice(3) as unknown[];
  switch (prop.type) {
    case "date":
    case "date-time":
      return raw.map(String);
    case "period":
      return raw.flatMap((v) => (Array.isArray(v) ? v.map(String).filter((t) => !t.startsWith("P") && !t.startsWith("-P")) : []));
    case "recur":
      return raw.flatMap((v) => (typeof v === "object" && v !== null && "until" in v ? [String((v as { until: unknown }).until)] : []));
    default:
      return [];
  }
}

/** The properties an event's times come from: each is read and checked before the event is mapped, so a bad one skips the VEVENT with its name. */
const TIME_PROPERTIES = ["dtstart", "dtend", "duration", "rrule", "rdate", "exdate", "recurrence-id"];

/** Throws IcsFormatError naming the first property of the VEVENT whose value cannot be read or names no real date. */
function checkTimeValues(vevent: Component): void {
  for (const name of TIME_PROPERTIES) {
    for (const prop of vevent.getAllProperties(name)) {
      const label = name.toUpperCase();
      try {
        prop.getValues();
      } catch (err) {
        throw new IcsFormatError(`${label} cannot be read: ${err instanceof Error ? err.message : String(err)}`);
      }
      const bad = dateTexts(prop).find((t) => !realDate(t));
      if (bad !== undefined) throw new IcsFormatError(`${label} ${bad.replace(/[-:]/g, "")} is not a real date or time`);
      if (name === "rrule") {
        const recur = prop.getFirstValue() as InstanceType<typeof ICAL.Recur>;
        if (typeof recur.freq !== "string") throw new IcsFormatError("RRULE has no FREQ");
      }
    }
  }
}

/**
 * The instants (Unix seconds) an event whose DTSTART is in a zone only the
 * file defines starts and ends at, by the file's own rules: its series is
 * expanded on the file's wall clock (as a reader that knows only the file
 * would), and each wall clock placed with the VTIMEZONE. Values written in
 * UTC (RDATE, EXDATE) are placed on the UTC wall clock here: at worst an
 * extra instant the chosen zone must agree at.
 */
function fileOccurrences(reader: TimeReader, start: Placed, end: Placed, recurrence: readonly string[], clock: SiteClock): Array<{ start: number; end: number }> {
  const startUtc = (start.utc as DateTime).toSeconds();
  const length = Math.max(0, (end.utc?.toSeconds() ?? startUtc) - startUtc);
  if (recurrence.length === 0) return [{ start: startUtc, end: startUtc + length }];
  const startLocal = start.fileWall as string;
  const endLocal = DateTime.fromFormat(startLocal, SQL, { zone: "UTC" }).plus({ seconds: length }).toFormat(SQL);
  const tzid = start.fileZone as string;
  const toUtc = (wall: string): number => {
    const d = DateTime.fromFormat(wall, SQL, { zone: "UTC" });
    return reader.fileToUtc(tzid, d);
  };
  return occurrencesToStore(parseRecurrence([...recurrence]), { startLocal, endLocal, zone: "UTC", allDay: false }, clock.now, clock.days).map((o) => ({
    start: toUtc(o.times.start_local),
    end: toUtc(o.times.end_local),
  }));
}

function mapEvent(master: Component, overrides: Component[], reader: TimeReader, clock: SiteClock, uid: string): Mapped | { skip: string } {
  const title = textOf(master, "summary").trim();
  if (title === "") return { skip: "no SUMMARY (an event needs a title)" };
  if (textOf(master, "status").toUpperCase() === "CANCELLED") return { skip: "cancelled (STATUS:CANCELLED)" };
  checkTimeValues(master);
  const dtstart = master.getFirstPropertyValue("dtstart");
  if (!(dtstart instanceof ICAL.Time)) return { skip: "no DTSTART" };
  const start = reader.place(dtstart, tzidOf(master, "dtstart"));
  const allDay = dtstart.isDate;
  let endTime: Time | null = null;
  const dtend = master.getFirstPropertyValue("dtend");
  const duration = master.getFirstPropertyValue("duration");
  if (dtend instanceof ICAL.Time) endTime = dtend;
  else if (duration instanceof ICAL.Duration) {
    endTime = dtstart.clone();
    endTime.addDuration(duration);
  }

  const cancelled: ZonedTime[] = [];
  for (const o of overrides) {
    const time = o.getFirstPropertyValue("recurrence-id");
    if (textOf(o, "status").toUpperCase() === "CANCELLED" && time instanceof ICAL.Time) cancelled.push({ time, tzid: tzidOf(o, "recurrence-id") });
  }
  const recurrence = recurrenceLines(master, reader, cancelled);

  const input: EventWriteInput = { title, status: "publish" };
  let note: string | undefined;
  if (allDay) {
    // DTEND of a DATE event is the day after its last day.
    const last = endTime !== null ? DateTime.fromISO(reader.place(endTime, null).wall).minus({ days: 1 }) : DateTime.fromISO(start.wall);
    const lastDay = last < DateTime.fromISO(start.wall) ? start.wall : last.toFormat("yyyy-MM-dd");
    Object.assign(input, { all_day: true, start_date: start.wall, end_date: lastDay });
    if (reader.calendarZone !== "") input.timezone = reader.calendarZone;
  } else {
    const end = endTime !== null ? reader.place(endTime, tzidOf(master, "dtend") ?? tzidOf(master, "dtstart")) : start;
    let zone = start.zone;
    let startWall = start.wall;
    if (start.fileZone !== undefined && start.utc !== null) {
      // A zone only the file defines: the event keeps an IANA zone with the file's offsets (never UTC), its wall clocks read in it.
      const kept = reader.keepZone(start.fileZone, fileOccurrences(reader, start, end, recurrence, clock));
      zone = kept.zone;
      note = kept.note;
      startWall = start.utc.setZone(zone).toFormat(SQL);
    }
    // The end on the start's wall clock (DTEND may name another zone).
    const endWall = end.utc !== null && start.utc !== null ? end.utc.setZone(zone === "" ? "UTC" : zone).toFormat(SQL) : end.wall;
    if (start.fileZone !== undefined && start.utc !== null && end.utc !== null && recurrence.length === 0) {
      // The file's rules fixed the instants (a repeated hour included): sent with their offsets, so no reading of a wall clock moves them.
      // (A series is sent as wall clocks: its occurrences are made on the wall clock and placed by the engine's rules, RFC 5545 §3.3.5.)
      const exact = (d: DateTime): string => d.setZone(zone).toISO({ suppressMilliseconds: true }) ?? "";
      Object.assign(input, { start_date: exact(start.utc), end_date: exact(end.utc < start.utc ? start.utc : end.utc) });
    } else {
      Object.assign(input, { start_date: startWall, end_date: endWall < startWall ? startWall : endWall });
    }
    // "": the site's zone, which the write path reads dates in when none is sent.
    if (zone !== "") input.timezone = zone;
  }
  const html = description(master);
  if (html !== "") input.description = html;
  const location = textOf(master, "location").trim();
  if (location !== "") input.venue = { venue: location.split("\n")[0].slice(0, 200) };
  const organizer = master.getFirstProperty("organizer");
  if (organizer) {
    const address = String(organizer.getFirstValue() ?? "");
    const email = /^mailto:/i.test(address) ? address.slice(7) : "";
    const cn = organizer.getParameter("cn");
    const name = typeof cn === "string" && cn.trim() !== "" ? cn.trim() : email;
    if (name !== "") input.organizer = [{ organizer: name, ...(email !== "" ? { email } : {}) }];
  }
  const categories = master.getAllProperties("categories").flatMap((p) => p.getValues().map((v) => String(v).trim())).filter((c) => c !== "");
  if (categories.length > 0) input.categories = [...new Set(categories)].slice(0, 50);
  const url = textOf(master, "url").trim();
  if (/^https?:\/\//i.test(url)) input.website = url;

  // Sent even when empty, so that a series that stopped repeating in the calendar it came from stops here too.
  input.recurrence = recurrence;
  const hash = createHash("sha256")
    .update([master, ...overrides].map((c) => c.toString().replace(/^DTSTAMP[^\r\n]*\r?\n/gm, "")).join("\n"))
    .digest("hex");
  return { uid, title, input, hash, ...(note !== undefined ? { note } : {}) };
}

/** The calendar component of a file's text, or IcsFormatError. */
export function parseIcs(text: string): Component {
  let root: Component;
  try {
    const jcal = ICAL.parse(text);
    // Several components at the top level come back as a list of them: the first is the calendar.
    root = new ICAL.Component(Array.isArray(jcal[0]) ? (jcal[0] as typeof jcal) : jcal);
  } catch (err) {
    throw new IcsFormatError(`not an iCalendar file: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (root.name !== "vcalendar") throw new IcsFormatError("not an iCalendar file: no VCALENDAR");
  return root;
}

/** A VEVENT of the file that cannot be read at all, and why: reported as skipped. */
interface Unreadable {
  uid: string | null;
  title: string;
  reason: string;
}

/** A property's text in a component's raw lines (for a component ical.js cannot read): the text after the first colon. */
function rawProperty(lines: readonly string[], name: string): string | null {
  const re = new RegExp(`^${name}(?:;[^:]*)?:(.*)$`, "i");
  for (const line of lines) {
    const m = re.exec(line);
    if (m !== null) return (m[1] ?? "").trim();
  }
  return null;
}

/** Components that stand only at the top of a calendar: one of them opening inside another means the other's END line is broken. */
const TOP_LEVEL = /^BEGIN:(VEVENT|VTODO|VJOURNAL|VFREEBUSY|VTIMEZONE)\s*$/i;

/** How many VEVENTs a file's text opens and closes, by its raw lines (ical.js reads a VEVENT with a broken BEGIN or END line as some other component). */
function veventLines(lines: readonly string[]): { begins: number; ends: number } {
  let begins = 0;
  let ends = 0;
  for (const l of lines) {
    if (/^BEGIN:VEVENT\s*$/i.test(l)) begins++;
    else if (/^END:VEVENT\s*$/i.test(l)) ends++;
  }
  return { begins, ends };
}

/**
 * The calendar of a file's text, and what of it cannot be read. A file
 * ical.js reads whole, with as many VEVENTs as its lines open and close, is
 * read whole; otherwise (one bad line or value refuses all of it, or a
 * broken BEGIN/END line hides a VEVENT) each component of the calendar is
 * read on its own: a VEVENT that cannot be read is reported with its
 * reason, a VTIMEZONE that cannot be read leaves its TZID unknown (its
 * events are skipped saying why), and the rest is imported. Only a file
 * whose calendar itself cannot be read is refused (IcsFormatError).
 */
export function readCalendar(text: string): { calendar: Component; unreadable: Unreadable[]; unreadableZones: Map<string, string> } {
  // As ical.js reads lines: a line starting with a space or a tab continues the one before.
  const lines = text.replace(/\r?\n[ \t]/g, "").split(/\r?\n/);
  let whole: Component | null = null;
  try {
    whole = parseIcs(text);
  } catch (err) {
    if (!(err instanceof IcsFormatError)) throw err;
    if (!lines.some((l) => /^BEGIN:VCALENDAR\s*$/i.test(l))) throw err;
  }
  const counted = veventLines(lines);
  if (whole !== null && counted.begins === counted.ends && whole.getAllSubcomponents("vevent").length === counted.begins) {
    return { calendar: whole, unreadable: [], unreadableZones: new Map() };
  }
  const begin = lines.findIndex((l) => /^BEGIN:VCALENDAR\s*$/i.test(l));
  const skeleton: string[] = [];
  const blocks: Array<{ lines: string[]; closed: boolean }> = [];
  const unreadable: Unreadable[] = [];
  const unreadableZones = new Map<string, string>();
  /** Lines outside every component after the first one: the properties of a VEVENT whose BEGIN line is broken, if an END:VEVENT closes them. */
  let orphans: string[] = [];
  let block: { lines: string[]; closed: boolean; depth: number } | null = null;
  const report = (raw: readonly string[], reason: string): void => {
    unreadable.push({ uid: rawProperty(raw, "UID"), title: sanitizeField("html", rawProperty(raw, "SUMMARY") ?? "", false), reason: `the VEVENT cannot be read: ${reason}` });
  };
  for (const line of lines.slice(begin + 1)) {
    if (block !== null) {
      if (TOP_LEVEL.test(line) || /^END:VCALENDAR\s*$/i.test(line)) {
        // A component cannot open here: the block's END line is missing or broken.
        blocks.push({ lines: block.lines, closed: false });
        block = null;
      } else {
        block.lines.push(line);
        if (/^BEGIN:/i.test(line)) block.depth++;
        else if (/^END:/i.test(line) && --block.depth === 0) {
          blocks.push({ lines: block.lines, closed: true });
          block = null;
        }
        continue;
      }
    }
    if (/^END:VCALENDAR\s*$/i.test(line)) break;
    if (/^BEGIN:/i.test(line)) {
      block = { lines: [line], closed: false, depth: 1 };
      orphans = [];
    } else if (/^END:VEVENT\s*$/i.test(line)) {
      report(orphans, "its BEGIN:VEVENT line is missing or broken");
      orphans = [];
    } else if (blocks.length === 0) {
      skeleton.push(line);
    } else {
      orphans.push(line);
    }
  }
  if (block !== null) blocks.push({ lines: block.lines, closed: false });
  let calendar: Component;
  try {
    calendar = parseIcs(["BEGIN:VCALENDAR", ...skeleton.filter((l) => l.trim() !== ""), "END:VCALENDAR"].join("\r\n"));
  } catch (inner) {
    throw new IcsFormatError(`the calendar's own properties cannot be read: ${inner instanceof Error ? inner.message.replace(/^not an iCalendar file: /, "") : String(inner)}`);
  }
  for (const { lines: raw, closed } of blocks) {
    const first = raw[0] ?? "";
    const last = raw[raw.length - 1] ?? "";
    const isEvent = /^BEGIN:VEVENT\s*$/i.test(first) || (closed && /^END:VEVENT\s*$/i.test(last));
    const isZone = /^BEGIN:VTIMEZONE\s*$/i.test(first);
    if (!closed) {
      if (isEvent) report(raw, "its END:VEVENT line is missing or broken");
      else if (isZone) unreadableZones.set((rawProperty(raw, "TZID") ?? "").replace(/^"|"$/g, ""), "its END:VTIMEZONE line is missing or broken");
      continue;
    }
    let children: Component[];
    try {
      children = parseIcs(["BEGIN:VCALENDAR", ...raw, "END:VCALENDAR"].join("\r\n")).getAllSubcomponents();
    } catch (bad) {
      const reason = bad instanceof Error ? bad.message.replace(/^not an iCalendar file: /, "") : String(bad);
      if (isEvent) report(raw, reason);
      else if (isZone) unreadableZones.set((rawProperty(raw, "TZID") ?? "").replace(/^"|"$/g, ""), reason);
      continue;
    }
    if (isEvent && !children.some((c) => c.name === "vevent")) {
      report(raw, "its BEGIN:VEVENT or END:VEVENT line is broken");
      continue;
    }
    for (const child of children) calendar.addSubcomponent(child);
  }
  return { calendar, unreadable, unreadableZones };
}

/** What an earlier import made of a UID: the event, its stored hash and its status now. */
interface Earlier {
  id: number;
  hash: string | undefined;
  status: string;
}

/**
 * The events earlier imports from `source` made, by UID (in any status),
 * with their stored hashes: read once for the whole file, in batches (two
 * statements per 500 UIDs), rather than per VEVENT. An event with a UID and
 * no source (imported before sources were kept) is matched too; one of the
 * source itself wins over it, and the lowest id where two are alike.
 */
async function importedEvents(engine: EngineApi, source: string, uids: readonly string[]): Promise<Map<string, Earlier>> {
  const { knex, tables } = engine;
  const out = new Map<string, Earlier>();
  for (let i = 0; i < uids.length; i += 500) {
    const rows = (await knex(`${tables.postmeta} as m`)
      .join(`${tables.posts} as p`, "p.id", "m.post_id")
      .leftJoin(`${tables.postmeta} as s`, (join) => {
        join.on("s.post_id", "=", "m.post_id").andOnVal("s.meta_key", "=", ICAL_SOURCE_META);
      })
      .where({ "m.meta_key": ICAL_UID_META, "p.type": EVENT })
      .whereIn("m.meta_value", uids.slice(i, i + 500))
      .where((q) => q.where("s.meta_value", source).orWhereNull("s.id"))
      .orderBy("p.id")
      .select("p.id as id", "p.status as status", "m.meta_value as uid", "s.id as sourced")) as Array<{ id: number | string; status: string; uid: string; sourced: number | string | null }>;
    const found = new Map<string, { id: number; status: string; sourced: boolean }>();
    for (const r of rows) {
      const seen = found.get(r.uid);
      const sourced = r.sourced !== null;
      if (seen === undefined || (sourced && !seen.sourced)) found.set(r.uid, { id: Number(r.id), status: r.status, sourced });
    }
    if (found.size === 0) continue;
    const hashes = (await knex(tables.postmeta)
      .where({ meta_key: ICAL_HASH_META })
      .whereIn("post_id", [...found.values()].map((e) => e.id))
      .select("post_id", "meta_value")) as Array<{ post_id: number | string; meta_value: string }>;
    const byId = new Map(hashes.map((h) => [Number(h.post_id), h.meta_value]));
    for (const [uid, e] of found) out.set(uid, { id: e.id, hash: byId.get(e.id), status: e.status });
  }
  return out;
}

export interface ImportOptions {
  language?: string;
  fetch?: FetchOptions;
  /** Called after each event (done of total), for a progress line. */
  onProgress?: (done: number, total: number) => void;
  /**
   * Where the file comes from: its UIDs are matched only against events
   * imported from the same source. Callers pass the URL of a URL import;
   * default: the calendar's X-WR-RELCALID, else its X-WR-CALNAME, else "".
   */
  source?: string;
  /** Publish again what an editor unpublished or trashed since the last import (default: leave it as the editor left it). */
  restore?: boolean;
  /** Budgets other than the defaults (IMPORT_BUDGETS), for a host that needs them. */
  budgets?: Partial<ImportBudgets>;
}

/** The source of a file's UIDs: the one given, else the calendar's own identity. */
function importSource(calendar: Component, given: string | undefined): string {
  if (given !== undefined) {
    if (given.length > MAX_SOURCE_LENGTH) throw new IcsFormatError(`The source is longer than ${MAX_SOURCE_LENGTH} characters.`);
    return given;
  }
  const own = [calendar.getFirstPropertyValue("x-wr-relcalid"), calendar.getFirstPropertyValue("x-wr-calname")].find((v): v is string => typeof v === "string" && v.trim() !== "");
  return (own ?? "").trim().slice(0, MAX_SOURCE_LENGTH);
}

/**
 * Counts the occurrences the series of a file would store, as the writes
 * would materialise them (a finite series in full, an open-ended one up to
 * its horizon), and refuses the file once
 * their sum passes the budget (so at most one series past it is expanded).
 */
async function occurrenceCounter(engine: EngineApi, budget: number): Promise<(input: EventWriteInput) => void> {
  const siteZone = await engine.options.timezone();
  const days = await horizonDays(engine);
  // The clock the writes use: the counts are theirs.
  const now = nowOf(engine).toJSDate();
  let total = 0;
  return (input) => {
    const lines = input.recurrence;
    if (!Array.isArray(lines) || lines.length === 0) return;
    const zone = typeof input.timezone === "string" && input.timezone !== "" ? input.timezone : siteZone;
    const allDay = input.all_day === true;
    const start = String(input.start_date);
    const end = String(input.end_date);
    const base = { startLocal: allDay ? `${start} 00:00:00` : start, endLocal: allDay ? `${end} 23:59:59` : end, zone, allDay };
    total += occurrencesToStore(parseRecurrence(lines), base, now, days).length;
    if (total > budget) {
      throw new ImportBudgetError("occurrences", `The file's series would make more than ${budget} occurrences (open-ended ones counted up to the site's horizon, ${days} days).`);
    }
  };
}

/** A series' VEVENT and its changed occurrences (RECURRENCE-ID), by UID. */
interface Group {
  master?: Component;
  overrides: Component[];
}

/** Why an error skips one VEVENT, as a line of the report. */
function reasonOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The prefix of an identity derived from a VEVENT without UID (derivedUid). */
export const DERIVED_UID_PREFIX = "calpress-derived-";

/**
 * The identity of a VEVENT without UID: a hash of its DTSTART (with its
 * TZID), SUMMARY and RRULE, as ical.js writes them (so folding or the
 * order of properties do not change it). The same file imported again
 * gives the same identities, so a re-import updates or skips, never
 * duplicates. A changed start, title or rule is another event: there is
 * nothing else to know it by.
 */
function derivedUid(vevent: Component): string {
  const parts = ["dtstart", "summary", "rrule"].map((name) =>
    vevent
      .getAllProperties(name)
      .map((p) => p.toICALString())
      .join("\n"),
  );
  return DERIVED_UID_PREFIX + createHash("sha256").update(parts.join("\n")).digest("hex").slice(0, 32);
}

function sequenceOf(vevent: Component): number {
  const n = Number(vevent.getFirstPropertyValue("sequence"));
  return Number.isInteger(n) && n >= 0 ? n : 0;
}

/** A VEVENT's text without its DTSTAMP (the time it was written out, not a change). */
function contentOf(vevent: Component): string {
  return vevent.toString().replace(/^DTSTAMP[^\r\n]*\r?\n/gm, "");
}

/**
 * Of two VEVENTs with the same UID and the same RECURRENCE-ID (or none),
 * the one imported (the later revision by SEQUENCE, RFC 5545 §3.8.7.4;
 * else the first in the file) and why the other is not.
 */
function preferred(first: Component, second: Component, what: string): { kept: Component; dropped: Component; reason: string } {
  const [a, b] = [sequenceOf(first), sequenceOf(second)];
  if (contentOf(first) === contentOf(second)) return { kept: first, dropped: second, reason: `duplicate UID: the file has this VEVENT (${what}) twice; it is imported once` };
  if (b > a) return { kept: second, dropped: first, reason: `duplicate UID: an older revision (SEQUENCE ${a}) of a VEVENT (${what}) the file also has with SEQUENCE ${b}, which is imported` };
  if (a > b) return { kept: first, dropped: second, reason: `duplicate UID: an older revision (SEQUENCE ${b}) of a VEVENT (${what}) the file also has with SEQUENCE ${a}, which is imported` };
  return {
    kept: first,
    dropped: second,
    reason: `duplicate UID: an earlier VEVENT of the file has the same UID (${what}) and SEQUENCE, and is imported; a UID names one event (RFC 5545 §3.8.4.7)`,
  };
}

/**
 * The file's VEVENTs as series by UID, in file order: a VEVENT without UID
 * gets a derived one (the nth alike in the file gets "-n"), and each VEVENT
 * that is not imported because another has its UID (and RECURRENCE-ID) is
 * reported as skipped.
 */
function groupEvents(vevents: readonly Component[]): { groups: Map<string, Group>; skipped: ImportReport["skipped"] } {
  const groups = new Map<string, Group>();
  const skipped: ImportReport["skipped"] = [];
  const derived = new Map<string, number>();
  for (const vevent of vevents) {
    let uid = textOf(vevent, "uid").trim();
    const rid = vevent.getFirstProperty("recurrence-id");
    if (uid === "") {
      if (rid !== null) {
        skipped.push({ uid: null, title: reportTitle(vevent), reason: "an occurrence (RECURRENCE-ID) without a UID: it names no series" });
        continue;
      }
      const base = derivedUid(vevent);
      const n = (derived.get(base) ?? 0) + 1;
      derived.set(base, n);
      uid = n === 1 ? base : `${base}-${n}`;
    }
    const group = groups.get(uid) ?? { overrides: [] };
    groups.set(uid, group);
    if (rid !== null) {
      const key = rid.toICALString().replace(/^RECURRENCE-ID/i, "");
      const index = group.overrides.findIndex((o) => o.getFirstProperty("recurrence-id")?.toICALString().replace(/^RECURRENCE-ID/i, "") === key);
      if (index < 0) {
        group.overrides.push(vevent);
        continue;
      }
      const choice = preferred(group.overrides[index] as Component, vevent, `RECURRENCE-ID${key}`);
      group.overrides[index] = choice.kept;
      skipped.push({ uid, title: reportTitle(choice.dropped), reason: choice.reason });
    } else if (group.master === undefined) {
      group.master = vevent;
    } else {
      const choice = preferred(group.master, vevent, "no RECURRENCE-ID");
      group.master = choice.kept;
      skipped.push({ uid, title: reportTitle(choice.dropped), reason: choice.reason });
    }
  }
  return { groups, skipped };
}

/** A VEVENT's SUMMARY as a report shows it: sanitised as the stored title would be. */
function reportTitle(vevent: Component): string {
  return sanitizeField("html", textOf(vevent, "summary"), false);
}

const TRASHED = "in the trash on this site since it was imported (import with restore to bring it back)";

/** Imports the VEVENTs of an iCalendar text as `user` (who must be able to create events). */
export async function importIcs(engine: EngineApi, text: string, user: CurrentUser, options: ImportOptions = {}): Promise<ImportReport> {
  const budgets: ImportBudgets = { ...IMPORT_BUDGETS, ...options.budgets };
  measureIcs(text, budgets);
  const { calendar, unreadable, unreadableZones } = readCalendar(text);
  const reader = new TimeReader(calendar, new FileZones(budgets.timezoneSteps), unreadableZones);
  const source = importSource(calendar, options.source);
  // The file is third-party content: sanitised as for a user who may not publish raw HTML, whoever imports it.
  const importer = withoutCapabilities(user, ["unfiltered_html"]);
  const report: ImportReport = { created: [], updated: [], skipped: [], notes: [] };
  const { groups, skipped: notGrouped } = groupEvents(calendar.getAllSubcomponents("vevent"));

  // Every event is mapped and its occurrences counted before anything is written: a file past a budget writes nothing.
  const count = await occurrenceCounter(engine, budgets.occurrences);
  const clock: SiteClock = { now: nowOf(engine).toJSDate(), days: await horizonDays(engine) };
  const planned: Array<{ uid: string; group: Group; mapped: Mapped | { skip: string } }> = [];
  for (const [uid, group] of groups) {
    if (group.master === undefined) {
      planned.push({ uid, group, mapped: { skip: "an occurrence (RECURRENCE-ID) without its series in the file" } });
      continue;
    }
    let mapped: Mapped | { skip: string };
    try {
      mapped = mapEvent(group.master, group.overrides, reader, clock, uid);
      if ("input" in mapped) count(mapped.input);
    } catch (err) {
      // A budget refuses the file; anything else the file's content does to one VEVENT skips that VEVENT, saying why.
      if (err instanceof ImportBudgetError) throw err;
      mapped = { skip: reasonOf(err) };
    }
    planned.push({ uid, group, mapped });
  }
  report.skipped.push(...unreadable, ...notGrouped);

  const earlier = await importedEvents(engine, source, [...groups.keys()]);
  const started = performance.now();
  let wrote = false;
  let done = 0;
  for (const { uid, group, mapped } of planned) {
    options.onProgress?.(done++, groups.size);
    const master = group.master ?? group.overrides[0];
    if ("skip" in mapped) {
      report.skipped.push({ uid, title: master === undefined ? "" : reportTitle(master), reason: mapped.skip });
      continue;
    }
    // At least one write per import, so that importing the file again goes on from there (unchanged events are skipped).
    if (wrote && budgets.seconds > 0 && performance.now() - started > budgets.seconds * 1000) {
      report.skipped.push({ uid, title: reportTitle(master as Component), reason: `not reached within the import's ${budgets.seconds} s: import the file again to go on` });
      continue;
    }
    const existing = earlier.get(uid);
    if (existing !== undefined) {
      const settled = existing.hash === mapped.hash && (options.restore !== true || existing.status === "publish");
      if (settled) {
        report.skipped.push({ uid, title: mapped.title, reason: "unchanged since the last import" });
        continue;
      }
      if (existing.status === "trash" && options.restore !== true) {
        report.skipped.push({ uid, title: mapped.title, reason: TRASHED });
        continue;
      }
      // The status an editor gave it stays, unless the caller asked for the file's.
      mapped.input.status = options.restore === true ? "publish" : existing.status;
    }
    const meta = { [ICAL_UID_META]: uid, [ICAL_SOURCE_META]: source, [ICAL_HASH_META]: mapped.hash };
    const writeOptions = { language: options.language, fetch: options.fetch, meta };
    wrote = true;
    try {
      const post = existing
        ? await updateEvent(engine, existing.id, mapped.input, importer, writeOptions)
        : await createEvent(engine, mapped.input, importer, writeOptions);
      (existing ? report.updated : report.created).push({ uid, id: post.id, title: post.title });
      if (mapped.note !== undefined) report.notes.push({ uid, id: post.id, title: post.title, note: mapped.note });
      for (const changed of group.overrides.filter((o) => textOf(o, "status").toUpperCase() !== "CANCELLED")) {
        await importChangedOccurrence(engine, { id: post.id, status: post.status }, uid, changed, reader, clock, importer, options, report);
      }
    } catch (err) {
      if (!isRestError(err)) throw err;
      const params = (err.data as { params?: Record<string, string> } | undefined)?.params;
      const detail = params ? Object.entries(params).map(([k, v]) => `${k}: ${v}`).join("; ") : err.message;
      report.skipped.push({ uid, title: mapped.title, reason: detail });
    }
  }
  options.onProgress?.(done, groups.size);
  return report;
}

/**
 * A changed occurrence of the series `series` (its own VEVENT with a
 * RECURRENCE-ID): the event an earlier import detached for it is updated
 * (keeping the status an editor gave it, and left alone in the trash,
 * unless `restore`), else the occurrence the RECURRENCE-ID names is
 * detached with the VEVENT's fields and the series' status; one that names
 * no occurrence of the series is skipped.
 */
async function importChangedOccurrence(
  engine: EngineApi,
  series: { id: number; status: string },
  uid: string,
  changed: Component,
  reader: TimeReader,
  clock: SiteClock,
  user: CurrentUser,
  options: ImportOptions,
  report: ImportReport,
): Promise<void> {
  const title = reportTitle(changed);
  const time = changed.getFirstPropertyValue("recurrence-id");
  const skip = (reason: string): void => {
    report.skipped.push({ uid, title, reason: `a changed occurrence (RECURRENCE-ID ${String(time ?? "")}): ${reason}` });
  };
  if (!(time instanceof ICAL.Time)) return skip("not a date or date-time");
  const placed = reader.place(time, tzidOf(changed, "recurrence-id"));
  const utc = placed.utc?.toUTC().toFormat(SQL) ?? null;
  // A date names that day's occurrence; a date-time the one that starts at that instant.
  const names = (key: string, startUtc: string): boolean => (utc === null ? key.slice(0, 10) === placed.wall.slice(0, 10) : startUtc === utc);
  let mapped: Mapped | { skip: string };
  try {
    mapped = mapEvent(changed, [], reader, clock, uid);
  } catch (err) {
    if (err instanceof ImportBudgetError) throw err;
    return skip(reasonOf(err));
  }
  if ("skip" in mapped) return skip(mapped.skip);
  // An occurrence has no rules of its own.
  delete mapped.input.recurrence;
  const opts = { language: options.language, fetch: options.fetch };
  try {
    const earlier = (await detachedOccurrences(engine, series.id)).find((p) => names(String(p.fields.recurrence_id), String(p.fields.recurrence_id_utc)));
    if (earlier !== undefined) {
      if (earlier.status === "trash" && options.restore !== true) return skip(TRASHED);
      mapped.input.status = options.restore === true ? "publish" : earlier.status;
      const post = await updateEvent(engine, earlier.id, mapped.input, user, opts);
      report.updated.push({ uid, id: post.id, title: post.title });
      return;
    }
    const occurrence = (await engine.occurrences.list(series.id)).find((o) => names(o.key, o.start_utc));
    if (occurrence === undefined) return skip("the series has no occurrence there");
    mapped.input.status = series.status;
    const post = await updateEvent(engine, occurrenceId(occurrence.id), mapped.input, user, opts);
    report.created.push({ uid, id: post.id, title: post.title });
  } catch (err) {
    if (!isRestError(err)) throw err;
    skip(err.message);
  }
}

/** An iCalendar file from a URL, fetched under the site's policy (public hosts only unless allowed), at most `maxBytes`, or why not. */
export async function fetchIcs(url: string, policy: FetchOptions = {}, maxBytes: number = IMPORT_BUDGETS.bytes): Promise<{ text: string } | { error: string }> {
  // One byte past the bound tells a file that is too large from one that fits exactly.
  const result = await safeFetch(url, { timeoutMs: 30_000, ...policy, maxBytes: maxBytes + 1 });
  if (!result.ok) return { error: `The URL cannot be fetched: ${result.reason}` };
  const { status, body } = result.response;
  if (status < 200 || status > 299) return { error: `The URL answered ${status}.` };
  if (body.length > maxBytes) return { error: `The file is larger than ${maxBytes} bytes.` };
  return { text: body.toString("utf8") };
}
