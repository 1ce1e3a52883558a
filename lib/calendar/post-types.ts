import type { EngineApi } from "../engine-api";
import type { PostTypeConfig } from "../posts/types";
import type { TaxonomyConfig } from "../taxonomy/types";
// Types and taxonomies are shown (`rest`) where the calendar's own routes serve them (`controller: false`: none are generated).
import { NAMESPACE } from "./common/args";

/**
 * The calendar's content model, registered through the same public engine
 * API a host application uses. Engine names are short; `publicName` is what
 * the original exposes in plain permalinks (rest-conventions.md §0).
 */
export const EVENT = "event";
export const VENUE = "venue";
export const ORGANIZER = "organizer";
export const ATTACHMENT = "attachment";
export const CATEGORY = "calendar_events_cat";
export const TAG = "post_tag";

/** Link relations from an event to its venue(s) and organizers, in order. */
export const VENUE_LINK = "venue";
export const ORGANIZER_LINK = "organizer";

export const postTypes: Record<string, PostTypeConfig> = {
  [EVENT]: {
    rest: { namespace: NAMESPACE, base: "events", controller: false },
    labels: { singular: "Event", plural: "Events" },
    publicName: "calendar_events",
    rewriteSlug: "event",
    supports: ["title", "editor", "excerpt", "author", "thumbnail", "custom-fields"],
    hierarchical: false,
    capabilityType: ["event", "events"],
    emptySlugWhileDraft: true,
    // Anonymous event lists (every month, category, venue and page) are answered from memory.
    publishedIndex: true,
    // A series' occurrences (lib/calendar/recurrence) are listed as events with their own times.
    occurrenceFields: { start_local: "start_local", end_local: "end_local", start_utc: "start_utc", end_utc: "end_utc" },
    // The engine cleans every text on write (lib/posts/clean.ts): an event's title is post HTML, as the original's (kses unless `unfiltered_html`).
    textKinds: { title: "html" },
    // The importer's identifiers of an event's source (lib/calendar/import/ics.ts), compared as written.
    metaKinds: { _ical_uid: "raw", _ical_source: "raw", _ical_hash: "raw" },
    fields: {
      // Event-local wall clock: the reference compares list bounds against
      // these (calendar-api.md §4.1), so they are indexed columns.
      start_local: { type: "datetime", index: true },
      end_local: { type: "datetime", index: true },
      start_utc: { type: "datetime", index: true },
      end_utc: { type: "datetime", index: true },
      timezone: { type: "string", length: 64, default: "UTC" },
      all_day: { type: "boolean", default: false },
      featured: { type: "boolean", default: false, index: true },
      sticky: { type: "boolean", default: false },
      hide_from_listings: { type: "boolean", default: false, index: true },
      // null = never stored, which the record shows as true / the page URL.
      show_map: { type: "boolean", default: null },
      show_map_link: { type: "boolean", default: null },
      website: { type: "string", length: 2048, default: null, kind: "url" },
      /** JSON array of the cost strings as sent, each cleaned as text by the event operations. */
      cost: { type: "text", default: null, kind: "raw" },
      image_id: { type: "integer", default: null },
      /** JSON array of the RFC 5545 lines of a series (lib/calendar/recurrence); null for a single event. */
      recurrence: { type: "text", default: null, kind: "raw" },
      /**
       * On an occurrence detached from its series (an event whose parent is the series): the start its
       * series' rules made it at (RFC 5545's RECURRENCE-ID, the occurrence's key); null otherwise.
       */
      recurrence_id: { type: "datetime", default: null },
      /** That start in UTC (the detached event's own zone may differ from its series'). */
      recurrence_id_utc: { type: "datetime", default: null },
      /**
       * A start written in a DST gap (02:30 on New York's spring-forward day, stored as 03:30): that wall clock,
       * which a series' rules repeat (lib/calendar/recurrence/series.ts `seriesStartLocal`); null otherwise.
       */
      recurrence_start: { type: "datetime", default: null },
    },
  },
  [VENUE]: {
    rest: { namespace: NAMESPACE, base: "venues", controller: false },
    labels: { singular: "Venue", plural: "Venues" },
    publicName: "calendar_venue",
    rewriteSlug: "venue",
    supports: ["title", "editor", "excerpt", "author", "thumbnail"],
    capabilityType: ["venue", "venues"],
    // The name is plain text (sanitize_text_field), as its other fields.
    textKinds: { title: "text" },
    // Anonymous lists ("with upcoming events", pages) from memory; the upcoming events are named by the events' index.
    publishedIndex: true,
    fields: {
      address: { type: "string", default: null },
      city: { type: "string", default: null },
      country: { type: "string", default: null },
      province: { type: "string", default: null },
      state: { type: "string", default: null },
      zip: { type: "string", length: 64, default: null },
      phone: { type: "string", length: 64, default: null },
      website: { type: "string", length: 2048, default: null, kind: "url" },
      stateprovince: { type: "string", default: null },
      show_map: { type: "boolean", default: null },
      show_map_link: { type: "boolean", default: null },
      geo_lat: { type: "number", default: null, index: true },
      geo_lng: { type: "number", default: null },
      image_id: { type: "integer", default: null },
    },
    searchFields: ["address", "city", "province", "state", "stateprovince", "zip", "phone"],
  },
  [ORGANIZER]: {
    rest: { namespace: NAMESPACE, base: "organizers", controller: false },
    labels: { singular: "Organizer", plural: "Organizers" },
    publicName: "calendar_organizer",
    rewriteSlug: "organizer",
    supports: ["title", "editor", "excerpt", "author", "thumbnail"],
    capabilityType: ["organizer", "organizers"],
    textKinds: { title: "text" },
    // Anonymous lists ("with upcoming events", pages) from memory; the upcoming events are named by the events' index.
    publishedIndex: true,
    fields: {
      phone: { type: "string", length: 64, default: null },
      website: { type: "string", length: 2048, default: null, kind: "url" },
      // Checked to be an address by the organizer rules, and stored as text (as the original stores it).
      email: { type: "string", default: null },
      image_id: { type: "integer", default: null },
    },
    searchFields: ["phone", "email", "website"],
  },
  [ATTACHMENT]: {
    labels: { singular: "Media", plural: "Media" },
    publicName: "attachment",
    rewriteSlug: "attachment",
    capabilityType: ["post", "posts"],
    fields: {
      url: { type: "string", length: 2048, default: "", kind: "url" },
      mime_type: { type: "string", length: 100, default: "" },
      width: { type: "integer", default: null },
      height: { type: "integer", default: null },
      filesize: { type: "integer", default: null },
    },
  },
};

