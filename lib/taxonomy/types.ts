import type { TextKind } from "../format/sanitize";
import type { RestLocation } from "../posts/types";

export interface TaxonomyConfig {
  objectTypes: string[];
  hierarchical?: boolean;
  labels?: { singular?: string; plural?: string };
  /** Shown in the REST API at this collection (`PostTypeConfig.rest`; absent: not shown by the discovery routes). */
  rest?: RestLocation;
  /** Path of pretty term URLs: `<home>/<rewriteSlug>/<parents…>/<slug>/`. */
  rewriteSlug?: string;
  /** Capabilities for manage/edit/delete/assign terms (WordPress defaults: manage_categories / edit_posts). */
  capabilities?: { manage?: string; edit?: string; delete?: string; assign?: string };
  /**
   * How a term's name and description are cleaned on write (lib/posts/clean.ts).
   * Defaults: name `text` (WordPress's `pre_term_name`: sanitize_text_field),
   * description `basic-html` (`pre_term_description`: wp_filter_kses).
   */
  textKinds?: Partial<Record<"name" | "description", TextKind>>;
}

export interface Term {
  id: number;
  taxonomy: string;
  name: string;
  slug: string;
  description: string;
  parent: number;
  /** Published posts carrying the term, kept exact on every change. */
  count: number;
  termGroup: number;
  language: string;
  translationGroup: number | null;
}

export interface TermInput {
  taxonomy: string;
  name: string;
  slug?: string;
  description?: string;
  parent?: number;
  language?: string;
  translationGroup?: number | null;
}

export type TermPatch = Partial<Omit<TermInput, "taxonomy">>;

export interface TermQuery {
  taxonomy: string;
  include?: number[];
  exclude?: number[];
  /** Name or slug contains the string, case-insensitive. */
  search?: string;
  slug?: string[];
  name?: string[];
  parent?: number;
  /** Terms of this post. */
  post?: number;
  hideEmpty?: boolean;
  language?: string;
  orderBy?: "id" | "name" | "slug" | "count" | "description" | "parent" | "term_group" | "include" | "slug__in" | "none" | "term_order";
  order?: "asc" | "desc";
  page?: number;
  perPage?: number;
  /** Rows skipped before the page (WordPress's `offset`); replaces `(page - 1) × perPage`. */
  offset?: number;
  noTotal?: boolean;
}

export interface TermPage {
  terms: Term[];
  total: number;
}
