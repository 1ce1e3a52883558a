import { createHash } from "node:crypto";
import type { Knex } from "knex";
import type { Dialect } from "./dialects";
import type { Tables } from "./tables";

/**
 * Transaction-scoped locks on names, for "find the existing record or
 * create it" (the venue/organizer duplicate rule): two transactions that
 * hold the lock of one key run their find-or-create one after the other,
 * so the second finds what the first created; different keys never wait for
 * each other.
 *
 * Why a lock row rather than advisory locks: one mechanism on both server
 * databases, and one that ends with the transaction. PostgreSQL's
 * `pg_advisory_xact_lock` would do, but MariaDB's GET_LOCK belongs to the
 * connection, not the transaction, so it would have to be released by hand
 * after the commit on the very connection knex has already handed back to
 * the pool. The row of a key (table `<prefix>name_locks`, created by the core
 * migration) is inserted the first time and locked by an upsert that writes
 * nothing new: `INSERT … ON CONFLICT DO UPDATE` (PostgreSQL) / `ON DUPLICATE
 * KEY UPDATE` (MariaDB) takes the row's exclusive lock in one statement,
 * waiting for a concurrent holder (or a concurrent first insert) to commit
 * or roll back. The lock is held until the transaction ends. SQLite runs one
 * writer at a time already: nothing to do there.
 *
 * Taking several keys: in sorted order (as `lockNames` does), so that two
 * transactions never wait for each other's keys in opposite orders.
 *
 * On MariaDB (REPEATABLE READ) reads see the snapshot of the transaction's
 * first plain read, not what a previous holder of the lock committed: take
 * the locks before the transaction's first plain read (a locking statement
 * does not start the snapshot), as the calendar writes do.
 */
export async function lockNames(tx: { knex: Knex; dialect: Dialect; tables: Tables }, parts: ReadonlyArray<readonly string[]>): Promise<void> {
  if (tx.dialect.serialisesWriters) return;
  const keys = [...new Set(parts.map(lockKey))].sort();
  for (const key of keys) {
    await tx.knex(tx.tables.nameLocks).insert({ lock_key: key }).onConflict("lock_key").merge();
  }
}

/** A fixed-width key (the name may be far longer than an index allows). */
function lockKey(parts: readonly string[]): string {
  return createHash("sha256").update(JSON.stringify(parts)).digest("hex");
}
