/**
 * The event operations: list, read, create, update, trash
 * (calendar-api.md §4). They hold the logic; the HTTP routes only turn
 * requests into calls and posts into records, and a host application calls
 * the same functions in-process. Each takes the engine, its input (named as
 * in the API) and the acting user, checks permission itself, and reports
 * failures as the RestErrors of calendar-api.md §9.
 */
import type { DateTime } from "luxon";
import type { EngineApi } from "../../engine-api";
import { lockNames } from "../../db/name-lock";
import { isEngineError } from "../../engine-errors";
import { sanitizeField } from "../../format/sanitize";
import { sanitizeTitle } from "../../format/slug";
import { postTypeCaps, type PostTypeCaps } from "../../posts/registry";
import type { FieldValue, LoadedPost, PostInput, PostPatch, PostQuery, PostStatus } from "../../posts/types";
import type { FetchOptions } from "../../net/safe-fetch";
import { RestError, isRestError } from "../../routes/errors";
import type { QueryValue } from "../../routes/urls";
import type { CurrentUser } from "../../users/types";
import { normaliseCostInput } from "../cost";
import { applyImagePlan, planImage, type ImagePlan } from "../linked-posts/image";
import { linkedPostLockParts, scaleStatus, type LinkedPostContext } from "../linked-posts/operations";
import { CATEGORY, EVENT, ORGANIZER_LINK, TAG, VENUE_LINK } from "../post-types";
import { hasContentAccess } from "../records/access";
import { isTruthyFlag } from "../common/args";
import {
  eventTimeFields,
  nowOf,
  parseEventDate,
  publicationDate,
  publicationDateUtc,
  storedEventDate,
  type DateValue,
  type EventTimeFields,
} from "./dates";
import {
  eventIsInTrash,
  eventNoLongerAvailable,
  eventNotAccessible,
  eventNotFound,
  eventPasswordProtected,
  eventArchivePageNotFound,
  couldNotDeleteEvent,
  couldNotUpdateEvent,
  forbidden,
  invalidEventId,
  invalidParam,
} from "./errors";
import { newTermBudget, parseLinkedValue, resolveLinkedRefs, resolveTermIds, termItems, termLockParts, type LinkedRef, type TermItems } from "./linked";
import { applyDateBounds, clampPerPage, eventListParams, ListLookups, type EventListInput, type ListContext, type ListDraft, type ListParam } from "./list-query";
import { parseRecurrence, RecurrenceError } from "../recurrence/rules";
import { gapStartAsWritten, RECURRENCE_START_FIELD, recurrenceFieldValue, storedRecurrence, syncSeries } from "../recurrence/series";
import { cancelOccurrence, detachOccurrence, trashDetached } from "../recurrence/exceptions";
import { FLAG_FIELDS, REQUIRED_ON_CREATE, WRITE_FIELDS, WRITE_RULES, WRITE_SANITIZERS } from "./rules";
import { checkAuthorAssignment } from "../common/author";

/** Relations and terms loaded with every event the operations return (what a record embeds). */
export const EVENT_RELATIONS: NonNullable<PostQuery["with"]> = { terms: [CATEGORY, TAG], links: [VENUE_LINK, ORGANIZER_LINK] };

/**
 * An `image` value already checked and planned (the route does this during
 * argument validation, so the network check runs once and before any
 * transaction); operations accept it in place of a raw ID or URL.
 */
export class PlannedImage {
  constructor(readonly plan: ImagePlan) {}
}

/** Create/update fields by their API names (calendar-api.md §4.3). Absent or null = not sent. */
export interface EventWriteInput {
  author?: number | string;
  date?: DateValue;
  date_utc?: DateValue;
  title?: string;
  description?: string;
  slug?: string;
  excerpt?: string;
  status?: string;
  timezone?: string;
  all_day?: boolean | string | number;
  start_date?: DateValue;
  end_date?: DateValue;
  image?: string | number | PlannedImage;
  /** A string or a list of strings. */
  cost?: unknown;
  website?: string;
  show_map?: boolean | string | number;
  show_map_link?: boolean | string | number;
  hide_from_listings?: boolean | string | number;
  sticky?: boolean | string | number;
  featured?: boolean | string | number;
  /** IDs, slugs or names: a list or a comma-separated string. */
  categories?: unknown;
  tags?: unknown;
  /** An ID, `{id}`, venue data, or an empty value to unlink. */
  venue?: unknown;
  /** IDs, `{id}` objects and organizer data, alone or in a list; an empty value unlinks all. */
  organizer?: unknown;
  /** RFC 5545 lines (lib/calendar/recurrence/rules.ts); `[]` makes a single event. */
  recurrence?: unknown;
}

