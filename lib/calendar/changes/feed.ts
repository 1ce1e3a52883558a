/**
 * The changes feed (`GET /changes`): what changed in the calendar since a
 * token, for clients that keep a copy of the lists. Read from the engine's
 * change log (lib/hooks/change-log.ts), whose numbers follow the commit
 * order, so a token never skips a change that committed later.
 *
 * Promise: replaying the feed into a copy of the lists as README's
 * "Keeping a copy in sync" says gives the lists this reader reads. So each
 * record whose form as the reader sees it changed is named: by a change of
 * its own, or by the log's rows for records whose visible form changed
 * with another's (a term's count, a series' occurrences, a term's
 * descendants' permalinks, the posts linking to a post whose readers
 * changed). What the copy derives itself: embedded venues, organizers and
 * terms from their own entries, and their removal from their tombstones.
 *
 * Each record named in a page appears once, at its last change in the
 * page, as it is now: its record as the list of its own language shows it
 * to this user (`language` says which), or a tombstone `{ id, type,
 * deleted: true }` when it is gone, trashed or no longer readable by this
 * user. A series also carries its `occurrences`, the records its list
 * shows in its place. Visibility: a record the user cannot read now is
 * reported only when they could have known it — it was readable by
 * everyone before one of the page's changes to it, or the user may read it
 * in any status (they edit others' posts of its type, or wrote it). Terms
 * are public: their deletions are always reported. An anonymous reader is
 * not told of a record whose only changes in the page concern signed-in
 * readers (a linked draft trashed).
 */
import type { EngineApi } from "../../engine-api";
import type { ChangeRow } from "../../hooks/change-log";
import type { LoadedPost, Occurrence } from "../../posts/types";
import { atOccurrence } from "../../posts/occurrence-ids";
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
import { storedRecurrence } from "../recurrence/series";

/** The record types the feed reports, by the post type or taxonomy they are stored as. */
const FEED_TYPES: Readonly<Record<string, FeedType>> = { [EVENT]: "event", [VENUE]: "venue", [ORGANIZER]: "organizer", [CATEGORY]: "category", [TAG]: "tag" };
export type FeedType = "event" | "venue" | "organizer" | "category" | "tag";

export type FeedEntry =
  | { id: number; type: FeedType; deleted: false; language: string; record: JsonObject; occurrences?: JsonObject[] }
  | { id: number; type: FeedType; deleted: true };

export interface FeedPage {
  changes: FeedEntry[];
  /** The token to ask with next. */
  next: string;
  /** Whether more changes follow `next` already. */
  more: boolean;
}

/**
 * calpress decision: a page ends early, after the change that passes this
 * many occurrence records (a series of daily occurrences for two years has
 * 731); it always holds at least one change, whatever its series' size.
 */
export const MAX_OCCURRENCES_PER_PAGE = 2000;

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
  /** Post type or taxonomy; null until found for a noted term. */
  type: string | null;
  publicBefore: boolean;
  authors: Set<number>;
  /** Some change may show to anonymous readers (not only a LINK_SIGNED_IN row). */
  everyone: boolean;
}

/** What a page's records are built from. */
interface Loaded {
  posts: Map<number, LoadedPost>;
  terms: Map<number, Term>;
  /** The stored instances of the page's series, by series id (only series have an entry). */
  instances: Map<number, Occurrence[]>;
}

/**
 * The page of changes after `since` (null: none asked, answer the current
 * token), for `language` (null: every language; else records of the other
 * languages are left out, tombstones never, as a deleted record's language
 * is not kept).
 */
export async function changesPage(engine: EngineApi, req: RestRequest, since: number | null, perPage: number, language: string | null = null): Promise<FeedPage> {
  if (since === null) {
    const { head } = await engine.readChanges(0, 0);
    return { changes: [], next: String(head), more: false };
  }
  const log = await engine.readChanges(since, perPage + 1);
  if (since < log.prunedThrough) throw tokenExpired();
  if (since > log.head && log.rows.length === 0) throw tokenUnknown();
  let rows = log.rows.slice(0, perPage);
  let more = log.rows.length > perPage;

  const loaded = await load(engine, namedOf(rows));
  const within = withinOccurrenceBudget(rows, loaded);
  if (within < rows.length) {
    rows = rows.slice(0, within);
    more = true;
  }
  const next = rows.length > 0 ? rows[rows.length - 1].seq : since;
  const entries = await entriesOf(engine, req, namedOf(rows), loaded, language);
  return { changes: entries, next: String(next), more };
}

/** Each record once, at its last change in the rows (a Map keeps the first insertion's place: re-inserted). */
function namedOf(rows: readonly ChangeRow[]): Named[] {
  const named = new Map<string, Named>();
  for (const row of rows) {
    const key = `${row.kind}:${row.objectId}`;
    const before = named.get(key);
    named.delete(key);
    named.set(key, merged(before, row));
  }
  return [...named.values()];
}

function merged(before: Named | undefined, row: ChangeRow): Named {
  const authors = before?.authors ?? new Set<number>();
  if (row.author > 0) authors.add(row.author);
  return {
    kind: row.kind,
    id: row.objectId,
    type: row.type ?? before?.type ?? null,
    publicBefore: (before?.publicBefore ?? false) || row.publicBefore,
    authors,
    everyone: (before?.everyone ?? false) || !row.signedInOnly,
  };
}

