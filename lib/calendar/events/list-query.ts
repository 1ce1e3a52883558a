/**
 * `GET /events` as a parameter table (calendar-api.md §4.1; DESIGN §6): each
 * public argument declares its route argument (validation, documentation
 * type, description) and how it narrows the engine query. The route's args,
 * the namespace index, the OpenAPI document and the query builder all read
 * this one table.
 *
 * Visibility, the language filter and the date bounds are parts of the same
 * engine query as the filters, so a page, its total and its links can never
 * disagree.
 */
import type { DateTime } from "luxon";
import type { EngineApi } from "../../engine-api";
import type { FieldCondition, LinkCondition, PostQuery, PostStatus, TaxCondition } from "../../posts/types";
import { POST_STATUSES } from "../../posts/types";
import { isNumeric, isWpBoolean, isWpInteger, toWpBoolean } from "../../routes/coerce";
import { RestError } from "../../routes/errors";
import type { ArgSpec, RestRequest, ValidateResult } from "../../routes/types";
import type { QueryValue } from "../../routes/urls";
import type { CurrentUser } from "../../users/types";
import { CATEGORY, EVENT, ORGANIZER, ORGANIZER_LINK, TAG, VENUE, VENUE_LINK } from "../post-types";
import { MAX_PER_PAGE, MAX_SEARCH_LENGTH, modifiedArgs, modifiedCondition, nonEmptyString, pageArgs, parseList, searchProblem, type ModifiedArg } from "../common/args";
import { defaultListBound, defaultListEnd, defaultListStart, isParseableDate, listBound, nowOf, type DateValue } from "./dates";
import { isFilterableBy } from "../records/access";
import { invalidParam } from "./errors";

/** The arguments of `GET /events`, by their API names (an in-process caller passes the same names). */
export interface EventListInput {
  page?: number;
  per_page?: number;
  start_date?: DateValue;
  end_date?: DateValue;
  starts_before?: DateValue;
  starts_after?: DateValue;
  ends_before?: DateValue;
  ends_after?: DateValue;
  /** `true`/`1`/`yes`/`on` (any case) → strict mode. */
  strict_dates?: string | boolean;
  search?: string;
  /** Lists: an array or a comma-separated string. */
  categories?: unknown;
  tags?: unknown;
  venue?: unknown;
  organizer?: unknown;
  featured?: boolean;
  status?: unknown;
  include?: unknown;
  post_parent?: number;
  modified_after?: DateValue;
  modified_before?: DateValue;
  geoloc?: boolean;
  geoloc_lat?: number | string;
  geoloc_lng?: number | string;
  ticketed?: boolean;
}

/** What the table's rows need besides their own value. */
export interface ListContext {
  engine: EngineApi;
  user: CurrentUser | null;
  /** The effective language L (languages.md §2.2). */
  language: string;
  input: EventListInput;
  /** The filter lookups of this call (shared with its argument validation, if any). */
  lookups: ListLookups;
}

/** The query being built, and the effective arguments echoed in `rest_url` (calendar-api.md §3.1). */
export interface ListDraft {
  query: PostQuery & { where: FieldCondition[]; tax: TaxCondition[]; links: LinkCondition[] };
  echo: Record<string, QueryValue>;
}

export interface ListParam {
  readonly name: keyof EventListInput;
  /** The route argument (validation, documentation). */
  readonly arg: ArgSpec;
  /**
   * Narrows the query for a value that was given (the date arguments are
   * applied together by `applyDateBounds`, as they depend on each other).
   * Throws `rest_invalid_param` for values an in-process caller did not
   * have validated.
   */
  readonly apply?: (value: unknown, draft: ListDraft, ctx: ListContext) => void | Promise<void>;
}

/**
 * The radius of the `geoloc_lat`/`geoloc_lng` filter. calpress decision: the
 * original needs a premium add-on for it; calpress lists the events whose
 * venue lies within 25 km (great-circle distance) of the point, 25 being the
 * add-on's default geofence size.
 */
export const GEOLOC_RADIUS_KM = 25;
const EARTH_RADIUS_KM = 6371;

const DATE_ARGS = ["start_date", "end_date", "starts_before", "starts_after", "ends_before", "ends_after"] as const;
const RELATIVE_ARGS = ["starts_before", "starts_after", "ends_before", "ends_after"] as const;

