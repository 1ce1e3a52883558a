import { AsyncLocalStorage } from "node:async_hooks";
import type { Knex } from "knex";
import { readTagVersions } from "../db/cache-tags";
import { cacheTagsMaintained, type Dialect } from "../db/dialects";
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
 * - Where writers run concurrently (PostgreSQL): the versions are read
 *   `FOR UPDATE` (their rows created at version 0 first, so that a tag first
 *   bumped by a concurrent, still open transaction makes us wait too). A
 *   concurrent writer of the same resource holds those rows until it
 *   commits; we wait, then see its bump.
 * - Where writers are serialised (SQLite, `Dialect.serialisesWriters`):
 *   every statement of a process runs on one connection, so no other write
 *   of this process can come between the read and the write; another
 *   process's commit after the read makes our first write fail with
 *   SQLITE_BUSY, and the engine runs the transaction again (guard included).
 * - MariaDB/MySQL: no triggers keep the tags (lib/db/cache-tags.ts): no guard, the
 *   check-then-write window stays (documented in the README).
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
  /** The versions of `tags` now. */
  snapshot(tags: ReadonlySet<number>): Promise<TagSnapshot>;
  /** Runs `work`; its first write transaction throws `stale()` first when a version moved since `snapshot`. */
  run<T>(snapshot: TagSnapshot, stale: () => Error, work: () => Promise<T>): Promise<T>;
}

const active = new AsyncLocalStorage<WriteGuard>();

/** Whether this database keeps the tags a guard needs. */
export function writeGuardsAvailable(knex: Knex): boolean {
  return cacheTagsMaintained(knex);
}

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
  for (let i = 0; i < tags.length; i += 500) {
    const chunk = tags.slice(i, i + 500);
    let query = trx(tables.cacheTags).whereIn("tag", chunk).select("tag", "version");
    if (!dialect.serialisesWriters) {
      // Sorted, so that two guarded writers lock in one order.
      await trx(tables.cacheTags)
        .insert(chunk.map((tag) => ({ tag, version: 0 })))
        .onConflict("tag")
        .ignore();
      query = query.orderBy("tag").forUpdate();
    }
    for (const row of (await query) as Array<{ tag: number | string; version: number | string }>) now.set(Number(row.tag), Number(row.version));
  }
  for (const tag of tags) {
    if ((now.get(tag) ?? 0) !== (versions.get(tag) ?? 0)) throw guard.stale();
  }
}
