/**
 * `GET /recurrence-preview` (calpress addition, for an editor's recurrence
 * widget): the first occurrences a `recurrence` would make for an event with
 * these dates, computed by the series' own expansion
 * (lib/calendar/recurrence/expand.ts) and nothing stored. The arguments are
 * the event write's own (lib/calendar/events/args.ts), so a bad rule is the
 * same 400 as on `POST /events`. Public, since it only computes; bounded, since
 * it answers at most MAX_PREVIEW_COUNT occurrences and the rules test at most
 * MAX_PREVIEW_DAYS days in all (lib/calendar/recurrence/rrule.ts: no single
 * step of a rule escapes that count).
 */
import type { DateTime } from "luxon";
import { READABLE, type RestRequest } from "../../routes/types";
import type { CalendarHost } from "../host";
import { NAMESPACE } from "../common/args";
import { nowOf, parseEventDate, SQL_FORMAT, type DateValue } from "../events/dates";
import { updateFieldArgs } from "../events/args";
import { dateRule } from "../events/rules";
import { invalidParam } from "../events/errors";
import { eventTimeFields } from "../event-times";
import { previewSeries, type SeriesPreview } from "../recurrence/expand";
import { StepBudget } from "../recurrence/rrule";
import { parseRecurrence, RecurrenceError, type ParsedRecurrence } from "../recurrence/rules";
import { gapStartAsWritten } from "../recurrence/series";

/** At most this many occurrences per answer (`count`). */
export const MAX_PREVIEW_COUNT = 50;
/**
 * At most this many days tested per answer, all rules together (a few
 * milliseconds): a daily rule's next 270 years, a weekly one's too. Anyone
 * may ask, so far less than a stored series may take (EXPANSION_BUDGET).
 */
export const MAX_PREVIEW_DAYS = 100_000;

interface PreviewParams {
  recurrence: unknown;
  start_date: DateValue;
  end_date?: DateValue;
  timezone?: string;
  all_day: boolean;
  count: number;
  after?: DateValue;
}

const OCCURRENCE_SCHEMA = {
  type: "object",
  properties: {
    start_date: { type: "string", description: "Start, wall clock of the event's time zone (YYYY-MM-DD HH:MM:SS)." },
    end_date: { type: "string", description: "End, wall clock of the event's time zone." },
    utc_start_date: { type: "string", description: "Start in UTC." },
    utc_end_date: { type: "string", description: "End in UTC." },
  },
} as const;

export function registerRecurrencePreviewRoute(host: CalendarHost): void {
  const { engine, rest } = host;
  // The event write's own argument specs: same validation, same messages.
  const fields = updateFieldArgs(engine, host.fetch);

  /** A date argument the arg rules accepted, read as an event's dates are; a 400 naming it should the zone push it out of range. */
  const dateOf = (value: DateValue, name: string, zone: string, timezoneSent: boolean, now: DateTime): DateTime => {
    const dt = parseEventDate(value, zone, timezoneSent, now);
    if (dt === null) throw invalidParam(name, "The date must be a Unix timestamp or a date the date parser understands.");
    return dt;
  };

  const recurrenceOf = <T>(work: () => T): T => {
    try {
      return work();
    } catch (err) {
      if (err instanceof RecurrenceError) throw invalidParam("recurrence", err.message);
      throw err;
    }
  };

  rest.registerRoute(NAMESPACE, "/recurrence-preview", {
    methods: READABLE,
    permission: "public",
    args: {
      recurrence: { ...fields.recurrence, required: true, description: "The RFC 5545 lines (RRULE, RDATE, EXDATE) of the series, as events take them." },
      start_date: { ...fields.start_date, required: true, description: "The series' first start, read in its time zone as an event's start_date." },
      end_date: { ...fields.end_date, description: "The series' first end, read as an event's end_date; default: one hour after the start." },
      timezone: { ...fields.timezone, description: "The series' time zone (an IANA name, UTC or a UTC+N offset); default: the site time zone." },
      all_day: fields.all_day,
      count: { type: "integer", minimum: 1, maximum: MAX_PREVIEW_COUNT, default: 10, description: `How many occurrences to answer (at most ${MAX_PREVIEW_COUNT}).` },
      after: {
        // Shown as a string; the sanitiser (a Unix timestamp may come as a JSON number) replaces the type rules, as on start_date.
        type: "string",
        validate: async (value) => (await dateRule(value, engine)) ?? true,
        sanitize: (value) => (typeof value === "number" ? String(value) : value),
        description: "Only occurrences starting at or after this date, read in the series' time zone (a date the date parser understands or a Unix timestamp).",
      },
    },
    summary: "Preview the occurrences of a recurrence",
    description:
      "The first `count` occurrences an event with these dates and this `recurrence` would have, computed as a stored series' are, nothing stored. " +
      "`bounded`: every rule has COUNT or UNTIL (the series ends); `total_known`: how many occurrences the whole series has, or null when it does not end " +
      `or counting them would test more than ${MAX_PREVIEW_DAYS} days (which also bounds how far past the start \`after\` can reach).`,
    responses: {
      "200": {
        description: "The occurrences, first to last.",
        schema: {
          type: "object",
          properties: {
            occurrences: { type: "array", items: OCCURRENCE_SCHEMA },
            total_known: { type: "integer", nullable: true },
            bounded: { type: "boolean" },
          },
        },
      },
      "400": { description: "Invalid parameter(s): a bad rule, date or time zone, or an end before the start." },
    },
    async handler(req: RestRequest<PreviewParams>) {
      const p = req.params;
      const tz = typeof p.timezone === "string" ? p.timezone.trim() : "";
      const timezoneSent = tz !== "";
      const zone = timezoneSent ? tz : await engine.options.timezone();
      const now = nowOf(engine);
      const start = dateOf(p.start_date, "start_date", zone, timezoneSent, now);
      const end = p.end_date === undefined ? start.plus({ hours: 1 }) : dateOf(p.end_date, "end_date", zone, timezoneSent, now);
      const times = eventTimeFields(start, end, zone, p.all_day === true);
      if (times.end_utc < times.start_utc) throw invalidParam("end_date", "The end date must not be before the start date.");
      const afterUtc = p.after === undefined ? undefined : dateOf(p.after, "after", zone, timezoneSent, now).toUTC().toFormat(SQL_FORMAT);
      const parsed: ParsedRecurrence = recurrenceOf(() => parseRecurrence(p.recurrence));
      // The rules repeat the start as written, also in a DST gap (as a stored series: lib/calendar/recurrence/series.ts).
      const written = times.all_day ? null : gapStartAsWritten(p.start_date, zone, timezoneSent, now, start);
      const base = { startLocal: written ?? times.start_local, endLocal: times.end_local, zone, allDay: times.all_day };
      const preview: SeriesPreview = recurrenceOf(() => previewSeries(parsed, base, { count: p.count, afterUtc, budget: new StepBudget(MAX_PREVIEW_DAYS) }));
      return {
        occurrences: preview.occurrences.map(({ times: o }) => ({ start_date: o.start_local, end_date: o.end_local, utc_start_date: o.start_utc, utc_end_date: o.end_utc })),
        total_known: preview.total,
        bounded: preview.bounded,
      };
    },
  });
}
