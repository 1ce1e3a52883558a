import type { JsonObject } from "../../routes";

/**
 * `components.schemas` of the `doc` route (calendar-api.md §7): the records
 * of §1–2, each `{type: "object", properties: {…}}`. Where the original's
 * document is wrong about a value (it calls the `*_details` members
 * integers), this one describes what is actually sent (zero-padded strings).
 */

const str = (description: string): JsonObject => ({ type: "string", description });
const int = (description: string): JsonObject => ({ type: "integer", description });
const bool = (description: string): JsonObject => ({ type: "boolean", description });
const num = (description: string): JsonObject => ({ type: "number", description });
const ref = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });
const arrayOf = (items: JsonObject, description: string): JsonObject => ({ type: "array", items, description });
const dateTime = (description: string): JsonObject => ({ type: "string", description: `${description} (YYYY-MM-DD HH:MM:SS).` });

const ImageSize: JsonObject = {
  type: "object",
  properties: {
    width: int("Width in pixels."),
    height: int("Height in pixels."),
    "mime-type": str("MIME type."),
    filesize: int("Size in bytes."),
    url: str("URL of this size."),
  },
};

const CostDetails: JsonObject = {
  type: "object",
  properties: {
    currency_symbol: str("The currency symbol."),
    currency_code: str("The currency code (empty: not settable through this API)."),
    currency_position: { type: "string", enum: ["prefix", "postfix", ""], description: "Where the symbol goes." },
    values: arrayOf({ type: "string" }, "The numeric values found, ascending, as numeric strings."),
  },
};

const termUrls: JsonObject = {
  type: "object",
  properties: {
    self: str("This term's route."),
    collection: str("The collection route."),
    up: str("The parent's route (only when there is a parent)."),
  },
};

/** Both term shapes (embedded in events, and of the term routes): members of one only are noted. */
const Term: JsonObject = {
  type: "object",
  properties: {
    id: int("Term ID."),
    name: str("Name."),
    slug: str("Slug."),
    description: str("Description."),
    taxonomy: { type: "string", enum: ["calendar_events_cat", "post_tag"], description: "Taxonomy." },
    parent: int("Parent term ID, 0 for none (categories only in term routes)."),
    count: int("Published events with the term."),
    term_group: int("Term group (embedded terms)."),
    term_taxonomy_id: int("Term taxonomy ID (embedded terms)."),
    filter: str('Always "raw" (embedded terms).'),
    meta: arrayOf({ type: "string" }, "Always empty (term routes)."),
    url: str("Public term page (term routes)."),
    urls: termUrls,
  },
};

const Image: JsonObject = {
  type: "object",
  properties: {
    url: str("Full-size file URL."),
    id: int("Attachment ID."),
    extension: str("File extension."),
    width: int("Width in pixels."),
    height: int("Height in pixels."),
    filesize: int("Size in bytes."),
    sizes: { type: "object", additionalProperties: ref("ImageSize"), description: "Resized copies by size name." },
  },
};

const DateDetails: JsonObject = {
  type: "object",
  properties: {
    year: str("Four digits."),
    month: str("Two digits."),
    day: str("Two digits."),
    hour: str("Two digits, 24-hour."),
    minutes: str("Two digits."),
    seconds: str("Two digits."),
  },
};

const postHeader: Record<string, JsonObject> = {
  id: int("Post ID."),
  author: str("Author user ID, as a string of digits."),
  status: str("Post status."),
  date: dateTime("Publication date, site time"),
  date_utc: dateTime("Publication date, UTC"),
  modified: dateTime("Last change, site time"),
  modified_utc: dateTime("Last change, UTC"),
  url: str("Public page URL."),
};

const globalIds: Record<string, JsonObject> = {
  global_id: str("Site host and path with ?id=<ID>."),
  global_id_lineage: arrayOf({ type: "string" }, "Global IDs of the record's origins."),
};

const jsonLd: JsonObject = { type: "object", description: "schema.org data; single reads only.", additionalProperties: true };

