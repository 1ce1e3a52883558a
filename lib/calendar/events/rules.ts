/**
 * The field rules of an event write (calendar-api.md §4.3), as one table:
 * the route argument specs call them as `validate` callbacks, and the write
 * operations run them on their input too, so an in-process caller gets the
 * same 400s as an HTTP client. A rule answers null (valid) or a message.
 */
import type { EngineApi } from "../../engine-api";
import { isValidTimeZone } from "../../dates/format";
import { escUrlRaw, type TextKind } from "../../format/sanitize";
import { checkImageValue } from "../linked-posts/image";
import { authorRule, isAbsoluteUrl, statusRule } from "../linked-posts/validate";
import { EVENT, postTypes } from "../post-types";
import { nonEmptyString } from "../common/args";
import { isParseableDate, isStorableDate } from "./dates";
import { parseRecurrence, RecurrenceError } from "../recurrence/rules";
import { isListValue, MAX_LIST_ITEMS_PER_WRITE, MAX_TERM_NAME_LENGTH, termItems, validateLinkedValue } from "./linked";

export type FieldRule = (value: unknown, engine: EngineApi) => Promise<string | null> | string | null;

/** The write fields of an event, in the order the original declares them (interface.md §2.2). */
export const WRITE_FIELDS = [
  "author",
  "date",
  "date_utc",
  "title",
  "description",
  "slug",
  "excerpt",
  "status",
  "timezone",
  "all_day",
  "start_date",
  "end_date",
  "image",
  "cost",
  "website",
  "show_map",
  "show_map_link",
  "hide_from_listings",
  "sticky",
  "featured",
  "categories",
  "tags",
  "venue",
  "organizer",
  // calpress addition (issue 22), after the original's fields.
  "recurrence",
] as const;
export type WriteField = (typeof WRITE_FIELDS)[number];

/** The boolean presentation flags: set when true, false when omitted (calendar-api.md §4.3, §4.8). */
export const FLAG_FIELDS = ["show_map", "show_map_link", "hide_from_listings", "sticky", "featured"] as const;
export type FlagField = (typeof FLAG_FIELDS)[number];

function nonEmpty(what: string): FieldRule {
  return (value) => (nonEmptyString(value) ? null : `The ${what} must be a non-empty string.`);
}

/** A Unix timestamp or text the date parser reads (`""`, `foo`, `"before my birthday"` fail). */
export const dateRule: FieldRule = (value) => {
  if (!isParseableDate(value)) return "The date must be a Unix timestamp or a date the date parser understands.";
  return isStorableDate(value) ? null : "The date must be between the years 0 and 9999.";
};

/**
 * The column length of an event's typed string field (lib/calendar/post-types.ts):
 * the engine refuses longer values, and that refusal must be this 400, not a 500.
 */
function eventFieldMaxLength(field: string): number {
  const def = postTypes[EVENT]?.fields?.[field];
  return def?.type === "string" ? (def.length ?? 255) : Number.POSITIVE_INFINITY;
}

const timezoneRule: FieldRule = (value) =>
  typeof value === "string" && (value.trim() === "" || isValidTimeZone(value.trim())) ? null : "The time zone must be empty or a valid time zone name.";

/** Empty, or an absolute URL (PHP's FILTER_VALIDATE_URL in the original: `foo` fails) that fits its column. */
const websiteRule: FieldRule = (value) => {
  if (typeof value !== "string" || (value.trim() !== "" && !isAbsoluteUrl(value.trim()))) return "The website must be empty or a valid URL.";
  const stored = escUrlRaw(value.trim());
  // A scheme esc_url_raw() drops (`javascript://…`) leaves nothing to store: refused rather than silently cleared.
  if (value.trim() !== "" && stored === "") return "The website must be empty or a valid URL.";
  const max = eventFieldMaxLength("website");
  // The operation stores the cleaned value.
  return [...stored].length > max ? `The website must be at most ${max} characters long.` : null;
};

const booleanLike: FieldRule = (value) =>
  typeof value === "boolean" || typeof value === "number" || typeof value === "string" ? null : "The value must be a boolean.";

const termListRule: FieldRule = (value) => {
  if (!isListValue(value)) return "The terms must be a list or a comma-separated string.";
  if (termItems(value).length > MAX_LIST_ITEMS_PER_WRITE) return `A write may give at most ${MAX_LIST_ITEMS_PER_WRITE} terms of a taxonomy.`;
  // A slug or name longer than a term name can be neither an existing term
  // nor a new one (the engine refuses the create): a 400 here, before any write.
  const tooLong = termItems(value).some((item) => typeof item === "string" && [...item.trim()].length > MAX_TERM_NAME_LENGTH);
  return tooLong ? `A term name or slug may have at most ${MAX_TERM_NAME_LENGTH} characters.` : null;
};

export const WRITE_RULES: Readonly<Record<WriteField, FieldRule>> = {
  author: authorRule,
  date: dateRule,
  date_utc: dateRule,
  title: nonEmpty("title"),
  description: nonEmpty("description"),
  slug: nonEmpty("slug"),
  excerpt: nonEmpty("excerpt"),
  status: statusRule(EVENT),
  timezone: timezoneRule,
  all_day: booleanLike,
  start_date: dateRule,
  end_date: dateRule,
  image: (value, engine) => checkImageValue(value, engine),
  // Any value: strings and lists of strings are read, anything else stores no cost.
  cost: () => null,
  website: websiteRule,
  show_map: booleanLike,
  show_map_link: booleanLike,
  hide_from_listings: booleanLike,
  sticky: booleanLike,
  featured: booleanLike,
  categories: termListRule,
  tags: termListRule,
  venue: async (value, engine) => {
    const parsed = await validateLinkedValue(engine, "venue", value);
    return "error" in parsed ? parsed.error : null;
  },
  organizer: async (value, engine) => {
    const parsed = await validateLinkedValue(engine, "organizer", value);
    return "error" in parsed ? parsed.error : null;
  },
  recurrence: (value) => {
    try {
      parseRecurrence(value);
      return null;
    } catch (err) {
      if (err instanceof RecurrenceError) return err.message;
      throw err;
    }
  },
};

/**
 * The event fields the operations clean themselves, because a rule needs
 * the cleaned value before the write: the website, an esc_url_raw() URL
 * for everyone (one that cleans to nothing is stored as none on create),
 * and each cost value, sanitize_text_field() text for everyone (the engine
 * stores the JSON list of them as built). Everything else is cleaned by the
 * engine on write, by the kinds the event type declares (post-types.ts:
 * title, description and excerpt are post HTML, kses unless
 * `unfiltered_html`); slugs are normalised by the engine; the other fields
 * are dates, flags, IDs and enumerations that their rules already restrict.
 * Terms, venues and organizers created with an event go through their own
 * operations.
 */
export const WRITE_SANITIZERS: Readonly<Partial<Record<WriteField, TextKind>>> = {
  website: "url",
  cost: "text",
};

/** The create fields that must be sent (calendar-api.md §4.3). */
export const REQUIRED_ON_CREATE: readonly WriteField[] = ["title", "start_date", "end_date"];