async function load(engine: EngineApi, order: Named[]): Promise<Loaded> {
  const postIds = order.filter((n) => n.kind === "post" && n.type !== null && n.type in FEED_TYPES).map((n) => n.id);
  const termIds = order.filter((n) => n.kind === "term").map((n) => n.id);
  const posts = postIds.length > 0 ? await engine.posts.getMany(postIds, EVENT_RELATIONS) : new Map<number, LoadedPost>();
  const terms = termIds.length > 0 ? await engine.terms.getMany(termIds) : new Map<number, Term>();
  const instances = new Map<number, Occurrence[]>();
  // Bounded by the page: at most one read per series named in it.
  for (const post of posts.values()) {
    if (post.type !== EVENT || storedRecurrence(post).length === 0) continue;
    // Also none: a series whose every occurrence is cancelled or detached is listed as nothing in its place.
    instances.set(post.id, await engine.occurrences.list(post.id));
  }
  return { posts, terms, instances };
}

/** How many of `rows` fit in a page by MAX_OCCURRENCES_PER_PAGE (at least one). */
function withinOccurrenceBudget(rows: readonly ChangeRow[], loaded: Loaded): number {
  let total = 0;
  const counted = new Set<number>();
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    if (row.kind !== "post" || counted.has(row.objectId)) continue;
    counted.add(row.objectId);
    total += loaded.instances.get(row.objectId)?.length ?? 0;
    if (total > MAX_OCCURRENCES_PER_PAGE && i > 0) return i;
  }
  return rows.length;
}

async function entriesOf(engine: EngineApi, req: RestRequest, named: Named[], loaded: Loaded, language: string | null): Promise<FeedEntry[]> {
  const order = req.user === null ? named.filter((n) => n.everyone) : named;
  const { posts, terms } = loaded;
  const readable = (post: LoadedPost | undefined, type: string): post is LoadedPost =>
    post !== undefined && post.type === type && post.status !== "trash" && (post.status === "publish" || engine.posts.canRead(post, req.user));

  const shown = new Map<string, { language: string; record: JsonObject; occurrences?: JsonObject[] }>();
  const occurrenceFields = engine.postType(EVENT)?.occurrenceFields;
  for (const [type, build] of [[EVENT, eventRecord], [VENUE, venueRecord], [ORGANIZER, organizerRecord]] as const) {
    const ofType = order.filter((n) => n.kind === "post" && n.type === type).map((n) => posts.get(n.id)).filter((p) => readable(p, type));
    // Each as the list of its own language shows it (linked posts in their translation to that language).
    for (const [lang, group] of byLanguage(ofType.filter((p) => language === null || p.language === language))) {
      const ctx = await recordContext(engine, req, group, { single: false, language: lang });
      for (const post of group) {
        const instances = loaded.instances.get(post.id);
        const occurrences = instances === undefined || occurrenceFields === undefined ? undefined : instances.map((o) => build(atOccurrence(post, o, occurrenceFields), ctx));
        shown.set(`post:${post.id}`, { language: lang, record: build(post, ctx), ...(occurrences === undefined ? {} : { occurrences }) });
      }
    }
  }
  const shownTerms = [...terms.values()].filter((t) => t.taxonomy in FEED_TYPES && (language === null || t.language === language));
  const termCtx = { ns: `${req.urls.root}${NAMESPACE}`, home: req.urls.home };
  const termRecordList = await termRecords(engine, shownTerms, termCtx);
  shownTerms.forEach((t, i) => shown.set(`term:${t.id}`, { language: t.language, record: termRecordList[i] }));

  const out: FeedEntry[] = [];
  for (const n of order) {
    const term = n.kind === "term" ? terms.get(n.id) : undefined;
    const type = n.kind === "term" ? (term?.taxonomy ?? n.type) : n.type;
    if (type === null || !(type in FEED_TYPES)) continue;
    const feedType = FEED_TYPES[type];
    const found = shown.get(`${n.kind}:${n.id}`);
    if (found !== undefined) out.push({ id: n.id, type: feedType, deleted: false, ...found });
    else if (n.kind === "term" ? term === undefined : !readable(posts.get(n.id), type) && mayHaveKnown(engine, req.user, type, n)) out.push({ id: n.id, type: feedType, deleted: true });
  }
  return out;
}

function byLanguage(posts: LoadedPost[]): Map<string, LoadedPost[]> {
  const out = new Map<string, LoadedPost[]>();
  for (const p of posts) out.set(p.language, [...(out.get(p.language) ?? []), p]);
  return out;
}

/** Whether the user could have read the record before it became unreadable to them (see the module comment). */
function mayHaveKnown(engine: EngineApi, user: CurrentUser | null, type: string, n: Named): boolean {
  if (n.publicBefore) return true;
  if (user === null) return false;
  const caps = postTypeCaps(engine.postType(type)?.capabilityType ?? ["post", "posts"]);
  return user.can(caps.edit_others_posts) || (user.can(caps.edit_posts) && n.authors.has(user.id));
}
