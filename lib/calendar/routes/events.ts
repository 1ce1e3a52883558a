/**
 * The event routes of `calendar/events/v1` (calendar-api.md §4): thin
 * handlers that turn a request into a call of the event operations and the
 * resulting posts into records. Arguments, permissions and responses are
 * declared as data, so validation, the namespace index, OPTIONS, `Allow`
 * and the OpenAPI document all come from this one registration.
 */
import { SITE_TAG, slugTag } from "../../db/cache-tags";
import { listedId, occurrenceId, occurrenceRowId } from "../../posts/occurrence-ids";
import { sanitizeTitle } from "../../format/slug";
import type { EngineApi } from "../../engine-api";
import type { CurrentUser } from "../../users/types";
import { samePage } from "../common/reuse";
import type { LoadedPost, PostQuery } from "../../posts/types";
import { paginate, type Pagination } from "../../routes/pagination";
import type { RestRequest } from "../../routes/types";
import { RestResponse, rawResponse } from "../../routes/response";
import { encodeJson, RawJson } from "../../routes/json";
import type { KeptRecord } from "../../cache/records";
import { readAgainByCheck } from "../../cache/tag-audit";
import { keepsRecords, keptSeries, keptText, occurrenceFromKept, readKeptSeries, recordKey, seriesKey, singleKey, singleOwnText, singleText, termParts, type KeptSeries } from "../records/kept";
import { CREATABLE, DELETABLE, EDITABLE, READABLE, type ArgSpec, type ArgsMap, type PermissionCheck, type RestEndpoint } from "../../routes/types";
import type { QueryValue } from "../../routes/urls";
import type { CalendarHost } from "../host";
import { EVENT } from "../post-types";
import type { Json, JsonObject } from "../records/context";
import { eventRecord, eventRecords, seriesShape, singleJsonLd } from "../records/event";
import { ICAL_CONTENT_TYPE, icalFeed, wantsICalendar } from "../ical/feed";
import { seriesStartLocal } from "../recurrence/series";
import { NAMESPACE, requestLanguage } from "../common/args";
import { nameLoadedPost, recordContext, recordTags, recordWants, type RecordContextOptions } from "../common/context";
import { createArgs, eventBySlugForRequest, idArg, occurrenceDateArg, passwordArg, slugLookupArg, updateFieldArgs } from "../events/args";
import { invalidParam, occurrenceNotFound } from "../events/errors";
import type { DateValue } from "../events/dates";
import { eventListParams, ListLookups, type EventListInput } from "../events/list-query";
import {
  createEvent,
  eventCaps,
  eventRefusal,
  listEventIds,
  listEvents,
  readableEvent,
  trashEvent,
  updateEvent,
  type EventWriteInput,
  type ReadAccess,
} from "../events/operations";
import { addressedEventRelations, eventRelations } from "../events/relations";
import { WRITE_FIELDS } from "../events/rules";
import { CREATE_RESPONSES, DELETE_RESPONSES, LIST_RESPONSES, READ_RESPONSES, UPDATE_RESPONSES } from "../events/schema";

type By = "id" | "slug";

/** calpress addition: `json_ld` is only in single reads (calendar-api.md §2.1) unless a list asks for it. */
const jsonLdListArg: ArgSpec = {
  type: "boolean",
  default: false,
  description: "true: each event also carries `json_ld`, its schema.org Event (as in single reads; only for events readable as public pages).",
};

/** Records of events for this request's user, with what they embed batch-loaded (no query per event). */
async function toRecords(
  engine: EngineApi,
  req: RestRequest,
  posts: LoadedPost[],
  single: boolean,
  opts: Omit<RecordContextOptions, "single"> = {},
): Promise<JsonObject[]> {
  const ctx = await recordContext(engine, req, posts, { ...opts, single });
  return eventRecords(posts, ctx);
}

function readAccess(req: RestRequest): ReadAccess {
  // `password` and `context` are honoured even where they are not declared (rest-conventions.md §2).
  const password = req.params.password;
  return { password: typeof password === "string" && password !== "" ? password : undefined, editContext: req.params.context === "edit" };
}

