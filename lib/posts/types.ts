import type { TextKind } from "../format/sanitize";
import type { CurrentUser } from "../users/types";

/** WordPress's core post statuses that calpress knows. */
export type PostStatus = "publish" | "future" | "draft" | "pending" | "private" | "trash" | "auto-draft";
export const POST_STATUSES: readonly PostStatus[] = ["publish", "future", "draft", "pending", "private", "trash", "auto-draft"];

/** Statuses that may share a slug (WordPress leaves their post_name alone until publish). */
export const SLUG_FREE_STATUSES: readonly PostStatus[] = ["draft", "pending", "auto-draft"];

/**
 * A typed field stored as a real column of the post type's own table
 * (`<prefix>fields_<type>`), so that it can be indexed, filtered and sorted on
 * natively. Anything not declared here goes to post meta.
 */
export interface FieldDef {
  type: "string" | "text" | "integer" | "number" | "boolean" | "datetime";
  /** Maximum length for `string` (default 255). `datetime` is always `YYYY-MM-DD HH:MM:SS`. */
  length?: number;
  index?: boolean;
  /** Stored when a create does not give the field; `null` when omitted. */
  default?: FieldValue;
  /**
   * `string` and `text` fields only: how a written value is cleaned
   * (lib/format/sanitize.ts `TextKind`). Default: `text` for a string
   * (sanitize_text_field), `textarea` for a text (the same, keeping line
   * breaks). `raw` stores the value as given: the per-field opt-out.
   */
  kind?: TextKind;
}
export type FieldValue = string | number | boolean | null;

/**
 * Where a post type or taxonomy lives in the REST API (WordPress's
 * `show_in_rest` + `rest_namespace` + `rest_base`): its collection is
 * `/<namespace>/<base>`. The discovery routes (`/wp/v2/types`,
 * `/wp/v2/taxonomies`, lib/core-routes) show only what has one.
 */
export interface RestLocation {
  namespace: string;
  base: string;
  /**
   * `false`: the plugin writes this collection's routes itself (WordPress's
   * `rest_controller_class`); otherwise the site generates WordPress's
   * posts or terms controller routes for it (lib/controllers).
   */
  controller?: boolean;
}

export interface PostTypeConfig {
  labels?: { singular?: string; plural?: string };
  /** Shown in the REST API at this collection (absent: not shown by the discovery routes). */
  rest?: RestLocation;
  /** Name visible in plain permalinks (`?post_type=calendar_events`); defaults to the registry name. */
  publicName?: string;
  /** Path segment of pretty public URLs: `<home>/<rewriteSlug>/<slug>/`. */
  rewriteSlug?: string;
  supports?: Array<"title" | "editor" | "excerpt" | "author" | "thumbnail" | "custom-fields" | "page-attributes">;
  hierarchical?: boolean;
  /**
   * Base of the primitive capabilities, singular and plural: `["event", "events"]`
   * gives `edit_events`, `edit_others_events`, `publish_events`, … as WordPress's
   * `capability_type` + `map_meta_cap` do.
   */
  capabilityType?: [string, string];
  /** Statuses a post of this type may take (default: all of POST_STATUSES but auto-draft). */
  statuses?: PostStatus[];
  /** Keep an empty slug while draft/pending when none was asked for (WordPress does for posts). */
  emptySlugWhileDraft?: boolean;
  fields?: Record<string, FieldDef>;
  /**
   * How the core text columns are cleaned on write (lib/posts/clean.ts).
   * Defaults, as WordPress for a user without `unfiltered_html`: title
   * `basic-html` (wp_filter_kses), content and excerpt `html`
   * (wp_filter_post_kses).
   */
  textKinds?: Partial<Record<"title" | "content" | "excerpt", TextKind>>;
  /** How post meta values are cleaned on write, by key; a key not named here is `text`. */
  metaKinds?: Record<string, TextKind>;
  /** Fields searched (besides title, content, excerpt) by `search` in findPosts. */
  searchFields?: string[];
  /**
   * Keep the published posts in memory to answer anonymous lists without a
   * statement (lib/posts/published-index.ts): for a type with many posts and
   * lists read far more often than written. Costs a few hundred bytes per post.
   */
  publishedIndex?: boolean;
  /**
   * The typed fields an instance's times stand in for, when posts of this
   * type repeat (lib/posts/occurrences.ts): a query with `occurrences` and a
   * read by instance id see the post with these fields set to the instance's
   * times. Each names a `datetime` field.
   */
  occurrenceFields?: OccurrenceFields;
}

