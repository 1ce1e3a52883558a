import { isStoredId } from "../db/ids";
import type { EngineContext } from "../engine-context";
import type { PostsApi } from "../engine-api";
import type { Actor } from "../users/actor";
import type { CurrentUser } from "../users/types";
import { PostLoader } from "./load";
import { getManyAt } from "./occurrences";
import { occurrenceRowId } from "./occurrence-ids";
import { PostQueries } from "./query";
import type { LoadedPost, Post, PostInput, PostPage, PostPatch, PostQuery } from "./types";
import { canReadPost } from "./visibility";
import { PostWriter } from "./write";

/**
 * `engine.posts`: the posts of every registered type. A façade over
 * query.ts (`find`, `count`), load.ts (reads by id and slug), write.ts
 * (writes with WordPress's status, date and slug rules) and slugs.ts.
 *
 * Each write opens a transaction (or joins the current one) through
 * `write` and runs on a writer bound to it.
 */
export class Posts implements PostsApi {
  private readonly loader: PostLoader;
  private readonly queries: PostQueries;
  private readonly writer: PostWriter;

  constructor(private readonly e: EngineContext) {
    this.loader = new PostLoader(e);
    this.queries = new PostQueries(e);
    this.writer = new PostWriter(e);
  }

  // ------------------------------------------------------------------ writes

  create(input: PostInput, actor?: Actor): Promise<LoadedPost> {
    return this.e.write((tx) => new PostWriter(tx).createIn(input, actor ?? null));
  }

  update(id: number, patch: PostPatch, actor?: Actor): Promise<LoadedPost> {
    return this.e.write((tx) => new PostWriter(tx).updateIn(id, patch, actor ?? null));
  }

  trash(id: number): Promise<LoadedPost> {
    return this.e.write((tx) => new PostWriter(tx).trashIn(id));
  }

  /** Restores the status the post had before it was trashed (draft when unknown) and its slug. */
  untrash(id: number): Promise<LoadedPost> {
    return this.e.write((tx) => new PostWriter(tx).untrashIn(id));
  }

  delete(id: number): Promise<void> {
    return this.e.write((tx) => new PostWriter(tx).deleteIn(id));
  }

  /**
   * Publishes `future` posts whose date has come (WordPress's cron job
   * `publish_future_post`); returns their ids. Calpress has no cron: the
   * host or the REST layer calls this before serving lists if it wants
   * WordPress's behaviour.
   */
  async publishDue(): Promise<number[]> {
    // Asked first outside a transaction: an empty BEGIN/COMMIT every 30 s
    // would count as a write and throw away every cached answer and total.
    if (!(await this.writer.anyDue())) return [];
    return this.e.write((tx) => new PostWriter(tx).publishDueIn());
  }

  unlinkAllTo(relation: string, toId: number): Promise<void> {
    return this.e.write((tx) => new PostWriter(tx).unlinkAllTo(relation, toId));
  }

  // ------------------------------------------------------------------ reads

  async get(id: number, withRel?: PostQuery["with"], likelyTypes?: readonly string[]): Promise<LoadedPost | undefined> {
    if (!isStoredId(id)) return undefined;
    if (occurrenceRowId(id) !== null) return (await this.getMany([id], withRel, likelyTypes)).get(id);
    return (await this.loader.load([id], withRel, likelyTypes))[0];
  }

  /** Posts by id; an instance id gives its post as seen at that instance (occurrences.ts). */
  getMany(ids: number[], withRel?: PostQuery["with"], likelyTypes?: readonly string[]): Promise<Map<number, LoadedPost>> {
    return getManyAt(this.e, this.loader, ids, withRel, likelyTypes);
  }

  getShared(ids: number[], likelyTypes?: readonly string[]): Promise<Map<number, LoadedPost>> {
    return this.loader.getShared(ids, likelyTypes);
  }

  getBySlug(type: string, slug: string, opts: { language?: string; withRel?: PostQuery["with"] } = {}): Promise<LoadedPost | undefined> {
    return this.loader.getBySlug(type, slug, opts);
  }

  getMeta(id: number): Promise<Record<string, string>> {
    return this.loader.getMeta(id);
  }

  linkedFrom(relation: string, toIds: number[]): Promise<Map<number, number[]>> {
    return this.loader.linkedFrom(relation, toIds);
  }

  find(query: PostQuery): Promise<PostPage> {
    return this.queries.find(query);
  }

  findIds(query: PostQuery): Promise<{ ids: number[]; total: number }> {
    return this.queries.findIds(query);
  }

  count(query: PostQuery): Promise<number> {
    return this.queries.count(query);
  }

  translationsOf(ids: number[]): Promise<number[]> {
    return this.queries.translationsOf(ids);
  }

  canRead(post: Post, user: CurrentUser | null): boolean {
    const type = this.e.registry.postTypes.get(post.type);
    return type ? canReadPost(type, post, user) : false;
  }
}
