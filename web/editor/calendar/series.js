// Series and their occurrences, as the events API shows them (README,
// "Recurring events"): a list names each occurrence as an event of its own,
// with an `id` of 10,000,000 and up and `series_id` the series; an update of
// such an id detaches that occurrence into an event of its own (an id below
// ten million, `series_id` still the series); the series itself has
// `series_id` null and carries the `recurrence` lines.

import { h } from "./dom.js";
import { parseWall } from "./time.js";

export const OCCURRENCE_ID_BASE = 10_000_000;

/**
 * What a record is: "new" (creating), "single", "series" (has rules),
 * "occurrence" (one occurrence read at its own id: saving detaches it) or
 * "detached" (an occurrence already detached into an event of its own).
 */
export function seriesRole(record) {
  if (!record) return "new";
  const seriesId = record.series_id;
  if (seriesId !== null && seriesId !== undefined && Number(seriesId) !== Number(record.id)) {
    return Number(record.id) >= OCCURRENCE_ID_BASE ? "occurrence" : "detached";
  }
  return Array.isArray(record.recurrence) && record.recurrence.length > 0 ? "series" : "single";
}

/** The generic editor's route of a record of this type: `#/types/<type slug>/<id>`. */
export function editHref(type, id) {
  return `#/types/${encodeURIComponent(type?.slug ?? "")}/${encodeURIComponent(String(id))}`;
}

const dayFormat = new Intl.DateTimeFormat(undefined, { weekday: "short", day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });
const dayTimeFormat = new Intl.DateTimeFormat(undefined, { weekday: "short", day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit", timeZone: "UTC" });

/** A wall clock as the reader's language writes it (no zone conversion: it is the event's own clock). */
export function wallText(text, withTime = true) {
  const w = parseWall(text);
  if (!w) return String(text ?? "");
  const d = new Date(Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second));
  return (withTime ? dayTimeFormat : dayFormat).format(d);
}

/**
 * The notice of an occurrence or a detached occurrence, with the link to the
 * whole series; null for other records.
 */
export function occurrenceNotice(ctx) {
  const role = seriesRole(ctx.record);
  if (role !== "occurrence" && role !== "detached") return null;
  const record = ctx.record;
  const when = wallText(record.original_start_date || record.start_date, !record.all_day);
  const link = h("a", { href: editHref(ctx.type, record.series_id), class: "cal-series-link" }, "Edit the whole series");
  const text =
    role === "occurrence"
      ? [h("strong", {}, `You are editing one occurrence (${when}) of a series.`), " Saving makes this occurrence an event of its own; the series' other dates stay as they are."]
      : [h("strong", {}, `This event replaces one occurrence (${when}) of a series.`), " Changes here leave the series as it is."];
  return h("div", { class: "cal-notice", role: "note", dataset: { calendarNotice: role } }, h("p", {}, ...text), h("p", {}, link));
}