/** Which typed field holds each of an instance's times (`PostTypeConfig.occurrenceFields`). */
export type OccurrenceFields = Record<"start_local" | "end_local" | "start_utc" | "end_utc", string>;

export interface Post {
  id: number;
  type: string;
  status: PostStatus;
  slug: string;
  title: string;
  content: string;
  excerpt: string;
  author: number;
  parent: number;
  password: string;
  menuOrder: number;
  /** Publication date, site-time wall clock `YYYY-MM-DD HH:MM:SS`. */
  dateLocal: string;
  /** Publication date in UTC, or `0000-00-00 00:00:00` for a floating draft date. */
  dateUtc: string;
  modifiedLocal: string;
  modifiedUtc: string;
  language: string;
  translationGroup: number | null;
  previousStatus: PostStatus | null;
  /** The post type's typed fields (every declared field present). */
  fields: Record<string, FieldValue>;
}

/** A post with the relations a caller asked for, batch-loaded for a whole page. */
export interface LoadedPost extends Post {
  meta?: Record<string, string>;
  /** Term ids per taxonomy, in assignment order. */
  termIds?: Record<string, number[]>;
  /** Linked post ids per relation, in link order. */
  links?: Record<string, number[]>;
  /**
   * Set when the post was read as one of its instances (by instance id, or
   * from a query with `occurrences`): which one. Its `fields` then hold the
   * instance's times; `id` stays the post's.
   */
  occurrence?: Occurrence;
}

export interface PostInput {
  type: string;
  status?: PostStatus;
  slug?: string;
  title?: string;
  content?: string;
  excerpt?: string;
  author?: number;
  parent?: number;
  password?: string;
  menuOrder?: number;
  /** Site-time wall clock; derived from dateUtc (or now) when absent. */
  dateLocal?: string;
  /** UTC wall clock; derived from dateLocal when absent. */
  dateUtc?: string;
  language?: string;
  translationGroup?: number | null;
  fields?: Record<string, FieldValue>;
  meta?: Record<string, string | null>;
  /** Replace the term set of each named taxonomy (ids, in order). */
  terms?: Record<string, number[]>;
  /** Replace the linked posts of each named relation (ids, in order). */
  links?: Record<string, number[]>;
}

export type PostPatch = Partial<Omit<PostInput, "type">>;

export type Comparison = "=" | "!=" | "<" | "<=" | ">" | ">=" | "in" | "not in" | "is null" | "not null";

export interface FieldCondition {
  /** A typed field of the post type, or a core column: id, status, author, parent, date_local, date_utc, slug, title. */
  field: string;
  op: Comparison;
  value?: FieldValue | FieldValue[];
}

export interface TaxCondition {
  taxonomy: string;
  /** Term ids; an id matches its whole translation group when `translations` is set. */
  terms: number[];
  operator?: "IN" | "AND" | "NOT IN";
  includeChildren?: boolean;
  /** Each id also matches the other terms of its translation group (languages.md §2.4). */
  translations?: boolean;
}

export interface LinkCondition {
  relation: string;
  /** Posts linked to any of these ids (direction from → to). */
  to?: number[];
  /** Posts that some post links to, through this relation, from these ids (reverse). */
  from?: number[];
  /** `true`: has at least one link; `false`: has none. */
  exists?: boolean;
  /** Each id in `to`/`from` also stands for the posts of its translation group (languages.md §2.4). */
  translations?: boolean;
  /** Reverse existence with conditions on the linking posts (e.g. venues that published events link to). */
  linkedBy?: LinkedByCondition;
}

