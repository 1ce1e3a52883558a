/**
 * Reading an iCalendar feed back in tests, as a calendar app would: its
 * VTIMEZONEs registered, its VEVENTs (feedEvents); and a series' occurrence
 * instants as RFC 5545 defines them (feedOccurrences), independently of
 * calpress's own code.
 *
 * ical.js parses the text and expands the RRULEs (of the series and of the
 * VTIMEZONE observances) on wall clocks; what it does not do by the RFC is
 * done here, from the RFC's text:
 *
 * - an offset at an instant is the TZOFFSETTO of the latest observance onset
 *   at or before it, an onset being the observance's local DTSTART (or
 *   RRULE/RDATE instance) read in its TZOFFSETFROM (§3.6.5); before the
 *   first onset, the first's TZOFFSETFROM;
 * - a wall clock that occurs twice is the first of the two instants, one
 *   that does not occur is read with the offset before the gap (§3.3.5)
 *   (ical.js takes the second in a fold and the later offset in a gap);
 * - UNTIL is compared as an instant, EXDATEs remove the occurrences at their
 *   instants (§3.3.10, §3.8.5.1), and every occurrence lasts the exact
 *   duration DTSTART..DTEND of the first (§3.8.5.3); an all-day series'
 *   days are compared as dates.
 */
import ICAL from "ical.js";

type Component = InstanceType<typeof ICAL.Component>;
type Time = InstanceType<typeof ICAL.Time>;
type Property = InstanceType<typeof ICAL.Property>;

export function feedEvents(text: string): Component[] {
  const calendar = new ICAL.Component(ICAL.parse(text));
  ICAL.TimezoneService.reset();
  for (const vtimezone of calendar.getAllSubcomponents("vtimezone")) ICAL.TimezoneService.register(vtimezone);
  return calendar.getAllSubcomponents("vevent");
}

/** A wall clock's fields read as if in UTC: seconds since the epoch of that wall clock. */
function wallSeconds(t: Pick<Time, "year" | "month" | "day" | "hour" | "minute" | "second">): number {
  return Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second) / 1000;
}

interface Onset {
  at: number;
  from: number;
  to: number;
}

/** A VTIMEZONE as §3.6.5 defines it: offsets of instants, instants of wall clocks (§3.3.5). */
export interface ZoneReader {
  readonly tzid: string;
  /** Offset (seconds) in force at a Unix time. */
  offsetAt(unix: number): number;
  /** The Unix time of a wall clock: the first of two in a fold, the offset before the gap in a gap. */
  instantOf(wall: number): number;
}

/** A VTIMEZONE's onsets up to the end of `untilYear` (its RRULEs expanded that far). */
export function readVtimezone(vtimezone: Component, untilYear: number): ZoneReader {
  const tzid = String(vtimezone.getFirstPropertyValue("tzid"));
  const onsets: Onset[] = [];
  for (const observance of vtimezone.getAllSubcomponents()) {
    const start = observance.getFirstPropertyValue("dtstart") as Time;
    const offset = (name: string): number => (observance.getFirstPropertyValue(name) as InstanceType<typeof ICAL.UtcOffset>).toSeconds();
    const from = offset("tzoffsetfrom");
    const to = offset("tzoffsetto");
    const locals: number[] = [wallSeconds(start)];
    for (const rrule of observance.getAllProperties("rrule")) {
      const iterator = (rrule.getFirstValue() as InstanceType<typeof ICAL.Recur>).iterator(start);
      for (let next = iterator.next(); next && next.year <= untilYear; next = iterator.next()) locals.push(wallSeconds(next));
    }
    for (const rdate of observance.getAllProperties("rdate")) for (const value of rdate.getValues() as Time[]) locals.push(wallSeconds(value));
    for (const local of new Set(locals)) onsets.push({ at: local - from, from, to });
  }
  onsets.sort((a, b) => a.at - b.at);
  const offsetAt = (unix: number): number => {
    let lo = 0;
    let hi = onsets.length;
    // The number of onsets at or before `unix`.
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((onsets[mid] as Onset).at <= unix) lo = mid + 1;
      else hi = mid;
    }
    if (lo === 0) return onsets[0]?.from ?? 0;
    return (onsets[lo - 1] as Onset).to;
  };
  const instantOf = (wall: number): number => {
    const near = onsets.filter((o) => Math.abs(o.at - wall) < 3 * 86_400);
    const offsets = new Set([offsetAt(wall - 3 * 86_400), offsetAt(wall + 3 * 86_400), ...near.flatMap((o) => [o.from, o.to])]);
    const valid = [...offsets].map((o) => wall - o).filter((unix) => offsetAt(unix) === wall - unix);
    if (valid.length > 0) return Math.min(...valid);
    // In a gap: the onset whose skipped wall clocks hold it; read with the offset before it.
    const gap = near.find((o) => o.to > o.from && o.at + o.from <= wall && wall < o.at + o.to);
    if (gap === undefined) throw new Error(`${tzid}: no instant for wall clock ${new Date(wall * 1000).toISOString()}`);
    return wall - gap.from;
  };
  return { tzid, offsetAt, instantOf };
}

