import { expect } from "chai";
import { createEngine, type Engine } from "../../lib/engine";
import { isReadStatement } from "../../lib/db/read-statement";
import type { Term } from "../../lib/taxonomy/types";
import { forEachDatabase } from "../support/databases";
import { registerTestTypes, useFixture } from "../support/engine";

/**
 * List totals are counted once and reused while the database is unchanged
 * (SQLite; lib/cache/revision.ts). Whatever the database, a total must follow
 * every write at once: this engine's, a transaction's, raw SQL through the
 * same knex, and another connection's (another process).
 */
forEachDatabase("engine: list totals stay exact", (db) => {
  const fx = useFixture(db, { setup: (e: Engine) => e.registerPostType("article", { supports: ["title"] }) });

  // perPage 1 with several matches: the page is full, so the total is counted.
  const total = async (engine: Engine): Promise<number> => (await engine.posts.find({ type: "article", status: ["publish"], perPage: 1 })).total;
  const make = (engine: Engine, title: string) => engine.posts.create({ type: "article", status: "publish", title });

  it("follows this engine's writes, its transactions, raw SQL and another connection's commits", async () => {
    const { engine } = fx();
    await make(engine, "one");
    const two = await make(engine, "two");
    expect(await total(engine)).to.equal(2);
    expect(await total(engine)).to.equal(2);
    expect(await engine.posts.count({ type: "article", status: ["publish"] })).to.equal(2);

    await make(engine, "three");
    expect(await total(engine)).to.equal(3);

    await engine.transaction(async (tx) => {
      await tx.posts.create({ type: "article", status: "publish", title: "four" });
      // Inside the transaction its own write counts.
      expect(await total(tx)).to.equal(4);
    });
    expect(await total(engine)).to.equal(4);

    await engine
      .transaction(async (tx) => {
        await tx.posts.create({ type: "article", status: "publish", title: "rolled back" });
        throw new Error("roll back");
      })
      .catch(() => undefined);
    expect(await total(engine)).to.equal(4);

    await engine.knex(engine.tables.posts).where({ id: two.id }).update({ status: "draft" });
    expect(await total(engine)).to.equal(3);
    expect(await engine.posts.count({ type: "article", status: ["publish"] })).to.equal(3);

    const other = await createEngine(fx().target);
    try {
      other.engine.registerPostType("article", { supports: ["title"] });
      await make(other.engine, "from elsewhere");
      expect(await total(engine)).to.equal(4);
      await other.engine.posts.trash(two.id);
      await other.engine.knex(other.engine.tables.posts).where({ title: "one" }).update({ status: "private" });
      expect(await total(engine)).to.equal(3);
    } finally {
      await other.close();
    }
  });

  it("a token every process shares: PostgreSQL's snapshot, MariaDB's commit slots, equal in two engines until anything commits", async function () {
    const { engine } = fx();
    if (engine.readCache === null) this.skip();
    const other = await createEngine(fx().target);
    try {
      other.engine.registerPostType("article", { supports: ["title"] });
      const mine = engine.readCache!;
      const theirs = other.engine.readCache!;
      if (db.name === "sqlite") {
        // SQLite's data_version is per connection: no token can be compared across processes.
        expect(await mine.sharedToken()).to.equal(null);
        return;
      }
      await engine.posts.count({ type: "article" });
      const start = await mine.sharedToken();
      expect(start).to.be.a("string").and.not.equal("");
      // This process's reads and statement counter are no part of it.
      await make(engine, "local write");
      const afterMine = await mine.sharedToken();
      expect(afterMine).to.not.equal(start);
      expect(await theirs.sharedToken()).to.equal(afterMine);
      expect(await mine.sharedToken()).to.equal(afterMine);
      await make(other.engine, "from elsewhere");
      const afterTheirs = await mine.sharedToken();
      expect(afterTheirs).to.not.equal(afterMine);
      // A transaction that has written but not committed changes nothing anyone else can
      // read, nor the token (the snapshot's xmax is the last completed id + 1); its commit does.
      let during = "";
      await engine.transaction(async (tx) => {
        await tx.posts.create({ type: "article", status: "publish", title: "in a transaction" });
        during = (await theirs.sharedToken()) ?? "";
      });
      expect(during).to.equal(afterTheirs);
      expect(await theirs.sharedToken()).to.not.equal(during);
      // So does a rollback (a change of token that was not needed, never one that was missed).
      const beforeRollback = await mine.sharedToken();
      await engine
        .transaction(async (tx) => {
          await tx.posts.create({ type: "article", status: "publish", title: "rolled back" });
          throw new Error("roll back");
        })
        .catch(() => undefined);
      // MariaDB's sum of commit slots does not move for a rollback: nothing committed.
      if (db.name === "postgres") expect(await theirs.sharedToken()).to.not.equal(beforeRollback);
      else expect(await theirs.sharedToken()).to.equal(beforeRollback);
    } finally {
      await other.close();
    }
  });

  it("serves pages and their relations as they are now, after writes here or elsewhere", async () => {
    const { engine } = fx();
    const cat = await engine.terms.create({ taxonomy: "event_cat", name: "Cached" });
    const other = await engine.terms.create({ taxonomy: "event_cat", name: "Other" });
    const post = await engine.posts.create({ type: "event", status: "publish", title: "before", terms: { event_cat: [cat.id] } });
    const page = async (): Promise<Array<{ title: string; cats: number[] }>> =>
      (await engine.posts.find({ type: "event", status: ["publish"], ids: [post.id], with: { terms: true } })).posts.map((p) => ({
        title: p.title,
        cats: p.termIds?.event_cat ?? [],
      }));
    expect(await page()).to.deep.equal([{ title: "before", cats: [cat.id] }]);
    expect(await page()).to.deep.equal([{ title: "before", cats: [cat.id] }]);
    await engine.posts.update(post.id, { title: "after", terms: { event_cat: [other.id] } });
    expect(await page()).to.deep.equal([{ title: "after", cats: [other.id] }]);

    const second = await createEngine(fx().target);
    try {
      registerTestTypes(second.engine);
      await second.engine.posts.update(post.id, { title: "elsewhere", terms: { event_cat: [cat.id, other.id] } });
      expect(await page()).to.deep.equal([{ title: "elsewhere", cats: [cat.id, other.id] }]);
      await second.engine.knex(second.engine.tables.posts).where({ id: post.id }).update({ title: "raw sql elsewhere" });
      expect(await page()).to.deep.equal([{ title: "raw sql elsewhere", cats: [cat.id, other.id] }]);
    } finally {
      await second.close();
    }
  });

  it("shares posts and terms across writes that leave them unchanged, and shows a change made anywhere at once", async () => {
    const { engine } = fx();
    const cat = await engine.terms.create({ taxonomy: "event_cat", name: "Shared Cat" });
    const venue = await engine.posts.create({ type: "article", status: "publish", title: "Shared Hall" });
    const unrelated = await engine.posts.create({ type: "article", status: "publish", title: "Unrelated" });
    const read = async (): Promise<{ title: string | undefined; cat: string | undefined }> => ({
      title: (await engine.posts.getShared([venue.id])).get(venue.id)?.title,
      cat: (await engine.terms.getMany([cat.id])).get(cat.id)?.name,
    });
    const loads = async (): Promise<string[]> => {
      const seen: string[] = [];
      const onQuery = (q: { sql: string }): void => {
        if (/^select/i.test(q.sql) && /\b\w*(posts|terms)\W+(as \W*p\W+)?(left join|where)/i.test(q.sql)) seen.push(q.sql);
      };
      engine.knex.on("query", onQuery);
      try {
        expect(await read()).to.deep.equal({ title: "Shared Hall", cat: "Shared Cat" });
      } finally {
        engine.knex.removeListener("query", onQuery);
      }
      return seen;
    };
    await loads();
    // Another post written here, then raw SQL elsewhere on another row: the revision moved, these rows did not.
    await engine.posts.update(unrelated.id, { title: "Unrelated 2" });
    const second = await createEngine(fx().target);
    try {
      registerTestTypes(second.engine);
      second.engine.registerPostType("article", { supports: ["title"] });
      await second.engine.knex(second.engine.tables.posts).where({ id: unrelated.id }).update({ title: "Unrelated 3" });
      if (db.name !== "mysql") expect(await loads(), "proved by their tags, not read again").to.deep.equal([]);
      else await loads();
      await second.engine.knex(second.engine.tables.posts).where({ id: venue.id }).update({ title: "Renamed Hall" });
      await second.engine.knex(second.engine.tables.terms).where({ id: cat.id }).update({ name: "Renamed Cat" });
      expect(await read()).to.deep.equal({ title: "Renamed Hall", cat: "Renamed Cat" });
      await engine.terms.update(cat.id, { name: "Cat Here" });
      expect((await read()).cat).to.equal("Cat Here");
    } finally {
      await second.close();
    }
  });

  it("keeps term list totals exact through recounts", async () => {
    const { engine } = fx();
    const terms: Term[] = [];
    for (const name of ["Alpha", "Beta", "Gamma"]) terms.push(await engine.terms.create({ taxonomy: "event_cat", name }));
    const withPosts = async (): Promise<number> =>
      (await engine.terms.find({ taxonomy: "event_cat", include: terms.map((t) => t.id), hideEmpty: true, perPage: 1 })).total;
    await engine.posts.create({ type: "event", status: "publish", title: "e1", terms: { event_cat: [terms[0].id, terms[1].id] } });
    expect(await withPosts()).to.equal(2);
    const e2 = await engine.posts.create({ type: "event", status: "publish", title: "e2", terms: { event_cat: [terms[2].id] } });
    expect(await withPosts()).to.equal(3);
    await engine.posts.trash(e2.id);
    expect(await withPosts()).to.equal(2);
  });
});

describe("read statements (what does not invalidate cached totals)", () => {
  it("are SELECT, EXPLAIN and argument-less PRAGMAs; everything else counts as a write", () => {
    for (const sql of ["select 1", "  SELECT * from posts", "explain query plan select 1", "PRAGMA data_version", "pragma optimize;"]) {
      expect(isReadStatement(sql), sql).to.equal(true);
    }
    for (const sql of ["insert into posts values (1)", "update posts set a = 1", "delete from posts", "BEGIN;", "COMMIT;", "ROLLBACK", "PRAGMA journal_mode = WAL", "with x as (select 1) delete from posts", undefined]) {
      expect(isReadStatement(sql), String(sql)).to.equal(false);
    }
  });
});
