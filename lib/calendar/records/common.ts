import type { LoadedPost } from "../../posts/types";
import { listedId } from "../../posts/occurrence-ids";
import { BoundedMemo } from "../../format/memo";
import { renderContent, renderExcerpt, renderTitle } from "../../format/text";
import type { Json, JsonObject, RecordContext } from "./context";
import { globalId, postUrl } from "./urls";

/** The members events, venues and organizers share, in the original's order; `url` where the caller made it already (an event's, `atInstance`). */
export function postHeader(post: LoadedPost, ctx: RecordContext, url = postUrl(ctx.home, post)): JsonObject {
  return {
    id: listedId(post),
    author: String(post.author),
    status: post.status,
    date: post.dateLocal,
    date_utc: post.dateUtc,
    modified: post.modifiedLocal,
    modified_utc: post.modifiedUtc,
    url,
  };
}

export function globalIds(post: Pick<LoadedPost, "id" | "occurrence">, ctx: Pick<RecordContext, "home">): { global_id: string; global_id_lineage: string[] } {
  const id = globalId(ctx.home, listedId(post));
  return { global_id: id, global_id_lineage: [id] };
}

/**
 * WordPress's text filters are pure but not cheap (a description takes
 * around a hundred microseconds); the records of a list, and the venues and
 * organizers embedded in many events, render the same texts on every
 * request. Long texts are rendered each time rather than kept.
 */
const MEMO_MAX_LENGTH = 2000;
const titles = new BoundedMemo<string>(2000);
const contents = new BoundedMemo<string>(1000);
const excerpts = new BoundedMemo<string>(1000);

function memoised(memo: BoundedMemo<string>, raw: string, render: (raw: string) => string): string {
  return raw.length > MEMO_MAX_LENGTH ? render(raw) : memo.get(raw, () => render(raw));
}

export function renderedTexts(post: LoadedPost): { title: string; description: string; excerpt: string } {
  return {
    title: memoised(titles, post.title, renderTitle),
    description: memoised(contents, post.content, renderContent),
    excerpt: memoised(excerpts, post.excerpt, renderExcerpt),
  };
}

export function str(value: unknown): string {
  return value === null || value === undefined ? "" : String(value);
}

/** Venue/organizer rule: empty members are left out (calendar-api.md §2.2). */
export function omitEmpty(record: JsonObject, keep: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(record)) {
    if (keep.includes(key) || !isEmpty(value)) out[key] = value;
  }
  return out;
}

function isEmpty(value: Json): boolean {
  return value === "" || value === "0" || value === false || value === null || (Array.isArray(value) && value.length === 0);
}
