/**
 * The argument tables of the event routes (calendar-api.md §4,
 * interface.md §2.2 and §4.2), as data: each write field's documentation
 * (index type or documentation-only type, default, description) next to the
 * rule that validates it. The list route's table is in `list-query.ts`.
 *
 * Where the original declares a core `type` the index shows it; where it
 * only has a Swagger type (`cost`, `website`, the linked lists) the arg is
 * untyped here too and carries a `docType` for the OpenAPI document.
 */
import type { EngineApi } from "../../engine-api";
import type { RestError } from "../../routes/errors";
import { RestError as Err } from "../../routes/errors";
import type { RestRequest } from "../../routes/types";
import type { FetchOptions } from "../../net/safe-fetch";
import type { LoadedPost } from "../../posts/types";
import type { ArgSpec, ArgsMap, ArgType, DocSchema } from "../../routes/types";
import { isWpBoolean, toWpBoolean } from "../../routes/coerce";
import { isValidTimeZone } from "../../dates/format";
import { planImage } from "../linked-posts/image";
import { requestableStatuses } from "../linked-posts/validate";
import { EVENT } from "../post-types";
import { nonEmptyString, requestLanguage } from "../common/args";
import { eventTimeFields, nowOf, parseEventDate, type DateValue } from "./dates";
import { findEventBySlug, PlannedImage } from "./operations";
import { addressedEventRelations } from "./relations";
import { REQUIRED_ON_CREATE, WRITE_FIELDS, WRITE_RULES, type WriteField } from "./rules";

interface FieldDoc {
  /** A core type: shown in the index and enforced (unless the arg has its own sanitiser). */
  type?: ArgType;
  /** Documentation-only type (the original's `swagger_type`). */
  docType?: ArgType | DocSchema;
  /** `items` shown in the index (the original declares them on its list fields). */
  items?: { type: ArgType };
  /** Documentation for form builders (WordPress treats `uri` as such): the field's rule checks the value. */
  format?: string;
  default?: boolean | null;
  description: string;
}

const LIST_OF_IDS: DocSchema = { type: "array", items: { type: "integer" } };

/** interface.md §2.2, in declaration order. */
const WRITE_DOCS: Readonly<Record<WriteField, FieldDoc>> = {
  author: { type: "integer", description: "The event author ID (an existing user; default: the requesting user)." },
  date: { type: "string", description: "The event publication date, read in the event time zone (a date-time, a relative expression or a Unix timestamp)." },
  date_utc: { type: "string", description: "The event publication date in UTC." },
  title: { type: "string", description: "The event title." },
  description: { type: "string", description: "The event description." },
  slug: { type: "string", description: "The event slug." },
  excerpt: { type: "string", description: "The event excerpt." },
  status: { type: "string", description: "The event post status." },
  timezone: { type: "string", description: "The event time zone (an IANA name, UTC or a UTC+N offset); default: the site time zone." },
  all_day: { type: "boolean", default: false, description: "Whether the event lasts the whole day." },
  start_date: { type: "string", description: "The event start date and time, read in the event time zone." },
  end_date: { type: "string", description: "The event end date and time, read in the event time zone; not before the start." },
  image: { type: "string", description: "The event featured image: an image attachment ID, or an image URL (users who may upload files). A URL must lead to a public host (no loopback, private, link-local or other internal address, ports 80, 443 and 8080, redirects checked too) unless the site allows its host, and be at most 2048 characters long." },
  cost: { docType: "string", description: "The event cost: a string or a list of strings." },
  website: { docType: "string", format: "uri", default: null, description: "The event website URL." },
  show_map: { type: "boolean", description: "Whether the event shows a map." },
  show_map_link: { type: "boolean", description: "Whether the event shows a map link." },
  hide_from_listings: { type: "boolean", description: "Whether the event is hidden from event lists." },
  sticky: { type: "boolean", description: "Whether the event is sticky in calendar views." },
  featured: { type: "boolean", description: "Whether the event is featured." },
  categories: { docType: LIST_OF_IDS, items: { type: "integer" }, default: null, description: "The event categories: IDs, slugs or names (new names create categories). At most 100 items; one write creates at most 50 new categories and tags together." },
  tags: { docType: LIST_OF_IDS, items: { type: "integer" }, default: null, description: "The event tags: IDs, slugs or names (new names create tags). At most 100 items; one write creates at most 50 new categories and tags together." },
  venue: { docType: LIST_OF_IDS, items: { type: "integer" }, default: null, description: "The event venue: an ID, {\"id\": ID}, or venue data to create one; empty to unlink." },
  organizer: { docType: LIST_OF_IDS, items: { type: "integer" }, default: null, description: "The event organizers: IDs, {\"id\": ID} objects or organizer data, alone or in a list (at most 100); empty to unlink." },
  recurrence: {
    // calpress's own field: typed in the index (the rule below refuses anything but a list of strings first).
    type: "array",
    items: { type: "string" },
    docType: { type: "array", items: { type: "string" } },
    description:
      "calpress addition: the RFC 5545 lines that make the event a series (RRULE, RDATE, EXDATE), as Google Calendar takes them; rules are expanded in the event's time zone on its wall clock. [] makes it a single event again; omitted on update, kept.",
  },
};

