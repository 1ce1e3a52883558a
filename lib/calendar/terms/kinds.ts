import { sanitizeField, type TextKind } from "../../format/sanitize";
import { postTypeCaps } from "../../posts/registry";
import type { CurrentUser } from "../../users/types";
import { CATEGORY, EVENT, postTypes, TAG, taxonomies } from "../post-types";

/** The two term collections of the namespace: event categories and tags (calendar-api.md §6). */
export type TermCollection = "categories" | "tags";

export interface TermKindConfig {
  collection: TermCollection;
  taxonomy: string;
  /** Singular label used in messages and the OpenAPI document. */
  label: string;
  hierarchical: boolean;
}

export const TERM_KINDS: Readonly<Record<TermCollection, TermKindConfig>> = {
  categories: { collection: "categories", taxonomy: CATEGORY, label: "category", hierarchical: true },
  tags: { collection: "tags", taxonomy: TAG, label: "tag", hierarchical: false },
};

export function termKind(collection: TermCollection): TermKindConfig {
  return TERM_KINDS[collection];
}

/**
 * How the text members of a term are cleaned on save, as WordPress's
 * `pre_term_name` and `pre_term_description` filters do: the name is text
 * for everyone, the description HTML (kses unless `unfiltered_html`). Slugs
 * are normalised by the engine.
 */
export const TERM_SANITIZERS: Readonly<Record<"name" | "description", TextKind>> = { name: "text", description: "html" };

export function cleanTermField(field: keyof typeof TERM_SANITIZERS, value: string, unfilteredHtml: boolean): string {
  return sanitizeField(TERM_SANITIZERS[field], value, unfilteredHtml);
}

/**
 * Who may create, update and delete terms (calendar-api.md §6.3, §8): users
 * who can edit events and manage the taxonomy's terms — for categories that
 * is `publish_events` (authors and up), for tags `manage_categories`
 * (editors and up), as the taxonomy registrations declare.
 */
export function canManageTerms(user: CurrentUser | null, collection: TermCollection): boolean {
  if (!user) return false;
  const editEvents = postTypeCaps(postTypes[EVENT]?.capabilityType ?? ["event", "events"]).edit_posts;
  const manage = taxonomies[termKind(collection).taxonomy]?.capabilities?.manage ?? "manage_categories";
  return user.can(editEvents) && user.can(manage);
}
