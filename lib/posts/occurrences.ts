import type { EngineContext } from "../engine-context";
import type { OccurrencesApi } from "../engine-api";
import { isStoredId } from "../db/ids";
import type { PostLoader } from "./load";
import type { LoadedPost, Occurrence, OccurrenceInput, PostQuery } from "./types";
import { atOccurrence, occurrenceRowId } from "./occurrence-ids";

/**
 * The post types that have ever had an instance, as a JSON list: queries
 * with `occurrences` list instances (a join the order index cannot serve)
 * only for these, and read it from the options cache rather than asking the
 * database each time. Sticky: a type stays listed once its last series is
 * gone, which costs speed, never correctness.
 */
export const REPEATING_TYPES_OPTION = "occurrence_types";

export async function repeatingTypes(options: { get(name: string): Promise<string | undefined> }): Promise<string[]> {
  try {
    const parsed: unknown = JSON.parse((await options.get(REPEATING_TYPES_OPTION)) ?? "[]");
    return Array.isArray(parsed) ? parsed.filter((t): t is string => typeof t === "string") : [];
  } catch {
    return [];
  }
}

/** `engine.posts.getMany`: posts by id, where an instance id gives its post as seen at that instance. */
export async function getManyAt(
  e: EngineContext,
  loader: PostLoader,
  ids: readonly number[],
  withRel?: PostQuery["with"],
  likelyTypes?: readonly string[],
): Promise<Map<number, LoadedPost>> {
  const rowIds = ids.map(occurrenceRowId).filter((r): r is number => r !== null);
  if (rowIds.length === 0) return loader.getMany([...ids], withRel, likelyTypes);
  const instances = await new Occurrences(e).getMany(rowIds);
  const postIds = ids.filter((id) => occurrenceRowId(id) === null);
  const posts = await loader.getMany([...postIds, ...[...instances.values()].map((o) => o.postId)], withRel, likelyTypes);
  const out = new Map<number, LoadedPost>();
  for (const id of ids) {
    const rowId = occurrenceRowId(id);
    const instance = rowId === null ? undefined : instances.get(rowId);
    const post = posts.get(instance === undefined ? id : instance.postId);
    if (post === undefined || (rowId !== null && instance === undefined)) continue;
    if (instance === undefined) {
      out.set(id, post);
      continue;
    }
    const names = e.registry.postTypes.get(post.type)?.config.occurrenceFields;
    if (names !== undefined) out.set(id, atOccurrence(post, instance, names));
  }
  return out;
}

/** A boolean column as the driver gives it (SQLite and MariaDB: 0/1, PostgreSQL: a boolean). */
function isTrue(raw: unknown): boolean {
  return raw === true || raw === 1 || raw === "1" || raw === "t";
}

type Row = { id: number | string; post_id: number | string; occurrence_key: string; start_local: string; end_local: string; start_utc: string; end_utc: string };

function fromRow(r: Row): Occurrence {
  return { id: Number(r.id), postId: Number(r.post_id), key: r.occurrence_key, start_local: r.start_local, end_local: r.end_local, start_utc: r.start_utc, end_utc: r.end_utc };
}

/** Seconds between two `YYYY-MM-DD HH:MM:SS` UTC times. */
function seconds(startUtc: string, endUtc: string): number {
  return Math.round((Date.parse(`${endUtc.replace(" ", "T")}Z`) - Date.parse(`${startUtc.replace(" ", "T")}Z`)) / 1000);
}

export class Occurrences implements OccurrencesApi {
  constructor(private readonly e: EngineContext) {}

  /** The post's instances, first to last. */
  async list(postId: number): Promise<Occurrence[]> {
    if (!isStoredId(postId)) return [];
    const rows = (await this.e.knex(this.e.tables.occurrences).where({ post_id: postId }).orderBy([{ column: "start_utc" }, { column: "id" }])) as Row[];
    return rows.map(fromRow);
  }

