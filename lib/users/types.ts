/**
 * The authenticated user as every permission check and handler sees it.
 * Capability checks are synchronous: callers load the object a meta
 * capability is about (a post, a term) before asking, so `can` never hits
 * the database and can run many times per request.
 */
export interface CurrentUser {
  readonly id: number;
  readonly login: string;
  readonly email: string;
  readonly displayName: string;
  readonly role: RoleName;
  /** Primitive capability (`edit_events`) or meta capability (`edit_post`) with its object. */
  can(capability: string, object?: CapabilityObject): boolean;
}

/** What a meta capability needs to know about the object it is checked against. */
export interface CapabilityObject {
  readonly type: string;
  readonly status: string;
  readonly author: number;
  /**
   * For a trashed post, the status it had before (WordPress's
   * `_wp_trash_meta_status`): edit/delete of a trashed post is checked as that
   * status. A `Post` carries it, so a post can be passed as is.
   */
  readonly previousStatus?: string | null;
}

export type RoleName = "administrator" | "editor" | "author" | "contributor" | "subscriber";
export const ROLE_NAMES: readonly RoleName[] = ["administrator", "editor", "author", "contributor", "subscriber"];
