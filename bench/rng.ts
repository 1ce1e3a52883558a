/**
 * A small seeded PRNG (mulberry32). The benchmark must pick the same
 * "random" events on every run and for both the real server and the ceiling,
 * so Math.random is not an option.
 */
export class Rng {
  private state: number;

  constructor(seed: number) {
    // Spread small consecutive seeds apart so workload streams do not correlate.
    this.state = (seed ^ 0x9e3779b9) >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  below(n: number): number {
    return Math.floor(this.next() * n);
  }

  pick<T>(list: readonly T[]): T {
    if (list.length === 0) throw new Error("Rng.pick on an empty list");
    return list[this.below(list.length)];
  }
}
