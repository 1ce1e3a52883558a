/**
 * The range of the id columns. Every id column (posts, terms, users and the
 * columns that refer to them) is a 32-bit `integer` (MariaDB: unsigned), and
 * PostgreSQL refuses to compare such a column with a value outside its range
 * ("value … is out of range for type integer") instead of matching nothing.
 * An id past the range cannot exist on any database, so the engine drops it
 * before querying: it is simply not found, the same on all three.
 */
export const MAX_STORED_ID = 2_147_483_647;

/** A positive integer that can be the id of a stored row. */
export function isStoredId(id: number): boolean {
  return Number.isSafeInteger(id) && id > 0 && id <= MAX_STORED_ID;
}

/** The ids that can exist (see above); the others can only match nothing. */
export function storedIds(ids: readonly number[]): number[] {
  return ids.filter(isStoredId);
}
