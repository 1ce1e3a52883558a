/**
 * The length to give an array that must hold `n`: a quarter more (at least
 * `least`), not twice as much. The index's arrays are most of its memory and
 * live as long as the process; at 100k events doubling left a third of them
 * empty. Growth stays amortised O(1): each value is copied about four
 * times more.
 */
export function roomFor(n: number, least = 1024): number {
  return Math.max(least, n + (n >> 2));
}

/**
 * A short list of numbers per slot (a post's terms, its links, its words), all in one
 * pool: 100,000 posts as two small arrays each were ~30 MB of heap, 200,000
 * objects that every full collection marked. A list written again goes to
 * the end of the pool; a full pool is compacted into one with a quarter
 * more room than its live lists take (`roomFor`).
 * Readers walk `pool` from `start[slot]` for `length[slot]` numbers, within
 * one synchronous call (a write may move the pool).
 */
export class PackedLists {
  start = new Int32Array(0);
  length = new Int32Array(0);
  pool = new Int32Array(1024);
  private top = 0;
  private stale = 0;

  grow(capacity: number): void {
    const start = new Int32Array(capacity);
    start.set(this.start);
    const length = new Int32Array(capacity);
    length.set(this.length);
    this.start = start;
    this.length = length;
  }

  set(slot: number, values: readonly number[]): void {
    this.clear(slot);
    if (values.length === 0) return;
    if (this.top + values.length > this.pool.length) this.makeRoom(values.length);
    this.pool.set(values, this.top);
    this.start[slot] = this.top;
    this.length[slot] = values.length;
    this.top += values.length;
  }

  clear(slot: number): void {
    this.stale += this.length[slot];
    this.length[slot] = 0;
  }

  /** A copy of the slot's list. */
  get(slot: number): number[] {
    return Array.from(this.pool.subarray(this.start[slot], this.start[slot] + this.length[slot]));
  }

  equals(slot: number, values: readonly number[]): boolean {
    const n = this.length[slot];
    if (n !== values.length) return false;
    const from = this.start[slot];
    for (let i = 0; i < n; i++) if (this.pool[from + i] !== values[i]) return false;
    return true;
  }

  private makeRoom(needed: number): void {
    const live = this.top - this.stale;
    const pool = new Int32Array(roomFor(live + needed));
    // Compacted in slot order: every live list is copied once, the stale ones are left behind.
    let top = 0;
    for (let slot = 0; slot < this.length.length; slot++) {
      const n = this.length[slot];
      if (n === 0) continue;
      pool.set(this.pool.subarray(this.start[slot], this.start[slot] + n), top);
      this.start[slot] = top;
      top += n;
    }
    this.pool = pool;
    this.top = top;
    this.stale = 0;
  }
}
