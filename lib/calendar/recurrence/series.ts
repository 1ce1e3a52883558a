/**
 * An event with a `recurrence` is a series: its lines are stored with it
 * (the typed field `recurrence`, a JSON array of the normalised lines) and
 * its occurrences, the series' own start first, are materialised in the
 * engine's occurrences table, in the same transaction as the write that
 * changed them. A single event has none.
 *
 * A series whose rules end is stored in full; an open-ended one (or one too
 * long to store in full) up to its horizon: the site option
 * `recurrence_horizon_days` (default 730, at most 3650) after the later of
 * now and its start (lib/calendar/recurrence/expand.ts
 * `occurrencesToStore`); `extendSeries` moves it on as time passes.
 */
import { DateTime } from "luxon";
import type { EngineApi } from "../../engine-api";
import { wallClockToInstant } from "../../dates/strtotime";
import { parseEventDate, type DateValue } from "../events/dates";
import { eventTimes, luxonZone } from "../event-times";
import { inGap, wallFields, zoneOf } from "./instants";
import { POST_STATUSES, type LoadedPost } from "../../posts/types";
import type { OccurrenceInput } from "../../posts/types";
import { postTypeCaps } from "../../posts/registry";
import { EVENT } from "../post-types";
import { occurrencesToStore } from "./expand";
import { parseRecurrence, RecurrenceError, ruleDay, type ParsedRecurrence } from "./rules";

export const RECURRENCE_HORIZON_OPTION = "recurrence_horizon_days";
export const DEFAULT_HORIZON_DAYS = 730;
const MAX_HORIZON_DAYS = 3650;

/** The stored lines of an event (none for a single event). */
export function storedRecurrence(post: LoadedPost): string[] {
  const raw = post.fields.recurrence;
  if (typeof raw !== "string" || raw === "") return [];
  try {
    const lines: unknown = JSON.parse(raw);
    return Array.isArray(lines) ? lines.filter((l): l is string => typeof l === "string") : [];
  } catch {
    return [];
  }
}

/** The field value that stores `lines` (null: not a series). */
export function recurrenceFieldValue(parsed: ParsedRecurrence): string | null {
  return parsed.lines.length > 0 ? JSON.stringify(parsed.lines) : null;
}

export async function horizonDays(engine: EngineApi): Promise<number> {
  const days = Number(await engine.options.get(RECURRENCE_HORIZON_OPTION));
  return Number.isInteger(days) && days > 0 ? Math.min(days, MAX_HORIZON_DAYS) : DEFAULT_HORIZON_DAYS;
}

/**
 * The field that keeps a start written in a DST gap (`recurrence_start`):
 * the event's own start_local is where the API placed it (02:30 in New
 * York's spring-forward gap is stored 03:30, as PHP reads it), but a
 * series repeats DTSTART as written (RFC 5545 §3.3.5: only the occurrence
 * in the gap moves; the next week's is at 02:30 again).
 */
export const RECURRENCE_START_FIELD = "recurrence_start";

/**
 * The wall clock an event's start `value` was written with, when it falls
 * in a DST gap of `zone` and the API moved it to `placed` (the instant the
 * event write read it as); null otherwise (a start that exists as written,
 * an all-day event, or a value the check cannot read back: relative words
 * are read again in UTC, and only kept when that wall clock lands on the
 * same instant).
 */
export function gapStartAsWritten(value: DateValue, zone: string, timezoneSent: boolean, now: DateTime, placed: DateTime): string | null {
  const asWall = parseEventDate(value, "UTC", timezoneSent, now);
  if (asWall === null) return null;
  const written = asWall.toUTC().toFormat("yyyy-MM-dd HH:mm:ss");
  const f = wallFields(written);
  if (f === null || !inGap(written, zoneOf(zone))) return null;
  return wallClockToInstant(f, luxonZone(zone)).toMillis() === placed.toMillis() ? written : null;
}

/**
 * The series' start as its rules repeat it: the start written in a DST gap
 * when the event keeps one that still names its stored start (same zone,
 * same placed wall clock), else the stored start.
 */
export function seriesStartLocal(fields: LoadedPost["fields"], zone: string): string | undefined {
  const stored = fields.start_local;
  if (typeof stored !== "string") return undefined;
  const written = fields[RECURRENCE_START_FIELD];
  if (typeof written !== "string" || fields.all_day === true || !inGap(written, zoneOf(zone))) return stored;
  return eventTimes(written, written, zone, false)?.start_local === stored ? written : stored;
}

/** The occurrences an event should have now (none for a single event). Throws RecurrenceError for a series past the bound. */
export function seriesOccurrences(post: LoadedPost, now: Date, days: number, siteZone: string): OccurrenceInput[] {
  const lines = storedRecurrence(post);
  if (lines.length === 0) return [];
  const f = post.fields;
  const zone = typeof f.timezone === "string" && f.timezone !== "" ? f.timezone : siteZone;
  const startLocal = seriesStartLocal(f, zone);
  if (startLocal === undefined || typeof f.end_local !== "string") throw new RecurrenceError("a series needs a start and an end date.");
  const base = { startLocal, endLocal: f.end_local, zone, allDay: f.all_day === true };
  return occurrencesToStore(parseRecurrence(lines), base, now, days).map((o) => ({ key: o.key, ...o.times }));
}

