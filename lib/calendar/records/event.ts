import type { LoadedPost } from "../../posts/types";
import { plainText } from "../../format/plain-text";
import { dateDetails, isoWithOffset, timezoneAbbrAt, utcSqlMillis, zoneForLuxon } from "../../dates/format";
import { CATEGORY, ORGANIZER_LINK, TAG, VENUE_LINK } from "../post-types";
import { formatCost, normaliseCostInput } from "../cost";
import { wanted, type Json, type JsonObject, type RecordContext } from "./context";
import { globalIds, postHeader, renderedTexts, str } from "./common";
import { imageRecord } from "./image";
import { embeddedTermRecord } from "./term";
import { keptVenueJsonLd, venueRecord } from "./venue";
import { organizerRecord } from "./organizer";
import { embeddedRecord } from "./embedded";
import { hasContentAccess, isPublicPage } from "./access";
import { maskProtected } from "./mask";
import { postUrl } from "./urls";
import { seriesStartLocal, storedRecurrence } from "../recurrence/series";
import { listedId } from "../../posts/occurrence-ids";
import { eventSchedules } from "../recurrence/json-ld";

export function storedCost(raw: unknown): string[] {
  if (typeof raw !== "string" || raw === "") return [];
  try {
    return normaliseCostInput(JSON.parse(raw));
  } catch {
    return normaliseCostInput(raw);
  }
}

export function eventRecord(post: LoadedPost, ctx: RecordContext): JsonObject {
  const f = post.fields;
  const texts = renderedTexts(post);
  const zone = eventZone(post, ctx);
  const cost = formatCost(storedCost(f.cost));
  const at = atInstance(post, ctx, zone);

  // Members the answer's `_fields` drops are left empty: building them is the costly part of a record.
  const withJsonLd = (ctx.single || ctx.jsonLd === true) && isPublicPage(post) && wanted(ctx, "json_ld");
  const terms = (taxonomy: string, member: string): Json[] =>
    !wanted(ctx, member) ? [] : (post.termIds?.[taxonomy] ?? [])
      .map((id) => ctx.related.terms.get(id))
      .filter((t) => t !== undefined)
      .map((t) => embeddedTermRecord(t, ctx));

  const linked = (relation: string): LoadedPost[] =>
    (post.links?.[relation] ?? []).map((id) => ctx.related.posts.get(id)).filter((p): p is LoadedPost => p !== undefined);
  // Embedded records never carry their own JSON-LD (the event's has them), and are whole (they are shared).
  const embedCtx: RecordContext = { ...ctx, single: false, jsonLd: false, wants: undefined };
  const venues = wanted(ctx, "venue") || withJsonLd ? linked(VENUE_LINK).map((v) => embeddedRecord(v, embedCtx, venueRecord)) : [];
  const organizers = wanted(ctx, "organizer") || withJsonLd ? linked(ORGANIZER_LINK).map((o) => embeddedRecord(o, embedCtx, organizerRecord)) : [];

  // An occurrence of a series is an event of its own id (lib/posts/occurrences.ts) and the series' other members;
  // what differs between the occurrences of one series is `atInstance`'s alone (`occurrenceFrom` relies on it).
  const record: JsonObject = {
    id: at.id,
    global_id: at.global_id,
    global_id_lineage: at.global_id_lineage,
    ...postHeader(post, ctx, at.url),
    rest_url: at.rest_url,
    title: texts.title,
    description: texts.description,
    excerpt: texts.excerpt,
    slug: post.slug,
    image: imageRecord(ctx.related.attachments.get(Number(f.image_id))),
    all_day: f.all_day === true,
    start_date: at.start_date,
    start_date_details: at.start_date_details,
    end_date: at.end_date,
    end_date_details: at.end_date_details,
    utc_start_date: at.utc_start_date,
    utc_start_date_details: at.utc_start_date_details,
    utc_end_date: at.utc_end_date,
    utc_end_date_details: at.utc_end_date_details,
    timezone: zone,
    timezone_abbr: at.timezone_abbr,
    cost: cost.cost,
    cost_details: { ...cost.details, values: cost.details.values },
    website: f.website === null || f.website === undefined ? at.url : str(f.website),
    show_map: f.show_map !== false,
    show_map_link: f.show_map_link !== false,
    hide_from_listings: f.hide_from_listings === true,
    sticky: f.sticky === true,
    featured: f.featured === true,
    categories: terms(CATEGORY, "categories"),
    tags: terms(TAG, "tags"),
    venue: venues.length === 0 ? [] : venues.length === 1 ? venues[0] : venues,
    organizer: organizers,
    custom_fields: [],
    // calpress additions (issue 22): a series' RFC 5545 lines ([] for a single event; an occurrence shows
    // its series' lines), the series an occurrence belongs to, detached or not (null: not an occurrence),
    // and the start the series' rules made it at (its RECURRENCE-ID, on the event's wall clock).
    recurrence: storedRecurrence(post),
    series_id: at.series_id,
    original_start_date: at.original_start_date,
    utc_original_start_date: at.utc_original_start_date,
  };
  // The last member: a kept single read pastes it after the record lists show (kept.ts `singleText`).
  if (withJsonLd) record.json_ld = eventJsonLd(post, record, zone);
  return hasContentAccess(post, ctx) ? record : maskProtected(record);
}

