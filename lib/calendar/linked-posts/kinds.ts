import { sanitizeField, type TextKind } from "../../format/sanitize";
import { ORGANIZER, postTypes, VENUE } from "../post-types";

/**
 * Venues and organizers are the original's "linked post types": one pattern
 * with a few per-type differences. Everything that differs lives in this
 * table, so the operations, argument tables and routes are written once.
 */
export type LinkedPostKind = "venue" | "organizer";

export interface LinkedKindConfig {
  kind: LinkedPostKind;
  /** Engine post type. */
  postType: string;
  /** Collection path segment and list envelope member (`venues`). */
  plural: string;
  /** Capitalised name used in messages. */
  label: string;
  /** The request/record member holding the name (`venue` / `organizer`). */
  nameField: string;
  /**
   * Plain string fields of the create/update body, stored in typed columns of
   * the same name (interface.md §2.3 / §2.4), in the order they are declared.
   */
  stringFields: readonly string[];
  /** Venue only: `show_map`, `show_map_link` (typed strings, default true). */
  flagFields: readonly string[];
  /** Venue only: coordinates (a calpress extension, both or neither). */
  geo: boolean;
  /** Organizer only: `email`. */
  email: boolean;
  /**
   * How each text member is cleaned on save (lib/format/sanitize.ts): the
   * name and the plain fields are text for everyone, the website a URL for
   * everyone, the description HTML (kses unless `unfiltered_html`).
   */
  sanitizers: Readonly<Record<string, TextKind>>;
}

const TEXT = "text" as const;

export const LINKED_KINDS: Readonly<Record<LinkedPostKind, LinkedKindConfig>> = {
  venue: {
    kind: "venue",
    postType: VENUE,
    plural: "venues",
    label: "Venue",
    nameField: "venue",
    stringFields: ["address", "city", "country", "province", "state", "zip", "phone", "stateprovince", "website"],
    flagFields: ["show_map", "show_map_link"],
    geo: true,
    email: false,
    sanitizers: {
      venue: TEXT,
      description: "html",
      address: TEXT,
      city: TEXT,
      country: TEXT,
      province: TEXT,
      state: TEXT,
      zip: TEXT,
      phone: TEXT,
      stateprovince: TEXT,
      website: "url",
    },
  },
  organizer: {
    kind: "organizer",
    postType: ORGANIZER,
    plural: "organizers",
    label: "Organizer",
    nameField: "organizer",
    stringFields: ["phone", "website", "email"],
    flagFields: [],
    geo: false,
    email: true,
    sanitizers: { organizer: TEXT, description: "html", phone: TEXT, website: "url", email: TEXT },
  },
};

export function linkedKind(kind: LinkedPostKind): LinkedKindConfig {
  return LINKED_KINDS[kind];
}

/** The column length of a typed string field, so over-long values are a 400 and never a storage error. */
export function fieldMaxLength(kind: LinkedPostKind, field: string): number {
  const def = postTypes[LINKED_KINDS[kind].postType]?.fields?.[field];
  return def?.type === "string" ? (def.length ?? 255) : Number.POSITIVE_INFINITY;
}

/** A member's value as stored: cleaned by the kind's sanitiser for it (members without one are not text). */
export function cleanLinkedField(kind: LinkedPostKind, field: string, value: string, unfilteredHtml: boolean): string {
  const sanitizer = LINKED_KINDS[kind].sanitizers[field];
  return sanitizer === undefined ? value : sanitizeField(sanitizer, value, unfilteredHtml);
}

/** Error codes of §9, per kind: `venue-not-accessible`, `could-not-create-organizer`, … */
export function errorCode(kind: LinkedPostKind, what: "not-accessible" | "is-in-trash" | "archive-page-not-found"): string {
  return `${kind}-${what}`;
}

export function failureCode(kind: LinkedPostKind, action: "create" | "update" | "delete"): string {
  return `could-not-${action}-${kind}`;
}