/**
 * Makes the stored occurrences of `post` what its fields say, on the engine
 * given (the write's transaction), within the author's bound unless
 * `authorBound: false` (a fixture the operator loads). `before`: what the event was before this
 * write: `new` (just created: nothing stored, nothing detached), `single`
 * (no lines: a single event that stays single reads nothing) or `series`.
 */
export async function syncSeries(engine: EngineApi, post: LoadedPost, before: "new" | "single" | "series", now: Date, opts: { authorBound?: boolean } = {}): Promise<void> {
  if (post.type !== EVENT) return;
  // A series repeats whatever it has left: one whose every occurrence is cancelled or detached is listed nowhere as itself.
  const repeats = storedRecurrence(post).length > 0;
  const instances = seriesOccurrences(post, now, await horizonDays(engine), await engine.options.timezone());
  if (!repeats && before !== "series") return;
  // A detached occurrence (lib/calendar/recurrence/exceptions.ts) is an event of its own: the rules no longer make it.
  // A single event may have been a series before, with some detached.
  const detached = instances.length === 0 || before === "new" ? new Set<string>() : await detachedKeys(engine, post.id);
  const kept = instances.filter((i) => !detached.has(i.key));
  if (opts.authorBound !== false) await checkAuthorBound(engine, post, kept.length);
  await engine.occurrences.replace(post.id, kept, { repeats });
}

/** The site option bounding the occurrences of each author's series, for authors who may not edit others' events. */
export const AUTHOR_OCCURRENCES_OPTION = "recurrence_author_occurrences";
export const DEFAULT_AUTHOR_OCCURRENCES = 10_000;

export async function authorOccurrences(engine: EngineApi): Promise<number> {
  const limit = Number(await engine.options.get(AUTHOR_OCCURRENCES_OPTION));
  return Number.isInteger(limit) && limit > 0 ? limit : DEFAULT_AUTHOR_OCCURRENCES;
}

/**
 * Occurrences are rows written for each series ahead of time, so one
 * untrusted user could make many: the series of an author who may not edit
 * others' events (contributors, authors) have at most
 * `recurrence_author_occurrences` occurrences in all, whatever their status.
 * Editors and administrators, trusted with the whole site, are bounded per
 * series only (MAX_OCCURRENCES). Throws RecurrenceError (a 400) past it.
 */
async function checkAuthorBound(engine: EngineApi, post: LoadedPost, count: number): Promise<void> {
  if (count === 0 || post.author <= 0) return;
  const record = await engine.users.get(post.author);
  if (record === undefined) return;
  const caps = postTypeCaps(engine.postType(EVENT)?.capabilityType ?? ["event", "events"]);
  if (engine.users.currentUser(record).can(caps.edit_others_posts)) return;
  const limit = await authorOccurrences(engine);
  const others = count > limit ? 0 : await engine.occurrences.countByAuthor(post.author, post.id);
  if (others + count > limit) {
    // Past the bound already (fixtures are exempt, the bound may have been lowered): an edit that does not grow
    // the series is let through, so that an editor can still change a title or an excerpt.
    const current = (await engine.occurrences.countByAuthor(post.author, 0)) - (await engine.occurrences.countByAuthor(post.author, post.id));
    if (count <= current) return;
    throw new RecurrenceError(
      `recurrence: an author's series may have at most ${limit} occurrences in all, and this one would make ${count}${others > 0 ? ` besides the ${others} of their other series` : ""}: give COUNT or UNTIL, or end another series.`,
    );
  }
}

/** The keys of the series' detached occurrences, whatever their status (a trashed one stays cancelled). */
export async function detachedKeys(engine: EngineApi, seriesId: number): Promise<Set<string>> {
  return new Set((await detachedOccurrences(engine, seriesId)).flatMap((p) => (typeof p.fields.recurrence_id === "string" ? [p.fields.recurrence_id] : [])));
}

/** The events detached from the series (lib/calendar/recurrence/exceptions.ts), in any status. */
export async function detachedOccurrences(engine: EngineApi, seriesId: number): Promise<LoadedPost[]> {
  const { posts } = await engine.posts.find({
    type: EVENT,
    status: [...POST_STATUSES],
    parent: [seriesId],
    where: [{ field: "recurrence_id", op: "not null" }],
    perPage: 0,
    noTotal: true,
    with: {},
  });
  return posts;
}

/**
 * Whether the series' occurrences before `horizonDay` (a UTC date) are all
 * there already: each rule ends before it (by its UNTIL, or by a bound on
 * where COUNT occurrences can reach, see `countReach`), as do its RDATEs.
 * Decided from the rules alone: the daily extension then expands only the
 * series that may still grow.
 */