/** One occurrence: UTC `YYYY-MM-DD HH:MM:SS` (as the API's utc_*_date) for a timed series, `YYYY-MM-DD` for an all-day one (end exclusive). */
export interface FeedOccurrence {
  start: string;
  end: string;
}

const sqlUtc = (unix: number): string => new Date(unix * 1000).toISOString().replace("T", " ").slice(0, 19);

/** A feed's VTIMEZONEs, read to the end of `untilYear`, by TZID. */
function zonesOf(calendar: Component, untilYear: number): Map<string, ZoneReader> {
  return new Map(calendar.getAllSubcomponents("vtimezone").map((z) => [String(z.getFirstPropertyValue("tzid")), readVtimezone(z, untilYear)]));
}

const tzidOf = (prop: Property): string | null => {
  const tzid = prop.getParameter("tzid");
  return typeof tzid === "string" ? tzid : null;
};

/**
 * A value's key: for a timed value its instant (Unix seconds): UTC as
 * written, a TZID's (or else `defaultZone`'s) wall clock through its
 * VTIMEZONE; for an all-day series, its date's midnight as if in UTC.
 */
function keyOf(value: Time, tzid: string | null, defaultZone: string | null, zones: Map<string, ZoneReader>, allDay: boolean): number {
  if (allDay || value.zone?.tzid === "UTC") return wallSeconds(value);
  const name = tzid ?? defaultZone;
  if (name === null) throw new Error("a floating time in a feed");
  const zone = zones.get(name);
  if (zone === undefined) throw new Error(`no VTIMEZONE for ${name}`);
  return zone.instantOf(wallSeconds(value));
}

/**
 * The occurrences of the series with UID `uid` in a feed (one text, or the
 * pages of one: a changed occurrence may be on another page than its
 * series, each read with its own page's VTIMEZONEs), first to last, those
 * starting before `until` (a Unix time), at most `max`: its DTSTART, RRULE
 * instances and RDATEs, less EXDATEs, each replaced by the VEVENT of the
 * same UID whose RECURRENCE-ID names it. Without the series in the feed,
 * its changed occurrences there.
 */
