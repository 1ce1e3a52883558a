// Wall clocks and time zones for the calendar's editor widgets. Pure: no
// DOM, so node's tests import it too.
//
// The API speaks wall clocks: an event's `start_date` is "YYYY-MM-DD
// HH:MM:SS" in the event's own `timezone` (an IANA name, "UTC", or a
// WordPress "UTC+5:30" label). The browser's Intl knows the zones; an
// instant of a wall clock is found from the zone's offsets around it, the
// way the API reads one: in a DST gap the clock moves forward (02:30 →
// 03:30), in an overlap the earlier instant wins.

const WALL = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?$/;
const pad = (n, width = 2) => String(n).padStart(width, "0");

/** "2030-05-10 19:30:00" (or a date alone) → {year, month, day, hour, minute, second}; null when not a real date. */
export function parseWall(text) {
  const m = WALL.exec(String(text ?? "").trim());
  if (!m) return null;
  const w = { year: +m[1], month: +m[2], day: +m[3], hour: +(m[4] ?? 0), minute: +(m[5] ?? 0), second: +(m[6] ?? 0) };
  const check = new Date(Date.UTC(w.year, w.month - 1, w.day));
  if (check.getUTCMonth() !== w.month - 1 || check.getUTCDate() !== w.day) return null;
  if (w.hour > 23 || w.minute > 59 || w.second > 59) return null;
  return w;
}

/** {year, month, day, hour, minute, second} → "YYYY-MM-DD HH:MM:SS". */
export function formatWall(w) {
  return `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)} ${pad(w.hour ?? 0)}:${pad(w.minute ?? 0)}:${pad(w.second ?? 0)}`;
}

/** The date and time inputs' values of a wall clock: {date: "YYYY-MM-DD", time: "HH:MM"} (empty strings when none). */
export function splitWall(text) {
  const w = parseWall(text);
  if (!w) return { date: "", time: "" };
  return { date: `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}`, time: `${pad(w.hour)}:${pad(w.minute)}` };
}

/** A date input's and a time input's values as the API's wall clock; null when the date is not one. */
export function joinWall(date, time, fallbackTime = "00:00") {
  const t = /^\d{2}:\d{2}(:\d{2})?$/.test(time ?? "") ? time : fallbackTime;
  const w = parseWall(`${date} ${t.length === 5 ? `${t}:00` : t}`);
  return w ? formatWall(w) : null;
}

/** Days between two "YYYY-MM-DD" dates (b − a). */
export function daysBetween(a, b) {
  const pa = parseWall(a);
  const pb = parseWall(b);
  if (!pa || !pb) return 0;
  return Math.round((Date.UTC(pb.year, pb.month - 1, pb.day) - Date.UTC(pa.year, pa.month - 1, pa.day)) / 86_400_000);
}

/** "YYYY-MM-DD" plus `days`. */
export function addDays(date, days) {
  const w = parseWall(date);
  if (!w) return date;
  const d = new Date(Date.UTC(w.year, w.month - 1, w.day + days));
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

/** The weekday of a "YYYY-MM-DD" date as an RFC 5545 code (MO…SU). */
export function weekdayCode(date) {
  const w = parseWall(date);
  if (!w) return "MO";
  return ["SU", "MO", "TU", "WE", "TH", "FR", "SA"][new Date(Date.UTC(w.year, w.month - 1, w.day)).getUTCDay()];
}

// ---- zones ---------------------------------------------------------------

const OFFSET_LABEL = /^UTC([+-])(\d{1,2})(?:(?::(\d{2}))|(?:\.(\d+)))?$/i;

/** A WordPress offset label ("UTC+2", "UTC-3:30", "UTC+5.5") in minutes; null for anything else. */
export function offsetLabelMinutes(label) {
  const m = OFFSET_LABEL.exec(String(label ?? "").trim());
  if (!m) return null;
  const hours = Number(m[2]);
  let minutes = 0;
  if (m[3] !== undefined) minutes = Number(m[3]);
  else if (m[4] !== undefined) minutes = Math.round(Number(`0.${m[4]}`) * 60);
  if (minutes >= 60) return null;
  const total = (m[1] === "-" ? -1 : 1) * (hours * 60 + minutes);
  return total < -12 * 60 || total > 14 * 60 ? null : total;
}

const partFormatters = new Map();

function partsFormatter(zone) {
  let f = partFormatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", { timeZone: zone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit" });
    partFormatters.set(zone, f);
  }
  return f;
}

