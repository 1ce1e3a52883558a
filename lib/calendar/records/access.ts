import type { Post } from "../../posts/types";
import type { CurrentUser } from "../../users/types";
import type { RecordContext } from "./context";

/** calendar-api.md §1.3: who sees a password-protected record's content. */
export function hasContentAccess(post: Post, ctx: Pick<RecordContext, "user" | "editContext" | "password">): boolean {
  if (post.password === "") return true;
  if (ctx.editContext && ctx.user?.can("edit_post", post)) return true;
  return ctx.password !== undefined && ctx.password === post.password;
}

/** Whether anonymous visitors could open the record's public page (gates JSON-LD). */
export function isPublicPage(post: Post): boolean {
  return post.status === "publish" && post.password === "";
}

/**
 * Whether a filter that names this post by ID (`venues?event=`,
 * `categories?event=`, `events?venue=`, `events?post_parent=`…) may use it
 * for this user: published, or readable by them (`read_post`: their own,
 * or others' for those who may read private or edit others' posts); for an
 * event also its content, which a password protects from those who may not
 * edit it (its venue, organizers and terms are masked in its record).
 * Anything else answers exactly like an ID that names no post, so hidden
 * IDs cannot be told from missing ones.
 */
export function isFilterableBy(post: Post, user: CurrentUser | null, contentMatters: boolean): boolean {
  if (post.status !== "publish" && user?.can("read_post", post) !== true) return false;
  return !contentMatters || post.password === "" || user?.can("edit_post", post) === true;
}