export function feedOccurrences(texts: string | readonly string[], uid: string, until: number, max = 10_000): FeedOccurrence[] {
  const untilYear = new Date(until * 1000).getUTCFullYear() + 1;
  const pages = (typeof texts === "string" ? [texts] : texts).map((text) => {
    const calendar = new ICAL.Component(ICAL.parse(text));
    return { zones: zonesOf(calendar, untilYear), events: calendar.getAllSubcomponents("vevent").filter((v) => String(v.getFirstPropertyValue("uid")) === uid) };
  });
  const masterPage = pages.find((p) => p.events.some((v) => !v.hasProperty("recurrence-id")));
  const master = masterPage?.events.find((v) => !v.hasProperty("recurrence-id"));
  const detached = pages.flatMap((p) => p.events.filter((v) => v.hasProperty("recurrence-id")).map((v) => ({ v, zones: p.zones })));
  if (masterPage === undefined || master === undefined) {
    if (detached.length === 0) throw new Error(`no event ${uid} in the feed`);
  }
  const startProp = (master ?? detached[0]?.v)?.getFirstProperty("dtstart") as Property;
  const start = startProp.getFirstValue() as Time;
  const allDay = start.isDate;
  const startZone = tzidOf(startProp);
  const length = (event: Component, zones: Map<string, ZoneReader>, at: number): number => {
    const endProp = event.getFirstProperty("dtend");
    const durationProp = event.getFirstProperty("duration");
    if (endProp !== null) return keyOf(endProp.getFirstValue() as Time, tzidOf(endProp), startZone, zones, allDay) - at;
    if (durationProp !== null) return (durationProp.getFirstValue() as InstanceType<typeof ICAL.Duration>).toSeconds();
    return allDay ? 86_400 : 0;
  };
  const show = (at: number, to: number): FeedOccurrence => (allDay ? { start: sqlUtc(at).slice(0, 10), end: sqlUtc(to).slice(0, 10) } : { start: sqlUtc(at), end: sqlUtc(to) });
  // Changed occurrences by the key of the occurrence they replace, each read with its own page's zones.
  const replaced = new Map<number, FeedOccurrence>();
  for (const { v, zones } of detached) {
    const idProp = v.getFirstProperty("recurrence-id") as Property;
    const ownStart = v.getFirstProperty("dtstart") as Property;
    const at = keyOf(ownStart.getFirstValue() as Time, tzidOf(ownStart), startZone, zones, allDay);
    replaced.set(keyOf(idProp.getFirstValue() as Time, tzidOf(idProp), startZone, zones, allDay), show(at, at + length(v, zones, at)));
  }
  if (masterPage === undefined || master === undefined) return [...replaced.values()].sort((a, b) => a.start.localeCompare(b.start));
  const zones = masterPage.zones;
  const key = (value: Time, tzid: string | null): number => keyOf(value, tzid, startZone, zones, allDay);
  const first = key(start, startZone);
  const duration = length(master, zones, first);
  // A DTSTART in UTC makes the rule's instances UTC times (§3.3.10: they take DTSTART's form).
  const startUtc = start.zone?.tzid === "UTC";
  const starts = new Set<number>([first]);
  const floating = (t: Time): Time => ICAL.Time.fromData({ year: t.year, month: t.month, day: t.day, hour: t.hour, minute: t.minute, second: t.second, isDate: t.isDate });
  for (const prop of master.getAllProperties("rrule")) {
    const rule = (prop.getFirstValue() as InstanceType<typeof ICAL.Recur>).clone();
    // UNTIL is compared here, as an instant (ical.js would compare through its own fold and gap choices).
    // A date UNTIL on a timed series (not what §3.3.10 allows, read as most apps do): to the end of that day.
    const untilValue = rule.until === null ? null : rule.until.isDate && !allDay ? ICAL.Time.fromData({ year: rule.until.year, month: rule.until.month, day: rule.until.day, hour: 23, minute: 59, second: 59 }) : rule.until;
    const last = untilValue === null ? Infinity : key(untilValue, null);
    rule.until = null;
    const iterator = rule.iterator(floating(start));
    let n = 0;
    for (let next = iterator.next(); next; next = iterator.next()) {
      const at = startUtc ? wallSeconds(next) : key(next, startZone);
      if (at > last || at >= until || ++n > max) break;
      starts.add(at);
    }
  }
  for (const prop of master.getAllProperties("rdate")) for (const value of prop.getValues() as Time[]) starts.add(key(value, tzidOf(prop)));
  for (const prop of master.getAllProperties("exdate")) for (const value of prop.getValues() as Time[]) starts.delete(key(value, tzidOf(prop)));
  return [...starts]
    .filter((at) => at < until)
    .sort((a, b) => a - b)
    .slice(0, max)
    .map((at) => replaced.get(at) ?? show(at, at + duration))
    .sort((a, b) => a.start.localeCompare(b.start));
}
