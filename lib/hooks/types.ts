import type { LoadedPost, PostStatus } from "../posts/types";
import type { Term } from "../taxonomy/types";

/** What happened to a post (an event, a venue, an organizer, or a host's own type). */
export type PostAction = "created" | "updated" | "trashed" | "deleted";
/** What happened to a term (terms are deleted, never trashed). */
export type TermAction = "created" | "updated" | "deleted";

/**
 * A committed change to a post. `post` is the post as the transaction left
 * it (null after a delete); the other members are the small part a listener
 * needs to decide whether it cares, and what a webhook sends.
 */
export interface PostChange {
  kind: "post";
  /** `<type>.<action>`, e.g. `event.created`: the hook it is emitted under. */
  name: string;
  action: PostAction;
  id: number;
  /** The post type: `event`, `venue`, `organizer`, `attachment`, or a host's own. */
  type: string;
  slug: string;
  title: string;
  status: PostStatus;
  /** The status before the change (null on create). */
  previousStatus: PostStatus | null;
  language: string;
  /** The post's author (0 for none). */
  author: number;
  /** The user who made the change, when it was made by one (null: a system write, e.g. scheduled publishing). */
  userId: number | null;
  /** ISO 8601, when the change was recorded (inside its transaction). */
  occurredAt: string;
  post: LoadedPost | null;
}

/** A committed change to a term (a category, a tag, or a host taxonomy's term). */
export interface TermChange {
  kind: "term";
  /** `term.<action>`. */
  name: string;
  action: TermAction;
  id: number;
  taxonomy: string;
  slug: string;
  /** The term's name (`title` for symmetry with posts). */
  title: string;
  parent: number;
  language: string;
  userId: number | null;
  occurredAt: string;
  /** The term after the change (before it, for a delete). */
  term: Term;
}

export type Change = PostChange | TermChange;

/** The hooks the calendar emits, with their payloads; a host's own post types emit `<type>.<action>` too. */
export interface HookMap {
  "event.created": PostChange;
  "event.updated": PostChange;
  "event.trashed": PostChange;
  "event.deleted": PostChange;
  "venue.created": PostChange;
  "venue.updated": PostChange;
  "venue.trashed": PostChange;
  "venue.deleted": PostChange;
  "organizer.created": PostChange;
  "organizer.updated": PostChange;
  "organizer.trashed": PostChange;
  "organizer.deleted": PostChange;
  "term.created": TermChange;
  "term.updated": TermChange;
  "term.deleted": TermChange;
  /** Every change. */
  "*": Change;
}

export type HookListener<P> = (payload: P) => void | Promise<void>;
export type Unsubscribe = () => void;

/** The JSON a webhook sends as `data` for a change (the loaded post or term is left out). */
export function changeData(change: Change): Record<string, unknown> {
  if (change.kind === "post") {
    return {
      kind: "post",
      action: change.action,
      id: change.id,
      type: change.type,
      slug: change.slug,
      title: change.title,
      status: change.status,
      previous_status: change.previousStatus,
      language: change.language,
      user_id: change.userId,
      fields: change.post?.fields ?? null,
    };
  }
  return {
    kind: "term",
    action: change.action,
    id: change.id,
    taxonomy: change.taxonomy,
    slug: change.slug,
    name: change.title,
    parent: change.parent,
    language: change.language,
    user_id: change.userId,
  };
}
