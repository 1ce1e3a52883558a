/**
 * The ids instances are shown and addressed under, and a post as seen at
 * one of its instances (lib/posts/occurrences.ts keeps the instances).
 * Free of engine imports: the published index uses these too.
 */
import { isStoredId } from "../db/ids";
import type { LoadedPost, Occurrence, OccurrenceFields } from "./types";

/**
 * An instance's id is `OCCURRENCE_ID_BASE` + its row's id: the original's
 * convention for its occurrences ("provisional post ids", 10,000,000 up),
 * so that an instance is addressed where a post is (`GET /events/{id}`).
 * Post ids stay below it: the two ranges cannot meet before a site has ten
 * million posts.
 */
export const OCCURRENCE_ID_BASE = 10_000_000;

/** The id an instance is shown and addressed under. */
export function occurrenceId(rowId: number): number {
  return OCCURRENCE_ID_BASE + rowId;
}

/** The row id an instance id names; null for a post id. */
export function occurrenceRowId(id: number): number | null {
  return isStoredId(id) && id > OCCURRENCE_ID_BASE ? id - OCCURRENCE_ID_BASE : null;
}

/** The id a post read by `getManyAt` or listed with `occurrences` is shown under: its instance's, or its own. */
export function listedId(post: Pick<LoadedPost, "id" | "occurrence">): number {
  return post.occurrence === undefined ? post.id : occurrenceId(post.occurrence.id);
}

/** The post as seen at one of its instances: the instance's times in the fields `names` gives, the rest the post's. */
export function atOccurrence(post: LoadedPost, occurrence: Occurrence, names: OccurrenceFields): LoadedPost {
  const fields = { ...post.fields };
  fields[names.start_local] = occurrence.start_local;
  fields[names.end_local] = occurrence.end_local;
  fields[names.start_utc] = occurrence.start_utc;
  fields[names.end_utc] = occurrence.end_utc;
  return { ...post, fields, occurrence };
}

/**
 * `engine.occurrences`: the dated instances of a post that repeats (the
 * calendar's series), kept in their own indexed table, never as posts
 * (issue 22). The engine stores what it is given; what the instances are
 * (a rule's expansion) is the post type's business.
 *
 * Each instance is named by its key (the wall clock its rule made it at,
 * RFC 5545's RECURRENCE-ID): replacing a post's instances keeps the row,
 * and so the id, of every key that stays, whatever its times become.
 * Instances go with their post (the table's foreign key cascades).
 */