function isSent(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/** PHP's FILTER_VALIDATE_BOOLEAN, as the original reads `strict_dates`. */
export function isStrictDates(value: unknown): boolean {
  if (typeof value === "boolean") return value;
  return typeof value === "string" && ["1", "true", "yes", "on"].includes(value.trim().toLowerCase());
}

function listItems(value: unknown): Array<string | number> {
  return parseList(value);
}

// ---------------------------------------------------------------- resolvers (shared by validation and the query)

type Resolved = { ids: number[] } | { error: string };

/**
 * The filter lookups of one list call. Argument validation resolves
 * `categories`, `tags`, `venue` and `organizer` to check them, and the query
 * needs the same answers a moment later: both ask this object, which runs
 * each lookup once. Made fresh for every call, as the answers depend on the
 * user and on the data of that moment.
 */
export class ListLookups {
  private readonly answers = new Map<string, Promise<Resolved>>();

  constructor(private readonly engine: EngineApi) {}

  /** `resolveTermFilter`, once per taxonomy, language and value. */
  terms(taxonomy: string, value: unknown, language: string): Promise<Resolved> {
    return this.once(["terms", taxonomy, language, value], () => resolveTermFilter(this.engine, taxonomy, value, language));
  }

  /** `resolvePostIds`, once per post type, value and user. */
  posts(type: string, value: unknown, what: string, user: CurrentUser | null): Promise<Resolved> {
    return this.once(["posts", type, what, value, user?.id ?? 0], () => resolvePostIds(this.engine, type, value, what, user));
  }

  private once(parts: unknown[], run: () => Promise<Resolved>): Promise<Resolved> {
    const key = JSON.stringify(parts);
    let found = this.answers.get(key);
    if (!found) {
      found = run();
      this.answers.set(key, found);
    }
    return found;
  }
}

/** Each item an existing term of the taxonomy, by ID (numeric items) or slug (in L first). */
export async function resolveTermFilter(engine: EngineApi, taxonomy: string, value: unknown, language: string): Promise<Resolved> {
  const ids: number[] = [];
  const items = listItems(value);
  const numeric = items.filter((i): i is number => typeof i === "number");
  const byId = numeric.length > 0 ? await engine.terms.getMany(numeric) : new Map();
  for (const item of items) {
    const term = typeof item === "number" ? byId.get(item) : await engine.terms.bySlug(taxonomy, item, language);
    if (!term || term.taxonomy !== taxonomy) return { error: `${item} is not an existing term ID or slug.` };
    if (!ids.includes(term.id)) ids.push(term.id);
  }
  return { ids };
}

/**
 * Each item numeric and the ID of a post of the type that the user may
 * read (records/access.ts): a hidden one fails exactly as a missing one.
 */
export async function resolvePostIds(engine: EngineApi, type: string, value: unknown, what: string, user: CurrentUser | null): Promise<Resolved> {
  const items = listItems(value);
  const ids: number[] = [];
  for (const item of items) {
    if (typeof item !== "number" || item <= 0) return { error: `${item} is not the ID of a ${what}.` };
    if (!ids.includes(item)) ids.push(item);
  }
  if (ids.length === 0) return { ids };
  // Shared posts (the venues and organizers every list filters by and embeds), read again only when they change.
  const found = await engine.posts.getShared(ids, [type]);
  const have = new Set([...found.values()].filter((p) => p.type === type && isFilterableBy(p, user, type === EVENT)).map((p) => p.id));
  const missing = ids.find((id) => !have.has(id));
  return missing === undefined ? { ids } : { error: `${missing} is not the ID of a ${what}.` };
}

/**
 * `status`: users who can edit events may ask for any registered status;
 * others only for exactly `publish` (the original's filter_post_status_list).
 */
export function resolveStatusFilter(engine: EngineApi, value: unknown, user: CurrentUser | null): { statuses: PostStatus[] } | { error: string } {
  const items = listItems(value).map(String);
  if (items.length === 0) return { error: "The status must be a post status." };
  if (!canEditEvents(engine, user)) {
    return items.length === 1 && items[0] === "publish" ? { statuses: ["publish"] } : { error: "Only published events may be listed." };
  }
  const unknown = items.find((s) => !(POST_STATUSES as readonly string[]).includes(s));
  if (unknown !== undefined) return { error: `${unknown} is not a post status.` };
  return { statuses: [...new Set(items)] as PostStatus[] };
}

export function resolveInclude(value: unknown): { ids: number[] } | { error: string } {
  const items = listItems(value);
  const ids: number[] = [];
  for (const item of items) {
    if (typeof item !== "number" || item <= 0) return { error: `${item} is not a positive integer.` };
    if (!ids.includes(item)) ids.push(item);
  }
  return { ids };
}

export function canEditEvents(engine: EngineApi, user: CurrentUser | null): boolean {
  const caps = engine.postType(EVENT)?.capabilityType ?? ["event", "events"];
  return user?.can(`edit_${caps[1]}`) === true;
}

/** `modified_after` / `modified_before` (calpress addition, WordPress 5.7's arguments): answered by the database, not the published index. */
function modifiedParam(engine: EngineApi, name: ModifiedArg): ListParam {
  return {
    name,
    arg: modifiedArgs(engine, "events")[name],
    apply: async (value, draft) => {
      const condition = typeof value === "string" || typeof value === "number" ? modifiedCondition(name, value, await engine.options.timezone()) : null;
      if (condition === null) fail(name, "The date must be a Unix timestamp or a date the date parser understands.");
      draft.query.where.push(condition);
      draft.echo[name] = value as string | number;
    },
  };
}

function fail(name: string, message: string): never {
  throw invalidParam(name, message);
}

function asValidateResult(result: { error: string } | object): ValidateResult {
  return "error" in result && typeof result.error === "string" ? result.error : true;
}

/** Venues with coordinates, optionally within the radius of a point: one query (bounding box), refined here. */
async function geolocatedVenueIds(engine: EngineApi, point?: { lat: number; lng: number }): Promise<number[]> {
  const where: FieldCondition[] = [
    { field: "geo_lat", op: "not null" },
    { field: "geo_lng", op: "not null" },
  ];
  if (point) {
    const dLat = (GEOLOC_RADIUS_KM / EARTH_RADIUS_KM) * (180 / Math.PI);
    where.push({ field: "geo_lat", op: ">=", value: point.lat - dLat }, { field: "geo_lat", op: "<=", value: point.lat + dLat });
  }
  const venues = await engine.posts.find({ type: VENUE, where, perPage: 0, noTotal: true });
  return venues.posts
    .filter((v) => !point || distanceKm(point, { lat: Number(v.fields.geo_lat), lng: Number(v.fields.geo_lng) }) <= GEOLOC_RADIUS_KM)
    .map((v) => v.id);
}

/** Haversine great-circle distance. */
export function distanceKm(a: { lat: number; lng: number }, b: { lat: number; lng: number }): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLng = (b.lng - a.lng) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

function coordinateProblem(value: unknown, axis: "lat" | "lng"): string | null {
  const limit = axis === "lat" ? 90 : 180;
  if (!isNumeric(value)) return `geoloc_${axis} must be a number.`;
  return Math.abs(Number(value)) <= limit ? null : `geoloc_${axis} must be between -${limit} and ${limit}.`;
}

// ---------------------------------------------------------------- the table

/**
 * The rows in the original's declaration order (which is also the order of
 * the namespace index and of the effective query in `rest_url`).
 * `lookupsOf` gives the filter validators the lookups of the list call that
 * will answer the request (by default, fresh ones: nothing shared).
 */
export function eventListParams(engine: EngineApi, lookupsOf: (req: RestRequest) => ListLookups = () => new ListLookups(engine)): ListParam[] {
  const paging = pageArgs(engine, "events");
  const dateArg = (description: string, defaultValue?: (now: DateTime, zone: string) => string): ArgSpec => ({
    description,
    docType: "string",
    // WordPress args with their own validate_callback skip the core type rules: a timestamp may be a JSON number.
    validate: (value) => isParseableDate(value) || "The date must be a Unix timestamp or a date the date parser understands.",
    ...(defaultValue
      ? { default: async () => defaultValue(nowOf(engine), await engine.options.timezone()) }
      : {}),
  });
  const termArg = (taxonomy: string, description: string): ArgSpec => ({
    description,
    items: { type: "integer" },
    docType: { type: "array", items: { type: "integer" } },
    validate: async (value, req) =>
      asValidateResult(await lookupsOf(req).terms(taxonomy, value, await languageOf(engine, req.params.i18n_language))),
  });
  const linkArg = (type: string, what: string, description: string): ArgSpec => ({
    description,
    items: { type: "integer" },
    docType: { type: "array", items: { type: "integer" } },
    validate: async (value, req) => asValidateResult(await lookupsOf(req).posts(type, value, what, req.user)),
  });
  const coordinateArg = (axis: "lat" | "lng"): ArgSpec => {
    const partner = axis === "lat" ? "geoloc_lng" : "geoloc_lat";
    return {
      description: `Only events whose venue lies within ${GEOLOC_RADIUS_KM} km of this ${axis === "lat" ? "latitude" : "longitude"}; must be sent with ${partner}.`,
      // Documentation only, as in the original (its index shows `format: double` on an untyped arg).
      format: "double",
      docType: { type: "number", format: "double" },
      validate: (value, req) => coordinateProblem(value, axis) ?? (req.isSent(partner) ? true : `geoloc_${axis} must be sent together with ${partner}.`),
    };
  };

  return [
    { name: "page", arg: paging.page },
    { name: "per_page", arg: paging.per_page },
    { name: "start_date", arg: dateArg("Events that start on or after this date (a Unix timestamp or a date the date parser understands).", defaultListStart) },
    { name: "end_date", arg: dateArg("Events that end on or before this date.", (now) => defaultListEnd(now)) },
    { name: "starts_before", arg: dateArg("Events that start before this date.") },
    { name: "starts_after", arg: dateArg("Events that start after this date.") },
    { name: "ends_before", arg: dateArg("Events that end before this date.") },
    { name: "ends_after", arg: dateArg("Events that end after this date.") },
    {
      name: "strict_dates",
      arg: {
        description: "When true, date bounds are used at the exact times given; by default whole days are included.",
        docType: "string",
        default: "false",
        validate: (value) => nonEmptyString(value) || "strict_dates must be a non-empty string.",
      },
    },
    {
      name: "search",
      arg: {
        type: "string",
        description: `Events whose title, excerpt or description contain every word of this string (at most ${MAX_SEARCH_LENGTH} characters).`,
        // Non-strings are left to the type check; "" keeps the plain "Invalid parameter.".
        validate: (v) => typeof v !== "string" || (nonEmptyString(v) && (searchProblem(v) ?? true)),
      },
      apply: (value, draft, ctx) => {
        const problem = searchProblem(value);
        if (problem !== null) fail("search", problem);
        draft.query.search = value as string;
        // Said explicitly: the `status` argument drops the visibility rule the engine would otherwise take the searcher from.
        draft.query.searchAs = ctx.user;
        draft.echo.search = value as string;
      },
    },
    {
      name: "categories",
      arg: termArg(CATEGORY, "Events in any of these event categories (IDs or slugs, a list or comma-separated)."),
      apply: async (value, draft, ctx) => {
        const r = await ctx.lookups.terms(CATEGORY, value, ctx.language);
        if ("error" in r) fail("categories", r.error);
        if (r.ids.length === 0) return;
        // An ID stands for its whole translation group (languages.md §2.4).
        draft.query.tax.push({ taxonomy: CATEGORY, terms: r.ids, operator: "IN", translations: true });
        draft.echo.categories = r.ids;
      },
    },
    {
      name: "tags",
      arg: termArg(TAG, "Events with any of these tags (IDs or slugs, a list or comma-separated)."),
      apply: async (value, draft, ctx) => {
        const r = await ctx.lookups.terms(TAG, value, ctx.language);
        if ("error" in r) fail("tags", r.error);
        if (r.ids.length === 0) return;
        draft.query.tax.push({ taxonomy: TAG, terms: r.ids, operator: "IN", translations: true });
        draft.echo.tags = r.ids;
      },
    },
    {
      name: "venue",
      arg: linkArg(VENUE, "venue", "Events at any of these venues (IDs, a list or comma-separated)."),
      apply: async (value, draft, ctx) => {
        const r = await ctx.lookups.posts(VENUE, value, "venue", ctx.user);
        if ("error" in r) fail("venue", r.error);
        if (r.ids.length === 0) return;
        draft.query.links.push({ relation: VENUE_LINK, to: r.ids, translations: true });
        draft.echo.venue = r.ids;
      },
    },
    {
      name: "organizer",
      arg: linkArg(ORGANIZER, "organizer", "Events with any of these organizers (IDs, a list or comma-separated)."),
      apply: async (value, draft, ctx) => {
        const r = await ctx.lookups.posts(ORGANIZER, value, "organizer", ctx.user);
        if ("error" in r) fail("organizer", r.error);
        if (r.ids.length === 0) return;
        draft.query.links.push({ relation: ORGANIZER_LINK, to: r.ids, translations: true });
        draft.echo.organizer = r.ids;
      },
    },
    {
      name: "featured",
      arg: { type: "boolean", description: "true: only featured events; false: only events that are not featured." },
      apply: (value, draft) => {
        const featured = typeof value === "boolean" ? value : toWpBoolean(value);
        // Not featured includes events whose flag was never stored.
        draft.query.where.push({ field: "featured", op: featured ? "=" : "!=", value: true });
        draft.echo.featured = featured;
      },
    },
    {
      name: "status",
      arg: {
        description: "Events with any of these post statuses (a list or comma-separated). Users who cannot edit events may only ask for publish.",
        format: "string",
        docType: "string",
        validate: (value, req) => asValidateResult(resolveStatusFilter(engine, value, req.user)),
      },
      apply: (value, draft, ctx) => {
        const r = resolveStatusFilter(ctx.engine, value, ctx.user);
        if ("error" in r) fail("status", r.error);
        draft.query.status = r.statuses;
        // The caller may list these statuses (checked above): no visibility rule on top, so an editor can ask for trash.
        delete draft.query.visibility;
        draft.echo.status = r.statuses;
      },
    },
    {
      name: "geoloc",
      arg: { type: "boolean", description: "true: only events whose venue has coordinates." },
      apply: async (value, draft, ctx) => {
        const on = typeof value === "boolean" ? value : toWpBoolean(value);
        // calpress decision: false has no effect (like ticketed=false); the engine has no "not linked to" condition.
        if (!on) return;
        draft.echo.geoloc = true;
        // With a point, geoloc_lat applies the narrower filter.
        if (isSent(ctx.input.geoloc_lat)) return;
        draft.query.links.push({ relation: VENUE_LINK, to: await geolocatedVenueIds(ctx.engine) });
      },
    },
    {
      name: "geoloc_lat",
      arg: coordinateArg("lat"),
      apply: async (value, draft, ctx) => {
        const lng = ctx.input.geoloc_lng;
        const problem = coordinateProblem(value, "lat") ?? (isSent(lng) ? coordinateProblem(lng, "lng") : "geoloc_lat must be sent together with geoloc_lng.");
        if (problem !== null) fail("geoloc_lat", problem);
        const point = { lat: Number(value), lng: Number(lng) };
        draft.query.links.push({ relation: VENUE_LINK, to: await geolocatedVenueIds(ctx.engine, point) });
        draft.echo.geoloc_lat = point.lat;
        draft.echo.geoloc_lng = point.lng;
      },
    },
    {
      name: "geoloc_lng",
      arg: coordinateArg("lng"),
      apply: (value, _draft, ctx) => {
        // Applied together with geoloc_lat; alone it is an error.
        if (!isSent(ctx.input.geoloc_lat)) fail("geoloc_lng", "geoloc_lng must be sent together with geoloc_lat.");
      },
    },
    {
      name: "include",
      arg: {
        description: "Only events with these post IDs (a list or comma-separated); date bounds are then ignored and events are ordered by publication date.",
        items: { type: "integer" },
        docType: { type: "array", items: { type: "integer" } },
        validate: (value) => asValidateResult(resolveInclude(value)),
      },
      apply: (value, draft) => {
        const r = resolveInclude(value);
        if ("error" in r) fail("include", r.error);
        draft.query.ids = r.ids;
        // The client named the records: no language filter (languages.md §2.4); publication date order (the original's post__in branch).
        delete draft.query.language;
        draft.query.orderBy = [{ field: "date_local", dir: "asc" }];
        draft.echo.include = r.ids;
      },
    },
    {
      name: "post_parent",
      arg: {
        type: "integer",
        description: "Only child events of this event ID.",
        validate: async (value, req) => (isWpInteger(value) && (await isEventId(engine, Number(value), req.user))) || "post_parent must be the ID of an event.",
      },
      apply: async (value, draft, ctx) => {
        const id = Number(value);
        if (!isWpInteger(value) || !(await isEventId(ctx.engine, id, ctx.user))) fail("post_parent", "post_parent must be the ID of an event.");
        draft.query.parent = [id];
        draft.echo.post_parent = id;
      },
    },
    {
      name: "ticketed",
      arg: {
        type: "boolean",
        description: "Events with or without tickets; calpress has no ticketing, so only false is accepted.",
        validate: (value) => (isWpBoolean(value) && toWpBoolean(value) ? ticketsNotActive() : true),
      },
      apply: (value) => {
        if (value === true || (isWpBoolean(value) && toWpBoolean(value))) throw invalidParam("ticketed", ticketsNotActive().message, ticketsNotActive().toJSON());
      },
    },
    // calpress additions, after the original's arguments.
    modifiedParam(engine, "modified_after"),
    modifiedParam(engine, "modified_before"),
  ];
}

/** The `ticketed=true` refusal: the error is kept under `details`, as WordPress reports a validator's WP_Error. */
function ticketsNotActive(): RestError {
  return new RestError("event-tickets-not-active", "Ticketing support is not available: filtering events by tickets is not possible.", 400);
}

/** An event this user may read (records/access.ts): a hidden one is no event to them. */
async function isEventId(engine: EngineApi, id: number, user: CurrentUser | null): Promise<boolean> {
  if (!Number.isSafeInteger(id) || id <= 0) return false;
  const post = await engine.posts.get(id);
  return post !== undefined && post.type === EVENT && isFilterableBy(post, user, true);
}

async function languageOf(engine: EngineApi, sent: unknown): Promise<string> {
  return typeof sent === "string" && sent !== "" ? sent : engine.options.defaultLanguage();
}

/**
 * Date bounds (calendar-api.md §4.1), applied after the other rows:
 * default `start_date`/`end_date` unless the caller gave a `starts_*`/`ends_*`
 * bound without giving that one; all of `start_date`/`end_date` dropped with
 * `include`; inclusive (whole days) or strict bounds; compared with the
 * events' local wall clocks.
 */
export async function applyDateBounds(draft: ListDraft, ctx: ListContext): Promise<void> {
  const { input, engine } = ctx;
  const now = nowOf(engine);
  const siteZone = await engine.options.timezone();
  const strict = isStrictDates(input.strict_dates ?? "false");
  const relative = RELATIVE_ARGS.some((name) => isSent(input[name]));
  const include = draft.query.ids !== undefined;
  const values: Partial<Record<(typeof DATE_ARGS)[number], DateValue>> = {};
  for (const name of DATE_ARGS) {
    const value = input[name];
    if (!isSent(value)) continue;
    if (!isParseableDate(value)) fail(name, "The date must be a Unix timestamp or a date the date parser understands.");
    values[name] = value;
  }
  // The defaults apply when no explicit bound of that kind was given and no starts_*/ends_* bound was.
  const defaulted = new Set<(typeof DATE_ARGS)[number]>();
  if (values.start_date === undefined && !relative) {
    values.start_date = defaultListStart(now, siteZone);
    defaulted.add("start_date");
  }
  if (values.end_date === undefined && !relative) {
    values.end_date = defaultListEnd(now);
    defaulted.add("end_date");
  }
  if (include) {
    delete values.start_date;
    delete values.end_date;
  }
  const rules: Record<(typeof DATE_ARGS)[number], { field: string; op: FieldCondition["op"]; edge: "start" | "end" }> = {
    // Inclusive mode widens start_date to the start of its day and every other bound to the end of its day.
    start_date: { field: "start_local", op: ">=", edge: "start" },
    end_date: { field: "end_local", op: "<=", edge: "end" },
    starts_before: { field: "start_local", op: "<", edge: "end" },
    starts_after: { field: "start_local", op: ">", edge: "end" },
    ends_before: { field: "end_local", op: "<", edge: "end" },
    ends_after: { field: "end_local", op: ">", edge: "end" },
  };
  for (const name of DATE_ARGS) {
    const value = values[name];
    if (value === undefined) continue;
    const rule = rules[name];
    const bound = defaulted.has(name) ? defaultListBound(String(value), rule.edge, strict, siteZone, now) : listBound(value, rule.edge, strict, siteZone, now);
    if (bound === null) fail(name, "The date must be a Unix timestamp or a date the date parser understands.");
    draft.query.where.push({ field: rule.field, op: rule.op, value: bound });
    // Echo a value that reads back to the same bound: the widened wall clock
    // in inclusive mode (idempotent), the value as given in strict mode
    // (re-reading a converted site-time value as UTC would shift it).
    draft.echo[name] = strict ? String(value) : bound;
  }
  if (strict) draft.echo.strict_dates = "true";
}

/** The clamped page size (calendar-api.md §3.2: above 50 is clamped, not rejected). */
export function clampPerPage(perPage: number): number {
  return Math.min(Math.max(1, Math.trunc(perPage)), MAX_PER_PAGE);
}
