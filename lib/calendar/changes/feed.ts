/**
 * The changes feed (`GET /changes`): what changed in the calendar since a
 * token, for clients that keep a copy. Read from the engine's change log
 * (lib/hooks/change-log.ts), whose numbers follow the commit order, so a
 * token never skips a change that committed later.
 *
 * Each record named in a page appears once, at its last change in the
 * page, as it is now: its record as the single read or list would show it
 * to this user, or a tombstone `{ id, type, deleted: true }` when it is
 * gone, trashed or no longer readable by this user. Visibility: a record
 * the user cannot read now is reported only when they could have known it
 * — it was readable by everyone before one of the page's changes to it, or
 * the user may read it in any status (they edit others' posts of its type,
 * or wrote it). Terms are public: their deletions are always reported.
 *
 * Records embed related records as they are now; a change to a venue is
 * reported as the venue's change, not as a change of every event showing
 * it. A term's record shows its count, so a recount reports the term.
 */
import type { EngineApi } from "../../engine-api";
import type { ChangeRow } from "../../hooks/change-log";
import type { LoadedPost } from "../../posts/types";
import { postTypeCaps } from "../../posts/registry";
import { RestError } from "../../routes/errors";
import type { RestRequest } from "../../routes/types";
import type { CurrentUser } from "../../users/types";
import type { Term } from "../../taxonomy/types";
import type { JsonObject } from "../records/context";
import { eventRecord } from "../records/event";
import { organizerRecord } from "../records/organizer";
import { venueRecord } from "../records/venue";
import { recordContext } from "../common/context";
import { EVENT_RELATIONS } from "../events/operations";
import { CATEGORY, EVENT, ORGANIZER, TAG, VENUE } from "../post-types";
import { NAMESPACE } from "../common/args";
import { termRecords } from "../terms/operations";

/** The record types the feed reports, by the post type or taxonomy they are stored as. */
const FEED_TYPES: Readonly<Record<string, FeedType>> = { [EVENT]: "event", [VENUE]: "venue", [ORGANIZER]: "organizer", [CATEGORY]: "category", [TAG]: "tag" };
export type FeedType = "event" | "venue" | "organizer" | "category" | "tag";

export type FeedEntry = { id: number; type: FeedType; deleted: false; record: JsonObject } | { id: number; type: FeedType; deleted: true };

export interface FeedPage {
  changes: FeedEntry[];
  /** The token to ask with next. */
  next: string;
  /** Whether more changes follow `next` already. */
  more: boolean;
}

/** A token is the number of the last change a client has seen, in decimal. */
export const TOKEN_PATTERN = /^\d{1,15}$/;

export function tokenExpired(): RestError {
  return new RestError("changes-token-expired", "The token is too old: the changes since it are no longer kept. Read the lists again and start over from a new token (GET /changes without since).", 410);
}

function tokenUnknown(): RestError {
  return new RestError("rest_invalid_param", "Invalid parameter(s): since", 400, { params: { since: "This token was not given by this site." }, details: [] });
}

/** What one record's changes in a page add up to. */
interface Named {
  kind: "post" | "term";
  id: number;
  /** Post type or taxonomy; null until found for a recounted term. */
  type: string | null;
  publicBefore: boolean;
  authors: Set<number>;
}

/** The page of changes after `since` (null: none asked, answer the current token). */
export async function changesPage(engine: EngineApi, req: RestRequest, since: number | null, perPage: number): Promise<FeedPage> {
  if (since === null) {
    const { head } = await engine.readChanges(0, 0);
    return { changes: [], next: String(head), more: false };
  }
  const log = await engine.readChanges(since, perPage + 1);
  if (since < log.prunedThrough) throw tokenExpired();
  if (since > log.head && log.rows.length === 0) throw tokenUnknown();
  const rows = log.rows.slice(0, perPage);
  const more = log.rows.length > perPage;
  const next = rows.length > 0 ? rows[rows.length - 1].seq : since;

  // Each record once, at its last change in the page (a Map keeps the first insertion's place: re-inserted).
  const named = new Map<string, Named>();
  for (const row of rows) named.set(keyOf(row), merged(named.get(keyOf(row)), row));
  const order = [...named.values()];
  const entries = await entriesOf(engine, req, order);
  return { changes: entries, next: String(next), more };
}

function keyOf(row: ChangeRow): string {
  return `${row.kind}:${row.objectId}`;
}

function merged(before: Named | undefined, row: ChangeRow): Named {
  const authors = before?.authors ?? new Set<number>();
  if (row.author > 0) authors.add(row.author);
  return { kind: row.kind, id: row.objectId, type: row.type ?? before?.type ?? null, publicBefore: (before?.publicBefore ?? false) || row.publicBefore, authors };
}

async function entriesOf(engine: EngineApi, req: RestRequest, order: Named[]): Promise<FeedEntry[]> {
  const postIds = order.filter((n) => n.kind === "post" && n.type !== null && n.type in FEED_TYPES).map((n) => n.id);
  const termIds = order.filter((n) => n.kind === "term").map((n) => n.id);
  const posts = postIds.length > 0 ? await engine.posts.getMany(postIds, EVENT_RELATIONS) : new Map<number, LoadedPost>();
  const terms = termIds.length > 0 ? await engine.terms.getMany(termIds) : new Map<number, Term>();

  const readable = (post: LoadedPost | undefined, type: string): post is LoadedPost =>
    post !== undefined && post.type === type && post.status !== "trash" && (post.status === "publish" || engine.posts.canRead(post, req.user));
  const records = new Map<string, JsonObject>();
  for (const [type, build] of [[EVENT, eventRecord], [VENUE, venueRecord], [ORGANIZER, organizerRecord]] as const) {
    const shown = order.filter((n) => n.kind === "post" && n.type === type).map((n) => posts.get(n.id)).filter((p) => readable(p, type));
    if (shown.length === 0) continue;
    const ctx = await recordContext(engine, req, shown, { single: false });
    for (const post of shown) records.set(`post:${post.id}`, build(post, ctx));
  }
  const shownTerms = [...terms.values()].filter((t) => t.taxonomy in FEED_TYPES);
  const termCtx = { ns: `${req.urls.root}${NAMESPACE}`, home: req.urls.home };
  const termRecordList = await termRecords(engine, shownTerms, termCtx);
  shownTerms.forEach((t, i) => records.set(`term:${t.id}`, termRecordList[i]));

  const out: FeedEntry[] = [];
  for (const n of order) {
    const type = n.kind === "term" ? (terms.get(n.id)?.taxonomy ?? n.type) : n.type;
    if (type === null || !(type in FEED_TYPES)) continue;
    const feedType = FEED_TYPES[type];
    const record = records.get(`${n.kind}:${n.id}`);
    if (record !== undefined) out.push({ id: n.id, type: feedType, deleted: false, record });
    else if (n.kind === "term" || mayHaveKnown(engine, req.user, type, n)) out.push({ id: n.id, type: feedType, deleted: true });
  }
  return out;
}

/** Whether the user could have read the record before it became unreadable to them (see the module comment). */
function mayHaveKnown(engine: EngineApi, user: CurrentUser | null, type: string, n: Named): boolean {
  if (n.publicBefore) return true;
  if (user === null) return false;
  const caps = postTypeCaps(engine.postType(type)?.capabilityType ?? ["post", "posts"]);
  return user.can(caps.edit_others_posts) || (user.can(caps.edit_posts) && n.authors.has(user.id));
}