type Reader<T> = (value: unknown) => T | undefined;
const asNumber: Reader<number> = (v) => (typeof v === "number" ? v : undefined);
const asBoolean: Reader<boolean> = (v) => (typeof v === "boolean" ? v : undefined);
const asString: Reader<string> = (v) => (typeof v === "string" ? v : undefined);
const asDate: Reader<DateValue> = (v) => (typeof v === "string" || typeof v === "number" ? v : undefined);
const asCoordinate: Reader<number | string> = (v) => (typeof v === "number" || typeof v === "string" ? v : undefined);
const asIs: Reader<unknown> = (v) => v;

/**
 * Each list argument as the route's validation leaves it (integers and
 * booleans coerced, dates, coordinates and `strict_dates` checked), read as
 * its `EventListInput` type; the lists stay as sent, for the operation parses
 * them. A reader never drops a value that passed validation.
 */
const LIST_INPUT: { readonly [K in keyof Required<EventListInput>]: Reader<Required<EventListInput>[K]> } = {
  page: asNumber,
  per_page: asNumber,
  start_date: asDate,
  end_date: asDate,
  starts_before: asDate,
  starts_after: asDate,
  ends_before: asDate,
  ends_after: asDate,
  strict_dates: asString,
  search: asString,
  categories: asIs,
  tags: asIs,
  venue: asIs,
  organizer: asIs,
  featured: asBoolean,
  status: asIs,
  include: asIs,
  post_parent: asNumber,
  modified_after: asDate,
  modified_before: asDate,
  geoloc: asBoolean,
  geoloc_lat: asCoordinate,
  geoloc_lng: asCoordinate,
  ticketed: asBoolean,
};

/** The list input of a validated request: the sent arguments, and the page and page size, which always have a value (defaults included). */
function listInput(req: RestRequest, names: readonly (keyof EventListInput)[]): EventListInput {
  const input: EventListInput = {};
  const read = <K extends keyof EventListInput>(name: K): void => {
    const value = LIST_INPUT[name](req.params[name]);
    if (value !== undefined) input[name] = value;
  };
  for (const name of names) if (req.isSent(name)) read(name);
  read("page");
  read("per_page");
  return input;
}

/** The sent write fields (defaults are not "sent": omitted fields keep or reset as §4.8 says). */
function writeInput(req: RestRequest): EventWriteInput {
  const input: Record<string, unknown> = {};
  for (const name of WRITE_FIELDS) if (req.isSent(name)) input[name] = req.params[name];
  return input as EventWriteInput;
}

/**
 * The post a by-ID or by-slug item request addresses, looked up once per
 * request and address: every endpoint's permission check (the `Allow` header
 * runs them all, each on its own view of the request) and the handler share
 * it through `req.memo`.
 */
function addressedPost(engine: EngineApi, by: By, host: CalendarHost): (req: RestRequest) => Promise<Addressed> {
  const lookups = Symbol(`events addressed by ${by}`);
  return (req) => {
    const cache = req.memo(lookups, () => new Map<string, Promise<Addressed>>());
    const address = String(by === "id" ? req.params.id : req.params.slug);
    let found = cache.get(address);
    if (!found) {
      found = (async () => {
        // Read before the post is loaded: a record built from it is kept only if nothing committed since (lib/cache/records.ts).
        const token = host.rest.records !== undefined && keepsRecords(req) ? await host.rest.records.token() : null;
        if (by === "id") {
          const id = Number(req.params.id);
          return { post: Number.isSafeInteger(id) && id > 0 ? await engine.posts.get(id, addressedEventRelations(req), [EVENT]) : undefined, token };
        }
        const slug = req.params.slug;
        return { post: typeof slug === "string" ? await eventBySlugForRequest(engine, req, slug, await requestLanguage(req, engine)) : undefined, token };
      })();
      cache.set(address, found);
    }
    return found;
  };
}

/** The event an item request addresses, and the kept-records token read before it was loaded (null: its record is not kept). */
interface Addressed {
  post: LoadedPost | undefined;
  token: string | null;
}