/**
 * Posts that at least one post of `type` matching the conditions links to
 * through the relation (`exists: false`: that none does).
 */
export interface LinkedByCondition {
  exists: boolean;
  type: string;
  status?: PostStatus[];
  visibility?: Visibility;
  /** Typed fields of `type` or core columns of the linking posts. */
  where?: FieldCondition[];
  /** The linking posts' instances count, each with its own times (PostQuery.occurrences). */
  occurrences?: boolean;
}

export interface Visibility {
  user: CurrentUser | null;
  /**
   * `read`: what the user may read as single records (publish, plus private/
   * drafts they may read). `list-edit`: WordPress REST list quirk — users who can
   * edit the type see every non-trash status. `edit`: what the user may edit
   * (`edit_post`), as WordPress's edit context lists it. `read-trash`: `read`
   * and the trashed posts the user may read (their own; others' with
   * edit_others), as WordPress's `read_post` allows them.
   */
  mode: "read" | "list-edit" | "edit" | "read-trash";
}

export interface PostQuery {
  type: string | string[];
  /** Explicit statuses (after the caller checked permission to ask for them). */
  status?: PostStatus[];
  /** Visibility as a query constraint, applied on top of `status`. */
  visibility?: Visibility;
  ids?: number[];
  excludeIds?: number[];
  author?: number[];
  parent?: number[];
  language?: string;
  /** WordPress search: every word (a quoted phrase is one word) in title, content, excerpt or a search field. */
  search?: string;
  /** `all-words-one-field`: venue/organizer rule — one field must contain all words. */
  searchMode?: "words-any-field" | "all-words-one-field";
  /**
   * Who searches. For an anonymous searcher (null) a password-protected post
   * matches on its title only: its other fields are hidden from them, and a
   * match would tell what they hold (WordPress leaves protected posts out of
   * logged-out searches, WP_Query::parse_search). Default: the visibility's
   * user when `visibility` is given, else nobody in particular (no limit).
   */
  searchAs?: CurrentUser | null;
  where?: FieldCondition[];
  tax?: TaxCondition[];
  /** How the `tax` conditions combine (WordPress's `tax_query` relation); default AND. */
  taxRelation?: "AND" | "OR";
  links?: LinkCondition[];
  hasPassword?: boolean;
  orderBy?: Array<{ field: string; dir: "asc" | "desc" }>;
  page?: number;
  perPage?: number;
  /** Rows skipped before the page (WordPress's `offset`); replaces `(page - 1) × perPage`. */
  offset?: number;
  /** Skip the count query when the caller does not need a total. */
  noTotal?: boolean;
  /**
   * One row per instance (lib/posts/occurrences.ts): a post that repeats is
   * listed, counted, filtered and ordered once for each of its instances,
   * with the instance's times in its type's `occurrenceFields`, under the
   * instance's id (`occurrenceId`); a post that does not repeat once, under
   * its own. For a type without `occurrenceFields` it changes nothing.
   */
  occurrences?: boolean;
  with?: { meta?: boolean; terms?: boolean | string[]; links?: boolean | string[] };
}

export interface PostPage {
  posts: LoadedPost[];
  total: number;
}

/** An instance of a repeating post to store (lib/posts/occurrences.ts). */
export interface OccurrenceInput {
  /** The instance's key: the start its rule made it at (`YYYY-MM-DD HH:MM:SS`). */
  key: string;
  start_local: string;
  end_local: string;
  start_utc: string;
  end_utc: string;
}

export interface Occurrence extends OccurrenceInput {
  /** The row's own id, stable while its key stays (an API shows `occurrenceId(id)`). */
  id: number;
  postId: number;
}
