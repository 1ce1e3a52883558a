import { AsyncLocalStorage } from "node:async_hooks";
import type { Knex } from "knex";
import { readTagVersions } from "../db/cache-tags";
import type { Dialect } from "../db/dialects";
import type { Tables } from "../db/tables";

/**
 * Conditional writes without a lost-update window (`If-Match`, see
 * lib/routes/preconditions.ts `checkWriteConditions`, for requests and batch entries).
 *
 * The REST layer compares the client's ETag with a GET of the resource, and
 * that GET names the cache tags of what it shows. Checking the ETag and then
 * writing are two steps, and the handler opens its own transaction: another
 * editor may commit in between. So the layer also takes a snapshot of those
 * tags' versions (the triggers bump them in every writing transaction) and
 * runs the handler in a guard: the first write transaction it opens reads
 * the versions again, inside the transaction, before anything else, and
 * fails with 412 when one moved. Nothing is written then.
 *
 * - Where writers run concurrently (PostgreSQL, MariaDB/MySQL): the
 *   versions are read `FOR UPDATE`, a locking read, which sees the latest
 *   committed rows whatever the transaction's snapshot. A concurrent writer
 *   of the same resource holds those rows (its triggers bumped them) until
 *   it commits; we wait, then see its bump. A tag without a row yet is
 *   created at version 0 and read again the same way: a concurrent, still
 *   open transaction that creates it first makes the insert wait too.
 *   Existing rows are locked by the read itself, not by an insert that finds
 *   them: InnoDB's duplicate-key check takes a shared lock, and two guards
 *   that both hold one and then ask for the exclusive lock deadlock.
 * - Where writers are serialised (SQLite, `Dialect.serialisesWriters`):
 *   every statement of a process runs on one connection, so no other write
 *   of this process can come between the read and the write; another
 *   process's commit after the read makes our first write fail with
 *   SQLITE_BUSY, and the engine runs the transaction again (guard included).
 * - Where the server refused the triggers (`Engine.cacheTagsKept`: a
 *   MariaDB/MySQL user without the privilege) the tags do not move, so
 *   there is no guard: the check-then-write window stays (the README says so).
 */
export interface TagSnapshot {
  readonly tags: readonly number[];
  /** Versions at the snapshot; a tag never bumped is absent (version 0). */
  readonly versions: ReadonlyMap<number, number>;
}

export interface WriteGuard {
  readonly snapshot: TagSnapshot;
  /** The error that ends a transaction which finds a version moved. */
  readonly stale: () => Error;
  /** Set once a guarded transaction committed: later writes of the same request are its own. */
  spent: boolean;
}

/**
 * Versions of cache tags (the dependencies a GET names with
 * `RestRequest.dependsOn`) and a way to make the next write transaction
 * fail unless they are unchanged.
 */
export interface WriteGuards {
  /** The versions of `tags` now; null where the database does not keep its tags (then there is no guard). */
  snapshot(tags: ReadonlySet<number>): Promise<TagSnapshot | null>;
  /** Runs `work`; its first write transaction throws `stale()` first when a version moved since `snapshot`. */
  run<T>(snapshot: TagSnapshot, stale: () => Error, work: () => Promise<T>): Promise<T>;
}

const active = new AsyncLocalStorage<WriteGuard>();

/** The current versions of `tags` (outside any transaction). */
export async function snapshotTags(knex: Knex, tables: Tables, tags: Iterable<number>): Promise<TagSnapshot> {
  const sorted = [...new Set(tags)].sort((a, b) => a - b);
  return { tags: sorted, versions: await readTagVersions(knex, tables, sorted) };
}

/** Runs `work` so that the first write transaction it opens (engine.ts) checks `snapshot` first. */
export function runGuarded<T>(snapshot: TagSnapshot, stale: () => Error, work: () => Promise<T>): Promise<T> {
  return active.run({ snapshot, stale, spent: false }, work);
}

/** The guard of the current request, while it has not been spent. */
export function currentWriteGuard(): WriteGuard | undefined {
  const guard = active.getStore();
  return guard === undefined || guard.spent ? undefined : guard;
}

/** Inside the transaction, before its first write: throws `guard.stale()` when a version moved. */
export async function checkWriteGuard(trx: Knex.Transaction, dialect: Dialect, tables: Tables, guard: WriteGuard): Promise<void> {
  const { tags, versions } = guard.snapshot;
  if (tags.length === 0) return;
  const now = new Map<number, number>();
  const read = async (chunk: readonly number[]): Promise<void> => {
    const query = trx(tables.cacheTags).whereIn("tag", chunk).select("tag", "version");
    // Sorted, so that two guarded writers lock in one order.
    if (!dialect.serialisesWriters) query.orderBy("tag").forUpdate();
    for (const row of (await query) as Array<{ tag: number | string; version: number | string }>) now.set(Number(row.tag), Number(row.version));
  };
  for (let i = 0; i < tags.length; i += 500) {
    const chunk = tags.slice(i, i + 500);
    await read(chunk);
    const missing = dialect.serialisesWriters ? [] : chunk.filter((tag) => !now.has(tag));
    if (missing.length === 0) continue;
    await trx(tables.cacheTags)
      .insert(missing.map((tag) => ({ tag, version: 0 })))
      .onConflict("tag")
      .ignore();
    await read(missing);
  }
  for (const tag of tags) {
    if ((now.get(tag) ?? 0) !== (versions.get(tag) ?? 0)) throw guard.stale();
  }
}