export interface WriteOptions {
  /**
   * The effective language L: a new event (and the venues, organizers and
   * terms created with it) gets it. Default: the site's. Not used on update,
   * which keeps the event's language.
   */
  language?: string;
  /**
   * The input already passed the field rules (the routes validate arguments
   * before calling); skips running them again. Checks that need the stored
   * event (an update's resulting end before its start) always run.
   */
  validated?: boolean;
  /** The policy of image URL checks, the event's and its new venue's (`createSite({ fetch })`); default: public hosts only. */
  fetch?: FetchOptions;
  /** Post meta written with the event, in its transaction (the importer's UID). */
  meta?: Record<string, string>;
}

export interface ReadAccess {
  /** The request's `password` parameter. */
  password?: string;
  /** `context=edit`: unmasks protected events the user may edit. */
  editContext?: boolean;
}

function sent<T>(value: T | null | undefined): value is T {
  return value !== undefined && value !== null;
}

export function eventCaps(engine: EngineApi): PostTypeCaps {
  return postTypeCaps(engine.postType(EVENT)?.capabilityType ?? ["event", "events"]);
}

/**
 * A value the write's own rules need cleaned before the engine sees it (WRITE_SANITIZERS), for the acting user.
 * Title, description and excerpt are cleaned by the engine, as the event type declares (post-types.ts).
 */
function cleaned(name: keyof typeof WRITE_SANITIZERS, text: string, user: CurrentUser | null): string {
  const kind = WRITE_SANITIZERS[name];
  return kind === undefined ? text : sanitizeField(kind, text, user?.can("unfiltered_html") === true);
}

function flag(value: unknown): boolean {
  return typeof value === "boolean" ? value : isTruthyFlag(value);
}

// ---------------------------------------------------------------- reads

/**
 * A single event (calendar-api.md §4.2), with the checks in the original's
 * order: no such post → 404; not an event → 400; trashed → 403; not
 * readable by the user → 403; password without access → 403.
 */
export async function getEvent(engine: EngineApi, id: number, user: CurrentUser | null, access: ReadAccess = {}): Promise<LoadedPost> {
  return readableEvent(engine, await engine.posts.get(id, EVENT_RELATIONS), id, user, access);
}

/** The checks of `getEvent` on a post already loaded (with EVENT_RELATIONS) by the ID `id`. */
export function readableEvent(engine: EngineApi, post: LoadedPost | undefined, id: number, user: CurrentUser | null, access: ReadAccess = {}): LoadedPost {
  const refusal = eventRefusal(engine, post, id, user, access);
  if (refusal !== undefined || post === undefined) throw refusal ?? eventNotFound(id);
  return post;
}

/** What `readableEvent` throws for this post and reader, in its order; undefined where the event may be read. */
export function eventRefusal(engine: EngineApi, post: LoadedPost | undefined, id: number, user: CurrentUser | null, access: ReadAccess = {}): RestError | undefined {
  if (!post) return eventNotFound(id);
  if (post.type !== EVENT) return invalidEventId(id);
  if (post.status === "trash") return eventNoLongerAvailable();
  if (post.status !== "publish" && !engine.posts.canRead(post, user)) return eventNotAccessible();
  if (!hasContentAccess(post, { user, editContext: access.editContext === true, password: access.password })) return eventPasswordProtected();
  return undefined;
}

/**
 * The event a slug names (calendar-api.md §4.2): normalised like a new slug,
 * any status but trash (trashed slugs carry `__trashed`), language L first,
 * lowest ID when several share it.
 */
export async function findEventBySlug(
  engine: EngineApi,
  slug: string,
  language?: string,
  withRel: NonNullable<PostQuery["with"]> = EVENT_RELATIONS,
): Promise<LoadedPost | undefined> {
  const normalised = sanitizeTitle(slug);
  if (normalised === "") return undefined;
  return engine.posts.getBySlug(EVENT, normalised, { language, withRel });
}

