import type { CurrentUser } from "../../users/types";
import type { LoadedPost } from "../../posts/types";
import type { Term } from "../../taxonomy/types";
import type { UserRecord } from "../../engine-api";

/** Everything a record needs besides the post itself, loaded once per response. */
export interface RecordContext {
  /** Site home URL `H`, no trailing slash (calendar-api.md §1). */
  home: string;
  /** `<root>calendar/events/v1`, no trailing slash. */
  ns: string;
  siteTimezone: string;
  user: CurrentUser | null;
  /** `context=edit` was asked for (unmasks protected posts the user may edit). */
  editContext: boolean;
  /** The request's `password` parameter, if any. */
  password: string | undefined;
  /** Single reads add `json_ld`; lists, creates, updates and deletes do not. */
  single: boolean;
  /** Events: add `json_ld` although this is a list (the list's `json_ld=1`). */
  jsonLd?: boolean;
  /**
   * Whether the answer's `_fields` keeps this member of the record (see
   * `RestRequest.wantsField`); absent: every member. Members it drops need
   * not be built (any value would do, the filter removes it).
   */
  wants?: (member: string) => boolean;
  related: Related;
}

/** `ctx.wants`, every member when the context has no selection. */
export function wanted(ctx: Pick<RecordContext, "wants">, member: string): boolean {
  return ctx.wants === undefined || ctx.wants(member);
}

/** Batch-loaded neighbours of a page of records: no query per record. */
export interface Related {
  terms: Map<number, Term>;
  /** Venue and organizer posts linked from the events, already filtered to what the user may see. */
  posts: Map<number, LoadedPost>;
  attachments: Map<number, LoadedPost>;
  users: Map<number, UserRecord>;
}

export function emptyRelated(): Related {
  return { terms: new Map(), posts: new Map(), attachments: new Map(), users: new Map() };
}

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };
