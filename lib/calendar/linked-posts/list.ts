import { DateTime } from "luxon";
import type { EngineApi } from "../../engine-api";
import type { FieldCondition, LinkCondition, PostPage, PostQuery, PostStatus } from "../../posts/types";
import type { CurrentUser } from "../../users/types";
import { EVENT } from "../post-types";
import { linkedKind, type LinkedPostKind } from "./kinds";
import { linkRelation } from "./operations";

/**
 * The venue/organizer archive query (calendar-api.md §5.1) as engine
 * conditions: visibility and every filter are parts of one query, so the
 * page, the total and the filters can never disagree.
 */
export interface LinkedListOptions {
  user: CurrentUser | null;
  language: string;
  page: number;
  perPage: number;
  search?: string;
  event?: number;
  /** Absent: no filter; true: with events; false: without. */
  hasEvents?: boolean;
  onlyWithUpcoming?: boolean;
  /** Explicit statuses (already checked against the user's rights). */
  status?: PostStatus[];
  /** `modified_after` / `modified_before` as conditions (common/args.ts modifiedCondition). */
  modified?: FieldCondition[];
}

/** Events that make a venue "have events": any status but draft and pending; trashed events count (§5.1). */
const EVENT_STATUSES_FOR_HAS_EVENTS: PostStatus[] = ["publish", "future", "private", "trash"];

/**
 * The venue rule of `search`: words are separated by anything but letters,
 * digits and `-`, and one field must contain them all. A leading `-` is
 * dropped from a word, since the engine reads it as "exclude".
 */
export function searchWords(search: string): string[] {
  return search
    .split(/[^\p{L}\p{N}-]+/u)
    .map((w) => w.replace(/^-+/, ""))
    .filter((w) => w !== "");
}

/** "Now" from the engine's clock when it has one (tests pin it), else the real time. */
function nowUtc(engine: EngineApi): string {
  const clock = (engine as EngineApi & { now?: () => Date }).now;
  const now = typeof clock === "function" ? clock.call(engine) : new Date();
  return DateTime.fromJSDate(now, { zone: "UTC" }).toFormat("yyyy-MM-dd HH:mm:ss");
}

export function linkedListQuery(engine: EngineApi, kind: LinkedPostKind, o: LinkedListOptions): PostQuery {
  const k = linkedKind(kind);
  const relation = linkRelation(kind);
  const links: LinkCondition[] = [];
  const query: PostQuery = {
    type: k.postType,
    language: o.language,
    page: o.page,
    perPage: o.perPage,
    // Unclear in the original (WordPress's default: newest first); calpress: newest first, then ID.
    orderBy: [
      { field: "date_local", dir: "desc" },
      { field: "id", dir: "desc" },
    ],
    with: { meta: true, terms: true, links: true },
    links,
  };
  if (o.status) {
    // Explicit statuses: the argument check already limited non-editors to `publish`.
    query.status = o.status;
  } else {
    // WordPress REST list quirk: whoever may edit the type lists every status but trash.
    query.visibility = { user: o.user, mode: "list-edit" };
  }
  if (o.search !== undefined) {
    const words = searchWords(o.search);
    query.search = words.length > 0 ? words.join(" ") : o.search;
    query.searchMode = "all-words-one-field";
    // Anonymous searchers reach protected records by name only; said explicitly, since `status` drops the visibility rule.
    query.searchAs = o.user;
  }
  if (o.modified !== undefined && o.modified.length > 0) query.where = [...(query.where ?? []), ...o.modified];
  if (o.event !== undefined) links.push({ relation, from: [o.event] });
  if (o.hasEvents !== undefined) {
    links.push({ relation, linkedBy: { exists: o.hasEvents, type: EVENT, status: EVENT_STATUSES_FOR_HAS_EVENTS } });
  }
  if (o.onlyWithUpcoming) {
    links.push({
      relation,
      linkedBy: {
        exists: true,
        type: EVENT,
        // The events this user may list: anonymous readers published ones,
        // users who can edit events every status but trash; events hidden
        // from listings are never listed. The original looks at the first
        // page of upcoming events only (quirk); calpress considers all.
        visibility: { user: o.user, mode: "list-edit" },
        // A series counts by each occurrence (issue 22): one that started last year may have one to come.
        occurrences: true,
        where: [
          { field: "start_utc", op: ">=", value: nowUtc(engine) },
          { field: "hide_from_listings", op: "!=", value: true },
        ],
      },
    });
  }
  return query;
}

export function findLinkedPosts(engine: EngineApi, kind: LinkedPostKind, o: LinkedListOptions): Promise<PostPage> {
  return engine.posts.find(linkedListQuery(engine, kind, o));
}
