import type { LoadedPost } from "../../posts/types";
import { renderContent, renderExcerpt, renderTitle } from "../../format/text";
import type { Json, JsonObject, RecordContext } from "./context";
import { globalId, postUrl } from "./urls";

/** The members events, venues and organizers share, in the original's order. */
export function postHeader(post: LoadedPost, ctx: RecordContext): JsonObject {
  return {
    id: post.id,
    author: String(post.author),
    status: post.status,
    date: post.dateLocal,
    date_utc: post.dateUtc,
    modified: post.modifiedLocal,
    modified_utc: post.modifiedUtc,
    url: postUrl(ctx.home, post),
  };
}

export function globalIds(post: LoadedPost, ctx: RecordContext): JsonObject {
  const id = globalId(ctx.home, post.id);
  return { global_id: id, global_id_lineage: [id] };
}

export function renderedTexts(post: LoadedPost): { title: string; description: string; excerpt: string } {
  return {
    title: renderTitle(post.title),
    description: renderContent(post.content),
    excerpt: renderExcerpt(post.excerpt),
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