export async function getEventBySlug(
  engine: EngineApi,
  slug: string,
  user: CurrentUser | null,
  access: ReadAccess = {},
  language?: string,
): Promise<LoadedPost> {
  const found = await findEventBySlug(engine, slug, language);
  if (!found) throw invalidParam("slug", "No event has this slug.");
  // Already loaded with the event's relations: checked as it is, not read again.
  return readableEvent(engine, found, found.id, user, access);
}

const listParamTables = new WeakMap<EngineApi, ListParam[]>();

/** The list parameter table of an engine, built once. */
function listParamsOf(engine: EngineApi): ListParam[] {
  let table = listParamTables.get(engine);
  if (!table) {
    table = eventListParams(engine);
    listParamTables.set(engine, table);
  }
  return table;
}

export interface EventListResult {
  posts: LoadedPost[];
  /** All matching events. */
  total: number;
  page: number;
  /** The page size used (clamped to 50). */
  perPage: number;
  /** The effective arguments, in declaration order, for `rest_url` and the paging links. */
  query: Record<string, QueryValue>;
}

/**
 * The events archive (calendar-api.md §4.1): visibility (anonymous:
 * published; users who can edit events: every status but trash/auto-draft,
 * the original's quirk), never `hide_from_listings` events, language L,
 * the filters and date bounds of the parameter table, ordered by local start
 * then ID (`include`: publication date then ID). A page past the end → 404.
 */
export async function listEvents(engine: EngineApi, input: EventListInput, user: CurrentUser | null, opts: ListOptions = {}): Promise<EventListResult> {
  const list = await prepareList(engine, input, user, opts);
  const result = await engine.posts.find(list.query);
  if (result.posts.length === 0 && list.page > 1) throw eventArchivePageNotFound();
  return { posts: result.posts, total: result.total, page: list.page, perPage: list.perPage, query: list.echo };
}

/** `listEvents` with the page as event ids (in order) instead of loaded events: for records kept elsewhere (lib/cache/records.ts). */
export async function listEventIds(
  engine: EngineApi,
  input: EventListInput,
  user: CurrentUser | null,
  opts: ListOptions = {},
): Promise<Omit<EventListResult, "posts"> & { ids: number[] }> {
  const list = await prepareList(engine, input, user, opts);
  const result = await engine.posts.findIds(list.query);
  if (result.ids.length === 0 && list.page > 1) throw eventArchivePageNotFound();
  return { ids: result.ids, total: result.total, page: list.page, perPage: list.perPage, query: list.echo };
}

interface ListOptions {
  language?: string;
  /** The filter lookups of this call, when its argument validation already used them (the route); default: fresh ones. */
  lookups?: ListLookups;
  /** What to load the events with (default EVENT_RELATIONS; `{}` none), see ./relations.ts. */
  relations?: NonNullable<PostQuery["with"]>;
}

/** The post query of a list call, its page and size, and the effective arguments (`EventListResult.query`). */
async function prepareList(
  engine: EngineApi,
  input: EventListInput,
  user: CurrentUser | null,
  opts: ListOptions,
): Promise<{ query: PostQuery; page: number; perPage: number; echo: Record<string, QueryValue> }> {
  const language = opts.language ?? (await engine.options.defaultLanguage());
  const page = sent(input.page) ? Number(input.page) : 1;
  // Past 2^53 an integer is no longer exact (the routes refuse it as out of range too).
  if (!Number.isSafeInteger(page) || page < 1) throw invalidParam("page", "page must be a positive integer.");
  const requested = sent(input.per_page) ? Number(input.per_page) : await engine.options.postsPerPage();
  if (!Number.isSafeInteger(requested) || requested < 1) throw invalidParam("per_page", "per_page must be a positive integer.");
  const perPage = clampPerPage(requested);

  const draft: ListDraft = {
    query: {
      type: EVENT,
      visibility: { user, mode: "list-edit" },
      language,
      // hide_from_listings events are never listed (they stay readable by ID and slug).
      where: [{ field: "hide_from_listings", op: "!=", value: true }],
      tax: [],
      links: [],
      orderBy: [{ field: "start_local", dir: "asc" }],
      // A series is listed once per occurrence, each with its own dates and id (issue 22).
      occurrences: true,
      page,
      perPage,
      with: opts.relations ?? EVENT_RELATIONS,
    },
    echo: {},
  };
  const ctx: ListContext = { engine, user, language, input, lookups: opts.lookups ?? new ListLookups(engine) };
  const params = listParamsOf(engine);
  for (const param of params) {
    const value = input[param.name];
    if (param.apply && sent(value)) await param.apply(value, draft, ctx);
  }
  await applyDateBounds(draft, ctx);

  // The effective query in declaration order: page and per_page first, as the original's rest_url.
  const echo: Record<string, QueryValue> = { page, per_page: perPage };
  for (const param of params) {
    if (draft.echo[param.name] !== undefined) echo[param.name] = draft.echo[param.name];
  }
  for (const [name, value] of Object.entries(draft.echo)) if (!(name in echo)) echo[name] = value;
  return { query: draft.query, page, perPage, echo };
}

