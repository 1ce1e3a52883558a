import type { EngineContext } from "../engine-context";
import type { OccurrencesApi } from "../engine-api";
import { isStoredId } from "../db/ids";
import type { Occurrence, OccurrenceInput } from "./types";

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

  replace(postId: number, instances: readonly OccurrenceInput[]): Promise<void> {
    return this.e.write((tx) => new Occurrences(tx).replaceIn(postId, instances));
  }

  /** @internal `replace` on a transaction: rows of keys that go are deleted, new keys inserted, changed times updated. */
  async replaceIn(postId: number, instances: readonly OccurrenceInput[]): Promise<void> {
    const table = this.e.tables.occurrences;
    const k = this.e.knex;
    const current = new Map(((await k(table).where({ post_id: postId })) as Row[]).map((r) => [r.occurrence_key, fromRow(r)]));
    const wanted = new Map(instances.map((i) => [i.key, i]));
    const gone = [...current.values()].filter((o) => !wanted.has(o.key)).map((o) => o.id);
    // Bounded batches: SQLite caps the bound parameters of one statement.
    for (let i = 0; i < gone.length; i += 500) await k(table).whereIn("id", gone.slice(i, i + 500)).delete();
    const added: Array<Record<string, unknown>> = [];
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
      }
    }
    for (let i = 0; i < added.length; i += 50) await k(table).insert(added.slice(i, i + 50));
  }
}
