import { expect } from "chai";
import type { Knex } from "knex";
import type { Engine } from "../../lib/engine";
import { EngineError } from "../../lib/engine-errors";
import { createIndexIfMissing, indexExists, migrateCore } from "../../lib/db/migrations";
import { forEachDatabase } from "../support/databases";
import { useFixture } from "../support/engine";

async function code(p: Promise<unknown>): Promise<{ code: string; data?: Record<string, unknown> }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof EngineError) return { code: err.code, data: err.data };
    throw err;
  }
  throw new Error("expected an EngineError");
}

async function counts(engine: Engine, ids: number[]): Promise<number[]> {
  const m = await engine.terms.getMany(ids);
  return ids.map((id) => m.get(id)?.count ?? -1);
}

forEachDatabase("engine: terms", (db) => {
  const fx = useFixture(db);

  it("creates terms with slugs, parents and languages", async () => {
    const { engine } = fx();
    const music = await engine.terms.create({ taxonomy: "event_cat", name: " Música ", description: "d" });
    expect(music).to.include({ name: "Música", slug: "musica", parent: 0, count: 0, language: "en", description: "d", taxonomy: "event_cat" });
    expect(music.translationGroup).to.equal(music.id);
    const jazz = await engine.terms.create({ taxonomy: "event_cat", name: "Jazz", parent: music.id });
    expect(jazz.parent).to.equal(music.id);
    expect((await engine.terms.ancestors(jazz.id)).map((t) => t.id)).to.deep.equal([music.id, jazz.id]);
    const fr = await engine.terms.create({ taxonomy: "event_cat", name: "Musica", language: "fr", translationGroup: music.id });
    expect(fr.slug).to.equal("musica");
    expect(fr.translationGroup).to.equal(music.id);
  });

  it("refuses the same name at the same level and language with term_exists", async () => {
    const { engine } = fx();
    const a = await engine.terms.create({ taxonomy: "event_tag", name: "Outdoor" });
    const dup = await code(engine.terms.create({ taxonomy: "event_tag", name: "outdoor" }));
    expect(dup).to.deep.equal({ code: "term_exists", data: { term_id: a.id } });
    // Another language, or another parent, is another level.
    expect((await engine.terms.create({ taxonomy: "event_tag", name: "Outdoor", language: "de" })).slug).to.equal("outdoor");
    const p1 = await engine.terms.create({ taxonomy: "event_cat", name: "Parent One" });
    const p2 = await engine.terms.create({ taxonomy: "event_cat", name: "Parent Two" });
    await engine.terms.create({ taxonomy: "event_cat", name: "Kids", parent: p1.id });
    const kids2 = await engine.terms.create({ taxonomy: "event_cat", name: "Kids", parent: p2.id });
    // wp_unique_term_slug: a child first gets its parent's slug appended.
    expect(kids2.slug).to.equal("kids-parent-two");
    // A distinct, free slug lets the same name through (WordPress does too).
    const other = await engine.terms.create({ taxonomy: "event_tag", name: "Outdoor", slug: "outdoor-events" });
    expect(other.slug).to.equal("outdoor-events");
  });

  it("numbers colliding slugs and validates parents", async () => {
    const { engine } = fx();
    const a = await engine.terms.create({ taxonomy: "event_tag", name: "Same Slug!" });
    const b = await engine.terms.create({ taxonomy: "event_tag", name: "Same-Slug" });
    const c = await engine.terms.create({ taxonomy: "event_tag", name: "same slug?" , slug: "same-slug-x" });
    expect([a.slug, b.slug, c.slug]).to.deep.equal(["same-slug", "same-slug-2", "same-slug-x"]);
    expect((await code(engine.terms.create({ taxonomy: "event_cat", name: "Orphan", parent: 999999 }))).code).to.equal("invalid_parent");
    expect((await code(engine.terms.create({ taxonomy: "event_tag", name: "Flat", parent: a.id }))).code).to.equal("invalid_parent");
    expect((await code(engine.terms.create({ taxonomy: "event_cat", name: "Cross", parent: a.id }))).code).to.equal("invalid_parent");
    expect((await code(engine.terms.create({ taxonomy: "event_cat", name: "   " }))).code).to.equal("invalid_input");
    expect((await code(engine.terms.create({ taxonomy: "nope", name: "x" }))).code).to.equal("invalid_type");
  });

  it("gives parallel creates of one slug distinct slugs, and a slug-less name its id", async function () {
    this.timeout(60_000);
    const { engine } = fx();
    const terms = await Promise.all(Array.from({ length: 20 }, (_, i) => engine.terms.create({ taxonomy: "event_tag", name: `Rock${"!".repeat(i + 1)}` })));
    const slugs = new Set(terms.map((t) => t.slug));
    expect(slugs.size).to.equal(20);
    expect(slugs.has("rock")).to.equal(true);
    const bare = await engine.terms.create({ taxonomy: "event_tag", name: "???" });
    expect(bare.slug).to.equal(String(bare.id));
  });

  it("rejects cycles on update and duplicate slugs", async () => {
    const { engine } = fx();
    const top = await engine.terms.create({ taxonomy: "event_cat", name: "Top" });
    const mid = await engine.terms.create({ taxonomy: "event_cat", name: "Mid", parent: top.id });
    const low = await engine.terms.create({ taxonomy: "event_cat", name: "Low", parent: mid.id });
    expect((await code(engine.terms.update(top.id, { parent: low.id }))).code).to.equal("invalid_parent");
    expect((await code(engine.terms.update(top.id, { parent: top.id }))).code).to.equal("invalid_parent");
    expect((await code(engine.terms.update(low.id, { slug: "top" }))).code).to.equal("duplicate_term_slug");
    expect((await code(engine.terms.update(low.id, { name: "Mid", parent: top.id }))).code).to.equal("term_exists");
    const moved = await engine.terms.update(low.id, { parent: top.id, name: "Lower", slug: "Lower Case", description: "new" });
    expect(moved).to.include({ parent: top.id, name: "Lower", slug: "lower-case", description: "new" });
    expect((await code(engine.terms.update(424242, { name: "x" }))).code).to.equal("not_found");
  });

  it("deletes a term: children move up, relationships go, the old record is returned", async () => {
    const { engine } = fx();
    const root = await engine.terms.create({ taxonomy: "event_cat", name: "Root D" });
    const mid = await engine.terms.create({ taxonomy: "event_cat", name: "Mid D", parent: root.id });
    const leaf = await engine.terms.create({ taxonomy: "event_cat", name: "Leaf D", parent: mid.id });
    const post = await engine.posts.create({ type: "event", status: "publish", title: "Tagged", terms: { event_cat: [mid.id, leaf.id] } });
    const gone = await engine.terms.delete(mid.id);
    expect(gone).to.include({ id: mid.id, count: 1 });
    expect((await engine.terms.get(leaf.id))?.parent).to.equal(root.id);
    expect((await engine.posts.get(post.id, { terms: true }))?.termIds?.event_cat).to.deep.equal([leaf.id]);
    expect(await engine.terms.get(mid.id)).to.equal(undefined);
    expect((await code(engine.terms.delete(mid.id))).code).to.equal("not_found");
  });

  it("keeps counts of published posts through publish, unpublish, trash, delete and term changes", async () => {
    const { engine } = fx();
    const t1 = await engine.terms.create({ taxonomy: "event_tag", name: "Count One" });
    const t2 = await engine.terms.create({ taxonomy: "event_tag", name: "Count Two" });
    const draft = await engine.posts.create({ type: "event", status: "draft", title: "C1", terms: { event_tag: [t1.id] } });
    expect(await counts(engine, [t1.id, t2.id])).to.deep.equal([0, 0]);
    await engine.posts.update(draft.id, { status: "publish" });
    expect(await counts(engine, [t1.id, t2.id])).to.deep.equal([1, 0]);
    const pub = await engine.posts.create({ type: "event", status: "publish", title: "C2", terms: { event_tag: [t1.id, t2.id] } });
    expect(await counts(engine, [t1.id, t2.id])).to.deep.equal([2, 1]);
    await engine.posts.update(pub.id, { terms: { event_tag: [t2.id] } });
    expect(await counts(engine, [t1.id, t2.id])).to.deep.equal([1, 1]);
    await engine.posts.update(draft.id, { status: "private" });
    expect(await counts(engine, [t1.id, t2.id])).to.deep.equal([0, 1]);
    await engine.posts.update(draft.id, { status: "publish" });
    await engine.posts.trash(draft.id);
    expect(await counts(engine, [t1.id, t2.id])).to.deep.equal([0, 1]);
    await engine.posts.untrash(draft.id);
    expect(await counts(engine, [t1.id, t2.id])).to.deep.equal([1, 1]);
    await engine.posts.delete(pub.id);
    expect(await counts(engine, [t1.id, t2.id])).to.deep.equal([1, 0]);
    // Relationships survive trash and are gone after delete.
    await engine.posts.trash(draft.id);
    expect((await engine.posts.get(draft.id, { terms: ["event_tag"] }))?.termIds).to.deep.equal({ event_tag: [t1.id] });
    await engine.posts.delete(draft.id);
    expect(await engine.knex(engine.tables.termRelationships).where({ term_id: t1.id }).count({ n: "*" }).first()).to.satisfy((r: { n: unknown }) => Number(r.n) === 0);
    // recount() repairs a count written behind the engine's back.
    await engine.knex(engine.tables.terms).where({ id: t1.id }).update({ count: 42 });
    await engine.terms.recount([t1.id]);
    expect(await counts(engine, [t1.id])).to.deep.equal([0]);
  });

  it("recounts a term through the small (id, status) index of posts, which an older database gets on opening", async () => {
    const { engine } = fx();
    const { knex, tables } = engine;
    const index = tables.name("posts_id_status");
    expect(await indexExists(knex, tables, tables.posts, index)).to.equal(true);
    await knex.schema.alterTable(tables.posts, (t) => t.dropIndex(["id", "status"], index));
    expect(await indexExists(knex, tables, tables.posts, index)).to.equal(false);
    await migrateCore(knex, tables);
    expect(await indexExists(knex, tables, tables.posts, index)).to.equal(true);
    // Made again when missing, and a second run changes nothing.
    await createIndexIfMissing(knex, tables, tables.posts, index, ["id", "status"]);

    const cat = await engine.terms.create({ taxonomy: "event_cat", name: "Counted" });
    const recounts: Array<{ sql: string; bindings: readonly Knex.RawBinding[] }> = [];
    const listener = (q: { sql: string; bindings?: readonly Knex.RawBinding[] }): void => {
      if (/count\(\*\)/i.test(q.sql) && /^update/i.test(q.sql.trim())) recounts.push({ sql: q.sql, bindings: q.bindings ?? [] });
    };
    knex.on("query", listener);
    try {
      await engine.posts.create({ type: "event", status: "publish", title: "Counted once", terms: { event_cat: [cat.id] } });
    } finally {
      knex.removeListener("query", listener);
    }
    expect(recounts).to.have.length(1);
    expect(await counts(engine, [cat.id])).to.deep.equal([1]);
    // SQLite's plan names the index it reads (the other databases choose by their own statistics, not asserted).
    if (db.name === "sqlite") {
      // With statistics (connections run PRAGMA optimize; a site of a few posts has none, and the rowid is as good there).
      await knex.raw("ANALYZE");
      const plan = (await knex.raw(`EXPLAIN QUERY PLAN ${recounts[0].sql}`, recounts[0].bindings)) as Array<{ detail: string }>;
      expect(plan.map((r) => r.detail).join(" | ")).to.include(`COVERING INDEX ${index}`);
    }
  });

  it("refuses unknown terms and taxonomies the type does not have", async () => {
    const { engine } = fx();
    expect((await code(engine.posts.create({ type: "event", title: "x", terms: { event_tag: [987654] } }))).code).to.equal("invalid_term");
    expect((await code(engine.posts.create({ type: "venue", title: "x", terms: { event_tag: [] } }))).code).to.equal("invalid_type");
    const cat = await engine.terms.create({ taxonomy: "event_cat", name: "Wrong Tax" });
    expect((await code(engine.posts.create({ type: "event", title: "x", terms: { event_tag: [cat.id] } }))).code).to.equal("invalid_term");
  });

  describe("queries", () => {
    let ids: Record<string, number> = {};
    let postId = 0;
    before(async () => {
      const { engine } = fx();
      const mk = async (name: string, extra: { parent?: number; description?: string; language?: string } = {}): Promise<number> =>
        (await engine.terms.create({ taxonomy: "event_cat", name, ...extra })).id;
      ids = {};
      ids.arts = await mk("Q Arts", { description: "b" });
      ids.film = await mk("Q Film", { parent: ids.arts, description: "a" });
      ids.dance = await mk("Q Dance", { parent: ids.arts, description: "c" });
      ids.sport = await mk("Q Sport", { description: "a" });
      ids.frArts = await mk("Q Arts", { language: "fr" });
      postId = (await engine.posts.create({ type: "event", status: "publish", title: "Q", terms: { event_cat: [ids.sport, ids.film] } })).id;
    });

    const names = async (q: Omit<Parameters<Engine["terms"]["find"]>[0], "taxonomy">): Promise<string[]> =>
      (await fx().engine.terms.find({ taxonomy: "event_cat", language: "en", search: "q ", ...q })).terms.map((t) => t.name);

    it("orders by name by default, and by the other columns with id as tie-breaker", async () => {
      expect(await names({})).to.deep.equal(["Q Arts", "Q Dance", "Q Film", "Q Sport"]);
      expect(await names({ order: "desc" })).to.deep.equal(["Q Sport", "Q Film", "Q Dance", "Q Arts"]);
      expect(await names({ orderBy: "id" })).to.deep.equal(["Q Arts", "Q Film", "Q Dance", "Q Sport"]);
      expect(await names({ orderBy: "description" })).to.deep.equal(["Q Film", "Q Sport", "Q Arts", "Q Dance"]);
      expect(await names({ orderBy: "count", order: "desc" })).to.deep.equal(["Q Sport", "Q Film", "Q Dance", "Q Arts"]);
      expect(await names({ orderBy: "include", include: [ids.sport, ids.arts, ids.film] })).to.deep.equal(["Q Sport", "Q Arts", "Q Film"]);
      expect(await names({ orderBy: "slug__in", slug: ["q-film", "q-arts"] })).to.deep.equal(["Q Film", "Q Arts"]);
      expect(await names({ orderBy: "none" })).to.deep.equal(["Q Arts", "Q Film", "Q Dance", "Q Sport"]);
    });

    it("filters by include, exclude, search, slug, name, parent, post, hideEmpty and language", async () => {
      expect(await names({ exclude: [ids.arts] })).to.deep.equal(["Q Dance", "Q Film", "Q Sport"]);
      expect(await names({ search: "AN" })).to.deep.equal(["Q Dance"]);
      expect(await names({ search: "q-f" })).to.deep.equal(["Q Film"]);
      expect(await names({ search: "%" })).to.deep.equal([]);
      expect(await names({ slug: ["q-sport"] })).to.deep.equal(["Q Sport"]);
      expect(await names({ name: ["Q Dance"] })).to.deep.equal(["Q Dance"]);
      expect(await names({ parent: ids.arts })).to.deep.equal(["Q Dance", "Q Film"]);
      expect(await names({ post: postId, orderBy: "term_order" })).to.deep.equal(["Q Sport", "Q Film"]);
      expect(await names({ hideEmpty: true })).to.deep.equal(["Q Film", "Q Sport"]);
      expect(await names({ language: "fr" })).to.deep.equal(["Q Arts"]);
    });

    it("pages with an exact total", async () => {
      const { engine } = fx();
      const page1 = await engine.terms.find({ taxonomy: "event_cat", language: "en", search: "q ", perPage: 3, page: 1 });
      const page2 = await engine.terms.find({ taxonomy: "event_cat", language: "en", search: "q ", perPage: 3, page: 2 });
      const page3 = await engine.terms.find({ taxonomy: "event_cat", language: "en", search: "q ", perPage: 3, page: 3 });
      expect([page1.total, page2.total, page3.total]).to.deep.equal([4, 4, 4]);
      expect(page1.terms.length + page2.terms.length).to.equal(4);
      expect(page3.terms).to.deep.equal([]);
    });

    it("finds by slug and name preferring the language", async () => {
      const { engine } = fx();
      expect((await engine.terms.bySlug("event_cat", "q-arts", "fr"))?.id).to.equal(ids.frArts);
      expect((await engine.terms.bySlug("event_cat", "q-arts", "it"))?.id).to.equal(ids.arts);
      expect((await engine.terms.byName("event_cat", "q arts", 0, "en"))?.id).to.equal(ids.arts);
      expect(await engine.terms.byName("event_cat", "q arts", ids.sport)).to.equal(undefined);
    });
  });
});