// ---------------------------------------------------------------- writes

/** What a write changes, computed (and checked) before the transaction opens. */
interface PreparedWrite {
  patch: PostPatch & { fields: Record<string, FieldValue> };
  image: ImagePlan;
  terms: Partial<Record<string, TermItems>>;
  links: Partial<Record<"venue" | "organizer", LinkedRef[]>>;
}

/** Runs the field rules on the sent fields; on create, the required ones must be there (rest-conventions.md §4.1). */
async function checkFields(engine: EngineApi, input: EventWriteInput, mode: "create" | "update"): Promise<void> {
  if (mode === "create") {
    const missing = REQUIRED_ON_CREATE.filter((name) => !sent(input[name]));
    if (missing.length > 0) {
      throw new RestError("rest_missing_callback_param", `Missing parameter(s): ${missing.join(", ")}`, 400, { params: missing });
    }
  }
  for (const name of WRITE_FIELDS) {
    const value = input[name];
    if (!sent(value) || value instanceof PlannedImage) continue;
    const problem = await WRITE_RULES[name](value, engine);
    if (problem !== null) throw invalidParam(name, problem);
  }
}

/**
 * The event's time fields after a write (calendar-api.md §4.4, §4.8):
 * - dates without `timezone` are read in the site zone, which becomes the event's zone;
 *   with `timezone`, in that zone;
 * - a date not sent keeps its stored wall clock (read in the resulting zone);
 * - `timezone` alone re-zones the stored wall clocks;
 * - omitted `timezone` and dates keep the event's zone (calpress deviation: the
 *   original resets the label to the site zone);
 * - `all_day` true spans whole days; omitted on update it resets to false (match).
 * Returns only `all_day` when nothing else changes. End before start → 400 naming end_date.
 */
function timeFields(
  input: EventWriteInput,
  current: LoadedPost | undefined,
  siteZone: string,
  now: DateTime,
): { fields: Partial<EventTimeFields>; zone: string } {
  const timezoneSent = sent(input.timezone) && input.timezone.trim() !== "";
  const startSent = sent(input.start_date);
  const endSent = sent(input.end_date);
  const allDay = sent(input.all_day) ? flag(input.all_day) : false;
  const storedZone = current && typeof current.fields.timezone === "string" && current.fields.timezone !== "" ? current.fields.timezone : siteZone;
  const zone = timezoneSent ? (input.timezone as string).trim() : startSent || endSent || !current ? siteZone : storedZone;
  if (current && !startSent && !endSent && !timezoneSent && !allDay) return { fields: { all_day: false }, zone };

  const read = (value: DateValue | undefined, stored: unknown, name: "start_date" | "end_date"): DateTime => {
    if (sent(value)) {
      const dt = parseEventDate(value, zone, timezoneSent, now);
      if (!dt) throw invalidParam(name, "The date must be a Unix timestamp or a date the date parser understands.");
      return dt;
    }
    const dt = typeof stored === "string" ? storedEventDate(stored, zone) : null;
    if (!dt) throw invalidParam(name, `The event has no stored ${name}; send one.`);
    return dt;
  };
  const start = read(input.start_date, current?.fields.start_local, "start_date");
  const end = read(input.end_date, current?.fields.end_local, "end_date");
  const fields = eventTimeFields(start, end, zone, allDay);
  // calpress decision (calendar-api.md §4.4): the original silently moves the end to the start.
  if (fields.end_utc < fields.start_utc) throw invalidParam("end_date", "The end date must not be before the start date.");
  return { fields, zone };
}

