import { expect } from "chai";
import * as fs from "fs";
import * as path from "path";
import { removeAccents, sanitizeTitle, uniqueSlugCandidate } from "../../lib/format/slug";

interface SlugCase {
  title: string;
  slug: string;
}

// A copy of the shared vectors kept in the repository (test/vectors/README.md), so a bare clone runs them.
const VECTORS = path.resolve(__dirname, "../vectors/slugs.json");

function isSlugCase(value: unknown): value is SlugCase {
  if (typeof value !== "object" || value === null) return false;
  const { title, slug } = value as Record<string, unknown>;
  return typeof title === "string" && typeof slug === "string";
}

function loadCases(): SlugCase[] {
  const parsed: unknown = JSON.parse(fs.readFileSync(VECTORS, "utf8"));
  const cases = typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>).cases : undefined;
  if (!Array.isArray(cases) || !cases.every(isSlugCase)) throw new Error(`unexpected vector file shape: ${VECTORS}`);
  return cases;
}

const byteLength = (s: string): number => Buffer.byteLength(s, "utf8");

describe("format/slug", () => {
  describe("sanitizeTitle matches WordPress (slugs.json)", () => {
    const cases = loadCases();
    it("has vector cases", () => {
      expect(cases.length).to.be.greaterThan(0);
    });
    cases.forEach((c, i) => {
      it(`#${i} ${JSON.stringify(c.title.length > 60 ? `${c.title.slice(0, 60)}…` : c.title)}`, () => {
        expect(sanitizeTitle(c.title)).to.equal(c.slug);
      });
    });
  });

  describe("sanitizeTitle beyond the vectors", () => {
    it("keeps existing percent-encoded octets and drops other percent signs", () => {
      expect(sanitizeTitle("fran%c3%a7%ois")).to.equal("fran%c3%a7ois");
    });
    it("turns the times sign into x and strips typographic punctuation", () => {
      expect(sanitizeTitle("2×4 «quoted» ¿really?")).to.equal("2x4-quoted-really");
    });
    it("turns no-break spaces and dash entities into hyphens", () => {
      expect(sanitizeTitle("a\u00a0b&ndash;c&#8212;d")).to.equal("a-b-c-d");
    });
    it("strips zero-width characters and turns wide spaces into hyphens", () => {
      expect(sanitizeTitle("zero\u200bwidth\u2003space")).to.equal("zerowidth-space");
    });
    it("folds decomposed accents the same as precomposed ones", () => {
      expect(sanitizeTitle("Cafe\u0301")).to.equal("cafe");
    });
    it("lower-cases a final capital sigma as σ, like PHP 8.2's mb_strtolower", () => {
      expect(sanitizeTitle("ΟΔΟΣ")).to.equal(sanitizeTitle("οδοσ"));
    });
    it("never splits a multi-byte character at the 200-byte limit", () => {
      const slug = sanitizeTitle("a" + "д".repeat(100));
      expect(byteLength(slug)).to.be.at.most(200);
      expect(slug).to.equal("a" + "%d0%b4".repeat(33));
    });
  });

  describe("removeAccents", () => {
    it("uses the en_US table (ß → s, Æ → AE, Ø → O, € → E, £ removed)", () => {
      expect(removeAccents("ßÆøØ€£Ș")).to.equal("sAEoOES");
    });
    it("leaves letters without a Latin fold alone", () => {
      expect(removeAccents("Ωmega ﬁ")).to.equal("Ωmega ﬁ");
    });
  });

  describe("uniqueSlugCandidate", () => {
    it("returns the base for the first record", () => {
      expect(uniqueSlugCandidate("party", 1)).to.equal("party");
      expect(uniqueSlugCandidate("party", 0)).to.equal("party");
    });
    it("appends -n from the second record on", () => {
      expect(uniqueSlugCandidate("party", 2)).to.equal("party-2");
      expect(uniqueSlugCandidate("party", 13)).to.equal("party-13");
    });
    it("truncates a 200-byte ASCII base so that base-n fits in 200 bytes", () => {
      const base = "x".repeat(200);
      const second = uniqueSlugCandidate(base, 2);
      expect(second).to.equal("x".repeat(198) + "-2");
      expect(byteLength(second)).to.equal(200);
      expect(uniqueSlugCandidate(base, 10)).to.equal("x".repeat(197) + "-10");
    });
    it("drops hyphens left at the end of the truncated base", () => {
      const base = "a".repeat(197) + "-bc";
      expect(uniqueSlugCandidate(base, 2)).to.equal("a".repeat(197) + "-2");
    });
    it("truncates the longest vector slug like WordPress", () => {
      const long = sanitizeTitle("very long title ".repeat(20));
      expect(byteLength(long)).to.equal(200);
      const second = uniqueSlugCandidate(long, 2);
      expect(byteLength(second)).to.be.at.most(200);
      expect(second.endsWith("-2")).to.equal(true);
      expect(long.startsWith(second.slice(0, -2))).to.equal(true);
    });
    it("does not split a percent-encoded character when truncating", () => {
      const base = sanitizeTitle("ж".repeat(40));
      expect(byteLength(base)).to.equal(198);
      const second = uniqueSlugCandidate(base, 2);
      expect(second).to.equal("%d0%b6".repeat(33) + "-2");
      const tenth = uniqueSlugCandidate(base, 10);
      expect(tenth).to.equal("%d0%b6".repeat(32) + "-10");
      expect(byteLength(tenth)).to.be.at.most(200);
    });
  });
});
