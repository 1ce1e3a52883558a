import type { Post } from "../../posts/types";
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