async function prepareWrite(
  engine: EngineApi,
  input: EventWriteInput,
  user: CurrentUser | null,
  current: LoadedPost | undefined,
  fetch: FetchOptions | undefined,
): Promise<PreparedWrite> {
  const now = nowOf(engine);
  const siteZone = await engine.options.timezone();
  const mode = current ? "update" : "create";
  const times = timeFields(input, current, siteZone, now);
  const fields: Record<string, FieldValue> = { ...times.fields };
  const patch: PreparedWrite["patch"] = { fields };
  if (sent(input.start_date) && typeof times.fields.start_local === "string") {
    // A series repeats its start as written, also one the API moved out of a DST gap (RFC 5545 §3.3.5).
    const timezoneSent = sent(input.timezone) && input.timezone.trim() !== "";
    const placed = times.fields.all_day === true ? null : storedEventDate(times.fields.start_local, times.zone);
    fields[RECURRENCE_START_FIELD] = placed === null ? null : gapStartAsWritten(input.start_date, times.zone, timezoneSent, now, placed);
  }

  if (sent(input.title)) patch.title = input.title;
  if (sent(input.description)) patch.content = input.description;
  if (sent(input.excerpt)) patch.excerpt = input.excerpt;
  if (sent(input.slug)) patch.slug = input.slug;
  if (sent(input.author)) patch.author = Number(input.author);
  // An omitted status is the default of status scaling on update too: a
  // publisher's update publishes (a trashed event is restored), a
  // contributor's makes a draft (calendar-api.md §4.8, match).
  const requested = sent(input.status) ? (input.status as PostStatus) : undefined;
  patch.status = scaleStatus(requested, user, eventCaps(engine));
  if (sent(input.date)) {
    const local = publicationDate(input.date, times.zone, now);
    if (local === null) throw invalidParam("date", "Invalid date.");
    patch.dateLocal = local;
  }
  if (sent(input.date_utc)) {
    const utc = publicationDateUtc(input.date_utc, now);
    if (utc === null) throw invalidParam("date_utc", "Invalid date.");
    patch.dateUtc = utc;
  }

  // Presentation flags: set when true; omitted ones are stored false on
  // create (show_map/show_map_link included, quirk of the original) and
  // reset to false on update (match).
  for (const name of FLAG_FIELDS) fields[name] = sent(input[name]) ? flag(input[name]) : false;
  if (sent(input.website)) {
    const website = cleaned("website", String(input.website), user);
    // On create an empty website stores nothing (the record shows the event page), as the original's array_filter drops it.
    fields.website = website === "" && mode === "create" ? null : website;
  } else if (mode === "update") {
    // The original's update stores "" for an omitted website (match): the record then shows "".
    fields.website = "";
  }
  if (sent(input.recurrence)) fields.recurrence = recurrenceFieldValue(parseRecurrence(input.recurrence));
  if (sent(input.cost)) {
    const cost = normaliseCostInput(input.cost)
      .map((value) => cleaned("cost", value, user))
      .filter((value) => value !== "");
    fields.cost = cost.length > 0 ? JSON.stringify(cost) : null;
  }

  let image: ImagePlan = { action: "none" };
  if (input.image instanceof PlannedImage) image = input.image.plan;
  else if (sent(input.image)) {
    const planned = await planImage(engine, input.image, user, fetch);
    if ("error" in planned) throw invalidParam("image", planned.error);
    image = planned.plan;
  }

  const terms: PreparedWrite["terms"] = {};
  if (sent(input.categories)) terms[CATEGORY] = termItems(input.categories);
  if (sent(input.tags)) terms[TAG] = termItems(input.tags);
  const links: PreparedWrite["links"] = {};
  for (const kind of ["venue", "organizer"] as const) {
    const value = input[kind];
    if (!sent(value)) continue;
    const parsed = parseLinkedValue(kind, value);
    if ("error" in parsed) throw invalidParam(kind, parsed.error);
    links[kind] = parsed.refs;
  }
  return { patch, image, terms, links };
}

/**
 * Inside the write's transaction: terms (created as needed), venue and
 * organizers (created as needed), the image attachment.
 */