  /** Instances by their row ids (those that exist). */
  async getMany(rowIds: readonly number[]): Promise<Map<number, Occurrence>> {
    const out = new Map<number, Occurrence>();
    const ids = [...new Set(rowIds)].filter(isStoredId);
    for (let i = 0; i < ids.length; i += 500) {
      const rows = (await this.e.knex(this.e.tables.occurrences).whereIn("id", ids.slice(i, i + 500))) as Row[];
      for (const r of rows) out.set(Number(r.id), fromRow(r));
    }
    return out;
  }

  async countByAuthor(author: number, exceptPostId: number): Promise<number> {
    const { occurrences, posts } = this.e.tables;
    const row = (await this.e
      .knex(`${occurrences} as o`)
      .join(`${posts} as p`, "p.id", "o.post_id")
      .where("p.author", author)
      .whereNot("o.post_id", exceptPostId)
      .count({ n: "*" })
      .first()) as { n: number | string } | undefined;
    return Number(row?.n ?? 0);
  }

  replace(postId: number, instances: readonly OccurrenceInput[], opts: { repeats?: boolean } = {}): Promise<void> {
    return this.e.write((tx) => new Occurrences(tx).replaceIn(postId, instances, opts));
  }

  /**
   * @internal `replace` on a transaction: rows of keys that go are deleted, new keys inserted, changed times updated,
   * and the post's `repeats` set: true with instances, else `opts.repeats` (default false: no instances, no repetition).
   */
  async replaceIn(postId: number, instances: readonly OccurrenceInput[], opts: { repeats?: boolean } = {}): Promise<void> {
    const table = this.e.tables.occurrences;
    const k = this.e.knex;
    const current = new Map(((await k(table).where({ post_id: postId })) as Row[]).map((r) => [r.occurrence_key, fromRow(r)]));
    const wanted = new Map(instances.map((i) => [i.key, i]));
    const gone = [...current.values()].filter((o) => !wanted.has(o.key)).map((o) => o.id);
    // Bounded batches: SQLite caps the bound parameters of one statement.
    for (let i = 0; i < gone.length; i += 500) await k(table).whereIn("id", gone.slice(i, i + 500)).delete();
    const added: Array<Record<string, unknown>> = [];
    let moved = 0;
    for (const instance of wanted.values()) {
      const row = {
        start_local: instance.start_local,
        end_local: instance.end_local,
        start_utc: instance.start_utc,
        end_utc: instance.end_utc,
        duration: seconds(instance.start_utc, instance.end_utc),
      };
      const had = current.get(instance.key);
      if (had === undefined) added.push({ post_id: postId, occurrence_key: instance.key, ...row });
      else if (had.start_local !== row.start_local || had.end_local !== row.end_local || had.start_utc !== row.start_utc || had.end_utc !== row.end_utc) {
        await k(table).where({ id: had.id }).update(row);
        moved++;
      }
    }
    for (let i = 0; i < added.length; i += 50) await k(table).insert(added.slice(i, i + 50));
    // A post with instances repeats; one without may still (every instance cancelled or detached), as the caller says.
    const repeats = wanted.size > 0 || opts.repeats === true;
    const row = (await k(this.e.tables.posts).where({ id: postId }).first("type", "repeats")) as { type: string; repeats: unknown } | undefined;
    const flagged = row !== undefined && isTrue(row.repeats);
    if (row !== undefined && flagged !== repeats) await k(this.e.tables.posts).where({ id: postId }).update({ repeats });
    // A post flagged before was named then (or, from before the flag, when its first row came).
    if (row !== undefined && repeats && (added.length > 0 || !flagged)) await this.markRepeating(row.type);
    // The instances are listed as the post: a list shows them changed although the post's row may not be.
    if (gone.length + added.length + moved > 0 || (row !== undefined && flagged !== repeats)) this.e.noteChanged("post", [postId]);
  }

  /**
   * Names the type in `REPEATING_TYPES_OPTION` if it is not there yet (in the write's transaction): also for a
   * post that repeats with no instance, which instance lists must then leave out (lib/posts/query.ts `instanceRows`).
   */
  private async markRepeating(type: string): Promise<void> {
    const types = await repeatingTypes(this.e.options);
    if (!types.includes(type)) await this.e.options.set(REPEATING_TYPES_OPTION, JSON.stringify([...types, type]));
  }
}