export const taxonomies: Record<string, TaxonomyConfig> = {
  [CATEGORY]: {
    objectTypes: [EVENT],
    rest: { namespace: NAMESPACE, base: "categories", controller: false },
    hierarchical: true,
    labels: { singular: "Event Category", plural: "Event Categories" },
    rewriteSlug: "events/category",
    // Descriptions are post HTML, as the calendar's records have always kept them (kses unless `unfiltered_html`).
    textKinds: { description: "html" },
    // calendar-api.md §6.3: authors may manage event categories.
    capabilities: { manage: "publish_events", edit: "publish_events", delete: "publish_events", assign: "edit_events" },
  },
  [TAG]: {
    objectTypes: [EVENT],
    rest: { namespace: NAMESPACE, base: "tags", controller: false },
    hierarchical: false,
    labels: { singular: "Tag", plural: "Tags" },
    rewriteSlug: "tag",
    textKinds: { description: "html" },
    capabilities: { manage: "manage_categories", edit: "manage_categories", delete: "manage_categories", assign: "edit_events" },
  },
};

export function registerCalendarContent(engine: EngineApi): void {
  for (const [name, config] of Object.entries(postTypes)) {
    if (!engine.postType(name)) engine.registerPostType(name, config);
  }
  for (const [name, config] of Object.entries(taxonomies)) {
    if (!engine.taxonomy(name)) engine.registerTaxonomy(name, config);
  }
}
