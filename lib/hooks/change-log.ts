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

/**
 * The actions of rows for a post that links to another post (an event to
 * its venue) whose readers changed: who may read the linked post decides
 * whether the linking post shows it. `LINK_PUBLIC`: it became readable or
 * unreadable to everyone; `LINK_SIGNED_IN`: only to some signed-in readers
 * (a draft trashed, a private post made a draft), so anonymous readers saw
 * nothing change.
 */
export const LINK_PUBLIC = "link-public";
export const LINK_SIGNED_IN = "link-private";

/** Records whose visible form changed without a change of their own (a recount, new instances, an ancestor's new slug). */
export interface NotedRecords {
  posts: Iterable<number>;
  terms: Iterable<number>;
}

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
  /** Only signed-in readers may see anything change (a LINK_SIGNED_IN row). */
  signedInOnly: boolean;
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
 * last statements (see the invariant above): one per changed record, one
 * per `noted` record no change names (its kind's type is read from it), and
 * one per post linking to a post whose readers changed (see LINK_PUBLIC),
 * or to a translation of it (a list shows a linked post's translation in
 * its language). `pruneBefore`: also delete the rows recorded before this
 * time (epoch ms).
 */
export async function writeChangeLog(
  trx: Knex,
  dialect: Dialect,
  tables: Tables,
  changes: readonly Change[],
  noted: NotedRecords,
  now: Date,
  pruneBefore: number | null,
): Promise<void> {
  const nowMs = now.getTime();
  const rows: Array<Omit<StoredRow, "seq">> = [];
  const namedTerms = new Set<number>();
  const namedPosts = new Set<number>();
  for (const c of changes) {
    if (c.kind === "post") {
      namedPosts.add(c.id);
      rows.push({ kind: "post", type: c.type, object_id: c.id, action: c.action, public_before: c.previousStatus === "publish", author: c.author, occurred_at: Date.parse(c.occurredAt) });
    } else {
      namedTerms.add(c.id);
      rows.push({ kind: "term", type: c.taxonomy, object_id: c.id, action: c.action, public_before: c.action !== "created", author: 0, occurred_at: Date.parse(c.occurredAt) });
    }
  }
  for (const id of new Set(noted.terms)) {
    if (!namedTerms.has(id)) rows.push({ kind: "term", type: null, object_id: id, action: "updated", public_before: true, author: 0, occurred_at: nowMs });
  }
  const notedPosts = [...new Set(noted.posts)].filter((id) => !namedPosts.has(id));
  // No change of its own in this transaction: its status now is its status before.
  for (const p of await postRows(trx, tables, notedPosts)) {
    namedPosts.add(p.id);
    rows.push({ kind: "post", type: p.type, object_id: p.id, action: "updated", public_before: p.status === "publish", author: p.author, occurred_at: nowMs });
  }
  for (const p of await linkingPosts(trx, tables, changes, namedPosts)) {
    rows.push({ kind: "post", type: p.type, object_id: p.id, action: p.everyone ? LINK_PUBLIC : LINK_SIGNED_IN, public_before: p.status === "publish", author: p.author, occurred_at: nowMs });
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

/** Who may read a post of this status: everyone, signed-in readers by their capabilities (two classes), or nobody. */
function readersOf(status: string | null): "everyone" | "private" | "unpublished" | "nobody" {
  if (status === "publish") return "everyone";
  if (status === "private") return "private";
  if (status === "draft" || status === "pending" || status === "future") return "unpublished";
  return "nobody";
}

interface PostRow {
  id: number;
  type: string;
  status: string;
  author: number;
}

async function postRows(trx: Knex, tables: Tables, ids: readonly number[]): Promise<PostRow[]> {
  const out: PostRow[] = [];
  for (let i = 0; i < ids.length; i += 500) {
    const found = (await trx(tables.posts).whereIn("id", ids.slice(i, i + 500)).select("id", "type", "status", "author")) as Array<{ id: number | string; type: string; status: string; author: number | string }>;
    for (const r of found) out.push({ id: Number(r.id), type: r.type, status: r.status, author: Number(r.author) });
  }
  return out;
}

/**
 * The posts (not named already) that link to a post whose readers this
 * transaction changed, or to one of its translations; `everyone`: some such
 * post became readable or unreadable to everyone. A deleted post's links
 * went with it: its tombstone tells the readers who had it to drop it.
 * Bounded by the links stored: a venue published with 10,000 events names
 * the 10,000 (each a row, so the feed still pages by rows).
 */
async function linkingPosts(trx: Knex, tables: Tables, changes: readonly Change[], named: ReadonlySet<number>): Promise<Array<PostRow & { everyone: boolean }>> {
  // Changed post → whether everyone's view of it changed.
  const changed = new Map<number, boolean>();
  for (const c of changes) {
    if (c.kind !== "post" || c.action === "deleted" || c.previousStatus === null) continue;
    const before = readersOf(c.previousStatus);
    const after = readersOf(c.status);
    if (before !== after) changed.set(c.id, (changed.get(c.id) ?? false) || before === "everyone" || after === "everyone");
  }
  if (changed.size === 0) return [];
  const ids = [...changed.keys()];
  // Targets: the changed posts and the members of their translation groups, each with its flag.
  const targets = new Map(changed);
  for (let i = 0; i < ids.length; i += 500) {
    const grouped = (await trx(tables.posts).whereIn("id", ids.slice(i, i + 500)).whereNotNull("translation_group").select("id", "translation_group")) as Array<{ id: number | string; translation_group: number | string }>;
    const flagOf = new Map<number, boolean>();
    for (const g of grouped) flagOf.set(Number(g.translation_group), (flagOf.get(Number(g.translation_group)) ?? false) || (changed.get(Number(g.id)) ?? false));
    if (flagOf.size === 0) continue;
    const members = (await trx(tables.posts).whereIn("translation_group", [...flagOf.keys()]).select("id", "translation_group")) as Array<{ id: number | string; translation_group: number | string }>;
    for (const m of members) targets.set(Number(m.id), (targets.get(Number(m.id)) ?? false) || (flagOf.get(Number(m.translation_group)) ?? false));
  }
  const out = new Map<number, PostRow & { everyone: boolean }>();
  const targetIds = [...targets.keys()];
  for (let i = 0; i < targetIds.length; i += 500) {
    const linking = (await trx(`${tables.postLinks} as l`)
      .join(`${tables.posts} as p`, "p.id", "l.from_id")
      .whereIn("l.to_id", targetIds.slice(i, i + 500))
      .select("p.id", "p.type", "p.status", "p.author", "l.to_id")) as Array<{ id: number | string; type: string; status: string; author: number | string; to_id: number | string }>;
    for (const r of linking) {
      const id = Number(r.id);
      if (named.has(id)) continue;
      const everyone = (out.get(id)?.everyone ?? false) || (targets.get(Number(r.to_id)) ?? false);
      out.set(id, { id, type: r.type, status: r.status, author: Number(r.author), everyone });
    }
  }
  return [...out.values()];
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
      signedInOnly: r.action === LINK_SIGNED_IN,
    })),
  };
}
