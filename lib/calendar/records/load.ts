import type { EngineApi } from "../../engine-api";
import { termsLoadedWith } from "../../posts/load";
import type { LoadedPost } from "../../posts/types";
import type { Term } from "../../taxonomy/types";
import type { CurrentUser } from "../../users/types";
import { ATTACHMENT, ORGANIZER, ORGANIZER_LINK, VENUE, VENUE_LINK } from "../post-types";
import { emptyRelated, Related } from "./context";

/**
 * Loads, in a fixed handful of queries whatever the page size, what the
 * records of a page of events, venues or organizers embed: terms, linked
 * venues/organizers the user may read, and featured images.
 *
 * Terms and links are those the posts were loaded with (a record that shows
 * none is read without them); `images: false` skips the posts' own featured
 * images, which the answer does not show.
 */
export async function loadRelated(
  engine: EngineApi,
  posts: LoadedPost[],
  user: CurrentUser | null,
  language?: string,
  opts: { images?: boolean } = {},
): Promise<Related> {
  const related = emptyRelated();
  if (posts.length === 0) return related;

  // Terms come with the posts (read in the same statement as their term ids); only others are fetched.
  const known = new Map<number, Term>();
  const termIds = new Set<number>();
  const linkIds = new Set<number>();
  for (const p of posts) {
    const loaded = termsLoadedWith(p);
    for (const ids of Object.values(p.termIds ?? {})) {
      for (const id of ids) {
        const term = loaded?.get(id);
        if (term) known.set(id, term);
        else termIds.add(id);
      }
    }
    for (const rel of [VENUE_LINK, ORGANIZER_LINK]) (p.links?.[rel] ?? []).forEach((id) => linkIds.add(id));
  }
  for (const id of known.keys()) termIds.delete(id);

  // Linked posts by id (primary-key lookups), kept when they are venues or
  // organizers the user may read: the rules of a `visibility: read` query,
  // applied to the loaded rows (canRead), without a query planned around them.
  const [terms, linked] = await Promise.all([
    termIds.size ? engine.terms.getMany([...termIds]) : Promise.resolve(new Map<number, Term>()),
    // Shared between requests: a site's few thousand venues and organizers are embedded by every event.
    linkIds.size ? engine.posts.getShared([...linkIds], [VENUE, ORGANIZER]) : Promise.resolve(new Map<number, LoadedPost>()),
  ]);
  related.terms = new Map([...known, ...terms]);
  // In the order such a query gave (newest first, then ID), which decides between two linked translations below.
  const readable = [...linked.values()]
    .filter((p) => (p.type === VENUE || p.type === ORGANIZER) && engine.posts.canRead(p, user))
    .sort((a, b) => (a.dateLocal < b.dateLocal ? 1 : a.dateLocal > b.dateLocal ? -1 : b.id - a.id));
  for (const p of readable) related.posts.set(p.id, p);
  if (language) await substituteTranslations(engine, related, user, language);

  const imageIds = new Set<number>();
  for (const p of [...(opts.images === false ? [] : posts), ...related.posts.values()]) {
    const id = Number(p.fields.image_id);
    if (Number.isInteger(id) && id > 0) imageIds.add(id);
  }
  if (imageIds.size) {
    const images = await engine.posts.getMany([...imageIds]);
    for (const a of images.values()) if (a.type === ATTACHMENT) related.attachments.set(a.id, a);
  }
  return related;
}

/**
 * languages.md §2.4: an embedded venue/organizer is shown in the request's
 * language when a translation exists. The record keeps the linked id's slot,
 * so link order is preserved.
 */
async function substituteTranslations(engine: EngineApi, related: Related, user: CurrentUser | null, language: string): Promise<void> {
  const groups = new Map<number, number>();
  for (const p of related.posts.values()) {
    if (p.language !== language && p.translationGroup !== null) groups.set(p.translationGroup, p.id);
  }
  if (groups.size === 0) return;
  const translations = await engine.posts.find({
    type: [VENUE, ORGANIZER],
    language,
    where: [{ field: "translation_group", op: "in", value: [...groups.keys()] }],
    visibility: { user, mode: "read" },
    perPage: groups.size * 2,
    noTotal: true,
  });
  for (const t of translations.posts) {
    const originalId = t.translationGroup === null ? undefined : groups.get(t.translationGroup);
    if (originalId !== undefined) related.posts.set(originalId, t);
  }
}
