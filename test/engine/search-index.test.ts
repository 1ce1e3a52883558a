import { expect } from "chai";
import fc from "fast-check";
import { createEngine, type Engine } from "../../lib/engine";
import { trigramMatch } from "../../lib/db/search-index";
import { parseSearch } from "../../lib/posts/search";
import type { PostQuery } from "../../lib/posts/types";
import { forEachDatabase } from "../support/databases";
import { useFixture } from "../support/engine";

/**
 * The search index (lib/db/search-index.ts): an FTS5 trigram table on
 * SQLite, pg_trgm indexes on PostgreSQL. It may only narrow candidates: the
 * results must stay those of the plain LIKE scan, and the SQLite table must
 * follow every write.
 */

/**
 * A post type with no search fields, so that its search can use the index;
 * pg_trgm allowed (calpress creates it only when asked: test/engine/pg-extensions.test.ts).
 */
const setup = { setup: (e: Engine) => e.registerPostType("article", { supports: ["title", "editor", "excerpt"] }), pgExtensions: ["pg_trgm"] as const };

/** What the LIKE scan means for ASCII text on every database: each word (exclusions: none) in some field, ASCII case folded. */
function scanMatches(search: string, post: { title: string; excerpt: string; content: string }): boolean {
  if (search.trim() === "") return true;
  const fold = (s: string): string => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
  const fields = [post.title, post.excerpt, post.content].map(fold);
  return parseSearch(search).every((t) => fields.some((f) => f.includes(fold(t.text))) !== t.exclude);
}