export function endsBefore(lines: string[], horizonDay: string, startLocal: string): boolean {
  const parsed = parseRecurrence(lines);
  const start = DateTime.fromISO(startLocal.slice(0, 10), { zone: "UTC" });
  return (
    parsed.rules.every((r) => {
      if (r.until !== undefined) return ruleDay(r.until) < horizonDay;
      const reach = r.count === undefined ? null : countReach(r.text, r.count);
      // A day of margin for the zone between the wall clock and the UTC horizon. A reach past what luxon
      // can represent (COUNT × INTERVAL up to 2^62) is past any horizon: no end date.
      const end = reach === null || !start.isValid ? null : start.plus(reach).plus({ days: 1 });
      return end !== null && end.isValid && end.toISODate()! < horizonDay;
    }) && parsed.rdates.every((d) => ruleDay(d) < horizonDay)
  );
}

/**
 * How far from its start a rule's COUNT occurrences can reach at most, or
 * null where no simple bound holds. Each period (of INTERVAL units) holds
 * at least one occurrence unless a part skips periods: a day of the month
 * past the 28th skips months (at most one in two), a monthly weekday
 * ordinal past the 4th skips months (at most two in three), a yearly
 * 29 February skips years (at most seven in eight). Other BY parts (BYMONTH,
 * BYYEARDAY, BYWEEKNO, BYSETPOS, BYMONTHDAY lists, weekday filters of a
 * daily rule) may skip more: no bound.
 */
function countReach(ruleText: string, count: number): { days: number } | { months: number } | null {
  const parts = new Map(ruleText.split(";").map((p) => p.split("=") as [string, string]));
  const interval = Number(parts.get("INTERVAL") ?? "1");
  const freq = parts.get("FREQ");
  const others = [...parts.keys()].filter((k) => !["FREQ", "INTERVAL", "COUNT", "WKST"].includes(k));
  const periods = count * interval;
  if (freq === "DAILY") return others.length === 0 ? { days: periods } : null;
  if (freq === "WEEKLY") return others.every((k) => k === "BYDAY") ? { days: periods * 7 } : null;
  if (freq === "MONTHLY") {
    if (others.length === 0) return { months: periods * 2 };
    const byday = parts.get("BYDAY");
    return others.length === 1 && byday !== undefined && /^[+-]?[1-5](MO|TU|WE|TH|FR|SA|SU)$/.test(byday) ? { months: periods * 3 } : null;
  }
  if (freq === "YEARLY") return others.length === 0 ? { months: periods * 12 * 8 } : null;
  return null;
}

/**
 * Moves every open series' occurrences on to the current horizon (run daily
 * by the serving process; idempotent, so several processes may run it).
 * Returns how many series it wrote.
 *
 * Each series is expanded first outside any transaction, and written only
 * when the new horizon brings an occurrence it has not stored: a site's
 * series mostly end well before the horizon, and a write transaction for
 * each (ten thousand at the benchmark's size) held the writer for minutes.
 * A detached occurrence looks missing here; the transaction, which knows
 * them, then writes nothing.
 */
export async function extendSeries(engine: EngineApi, now: Date): Promise<number> {
  const days = await horizonDays(engine);
  const siteZone = await engine.options.timezone();
  const horizonDay = new Date(now.getTime() + days * 86_400_000).toISOString().slice(0, 10);
  let extended = 0;
  for (let page = 1; ; page++) {
    const { posts } = await engine.posts.find({
      type: EVENT,
      status: [...POST_STATUSES],
      where: [{ field: "recurrence", op: "not null" }],
      orderBy: [{ field: "id", dir: "asc" }],
      page,
      perPage: 500,
      noTotal: true,
      with: {},
    });
    for (const post of posts) {
      const lines = storedRecurrence(post);
      if (lines.length === 0 || endsBefore(lines, horizonDay, String(post.fields.start_local ?? ""))) continue;
      let wanted: OccurrenceInput[];
      try {
        wanted = seriesOccurrences(post, now, days, siteZone);
      } catch (err) {
        // A rule that now makes too many occurrences keeps the ones it has (they were valid when written).
        if (err instanceof RecurrenceError) continue;
        throw err;
      }
      const stored = new Set((await engine.occurrences.list(post.id)).map((o) => o.key));
      if (wanted.every((o) => stored.has(o.key))) continue;
      extended++;
      await engine.write(async (tx) => {
        // Read again in the write's transaction: an edit in between has synced the series itself.
        const current = await tx.posts.get(post.id);
        if (!current || current.type !== EVENT || storedRecurrence(current).length === 0) return;
        try {
          await syncSeries(tx, current, "series", now);
        } catch (err) {
          if (!(err instanceof RecurrenceError)) throw err;
        }
      });
    }
    if (posts.length < 500) return extended;
  }
}
