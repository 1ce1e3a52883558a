import type { PostTypeCaps } from "../../posts/registry";
import { RestError } from "../../routes/errors";
import type { CurrentUser } from "../../users/types";

/**
 * Who may write a record in another user's name. The reference only says
 * `author` must be an existing user (calendar-api.md §4.3, §5.3); the
 * original's routes sit on WordPress, whose posts controller refuses an
 * `author` other than the requesting user without `edit_others_<type>`
 * (create and update permission checks): 403 `rest_cannot_edit_others`.
 * calpress: match, for events, venues and organizers alike.
 *
 * `author` is the value as sent; WordPress skips the check for an empty one
 * (`0`, `""`). Anonymous requests never get this far (the writes need a
 * user); an in-process write without a user is a system write with no one
 * to impersonate, so nothing is checked.
 */
export function checkAuthorAssignment(author: unknown, user: CurrentUser | null, caps: PostTypeCaps, action: "create" | "update"): void {
  if (author === undefined || author === null || author === "" || author === 0 || author === "0" || author === false) return;
  if (!user) return;
  if (Number(author) === user.id || user.can(caps.edit_others_posts)) return;
  throw new RestError("rest_cannot_edit_others", `Sorry, you are not allowed to ${action} posts as this user.`, 403);
}