async function resolveRelations(tx: EngineApi, prepared: PreparedWrite, ctx: LinkedPostContext): Promise<Pick<PostInput, "terms" | "links">> {
  const { user, language } = ctx;
  // Terms and inline venues/organizers this write may create: their
  // find-or-create locks first, all in one sorted call (no lock-order
  // deadlocks), before this transaction reads anything (see termLockParts
  // and lockLinkedPostNames).
  const inline = (["venue", "organizer"] as const).flatMap((kind) =>
    (prepared.links[kind] ?? []).flatMap((ref) => ("data" in ref ? [{ kind, data: ref.data }] : [])),
  );
  await lockNames(tx, [...termLockParts(prepared.terms, language), ...linkedPostLockParts(inline, language)]);
  const out: Pick<PostInput, "terms" | "links"> = {};
  const budget = newTermBudget();
  for (const [taxonomy, items] of Object.entries(prepared.terms)) {
    if (items === undefined) continue;
    (out.terms ??= {})[taxonomy] = await resolveTermIds(tx, taxonomy, items, language, budget);
  }
  for (const [kind, relation] of [["venue", VENUE_LINK], ["organizer", ORGANIZER_LINK]] as const) {
    const refs = prepared.links[kind];
    if (refs === undefined) continue;
    (out.links ??= {})[relation] = await resolveLinkedRefs(tx, kind, refs, ctx);
  }
  const imageId = await applyImagePlan(tx, prepared.image, user);
  if (imageId !== undefined) prepared.patch.fields.image_id = imageId;
  return out;
}

/** The engine's name of a column or input member → the event argument it comes from. */
const ENGINE_FIELD_ARGS: Readonly<Record<string, string>> = {
  start_local: "start_date",
  start_utc: "start_date",
  end_local: "end_date",
  end_utc: "end_date",
  dateLocal: "date",
  dateUtc: "date_utc",
  image_id: "image",
};

function engineFieldArg(err: { data?: Record<string, unknown> }, fallback: string): string {
  const field = err.data?.field;
  return typeof field === "string" ? (ENGINE_FIELD_ARGS[field] ?? field) : fallback;
}

/**
 * Engine refusals that are really bad input, as the 400 the argument would
 * have given. The argument rules catch these first; this covers what slips
 * past them (a date a zone pushes out of range, a column limit without a
 * rule), which is still the client's input and never a 500.
 */
function inputError(err: unknown): RestError | undefined {
  if (err instanceof RecurrenceError) return invalidParam("recurrence", err.message);
  if (isEngineError(err, "invalid_user")) return invalidParam("author", "The author must be the ID of an existing user.");
  if (isEngineError(err, "invalid_status")) return invalidParam("status", "The status is not allowed for events.");
  if (isEngineError(err, "invalid_date")) return invalidParam(engineFieldArg(err, "date"), "Invalid date.");
  if (isEngineError(err, "invalid_field") || isEngineError(err, "invalid_input")) return invalidParam(engineFieldArg(err, "data"), err.message);
  return undefined;
}

/**
 * `POST /events` (calendar-api.md §4.3): users who can edit events; the
 * event, its new terms, venue and organizers and all links in one
 * transaction, so any invalid part leaves nothing written.
 */
export async function createEvent(engine: EngineApi, input: EventWriteInput, user: CurrentUser | null, opts: WriteOptions = {}): Promise<LoadedPost> {
  if (!user?.can(eventCaps(engine).edit_posts)) throw forbidden(user);
  if (!opts.validated) await checkFields(engine, input, "create");
  checkAuthorAssignment(input.author, user, eventCaps(engine), "create");
  const language = opts.language ?? (await engine.options.defaultLanguage());
  const prepared = await prepareWrite(engine, input, user, undefined, opts.fetch);
  try {
    return await engine.write(async (tx) => {
      const relations = await resolveRelations(tx, prepared, { user, language, fetch: opts.fetch });
      const { patch } = prepared;
      const post: PostInput = {
        ...patch,
        type: EVENT,
        // The author defaults to the requesting user, contributors and drafts included.
        author: patch.author ?? user.id,
        title: patch.title ?? "",
        language,
        ...relations,
        ...(opts.meta ? { meta: opts.meta } : {}),
      };
      const created = await tx.posts.create(post, user);
      await syncSeries(tx, created, "new", nowOf(tx).toJSDate());
      return created;
    });
  } catch (err) {
    throw inputError(err) ?? err;
  }
}

