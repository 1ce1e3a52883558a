/**
 * The published index's per-post lists (lib/posts/published-index.ts
 * PackedLists): whatever the order of writes, growth and compactions, each
 * slot reads back exactly the list last written to it.
 */
import { expect } from "chai";
import { PackedLists } from "../../lib/posts/packed-lists";

describe("published index: packed lists", () => {
  it("reads back every slot's last list through writes, clears, growth and compactions", () => {
    const lists = new PackedLists();
    const expected = new Map<number, number[]>();
    let seed = 42;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    let capacity = 0;
    for (let step = 0; step < 20_000; step++) {
      const slot = random(3000);
      if (slot >= capacity) {
        capacity = Math.max(1024, capacity * 2, slot + 1);
        lists.grow(capacity);
      }
      if (random(5) === 0) {
        lists.clear(slot);
        expected.delete(slot);
      } else {
        const values = Array.from({ length: random(7) }, () => random(1_000_000));
        lists.set(slot, values);
        expected.set(slot, values);
      }
    }
    for (let slot = 0; slot < capacity; slot++) {
      const want = expected.get(slot) ?? [];
      expect(lists.get(slot), `slot ${slot}`).to.deep.equal(want);
      expect(lists.equals(slot, want)).to.equal(true);
      if (want.length > 0) expect(lists.equals(slot, [...want.slice(1), -1])).to.equal(false);
    }
    // Written ~16,000 times, holding ~2,400 short lists: compacted, not grown without end.
    expect(lists.pool.length).to.be.below(40_000);
  });

  it("keeps a quarter more room than its live lists, not as much again (its memory lives as long as the process)", () => {
    const lists = new PackedLists();
    lists.grow(2000);
    // 2,000 lists of 5, each written three times: the pool fills with stale lists and is compacted several times.
    for (let round = 0; round < 3; round++) for (let slot = 0; slot < 2000; slot++) lists.set(slot, [round, slot, 1, 2, 3]);
    const live = 2000 * 5;
    for (let slot = 0; slot < 2000; slot++) expect(lists.get(slot)).to.deep.equal([2, slot, 1, 2, 3]);
    expect(lists.pool.length).to.be.at.least(live);
    expect(lists.pool.length).to.be.at.most(Math.ceil(live * 1.25) + 5);
  });
});
