/**
 * The published index's words (lib/posts/word-index.ts): through writes,
 * rewrites, clears and reused slots, every search of ASCII words finds
 * exactly the posts a plain substring test of the lowered text finds (what
 * `LOWER(col) LIKE LOWER('%word%')` does), in both search modes, with and
 * without protected posts' other fields hidden; where the database folds
 * every character's case, the posts holding a character that lowers to
 * ASCII are left to the database (`unsure`), and only those.
 */
import { expect } from "chai";
import { isIndexedWord, WordIndex, type WordQuery } from "../../lib/posts/word-index";

const PIECES = ["ja", "zz", "Ni", "ght", "in", "dex", "Ro", "ck", "42", "7", "on", "E", "a"];
const SEPARATORS = [" ", " ", ", ", "-", "'", "<p>", "\n", "é", "\u212a", "\u0130", "ß"];

function makeRandom(seed: number): (n: number) => number {
  return (n) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return Math.floor((seed / 2147483648) * n);
  };
}

describe("published index: words", () => {
  for (const folding of ["ascii", "unicode"] as const) {
    it(`finds exactly what a substring test of the lowered text finds (${folding} case folding)`, () => {
      const random = makeRandom(folding === "ascii" ? 7 : 11);
      const lower = (t: string): string => (folding === "ascii" ? t.replace(/[A-Z]/g, (c) => c.toLowerCase()) : t.toLowerCase());
      const text = (): string => {
        let out = "";
        for (let n = random(12); n > 0; n--) {
          out += PIECES[random(PIECES.length)];
          if (random(2) === 0) out += PIECES[random(PIECES.length)];
          // Characters outside ASCII are rarer, as on a real calendar.
          out += random(8) === 0 ? SEPARATORS[7 + random(SEPARATORS.length - 7)] : SEPARATORS[random(7)];
        }
        return out;
      };
      const words = new WordIndex(folding);
      const texts = new Map<number, string[]>();
      const slots = 400;
      const isProtected = new Uint8Array(slots);
      const word = (): string => {
        // A piece of a word some post holds, or now and then one no post holds.
        if (random(10) === 0) return "qqz";
        const all = [...texts.values()].flat().join(" ").match(/[A-Za-z0-9]+/g) ?? ["a"];
        const w = all[random(all.length)].toLowerCase();
        const from = random(w.length);
        return w.slice(from, from + 1 + random(w.length - from));
      };
      const expected = (q: WordQuery): number[] => {
        const has = (slot: number, f: number, w: string): boolean => {
          if (f > 0 && q.titleOnly !== null && q.titleOnly[slot] === 1) return false;
          return lower((texts.get(slot) as string[])[f]).includes(w);
        };
        const found: number[] = [];
        for (const slot of [...texts.keys()].sort((a, b) => a - b)) {
          const included = q.oneField ? [0, 1, 2].some((f) => q.include.every((w) => has(slot, f, w))) : q.include.every((w) => [0, 1, 2].some((f) => has(slot, f, w)));
          const excluded = q.exclude.some((w) => [0, 1, 2].some((f) => has(slot, f, w)));
          if (included && !excluded) found.push(slot);
        }
        return found;
      };
      let asked = 0;
      let unsureSeen = 0;
      for (let step = 0; step < 3000; step++) {
        const slot = random(slots);
        const op = random(10);
        if (op < 5) {
          const t = [text(), random(3) === 0 ? "" : text(), text()];
          words.set(slot, t);
          texts.set(slot, t);
          isProtected[slot] = random(4) === 0 ? 1 : 0;
        } else if (op < 6) {
          words.clear(slot);
          texts.delete(slot);
        } else if (texts.size > 0) {
          const include = Array.from({ length: 1 + random(3) }, word);
          const exclude = random(3) === 0 ? [word()] : [];
          const q: WordQuery = { include, exclude, oneField: random(2) === 0, titleOnly: random(2) === 0 ? isProtected : null };
          const found = words.find(q, slots);
          if (found === null) throw new Error("full");
          const want = expected(q);
          const sure = want.filter((s) => !found.unsure.includes(s));
          expect(Array.from(found.slots), JSON.stringify(q)).to.deep.equal(sure);
          // Unsure: exactly the posts holding a character that lowers to ASCII, and only where the database folds it.
          const folds = [...texts.entries()].filter(([, t]) => t.some((x) => /[\u212a\u0130]/.test(x))).map(([s]) => s);
          expect([...found.unsure].sort((a, b) => a - b)).to.deep.equal(folding === "unicode" ? folds.sort((a, b) => a - b) : []);
          unsureSeen += found.unsure.length;
          asked++;
        }
      }
      expect(asked).to.be.greaterThan(1000);
      if (folding === "unicode") expect(unsureSeen).to.be.greaterThan(0);
    });
  }

  it("answers only words of ASCII letters and digits", () => {
    for (const w of ["jazz", "Jazz42", "7"]) expect(isIndexedWord(w), w).to.equal(true);
    for (const w of ["café", "rock'n'roll", "late night", "a_b", "50%", ""]) expect(isIndexedWord(w), w).to.equal(false);
  });
});
