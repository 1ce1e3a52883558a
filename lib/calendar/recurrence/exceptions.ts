/**
 * Changing one occurrence of a series (issue 22), inside the write's
 * transaction:
 *
 * - **cancelling** one (`DELETE /events/{occurrence id}`) adds its start to
 *   the series' EXDATE values, so the lines a client reads say it too;
 * - **detaching** one (an update of `/events/{occurrence id}`) makes it an
 *   event of its own, as the original does when one occurrence is edited:
 *   a copy of the series at that occurrence, whose parent is the series and
 *   whose `recurrence_id` is the occurrence's key (RFC 5545's
 *   RECURRENCE-ID). The series' rules no longer make that occurrence
 *   (`syncSeries` leaves detached keys out), so a later change of the series
 *   keeps the detached one as it is. It has an id of its own: the
 *   occurrence's id is no longer listed.
 *
 * Trashing a series trashes its detached occurrences with it.
 */
import type { EngineApi } from "../../engine-api";
import type { LoadedPost } from "../../posts/types";
import type { CurrentUser } from "../../users/types";
import { EVENT } from "../post-types";
import { parseRecurrence } from "./rules";
import { detachedOccurrences, recurrenceFieldValue, storedRecurrence, syncSeries } from "./series";

/**
 * `lines` with the occurrence that starts at `key` (the event's wall clock)
 * excluded: the value joins the series' floating EXDATE line (a date for an
 * all-day series), made if missing, so that cancellations do not use up the
 * lines a series may have. Throws RecurrenceError past the bounds.
 */
export function withExdate(lines: readonly string[], key: string, allDay: boolean): string[] {
  const digits = key.slice(0, 10).replace(/-/g, "");
  const value = allDay ? digits : `${digits}T${key.slice(11, 19).replace(/:/g, "")}`;
  const prefix = allDay ? "EXDATE;VALUE=DATE:" : "EXDATE:";
  const at = lines.findIndex((l) => l.toUpperCase().startsWith(prefix));
  const out = [...lines];
  if (at < 0) out.push(`${prefix}${value}`);
  else if (!out[at].slice(prefix.length).split(",").includes(value)) out[at] = `${out[at]},${value}`;
  return parseRecurrence(out).lines;
}

/** Cancels the occurrence `occurrence` (a post read at one of its instances): returns the series as written. */
export async function cancelOccurrence(tx: EngineApi, occurrence: LoadedPost, now: Date): Promise<LoadedPost> {
  const key = occurrence.occurrence?.key;
  const series = await tx.posts.get(occurrence.id);
  if (key === undefined || series === undefined) throw new Error("cancelOccurrence: not an occurrence");
  const lines = withExdate(storedRecurrence(series), key, series.fields.all_day === true);
  const updated = await tx.posts.update(series.id, { fields: { recurrence: recurrenceFieldValue(parseRecurrence(lines)) } });
  await syncSeries(tx, updated, "series", now);
  return updated;
}

/**
 * Detaches the occurrence `occurrence` (a post read at one of its instances,
 * with its terms and links): returns the id of the event it becomes, which
 * the caller then updates as asked. Its slug is the series' with the date.
 */
export async function detachOccurrence(tx: EngineApi, occurrence: LoadedPost, user: CurrentUser | null, now: Date): Promise<number> {
  const instance = occurrence.occurrence;
  if (instance === undefined) throw new Error("detachOccurrence: not an occurrence");
  const created = await tx.posts.create(
    {
      type: EVENT,
      status: occurrence.status,
      ...(occurrence.slug === "" ? {} : { slug: `${occurrence.slug}-${instance.key.slice(0, 10)}` }),
      title: occurrence.title,
      content: occurrence.content,
      excerpt: occurrence.excerpt,
      author: occurrence.author,
      parent: occurrence.id,
      password: occurrence.password,
      dateLocal: occurrence.dateLocal,
      dateUtc: occurrence.dateUtc,
      language: occurrence.language,
      // The key is the instance's start on the series' wall clock, so its UTC is the instance's start_utc.
      // A single event now: the series' start as written in a DST gap (recurrence_start) is not its start.
      fields: { ...occurrence.fields, recurrence: null, recurrence_start: null, recurrence_id: instance.key, recurrence_id_utc: instance.start_utc },
      terms: occurrence.termIds ?? {},
      links: occurrence.links ?? {},
    },
    user,
  );
  const series = await tx.posts.get(occurrence.id);
  if (series !== undefined) await syncSeries(tx, series, "series", now);
  return created.id;
}

/** Trashes the detached occurrences of a series being trashed. */
export async function trashDetached(tx: EngineApi, seriesId: number): Promise<void> {
  for (const p of await detachedOccurrences(tx, seriesId)) if (p.status !== "trash") await tx.posts.trash(p.id);
}