/** Whether Intl (and so this page) knows the zone: an IANA name, "UTC", or an offset label. */
export function isKnownZone(zone) {
  if (typeof zone !== "string" || zone.trim() === "") return false;
  if (/^UTC$/i.test(zone.trim()) || offsetLabelMinutes(zone) !== null) return true;
  // Intl also reads bare offsets ("+05:00"), which the API does not.
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(zone.trim())) return false;
  try {
    partsFormatter(zone.trim());
    return true;
  } catch {
    return false;
  }
}

/** The zone's offset from UTC at an instant, in minutes (east positive); null for an unknown zone. */
export function zoneOffsetMinutes(zone, epochMs) {
  const label = offsetLabelMinutes(zone);
  if (label !== null) return label;
  if (/^UTC$/i.test(String(zone).trim())) return 0;
  if (!isKnownZone(zone)) return null;
  const parts = {};
  for (const p of partsFormatter(zone.trim()).formatToParts(new Date(epochMs))) parts[p.type] = p.value;
  const asUtc = Date.UTC(+parts.year, +parts.month - 1, +parts.day, +parts.hour % 24, +parts.minute, +parts.second);
  return Math.round((asUtc - Math.floor(epochMs / 1000) * 1000) / 60_000);
}

/**
 * The instant (epoch ms) of a wall clock in a zone, as the API reads it:
 * an overlap's earlier instant, a gap's wall clock moved forward. Null for
 * an unknown zone or a wall clock that is not a date.
 */
export function wallToInstant(text, zone) {
  const w = typeof text === "string" ? parseWall(text) : text;
  if (!w) return null;
  const naive = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  const before = zoneOffsetMinutes(zone, naive - 86_400_000);
  const after = zoneOffsetMinutes(zone, naive + 86_400_000);
  if (before === null || after === null) return null;
  const candidates = [];
  for (const offset of before === after ? [before] : [before, after]) {
    const t = naive - offset * 60_000;
    if (zoneOffsetMinutes(zone, t) === offset) candidates.push(t);
  }
  if (candidates.length > 0) return Math.min(...candidates);
  // A gap: read with the offset before it, which lands after the gap.
  return naive - before * 60_000;
}

/** The wall clock ("YYYY-MM-DD HH:MM:SS") of an instant in a zone. */
export function instantToWall(epochMs, zone) {
  const offset = zoneOffsetMinutes(zone, epochMs);
  if (offset === null) return null;
  const d = new Date(epochMs + offset * 60_000);
  return formatWall({ year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: d.getUTCHours(), minute: d.getUTCMinutes(), second: d.getUTCSeconds() });
}

/** "+09:00" for a number of minutes. */
export function offsetText(minutes) {
  const abs = Math.abs(minutes);
  return `${minutes < 0 ? "−" : "+"}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/**
 * Every zone a user may pick: the browser's IANA names, "UTC", and any
 * other name given (the record's own, the site's), sorted.
 */
export function zoneNames(...extra) {
  let names = [];
  try {
    names = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
  } catch {
    names = [];
  }
  const all = new Set(names);
  all.add("UTC");
  for (const name of extra) if (typeof name === "string" && name.trim() !== "") all.add(name.trim());
  return [...all].sort((a, b) => a.localeCompare(b, "en"));
}

/** The viewer's own zone (the browser's). */
export function viewerZone() {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch {
    return "UTC";
  }
}