/**
 * Edit/delete permission (calendar-api.md §4.8, §4.9, §8): the meta
 * capability on this event (contributors: own, unpublished; authors: own;
 * editors: any). When the addressed post is missing or not an event the
 * general capability decides, so the handler can answer 404/400.
 */
function itemPermission(engine: EngineApi, lookup: (req: RestRequest) => Promise<Addressed>, action: "edit" | "delete"): PermissionCheck {
  return async (req) => {
    const user = req.user;
    if (!user) return false;
    const { post } = await lookup(req);
    const caps = eventCaps(engine);
    if (post && post.type === EVENT) return user.can(action === "edit" ? "edit_post" : "delete_post", post);
    return user.can(action === "edit" ? caps.edit_posts : caps.delete_posts);
  };
}

/** The reuse check of a kept list page (`keptListPage`): its ids and total asked again, with lookups of its own. */
function eventPageCheck(
  engine: EngineApi,
  input: EventListInput,
  user: CurrentUser | null,
  opts: { language: string; relations: NonNullable<PostQuery["with"]> },
  page: { ids: readonly number[]; total: number },
): () => Promise<boolean> {
  return samePage(() => listEventIds(engine, input, user, { ...opts, lookups: new ListLookups(engine) }), page);
}

export function registerEventRoutes(host: CalendarHost): void {
  const { engine, rest } = host;
  /** The filter lookups of the list call answering a request: its argument validation and the call share them. */
  const listLookups = new WeakMap<RestRequest, ListLookups>();
  const lookupsOf = (req: RestRequest): ListLookups => {
    let lookups = listLookups.get(req);
    if (!lookups) listLookups.set(req, (lookups = new ListLookups(engine)));
    return lookups;
  };
  const listParams = eventListParams(engine, lookupsOf);
  const listNames = listParams.map((p) => p.name);
  const listArgs: ArgsMap = Object.fromEntries(listParams.map((p) => [p.name, p.arg]));
  const fieldArgs = updateFieldArgs(engine, host.fetch);

  /** The paging of a list page (links keep an explicit language and the JSON-LD opt-in). */
  const pagingOf = (req: RestRequest, result: { total: number; page: number; perPage: number; query: Record<string, QueryValue> }, collection: string, jsonLd: boolean): Pagination => {
    const query: Record<string, QueryValue> = { ...result.query };
    // languages.md §2.4: the links keep an explicit language.
    if (req.isSent("i18n_language")) query.i18n_language = String(req.params.i18n_language);
    // The paging links keep the JSON-LD opt-in.
    if (jsonLd) query.json_ld = 1;
    return paginate(req, { total: result.total, page: result.page, perPage: result.perPage, collectionUrl: `/${NAMESPACE}/${collection}`, query });
  };

  /**
   * One page of the list, as records, with its paging links and headers: what both representations show.
   * `json`: the JSON list, whose records may carry JSON-LD (`json_ld=1`) and are built for its `_fields`.
   */
  const listPage = async (req: RestRequest, collection: string, json?: { jsonLd: boolean }): Promise<{ records: JsonObject[]; paging: Pagination; writtenStarts: Map<number, string> }> => {
    const language = await requestLanguage(req, engine);
    const fieldsAt = json === undefined ? undefined : "events";
    const relations = eventRelations(recordWants(req, fieldsAt), json?.jsonLd === true);
    const result = await listEvents(engine, listInput(req, listNames), req.user, { language, lookups: lookupsOf(req), relations });
    const paging = pagingOf(req, result, collection, json?.jsonLd === true);
    const posts = json === undefined ? await seriesInPlace(result.posts, relations) : result.posts;
    // A series whose start was written in a DST gap repeats that wall clock, not the stored one (the feed's DTSTART).
    const writtenStarts = new Map<number, string>();
    const siteZone = json === undefined ? await engine.options.timezone() : "";
    for (const p of json === undefined ? posts : []) {
      const written = seriesStartLocal(p.fields, typeof p.fields.timezone === "string" && p.fields.timezone !== "" ? p.fields.timezone : siteZone);
      if (written !== undefined && written !== p.fields.start_local) writtenStarts.set(p.id, written);
    }
    return { records: await toRecords(engine, req, posts, false, { fieldsAt, jsonLd: json?.jsonLd === true }), paging, writtenStarts };
  };

  /**
   * The feed's events: a series' occurrences on the page give way to the
   * series itself, once, where its first one was: the feed writes a series
   * as one VEVENT with its rules (lib/calendar/ical/feed.ts), which a
   * calendar app expands into the same occurrences.
   */
  /** The occurrence of `series` that starts on `day` (its wall clock): the first that day; 404 when none. */
  const occurrenceOn = async (req: RestRequest, series: LoadedPost, day: string): Promise<LoadedPost> => {
    const found = (await engine.occurrences.list(series.id)).find((o) => o.start_local.slice(0, 10) === day);
    const post = found === undefined ? undefined : await engine.posts.get(occurrenceId(found.id), addressedEventRelations(req), [EVENT]);
    if (post === undefined) throw occurrenceNotFound(day);
    return post;
  };

  const seriesInPlace = async (posts: LoadedPost[], relations: NonNullable<PostQuery["with"]>): Promise<LoadedPost[]> => {
    const ids = [...new Set(posts.flatMap((p) => (p.occurrence === undefined ? [] : [p.id])))];
    if (ids.length === 0) return posts;
    const series = await engine.posts.getMany(ids, relations, [EVENT]);
    const placed = new Set<number>();
    return posts.flatMap((p) => {
      if (p.occurrence === undefined) return [p];
      const whole = series.get(p.id);
      if (whole === undefined || placed.has(p.id)) return [];
      placed.add(p.id);
      return [whole];
    });
  };

  /**
   * The JSON list page from kept records (lib/cache/records.ts): the page's
   * ids and total, the kept texts of its events, and only the events
   * without one made (then kept): an occurrence from its series' kept
   * record (`keptSeries`) and its own row, the others loaded and built,
   * each occurrence of a series on the page from the first one's record
   * (`eventRecords`), which keeps the series. Undefined where the records
   * are not every reader's (see keepsRecords) or none are kept; also when
   * an event of the page went between the two reads (the page is then
   * built as usual, from one read).
   *
   * The page names the tags of its records (and of their parts) and a
   * check of its ids and total (`reuseWhile`): the in-memory answer then
   * outlives writes that change neither, such as an edit of an event on
   * another page. The check asks the list again with lookups of its own, so
   * that slugs and filter posts are resolved as of then, and under the
   * clock of then (the upcoming window, relative dates).
   */
  const keptListPage = async (req: RestRequest): Promise<{ records: RawJson[]; paging: Pagination } | undefined> => {
    const kept = host.rest.records;
    if (kept === undefined || !keepsRecords(req) || req.params.json_ld === true) return undefined;
    const language = await requestLanguage(req, engine);
    const relations = eventRelations(recordWants(req, "events"), false);
    const input = listInput(req, listNames);
    const user = req.user;
    // What finding the ids reads, the reuse check below reads again: not named.
    const result = await readAgainByCheck(() => listEventIds(engine, input, user, { language, lookups: lookupsOf(req), relations }));
    const keys = result.ids.map((id) => recordKey(req, id, language));
    const shown = new Set<number>();
    const texts = await kept.get(keys, termParts(engine, req), shown);
    let missing = result.ids.filter((_, i) => !texts.has(keys[i]));
    if (missing.length > 0) {
      // Read before the posts are loaded: what is built from them is kept only if nothing committed since.
      const token = await kept.token();
      const built: KeptRecord[] = [];
      // Occurrences of a kept series are made from it and their own rows (item 2 of issue 43): no load, no build.
      const instances = await engine.occurrences.getMany(missing.map(occurrenceRowId).filter((id): id is number => id !== null));
      const seriesIds = [...new Set([...instances.values()].map((o) => o.postId))];
      const series = seriesIds.length === 0 ? new Map<string, Buffer>() : await kept.get(seriesIds.map((id) => seriesKey(req, id, language)), termParts(engine, req), shown);
      const read = new Map<string, KeptSeries | undefined>();
      for (const [key, text] of series) read.set(key, readKeptSeries(text));
      const urls = { home: req.urls.home, ns: `${req.urls.root}${NAMESPACE}` };
      missing = missing.filter((id) => {
        const occurrence = instances.get(occurrenceRowId(id) ?? 0);
        const from = occurrence === undefined ? undefined : read.get(seriesKey(req, occurrence.postId, language));
        const made = from === undefined || occurrence === undefined ? undefined : occurrenceFromKept(from, occurrence, urls);
        if (made === undefined) return true;
        const key = recordKey(req, id, language);
        texts.set(key, Buffer.from(encodeJson(made.record)));
        built.push({ key, bytes: keptText(req, made.record), tags: made.tags });
        return false;
      });
      if (missing.length > 0) {
        const seriesKept = new Set(series.keys());
        const loaded = await engine.posts.getMany(missing, relations, [EVENT]);
        const posts = missing.map((id) => loaded.get(id)).filter((p): p is LoadedPost => p !== undefined && p.type === EVENT);
        if (posts.length < missing.length) return undefined;
        const ctx = await recordContext(engine, req, posts, { single: false, fieldsAt: "events" });
        const records = eventRecords(posts, ctx);
        posts.forEach((p, i) => {
          const record = records[i];
          const key = recordKey(req, listedId(p), language);
          texts.set(key, Buffer.from(encodeJson(record)));
          // The text on this page has its terms in it (the kept one has holes for them).
          for (const tag of recordTags(p, ctx.related, language)) shown.add(tag);
          const tags = recordTags(p, ctx.related, language, { terms: false });
          built.push({ key, bytes: keptText(req, record), tags }, ...singlePart(req, p, () => singleJsonLd(p, record, ctx), tags, language));
          // The first occurrence of a series not kept keeps it for the others.
          const from = seriesKey(req, p.id, language);
          if (p.occurrence !== undefined && !seriesKept.has(from)) {
            seriesKept.add(from);
            built.push(keptSeries(req, p, record, seriesShape(p, ctx), tags, language));
          }
        });
      }
      if (token !== null) await kept.keep(token, built);
    }
    // The site tag too: an empty page shows no record, yet its total and links depend on the options.
    req.dependsOn(SITE_TAG, ...shown);
    req.reuseWhile(eventPageCheck(engine, input, user, { language, relations }, { ids: result.ids, total: result.total }));
    return { records: keys.map((key) => new RawJson(texts.get(key) ?? "null")), paging: pagingOf(req, result, "events/", false) };
  };

  /**
   * What a read by id adds to `post`'s kept record (`keptSingle`), its
   * `json_ld`: none where an anonymous reader may not read the post by its
   * own id (a list shows an event with a password, masked).
   */
  const singlePart = (req: RestRequest, post: LoadedPost, jsonLd: () => Json | undefined, tags: Iterable<number>, language: string): KeptRecord[] =>
    eventRefusal(engine, post, listedId(post), null) === undefined ? [{ key: singleKey(req, listedId(post), language), bytes: singleOwnText(jsonLd()), tags }] : [];

  /**
   * A read by id from kept texts (lib/calendar/records/kept.ts
   * `singleText`): the record lists show, its terms pasted in, and what only
   * a single read keeps, once the event passed `readableEvent` for every
   * anonymous reader. While both are proved good the event and all it shows
   * are unchanged, so the read would pass again and build the same bytes: no
   * post is loaded. Undefined where the records are not every reader's
   * (keepsRecords) or either text is not kept.
   */
  const keptSingle = async (req: RestRequest): Promise<RawJson | undefined> => {
    const kept = host.rest.records;
    const id = Number(req.params.id);
    if (kept === undefined || !keepsRecords(req) || !Number.isSafeInteger(id) || id <= 0) return undefined;
    const language = await requestLanguage(req, engine);
    const keys = [recordKey(req, id, language), singleKey(req, id, language)];
    const shown = new Set<number>();
    const texts = await kept.get(keys, termParts(engine, req), shown);
    const record = texts.get(keys[0]);
    const own = texts.get(keys[1]);
    const text = record === undefined || own === undefined ? undefined : singleText(record, own);
    if (text === undefined) return undefined;
    req.dependsOn(SITE_TAG, ...shown);
    return new RawJson(text);
  };

  /** The page as an iCalendar feed (lib/calendar/ical/feed.ts), with the JSON list's paging headers. */
  const icalPage = async (req: RestRequest, collection: string, headers: Record<string, string> = {}): Promise<RestResponse<string>> => {
    const { records, paging, writtenStarts } = await listPage(req, collection);
    const site = { host: new URL(req.urls.home).hostname, name: (await engine.options.get("blogname")) ?? "" };
    return rawResponse(icalFeed(records, site, writtenStarts), ICAL_CONTENT_TYPE, 200, { ...paging.headers, ...headers });
  };

  const list: RestEndpoint = {
    methods: READABLE,
    args: { ...listArgs, json_ld: jsonLdListArg },
    permission: "public",
    // The response cache keys answers by Accept too, so the two representations never mix.
    cache: true,
    summary: "List events",
    description:
      "Events matching the filters, ordered by start date; only published events for anonymous readers. " +
      "With `Accept: text/calendar` the same page is answered as an iCalendar feed (see `/events.ics`).",
    responses: LIST_RESPONSES,
    async handler(req) {
      // Content negotiation: a client that asks for iCalendar (and not for JSON first) gets the feed.
      if (wantsICalendar(req.header("accept"))) return icalPage(req, "events/", { Vary: "Accept" });
      const { records, paging } = (await keptListPage(req)) ?? (await listPage(req, "events/", { jsonLd: req.params.json_ld === true }));
      const body: Record<string, Json | (JsonObject | RawJson)[]> = { events: records, rest_url: paging.rest_url };
      if (paging.next_rest_url !== undefined) body.next_rest_url = paging.next_rest_url;
      if (paging.previous_rest_url !== undefined) body.previous_rest_url = paging.previous_rest_url;
      body.total = paging.total;
      body.total_pages = paging.total_pages;
      return new RestResponse(body, 200, { ...paging.headers, Vary: "Accept" });
    },
  };

  /**
   * `GET /events.ics`: the list as a feed at a URL of its own, for calendar
   * apps that subscribe to a URL and send no Accept header of their choice.
   * calpress decision: `/events.ics` beside `/events` (rather than
   * `/events/feed.ics`) — the same collection in another format, taking
   * the same query parameters, paging included.
   */
  const feed: RestEndpoint = {
    methods: READABLE,
    args: listArgs,
    permission: "public",
    cache: true,
    summary: "List events as iCalendar",
    description: "The events of `GET /events` with the same parameters (filters, paging, visibility), as an RFC 5545 feed (text/calendar).",
    responses: { "200": { description: "An iCalendar (RFC 5545) feed of the page of events.", mediaType: "text/calendar", schema: { type: "string" } } },
    handler: (req) => icalPage(req, "events.ics"),
  };

  const create: RestEndpoint = {
    methods: CREATABLE,
    args: createArgs(engine, host.fetch),
    permission: (req) => req.user?.can(eventCaps(engine).edit_posts) === true,
    allowBatch: true,
    summary: "Create an event",
    responses: CREATE_RESPONSES,
    async handler(req) {
      const post = await createEvent(engine, writeInput(req), req.user, { language: await requestLanguage(req, engine), validated: true, fetch: host.fetch });
      const [record] = await toRecords(engine, req, [post], false);
      return new RestResponse(record, 201, { Location: req.urls.route(`/${NAMESPACE}/events/${post.id}`) });
    },
  };

  rest.registerRoute(NAMESPACE, "/events", [list, create]);
  rest.registerRoute(NAMESPACE, "/events\\.ics", [feed]);

  for (const by of ["id", "slug"] as const) {
    const lookup = addressedPost(engine, by, host);
    const address: ArgsMap = by === "id" ? { id: idArg, password: passwordArg } : { slug: slugLookupArg(engine, true) };
    const readArgs: ArgsMap = by === "id" ? address : { ...address, occurrence_date: occurrenceDateArg };
    /** The event ID the request addresses (the slug arg has already checked that an event has the slug). */
    const targetId = async (req: RestRequest): Promise<number> => (by === "id" ? Number(req.params.id) : ((await lookup(req)).post?.id ?? 0));

    const read: RestEndpoint = {
      methods: READABLE,
      args: readArgs,
      permission: "public",
      cache: true,
      store: true,
      summary: by === "id" ? "Read an event" : "Read an event by slug",
      responses: READ_RESPONSES,
      async handler(req) {
        const kept = by === "id" ? await keptSingle(req) : undefined;
        if (kept !== undefined) return kept;
        // The addressed event is looked up once per request (the slug check and the `Allow` permission checks share it).
        const { post: found, token } = await lookup(req);
        // Which post a slug finds changes when a post with that slug appears, goes or changes status or language (its bucket's tag).
        if (by === "slug" && typeof req.params.slug === "string") req.dependsOn(slugTag(sanitizeTitle(req.params.slug)));
        // The post decides a refusal too (status, password): named before anything can refuse.
        if (found) nameLoadedPost(req, found);
        if (by === "slug" && !found) throw invalidParam("slug", "No event has this slug.");
        const readable = readableEvent(engine, found, by === "id" ? Number(req.params.id) : (found?.id ?? 0), req.user, readAccess(req));
        const post = typeof req.params.occurrence_date === "string" ? await occurrenceOn(req, readable, req.params.occurrence_date) : readable;
        const ctx = await recordContext(engine, req, [post], { single: true, fieldsAt: "" });
        const record = eventRecord(post, ctx);
        if (token !== null && host.rest.records !== undefined) {
          // The same record as lists show it (they have no `json_ld`), kept for them, and what a single read adds (`keptSingle`).
          const { json_ld: _jsonLd, ...listed } = record;
          const language = await requestLanguage(req, engine);
          const tags = [...recordTags(post, ctx.related, language, { terms: false })];
          // The post shown is checked again as read by its own id (an occurrence asked by its series' slug and date).
          await host.rest.records.keep(token, [{ key: recordKey(req, listedId(post), language), bytes: keptText(req, listed), tags }, ...singlePart(req, post, () => record.json_ld, tags, language)]);
        }
        return record;
      },
    };

    // Declared before the update so that `Allow` and the index list GET, DELETE, POST, PUT, PATCH (rest-conventions.md §6).
    const remove: RestEndpoint = {
      methods: DELETABLE,
      args: address,
      permission: itemPermission(engine, lookup, "delete"),
      allowBatch: true,
      summary: by === "id" ? "Move an event to the trash" : "Move an event to the trash, by slug",
      description: "There is no permanent delete; a force parameter is ignored.",
      responses: DELETE_RESPONSES,
      async handler(req) {
        const post = await trashEvent(engine, await targetId(req), req.user);
        const [record] = await toRecords(engine, req, [post], false);
        return record;
      },
    };

    const update: RestEndpoint = {
      methods: EDITABLE,
      args: by === "id" ? { id: idArg, password: passwordArg, ...fieldArgs } : { ...fieldArgs, slug: slugLookupArg(engine, false) },
      permission: itemPermission(engine, lookup, "edit"),
      allowBatch: true,
      summary: by === "id" ? "Update an event" : "Update an event by slug",
      responses: UPDATE_RESPONSES,
      async handler(req) {
        const post = await updateEvent(engine, await targetId(req), writeInput(req), req.user, {
          language: await requestLanguage(req, engine),
          validated: true,
          fetch: host.fetch,
        });
        const [record] = await toRecords(engine, req, [post], false);
        return record;
      },
    };

    rest.registerRoute(NAMESPACE, by === "id" ? "/events/(?P<id>\\d+)" : "/events/by-slug/(?P<slug>[^/]+)", [read, remove, update]);
  }
}
