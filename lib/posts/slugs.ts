import type { Knex } from "knex";
import type { EngineContext } from "../engine-context";
import { EngineError } from "../engine-errors";
import { sanitizeTitle, uniqueSlugCandidate } from "../format/slug";
import type { PostRow } from "./load";
import type { RegisteredPostType } from "./registry";
import { attemptUnique } from "./sql";
import { PostStatus, SLUG_FREE_STATUSES } from "./types";

/** WordPress's suffix for the slug of a trashed post (wp_add_trashed_suffix_to_post_name_for_post). */
const TRASHED_SUFFIX = "__trashed";
/** WordPress truncates the slug to 191 bytes before adding the suffix. */
const TRASHED_SLUG_BYTES = 191;
/** Candidates checked per query while looking for a free slug. */
const SLUG_BATCH = 20;
/** Unique-index collisions tolerated before giving up (only reachable under extreme concurrency). */
const MAX_SLUG_ATTEMPTS = 200;

/** Statuses that may share a slug (drafts): they hold no `slug_lock`. */
export function isSlugFree(status: string): boolean {
  return (SLUG_FREE_STATUSES as readonly string[]).includes(status);
}

/** Statuses whose slug must be unique (and so holds `slug_lock`). */
export function needsUniqueSlug(status: string): boolean {
  return !isSlugFree(status) && status !== "trash";
}

/**
 * `<slug>__trashed` with the slug cut to 191 bytes first, as WordPress does.
 * The byte-safe truncation of lib/format/slug.ts is reached through
 * uniqueSlugCandidate: with an 8-digit suffix it keeps 200 - 9 = 191 bytes of
 * the base, and the suffix is then taken off again.
 */
export function trashedSlug(slug: string): string {
  if (slug.endsWith(TRASHED_SUFFIX)) return slug;
  let base = slug;
  if (Buffer.byteLength(slug) > TRASHED_SLUG_BYTES) {
    const n = 10_000_000; // eight digits: 1 + 8 = 9 bytes of suffix
    base = uniqueSlugCandidate(slug, n).slice(0, -(String(n).length + 1));
  }
  return base + TRASHED_SUFFIX;
}

export function untrashedSlug(slug: string): string {
  return slug.endsWith(TRASHED_SUFFIX) ? slug.slice(0, -TRASHED_SUFFIX.length) : slug;
}

/** The slug a new post starts from: the one asked for, else none (a draft of a type that allows it), else one from the title. */
export function slugBase(type: RegisteredPostType, status: PostStatus, asked: string | undefined, title: string): string {
  const fromAsked = asked !== undefined ? sanitizeTitle(asked) : "";
  if (fromAsked !== "") return fromAsked;
  if (type.config.emptySlugWhileDraft && isSlugFree(status)) return "";
  return sanitizeTitle(title);
}

/** The unique slugs of posts, claimed through the unique index on (type, language, slug_lock). */
export class PostSlugs {
  constructor(private readonly e: EngineContext) {}

  private get k(): Knex {
    return this.e.knex;
  }

  /**
   * wp_unique_post_slug for statuses that need a unique slug: the first of
   * `base`, `base-2`, `base-3`, … not held by another post of the type and
   * language. Read-then-write can race with a concurrent insert; the unique
   * index on (type, language, slug_lock) catches that and the next candidate
   * is tried, so concurrent creates never fail. Candidates only move forward
   * after a collision, because MySQL's repeatable-read snapshot may keep
   * showing the colliding slug as free.
   */
  async claimSlug(id: number, type: string, language: string, base: string, extra: Partial<PostRow>): Promise<string> {
    // WordPress falls back to the post id when the title gives no slug.
    const root = base === "" ? String(id) : base;
    let n = 1;
    for (let attempt = 0; attempt < MAX_SLUG_ATTEMPTS; attempt++) {
      const candidate = await this.firstFreeSlug(id, type, language, root, n);
      const result = await attemptUnique(this.k, this.e.dialect, (k) =>
        k(this.e.tables.posts).where({ id }).update({ ...extra, slug: candidate.slug, slug_lock: candidate.slug }),
      );
      if (result.ok) return candidate.slug;
      n = candidate.n + 1;
    }
    throw new EngineError("slug_conflict", `no free slug for ${base}`, { slug: base });
  }

  private async firstFreeSlug(id: number, type: string, language: string, root: string, from: number): Promise<{ slug: string; n: number }> {
    for (let start = from; ; start += SLUG_BATCH) {
      const candidates: Array<{ slug: string; n: number }> = [];
      for (let n = start; n < start + SLUG_BATCH; n++) candidates.push({ slug: uniqueSlugCandidate(root, n), n });
      const taken = new Set<string>(
        await this.k(this.e.tables.posts)
          .where({ type, language })
          .whereIn(
            "slug_lock",
            candidates.map((c) => c.slug),
          )
          .whereNot("id", id)
          .pluck("slug_lock"),
      );
      const free = candidates.find((c) => !taken.has(c.slug));
      if (free) return free;
    }
  }
}
