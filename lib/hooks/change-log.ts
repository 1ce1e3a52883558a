import type { Knex } from "knex";
import type { Dialect } from "../db/dialects";
import type { Tables } from "../db/tables";
import type { Change } from "./types";

/**
 * The change log: one row per record a committed write changed, numbered
 * in commit order, so that a client can ask "what changed since number N"
 * (the calendar's changes feed) and never miss a change that committed
 * later with a smaller number.
 *
 * Invariant: numbers are given last in each write transaction by updating
 * the counter's one row, whose lock the transaction then holds until it
 * commits. A second writer waits for that lock, so it takes its numbers
 * after the first committed: every committed row with a number at or below
 * the counter's committed value is visible to any later read.
 */

/** Site option: days the log keeps its rows (default 30); a token older than that is answered 410. */
export const CHANGES_KEEP_DAYS_OPTION = "changes_keep_days";
export const DEFAULT_CHANGES_KEEP_DAYS = 30;
/** How often one engine prunes the log (inside a write that holds the counter already). */
export const PRUNE_EVERY_MS = 10 * 60 * 1000;

export interface ChangeRow {
  seq: number;
  kind: "post" | "term";
  /** The post type or taxonomy; null for a term whose count alone changed (read it from the term). */
  type: string | null;
  objectId: number;
  action: string;
  /** Whether the record was readable by everyone before this change: a later tombstone of it tells nobody anything new. */
  publicBefore: boolean;
  /** The post's author (0 for terms and posts without one). */
  author: number;
  /** Epoch milliseconds, when the change was recorded. */
  occurredAt: number;
}

export interface ChangeLogPage {
  /** The number of the last change committed when the page was read. */
  head: number;
  /** Changes at or below this number were pruned: a token below it cannot be answered. */
  prunedThrough: number;
  /** Changes after the token, in commit order, at most the limit asked for. */
  rows: ChangeRow[];
}

type StoredRow = { seq: number | string; kind: string; type: string | null; object_id: number | string; action: string; public_before: boolean | number; author: number | string; occurred_at: number | string };

/**
 * Writes the rows of a transaction's changes, on that transaction, as its
 * last statements (see the invariant above). `recountedTerms`: terms whose
 * count the transaction recomputed (their records show the count) and that
 * no change of their own names. `pruneBefore`: also delete the rows
 * recorded before this time (epoch ms).
 */
export async function writeChangeLog(
  trx: Knex,
  dialect: Dialect,
  tables: Tables,
  changes: readonly Change[],
  recountedTerms: Iterable<number>,
  now: Date,
  pruneBefore: number | null,
): Promise<void> {
  const nowMs = now.getTime();
  const rows: Array<Omit<StoredRow, "seq">> = [];
  const namedTerms = new Set<number>();
  for (const c of changes) {
    if (c.kind === "post") {
      rows.push({ kind: "post", type: c.type, object_id: c.id, action: c.action, public_before: c.previousStatus === "publish", author: c.author, occurred_at: Date.parse(c.occurredAt) });
    } else {
      namedTerms.add(c.id);
      rows.push({ kind: "term", type: c.taxonomy, object_id: c.id, action: c.action, public_before: c.action !== "created", author: 0, occurred_at: Date.parse(c.occurredAt) });
    }
  }
  for (const id of new Set(recountedTerms)) {
    if (!namedTerms.has(id)) rows.push({ kind: "term", type: null, object_id: id, action: "updated", public_before: true, author: 0, occurred_at: nowMs });
  }
  if (rows.length === 0) return;
  const counter = trx(tables.changeCounter).where({ id: 1 });
  let last: number | string | undefined;
  if (dialect.hasReturning) {
    // One statement where the database can say what it wrote.
    const updated = (await counter.clone().update({ seq: trx.raw("?? + ?", ["seq", rows.length]) }).returning("seq")) as Array<{ seq: number | string }>;
    last = updated[0]?.seq;
  } else {
    await counter.clone().increment("seq", rows.length);
    last = ((await counter.clone().first("seq")) as { seq: number | string } | undefined)?.seq;
  }
  if (last === undefined) throw new Error("the change log's counter row is missing (run the migration)");
  const first = Number(last) - rows.length + 1;
  const numbered = rows.map((r, i) => ({ seq: first + i, ...r }));
  // Bounded batches: SQLite caps the bound parameters of one statement.
  for (let i = 0; i < numbered.length; i += 50) await trx(tables.changes).insert(numbered.slice(i, i + 50));
  if (pruneBefore !== null) await pruneChangeLog(trx, tables, pruneBefore);
}

/** Deletes the rows recorded before `cutoffMs` (a prefix of the numbers); run while holding the counter. */
async function pruneChangeLog(trx: Knex, tables: Tables, cutoffMs: number): Promise<void> {
  const found = (await trx(tables.changes).where("occurred_at", "<", cutoffMs).max("seq as m").first()) as { m: number | string | null } | undefined;
  if (found?.m === null || found?.m === undefined) return;
  const through = Number(found.m);
  await trx(tables.changes).where("seq", "<=", through).delete();
  await trx(tables.changeCounter).where({ id: 1 }).where("pruned_through", "<", through).update({ pruned_through: through });
}

/** The changes after `since`, at most `limit` of them (0: only the counter), with the counter as it was before they were read. */
export async function readChangeLog(knex: Knex, tables: Tables, since: number, limit: number): Promise<ChangeLogPage> {
  // The counter first: every row at or below the head it shows has committed, so the rows read next include them.
  const counter = (await knex(tables.changeCounter).where({ id: 1 }).first("seq", "pruned_through")) as { seq: number | string; pruned_through: number | string } | undefined;
  const head = Number(counter?.seq ?? 0);
  const prunedThrough = Number(counter?.pruned_through ?? 0);
  if (limit <= 0 || since > head || since < prunedThrough) return { head, prunedThrough, rows: [] };
  const stored = (await knex(tables.changes).where("seq", ">", since).orderBy("seq").limit(limit)) as StoredRow[];
  return {
    head,
    prunedThrough,
    rows: stored.map((r) => ({
      seq: Number(r.seq),
      kind: r.kind === "term" ? "term" : "post",
      type: r.type,
      objectId: Number(r.object_id),
      action: r.action,
      publicBefore: r.public_before === true || Number(r.public_before) === 1,
      author: Number(r.author),
      occurredAt: Number(r.occurred_at),
    })),
  };
}