forEachDatabase("engine: search index", (db) => {
  const fx = useFixture(db, setup);

  const find = async (search: string, extra: Partial<PostQuery> = {}): Promise<string[]> =>
    (await fx().engine.posts.find({ type: "article", search, perPage: 0, orderBy: [{ field: "id", dir: "asc" }], ...extra })).posts.map((p) => p.title);

  /** SQLite only: FTS5's own check that the index holds exactly what the rows hold. */
  const integrityCheck = async (): Promise<void> => {
    if (db.name !== "sqlite") return;
    await fx().engine.knex.raw("INSERT INTO ??(??, rank) VALUES ('integrity-check', 1)", [fx().engine.tables.postsSearch, fx().engine.tables.postsSearch]);
  };

  it("has the index after migrate, and a second migrate changes nothing", async () => {
    const { engine } = fx();
    if (db.name === "sqlite") {
      expect(await engine.hasSearchIndex()).to.equal(true);
    } else if (db.name === "postgres") {
      const r = (await engine.knex.raw("select indexname from pg_indexes where tablename = ? and indexname like '%_trgm' order by 1", [engine.tables.posts])) as {
        rows: Array<{ indexname: string }>;
      };
      expect(r.rows.map((x) => x.indexname)).to.deep.equal(["cp_posts_content_trgm", "cp_posts_excerpt_trgm", "cp_posts_title_trgm"]);
    }
    await engine.migrate();
    await integrityCheck();
  });

  it("follows create, update, trash, untrash and delete", async () => {
    const { engine } = fx();
    const post = await engine.posts.create({ type: "article", status: "publish", title: "Quokka picnic", content: "bring a blanket" });
    expect(await find("quokka")).to.deep.equal(["Quokka picnic"]);
    expect(await find("blanket")).to.deep.equal(["Quokka picnic"]);

    await engine.posts.update(post.id, { title: "Wombat picnic", excerpt: "hammock weather" });
    expect(await find("quokka")).to.deep.equal([]);
    expect(await find("wombat")).to.deep.equal(["Wombat picnic"]);
    expect(await find("hammock")).to.deep.equal(["Wombat picnic"]);

    // Trashed posts leave published searches; asked for by status they are still found (the index covers every post).
    await engine.posts.trash(post.id);
    expect(await find("wombat", { status: ["publish"] })).to.deep.equal([]);
    expect(await find("wombat", { status: ["trash"] })).to.deep.equal(["Wombat picnic"]);
    await engine.posts.untrash(post.id);
    expect(await find("wombat", { status: ["publish"] })).to.deep.equal(["Wombat picnic"]);

    await engine.posts.delete(post.id);
    expect(await find("wombat")).to.deep.equal([]);
    await integrityCheck();
  });

  it("matches substrings inside words, in any letter case, in title, excerpt or content", async () => {
    const { engine } = fx();
    await engine.posts.create({ type: "article", status: "publish", title: "Live Coding Night" });
    await engine.posts.create({ type: "article", status: "publish", title: "Encoder workshop", excerpt: "50%_off! deal" });
    await engine.posts.create({ type: "article", status: "publish", title: "Reading", content: "a quiet CODA" });
    expect(await find("oding")).to.deep.equal(["Live Coding Night"]);
    expect(await find("CODI")).to.deep.equal(["Live Coding Night"]);
    expect(await find("cod")).to.deep.equal(["Live Coding Night", "Encoder workshop", "Reading"]);
    // Words shorter than a trigram, mixed with longer ones; words may match in different fields.
    expect(await find("co ng")).to.deep.equal(["Live Coding Night", "Reading"]);
    expect(await find("co ng live")).to.deep.equal(["Live Coding Night"]);
    expect(await find("%_o")).to.deep.equal(["Encoder workshop"]);
    expect(await find("cod -night")).to.deep.equal(["Encoder workshop", "Reading"]);
    expect(await find('"coding night"')).to.deep.equal(["Live Coding Night"]);
  });

  it("keeps the exact comparison: SQLite folds only ASCII letters, whatever the index folds", async () => {
    if (db.name !== "sqlite") return;
    const { engine } = fx();
    await engine.posts.create({ type: "article", status: "publish", title: "ÉCOLE d'été" });
    // The trigram index folds É to é, so it offers the post; LOWER() LIKE does not, so it is not a match (as before the index).
    expect(await find("école")).to.deep.equal([]);
    expect(await find("ÉCOLE")).to.deep.equal(["ÉCOLE d'été"]);
    expect(await find("cole d'été")).to.deep.equal(["ÉCOLE d'été"]);
  });

  it("finds exactly what a scan finds, for any words (property)", async function () {
    this.timeout(120_000);
    const { engine } = fx();
    await engine.knex(engine.tables.posts).where({ type: "article" }).delete();
    // Short texts over a small alphabet, so that words hit, miss and overlap often.
    const alphabet = ["a", "b", "c", "A", "B", "C", " ", "%", "_", "!", '"', "-", "'", "x"];
    const text = (max: number) => fc.array(fc.constantFrom(...alphabet), { maxLength: max }).map((cs) => cs.join(""));
    const corpus = fc.sample(fc.record({ title: text(12), excerpt: text(8), content: text(16) }), { numRuns: 60, seed: 7 });
    for (const p of corpus) await engine.posts.create({ type: "article", status: "publish", ...p });
    const titles = (await engine.posts.find({ type: "article", perPage: 0, orderBy: [{ field: "id", dir: "asc" }] })).posts;
    await fc.assert(
      fc.asyncProperty(text(10), async (search) => {
        const expected = titles.filter((p) => scanMatches(search, p)).map((p) => p.id);
        const got = (await engine.posts.find({ type: "article", search, perPage: 0, orderBy: [{ field: "id", dir: "asc" }] })).posts.map((p) => p.id);
        expect(got, JSON.stringify(search)).to.deep.equal(expected);
        // The total of a page agrees with the list (it is counted, and then served from the cache).
        const page = await engine.posts.find({ type: "article", search, perPage: 2 });
        expect(page.total, JSON.stringify(search)).to.equal(expected.length);
      }),
      { numRuns: 150, seed: 11 },
    );
    await integrityCheck();
  });

  it("is filled from the rows already there when an older database is migrated", async () => {
    const { engine } = fx();
    const k = engine.knex;
    if (db.name === "sqlite") {
      // The schema before the index: no search table, no triggers, no scheduler index.
      for (const t of ["posts_search_insert", "posts_search_update", "posts_search_delete"]) await k.raw("DROP TRIGGER IF EXISTS ??", [engine.tables.name(t)]);
      await k.raw("DROP TABLE IF EXISTS ??", [engine.tables.postsSearch]);
      await k.raw("DROP INDEX IF EXISTS ??", [engine.tables.name("posts_status_date_utc")]);
    } else if (db.name === "postgres") {
      for (const i of ["posts_title_trgm", "posts_excerpt_trgm", "posts_content_trgm", "posts_status_date_utc"]) await k.raw("DROP INDEX IF EXISTS ??", [engine.tables.name(i)]);
    }
    // Rows written while there was no index (as an older calpress wrote them).
    await engine.posts.create({ type: "article", status: "publish", title: "Platypus parade" });

    const second = await createEngine(fx().target, { pgExtensions: ["pg_trgm"] });
    try {
      second.engine.registerPostType("article", { supports: ["title", "editor", "excerpt"] });
      await second.engine.migrate();
      await second.engine.migrate();
      expect((await second.engine.posts.find({ type: "article", search: "typus" })).posts.map((p) => p.title)).to.deep.equal(["Platypus parade"]);
      if (db.name === "sqlite") {
        expect(await second.engine.hasSearchIndex()).to.equal(true);
        const rows: Array<{ name: string }> = await second.engine.knex("sqlite_master").where({ name: second.engine.tables.name("posts_status_date_utc") }).select("name");
        expect(rows).to.have.length(1);
      }
    } finally {
      await second.close();
    }
    await engine.migrate();
    expect(await find("typus")).to.deep.equal(["Platypus parade"]);
    await integrityCheck();
  });
});

describe("trigramMatch", () => {
  it("asks for every trigram of every word long enough, quoted", () => {
    expect(trigramMatch(["coding"])).to.equal('"cod" AND "odi" AND "din" AND "ing"');
    expect(trigramMatch(["ab", 'x"yz'])).to.equal('"x""y" AND """yz"');
    expect(trigramMatch(["été"])).to.equal('"été"');
  });

  it("gives nothing to narrow with for short words or text without a faithful UTF-8 form", () => {
    expect(trigramMatch(["ab", "c"])).to.equal(null);
    expect(trigramMatch(["a\u0000bc"])).to.equal(null);
    expect(trigramMatch([])).to.equal(null);
  });
});
