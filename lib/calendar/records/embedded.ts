import { isSharedPost } from "../../posts/load";
import type { LoadedPost } from "../../posts/types";
import type { JsonObject, RecordContext } from "./context";

/**
 * Embedded venue and organizer records, kept with the shared post objects
 * they were built from (`posts.getShared`): a site's few thousand venues and
 * organizers are embedded by every event, and building one is a sizeable
 * part of a single-event read. A shared post object is replaced by a new one
 * once the database changes, so a kept record never outlives its data;
 * everything it holds besides the post comes from the same revision (its
 * image) or the request's site URLs, which are part of the key.
 *
 * Kept only where the record is the same for every reader: no password
 * (access then depends on who asks) and not a single read (embedded records
 * carry no JSON-LD of their own). Kept records are shared: never modified
 * afterwards (masking and `_fields` build new objects).
 */
const kept = new WeakMap<LoadedPost, { key: string; record: JsonObject }>();

export function embeddedRecord(post: LoadedPost, ctx: RecordContext, build: (post: LoadedPost, ctx: RecordContext) => JsonObject): JsonObject {
  if (ctx.single || post.password !== "" || !isSharedPost(post)) return build(post, ctx);
  const key = `${ctx.home}\u0000${ctx.ns}`;
  const found = kept.get(post);
  if (found !== undefined && found.key === key) return found.record;
  const record = build(post, ctx);
  kept.set(post, { key, record });
  return record;
}