/** Loads the event a write or delete addresses: 404 when no post (after the general check), 400 when not an event. */
async function addressedEvent(engine: EngineApi, id: number, user: CurrentUser | null, generalCap: string): Promise<LoadedPost> {
  const post = Number.isSafeInteger(id) && id > 0 ? await engine.posts.get(id, EVENT_RELATIONS) : undefined;
  if (!post) {
    // calendar-api.md §4.8: for an unknown ID the general capability decides, so a contributor reaches the 404.
    if (!user?.can(generalCap)) throw forbidden(user);
    throw eventNotFound(id);
  }
  if (post.type !== EVENT) {
    if (!user?.can(generalCap)) throw forbidden(user);
    throw invalidEventId(id);
  }
  return post;
}

/**
 * `POST|PUT|PATCH /events/{id}` (calendar-api.md §4.8): the user must be
 * able to edit this event. Fields not sent keep their values, except the
 * resets the reference lists (status, flags, website).
 */
export async function updateEvent(
  engine: EngineApi,
  id: number,
  input: EventWriteInput,
  user: CurrentUser | null,
  opts: WriteOptions = {},
): Promise<LoadedPost> {
  const current = await addressedEvent(engine, id, user, eventCaps(engine).edit_posts);
  if (!user?.can("edit_post", current)) throw forbidden(user);
  if (!opts.validated) await checkFields(engine, input, "update");
  checkAuthorAssignment(input.author, user, eventCaps(engine), "update");
  // An update never changes the event's language, and the request language
  // only shapes the response (languages.md §2.5): venues, organizers and
  // terms created with it get the event's own language.
  const language = current.language;
  // An occurrence is detached into an event of its own (lib/calendar/recurrence/exceptions.ts), which has no rules.
  if (current.occurrence !== undefined && sent(input.recurrence)) {
    throw invalidParam("recurrence", "An occurrence of a series has no rules of its own: change the series' recurrence instead.");
  }
  const prepared = await prepareWrite(engine, input, user, current, opts.fetch);
  // A detached occurrence is a copy of its series (status and password included): an update that does
  // not name a status keeps the series' instead of the status scaling's default, which would publish a
  // copy of a draft or private series. (A plain update of an event still scales, as the original does.)
  if (current.occurrence !== undefined && !sent(input.status)) delete prepared.patch.status;
  try {
    return await engine.write(async (tx) => {
      const relations = await resolveRelations(tx, prepared, { user, language, fetch: opts.fetch });
      const now = nowOf(tx).toJSDate();
      const target = current.occurrence === undefined ? id : await detachOccurrence(tx, current, user, now);
      const updated = await tx.posts.update(target, { ...prepared.patch, ...relations, ...(opts.meta ? { meta: opts.meta } : {}) }, user);
      if (current.occurrence === undefined) await syncSeries(tx, updated, storedRecurrence(current).length > 0 ? "series" : "single", now);
      return updated;
    });
  } catch (err) {
    const bad = inputError(err);
    if (bad) throw bad;
    if (isRestError(err) || !isEngineError(err)) throw err;
    throw couldNotUpdateEvent();
  }
}

/**
 * `DELETE /events/{id}` (calendar-api.md §4.9): always to the trash (no
 * permanent delete); 410 when already there. Returns the event as trashed.
 */
export async function trashEvent(engine: EngineApi, id: number, user: CurrentUser | null): Promise<LoadedPost> {
  const current = await addressedEvent(engine, id, user, eventCaps(engine).delete_posts);
  if (!user?.can("delete_post", current)) throw forbidden(user);
  if (current.status === "trash") throw eventIsInTrash();
  // One occurrence of a series: cancelled (an EXDATE of the series); the answer is the occurrence as it was.
  if (current.occurrence !== undefined) {
    try {
      await engine.write((tx) => cancelOccurrence(tx, current, nowOf(tx).toJSDate()));
    } catch (err) {
      if (err instanceof RecurrenceError) throw invalidParam("id", err.message);
      throw err;
    }
    return current;
  }
  try {
    await engine.write(async (tx) => {
      await tx.posts.trash(id);
      if (storedRecurrence(current).length > 0) await trashDetached(tx, id);
    });
  } catch (err) {
    if (isEngineError(err)) throw couldNotDeleteEvent();
    throw err;
  }
  const trashed = await engine.posts.get(id, EVENT_RELATIONS);
  if (!trashed) throw couldNotDeleteEvent();
  return trashed;
}