/**
 * The `json_ld` a single read adds to `record`, the record lists show (built
 * with `ctx`, no `_fields`), or undefined where it has none: what
 * `eventRecord` gives with `single`, for a list to keep (kept.ts `singleKey`).
 */
export function singleJsonLd(post: LoadedPost, record: JsonObject, ctx: RecordContext): JsonObject | undefined {
  return isPublicPage(post) ? eventJsonLd(post, record, eventZone(post, ctx)) : undefined;
}

function eventZone(post: LoadedPost, ctx: RecordContext): string {
  return str(post.fields.timezone) || ctx.siteTimezone;
}

/** What an instance's members are made from: the post at that instance, or what a kept series gives of it (records/kept.ts). */
export type InstanceSource = Pick<LoadedPost, "id" | "type" | "status" | "slug" | "parent" | "fields" | "occurrence">;

/** The URLs records are written with (RecordContext's). */
export type RecordUrls = Pick<RecordContext, "home" | "ns">;

/**
 * The members of an event record that its instance decides: the only ones
 * in which two occurrences of one series differ (its id, its dates, its
 * URL and what shows them). Everything else in the record is the series'.
 */
function atInstance(post: InstanceSource, urls: RecordUrls, zone: string) {
  const f = post.fields;
  const id = listedId(post);
  const startLocal = str(f.start_local);
  const endLocal = str(f.end_local);
  const startUtc = str(f.start_utc);
  const endUtc = str(f.end_utc);
  return {
    id,
    ...globalIds(post, urls),
    url: postUrl(urls.home, post),
    rest_url: `${urls.ns}/events/${id}`,
    start_date: startLocal,
    start_date_details: dateDetails(startLocal),
    end_date: endLocal,
    end_date_details: dateDetails(endLocal),
    utc_start_date: startUtc,
    utc_start_date_details: dateDetails(startUtc),
    utc_end_date: endUtc,
    utc_end_date_details: dateDetails(endUtc),
    timezone_abbr: timezoneAbbrAt(zone, utcSqlMillis(startUtc)),
    ...occurrenceMembers(post),
  } satisfies JsonObject;
}

/** How the members of an occurrence's series shape its own (`occurrenceFrom`). */
export interface SeriesShape {
  /** The event's zone (its own, else the site's). */
  readonly zone: string;
  /** The event has no website of its own: its `website` is its URL. */
  readonly websiteIsUrl: boolean;
  /** The record is masked for its reader (a protected event, `maskProtected`). */
  readonly masked: boolean;
}

export function seriesShape(post: LoadedPost, ctx: RecordContext): SeriesShape {
  return { zone: eventZone(post, ctx), websiteIsUrl: post.fields.website === null || post.fields.website === undefined, masked: !hasContentAccess(post, ctx) };
}

/**
 * An occurrence's record from `record`, another occurrence's of the same
 * series as `eventRecord` built it for the same reader and URLs, without
 * `json_ld` (which is built from the dates): its instance's members put in,
 * keys in the same order. Byte for byte the record `eventRecord` builds.
 */
export function occurrenceFrom(record: JsonObject, post: InstanceSource, urls: RecordUrls, shape: SeriesShape): JsonObject {
  const at: JsonObject = atInstance(post, urls, shape.zone);
  if (shape.websiteIsUrl) at.website = at.url;
  return { ...record, ...(shape.masked ? maskProtected(at) : at) };
}

/**
 * The records of `posts` (as `eventRecord` builds each): an occurrence whose
 * series was built already for this answer is that record with its own
 * instance's members (`occurrenceFrom`), not a new build. Not with
 * `json_ld`: occurrences are then built each.
 */
export function eventRecords(posts: readonly LoadedPost[], ctx: RecordContext): JsonObject[] {
  const series = new Map<number, { post: LoadedPost; record: JsonObject; shape: SeriesShape }>();
  return posts.map((post) => {
    if (post.occurrence === undefined) return eventRecord(post, ctx);
    const built = series.get(post.id);
    if (built !== undefined && sameSeries(built.post, post)) return occurrenceFrom(built.record, post, ctx, built.shape);
    const record = eventRecord(post, ctx);
    if (!("json_ld" in record)) series.set(post.id, { post, record, shape: seriesShape(post, ctx) });
    return record;
  });
}