const Venue: JsonObject = {
  type: "object",
  description: "A venue. Empty members are omitted, except show_map, show_map_link and the global IDs.",
  properties: {
    ...postHeader,
    venue: str("Name."),
    description: str("Rendered HTML."),
    excerpt: str("Rendered HTML."),
    slug: str("Slug."),
    image: ref("Image"),
    address: str("Street address."),
    city: str("City."),
    country: str("Country."),
    province: str("Province."),
    state: str("State."),
    zip: str("Postal code."),
    phone: str("Phone."),
    website: str("Website URL."),
    stateprovince: str("State (US or no country) or province."),
    geo_lat: num("Latitude (with geo_lng)."),
    geo_lng: num("Longitude (with geo_lat)."),
    show_map: bool("Show a map."),
    show_map_link: bool("Show a map link."),
    json_ld: jsonLd,
    ...globalIds,
  },
};

const Organizer: JsonObject = {
  type: "object",
  description: "An organizer. Empty members are omitted.",
  properties: {
    ...postHeader,
    organizer: str("Name."),
    description: str("Rendered HTML."),
    excerpt: str("Rendered HTML."),
    slug: str("Slug."),
    image: ref("Image"),
    phone: str("Phone."),
    website: str("Website URL."),
    email: str("E-mail address."),
    json_ld: jsonLd,
    ...globalIds,
  },
};

const Event: JsonObject = {
  type: "object",
  description: "An event. Every member is always present.",
  properties: {
    id: int("Post ID."),
    ...globalIds,
    ...postHeader,
    rest_url: str("This event's route."),
    title: str("Title."),
    description: str("Rendered HTML."),
    excerpt: str("Rendered HTML."),
    slug: str("Slug."),
    image: { description: "The featured image, or false.", oneOf: [ref("Image"), { type: "boolean" }] },
    all_day: bool("Lasts whole days."),
    start_date: dateTime("Start, event time zone"),
    start_date_details: ref("DateDetails"),
    end_date: dateTime("End, event time zone"),
    end_date_details: ref("DateDetails"),
    utc_start_date: dateTime("Start, UTC"),
    utc_start_date_details: ref("DateDetails"),
    utc_end_date: dateTime("End, UTC"),
    utc_end_date_details: ref("DateDetails"),
    timezone: str("Time zone (IANA name, UTC, or a UTC+N label)."),
    timezone_abbr: str("Zone abbreviation at the start."),
    cost: str("Formatted cost."),
    cost_details: ref("CostDetails"),
    website: str("Website URL (the event page when none was stored)."),
    show_map: bool("Show a map."),
    show_map_link: bool("Show a map link."),
    hide_from_listings: bool("Hidden from lists."),
    sticky: bool("Sticky in calendar views."),
    featured: bool("Featured."),
    categories: arrayOf(ref("Term"), "Event categories, in assignment order."),
    tags: arrayOf(ref("Term"), "Tags, in assignment order."),
    venue: { description: "The venue, or an empty list.", oneOf: [ref("Venue"), arrayOf(ref("Venue"), "Several or none.")] },
    organizer: arrayOf(ref("Organizer"), "Organizers, in link order."),
    custom_fields: arrayOf({ type: "object" }, "Always empty."),
    recurrence: arrayOf({ type: "string" }, "calpress addition: the RFC 5545 lines (RRULE, RDATE, EXDATE) of a series; [] for a single event."),
    series_id: { type: "integer", nullable: true, description: "calpress addition: the series this event is an occurrence of (listed, or detached into an event of its own by an update); null otherwise." },
    original_start_date: {
      type: "string",
      nullable: true,
      description: "calpress addition: for an occurrence, the start its series' rules made it at (its RFC 5545 RECURRENCE-ID, on the series' wall clock, YYYY-MM-DD HH:MM:SS); null otherwise.",
    },
    utc_original_start_date: { type: "string", nullable: true, description: "calpress addition: original_start_date in UTC; null otherwise." },
    json_ld: jsonLd,
  },
};

export const COMPONENT_SCHEMAS: Readonly<Record<string, JsonObject>> = {
  ImageSize,
  CostDetails,
  Term,
  Image,
  DateDetails,
  Event,
  Venue,
  Organizer,
};