/** Date fields: a Unix timestamp may also come as a JSON number (the original's strval sanitiser), so they sanitise instead of type-checking. */
const DATE_FIELDS: ReadonlySet<WriteField> = new Set(["date", "date_utc", "start_date", "end_date"]);

function isDateValue(value: unknown): value is DateValue {
  return typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

function rawFlag(value: unknown): boolean {
  return isWpBoolean(value) ? toWpBoolean(value) : false;
}

/**
 * calendar-api.md §4.4 (calpress decision): an end before the start is a 400
 * naming `end_date`. Checked while validating when both dates are in the
 * request (their zone and the all-day rule are then known without the stored
 * event); the update operation checks the resulting dates again.
 */
async function endBeforeStart(engine: EngineApi, req: RestRequest): Promise<string | null> {
  if (!req.isSent("start_date") || !req.isSent("end_date")) return null;
  const tz = req.param("timezone");
  const timezoneSent = typeof tz === "string" && tz.trim() !== "";
  if (timezoneSent && !isValidTimeZone(tz.trim())) return null; // reported under timezone
  const zone = timezoneSent ? tz.trim() : await engine.options.timezone();
  const now = nowOf(engine);
  const rawStart = req.param("start_date");
  const rawEnd = req.param("end_date");
  // This runs while validating end_date, before start_date's own rule has
  // necessarily rejected a list or an object: only a string or a number can
  // be compared; anything else is reported under its own name.
  if (!isDateValue(rawStart) || !isDateValue(rawEnd)) return null;
  const start = parseEventDate(rawStart, zone, timezoneSent, now);
  const end = parseEventDate(rawEnd, zone, timezoneSent, now);
  if (!start || !end) return null;
  const fields = eventTimeFields(start, end, zone, rawFlag(req.param("all_day")));
  return fields.end_utc < fields.start_utc ? "The end date must not be before the start date." : null;
}

function writeArg(engine: EngineApi, name: WriteField, mode: "create" | "update", fetch: FetchOptions): ArgSpec {
  const doc = WRITE_DOCS[name];
  const rule = WRITE_RULES[name];
  const spec: { -readonly [K in keyof ArgSpec]: ArgSpec[K] } = {};
  if (doc.type !== undefined) spec.type = doc.type;
  if (doc.items !== undefined) spec.items = doc.items;
  if (doc.format !== undefined) spec.format = doc.format;
  // The statuses the rule accepts, shown for form builders; the rule runs first, so the enum refuses nothing more.
  if (name === "status") spec.enum = requestableStatuses(engine, EVENT);
  if (doc.default !== undefined) spec.default = doc.default;
  spec.description = doc.description;
  if (mode === "create" && REQUIRED_ON_CREATE.includes(name)) spec.required = true;
  spec.validate = async (value, req) => {
    const problem = await rule(value, engine);
    if (problem !== null) return problem;
    if (name === "end_date") return (await endBeforeStart(engine, req)) ?? true;
    return true;
  };
  if (DATE_FIELDS.has(name)) spec.sanitize = (value) => (typeof value === "number" ? String(value) : value);
  if (name === "image") {
    // The user-dependent part of the image check (URL only with upload_files,
    // the URL must answer with an image) runs once, here, before any
    // transaction; the operation receives the plan.
    spec.sanitize = async (value, req): Promise<PlannedImage | RestError> => {
      const planned = await planImage(engine, value, req.user, fetch);
      return "error" in planned ? new Err("rest_invalid_param", planned.error, 400) : new PlannedImage(planned.plan);
    };
  }
  if (doc.docType !== undefined) spec.docType = doc.docType;
  return spec;
}

/** `POST /events`: title, start_date and end_date required. `fetch`: the policy of image URL checks. */
export function createArgs(engine: EngineApi, fetch: FetchOptions = {}): ArgsMap {
  return Object.fromEntries(WRITE_FIELDS.map((name) => [name, writeArg(engine, name, "create", fetch)]));
}

/** The write fields on update: nothing required. */
export function updateFieldArgs(engine: EngineApi, fetch: FetchOptions = {}): Record<string, ArgSpec> {
  return Object.fromEntries(WRITE_FIELDS.map((name) => [name, writeArg(engine, name, "update", fetch)]));
}

export const idArg: ArgSpec = { type: "integer", required: true, description: "The event post ID." };

/**
 * `GET /events/by-slug/{slug}?occurrence_date=YYYY-MM-DD` (calpress addition, issue 22): the occurrence
 * of the series that starts on that local date, as the original's `/event/<slug>/<date>/` pages name one.
 */
export const occurrenceDateArg: ArgSpec = {
  type: "string",
  description: "For a series: the occurrence that starts on this date (YYYY-MM-DD, the event's wall clock), as its url names it.",
  validate: (value) => (typeof value === "string" && /^\d{4}-\d{2}-\d{2}$/.test(value)) || "occurrence_date must be a date, YYYY-MM-DD.",
};

/** The event password of the ID routes (interface.md §4.2); it unlocks a protected event's content. */
export const passwordArg: ArgSpec = {
  type: "string",
  description: "The event password.",
  validate: (value) => typeof value !== "string" || nonEmptyString(value) || "The password must be a non-empty string.",
};

/**
 * The `slug` of the by-slug routes: it must name an event (any status but
 * trash), or the request is a 400 (calendar-api.md §4.2). On update the body
 * `slug` overrides the path and is also the new slug (quirk, matched).
 */
export function slugLookupArg(engine: EngineApi, required: boolean): ArgSpec {
  return {
    type: "string",
    required,
    description: required ? "The event slug." : "The event slug (looks the event up; a body slug overrides the path).",
    validate: async (value, req) => {
      if (!nonEmptyString(value)) return "The slug must be a non-empty string.";
      const found = await eventBySlugForRequest(engine, req, value as string, await requestLanguage(req, engine));
      return found !== undefined || "No event has this slug.";
    },
  };
}

const SLUG_LOOKUPS = Symbol("event slug lookups");

/**
 * `findEventBySlug` once per request: the `slug` argument checks, the
 * handler and the permission checks behind `Allow` (on their views of the
 * request, which share `req.memo`) all need the event the slug names, as it
 * was when the request arrived.
 */
export function eventBySlugForRequest(engine: EngineApi, req: RestRequest, slug: string, language: string): Promise<LoadedPost | undefined> {
  const map = req.memo(SLUG_LOOKUPS, () => new Map<string, Promise<LoadedPost | undefined>>());
  const key = `${language}\u0000${slug}`;
  let found = map.get(key);
  if (!found) {
    found = findEventBySlug(engine, slug, language, addressedEventRelations(req));
    map.set(key, found);
  }
  return found;
}