/** The same series as loaded once for this answer (occurrences of one load share its objects). */
function sameSeries(a: LoadedPost, b: LoadedPost): boolean {
  return a.modifiedUtc === b.modifiedUtc && a.termIds === b.termIds && a.links === b.links && a.title === b.title && a.content === b.content;
}

interface OccurrenceMembers {
  series_id: number | null;
  original_start_date: string | null;
  utc_original_start_date: string | null;
}

/**
 * `series_id`, `original_start_date` and `utc_original_start_date`: an
 * occurrence's (read at its instance, or detached into an event of its
 * own), else null. An instance's key is its start on the series' wall
 * clock, so its UTC is the instance's own start_utc.
 */
function occurrenceMembers(post: Pick<LoadedPost, "id" | "parent" | "fields" | "occurrence">): OccurrenceMembers {
  const o = post.occurrence;
  if (o !== undefined) return { series_id: post.id, original_start_date: o.key, utc_original_start_date: o.start_utc };
  const key = post.fields.recurrence_id;
  const utc = post.fields.recurrence_id_utc;
  if (typeof key === "string" && typeof utc === "string" && post.parent > 0) return { series_id: post.parent, original_start_date: key, utc_original_start_date: utc };
  return { series_id: null, original_start_date: null, utc_original_start_date: null };
}

function eventJsonLd(post: LoadedPost, record: JsonObject, zone: string): JsonObject {
  const excerpt = plainText(str(record.excerpt)) || firstWords(plainText(str(record.description)), 55);
  const ld: JsonObject = {
    "@context": "http://schema.org",
    "@type": "Event",
    name: plainText(str(record.title)),
    description: excerpt,
  };
  const image = record.image;
  if (image && typeof image === "object" && !Array.isArray(image) && typeof image.url === "string") ld.image = image.url;
  ld.url = str(record.url);
  ld.eventAttendanceMode = "https://schema.org/OfflineEventAttendanceMode";
  ld.eventStatus = "https://schema.org/EventScheduled";
  ld.startDate = isoWithOffset(str(record.start_date), zoneForLuxon(zone));
  ld.endDate = isoWithOffset(str(record.end_date), zoneForLuxon(zone));
  const venue = record.venue;
  if (venue && !Array.isArray(venue) && typeof venue === "object") ld.location = keptVenueJsonLd(venue);
  const organizers = Array.isArray(record.organizer) ? record.organizer : [];
  const people = organizers
    .filter((o): o is JsonObject => !!o && typeof o === "object" && !Array.isArray(o))
    .map((o) => {
      const person: JsonObject = { "@type": "Person", name: plainText(str(o.organizer)) };
      if (str(o.description) !== "") person.description = plainText(str(o.description));
      if (str(o.website) !== "") person.url = str(o.website);
      if (plainText(str(o.phone)) !== "") person.telephone = plainText(str(o.phone));
      if (plainText(str(o.email)) !== "") person.email = plainText(str(o.email));
      return person;
    });
  if (people.length === 1) ld.organizer = people[0];
  else if (people.length > 1) ld.organizer = people;
  // calpress addition (issue 22): a series says how it repeats (an occurrence is one dated Event).
  const recurrence = post.occurrence === undefined ? storedRecurrence(post) : [];
  if (recurrence.length > 0) {
    // The start its rules repeat: as written, also in a DST gap (the record's start_date is where that day's occurrence moved).
    const start = seriesStartLocal(post.fields, zone) ?? str(record.start_date);
    const schedules = eventSchedules(recurrence, start, str(record.end_date), zone, record.all_day === true);
    ld.eventSchedule = schedules.length === 1 ? schedules[0] : schedules;
  }
  ld.performer = "Organization";
  const details = record.cost_details as JsonObject;
  const values = Array.isArray(details.values) ? details.values : [];
  // calpress addition: a cost that only says the event is free ("Free", "Free entry") is an offer at price 0.
  const price = values.length > 0 ? str(values[0]) : isFreeText(str(record.cost)) ? "0" : undefined;
  if (price !== undefined) {
    ld.offers = {
      "@type": "Offer",
      price,
      priceCurrency: str(details.currency_code) || "USD",
      url: str(record.url),
      category: "primary",
      availability: "inStock",
      validFrom: isoWithOffset(post.dateLocal, zoneForLuxon(zone)),
    };
  }
  return ld;
}

/** Words that say "free" in the site languages (nl, en, fi, fr, de, it, no). */
const FREE_WORDS = /(?:^|[^\p{L}])(?:free|gratis|gratuit|gratuite|gratuito|gratuita|kostenlos|ilmainen|vapaa pääsy|entrée libre|ingresso libero)(?:$|[^\p{L}])/iu;

function isFreeText(cost: string): boolean {
  return cost !== "" && FREE_WORDS.test(cost);
}

function firstWords(text: string, n: number): string {
  const words = text.split(/\s+/).filter(Boolean);
  return words.length <= n ? words.join(" ") : `${words.slice(0, n).join(" ")}…`;
}
