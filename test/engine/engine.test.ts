import { expect } from "chai";
import { createEngine, Engine } from "../../lib/engine";
import { EngineError } from "../../lib/engine-errors";
import { forEachDatabase, TestDatabase } from "../support/databases";
import { registerTestTypes, useFixture } from "../support/engine";

async function postCount(engine: Engine, title: string): Promise<number> {
  const row = await engine.knex(engine.tables.posts).where({ title }).count({ n: "*" }).first();
  return Number(row?.n ?? 0);
}

forEachDatabase("engine: transactions", (db) => {
  const fx = useFixture(db);

  it("rolls back a create whose term assignment fails: no post, no field row", async () => {
    const { engine } = fx();
    const fieldsBefore = Number((await engine.knex(engine.tables.fields("event")).count({ n: "*" }).first())?.n);
    try {
      await engine.posts.create({ type: "event", status: "publish", title: "Ghost", fields: { city: "Nowhere" }, meta: { a: "b" }, terms: { event_tag: [987654] } });
      expect.fail("should throw");
    } catch (err) {
      expect((err as EngineError).code).to.equal("invalid_term");
    }
    expect(await postCount(engine, "Ghost")).to.equal(0);
    expect(Number((await engine.knex(engine.tables.fields("event")).count({ n: "*" }).first())?.n)).to.equal(fieldsBefore);
    expect(Number((await engine.knex(engine.tables.postmeta).where({ meta_key: "a" }).count({ n: "*" }).first())?.n)).to.equal(0);
  });

  it("rolls back an update that fails half-way", async () => {
    const { engine } = fx();
    const tag = await engine.terms.create({ taxonomy: "event_tag", name: "Half Way" });
    const p = await engine.posts.create({ type: "event", status: "publish", title: "Before", terms: { event_tag: [tag.id] } });
    try {
      await engine.posts.update(p.id, { title: "After", status: "draft", links: { venue: [987654] } });
      expect.fail("should throw");
    } catch (err) {
      expect((err as EngineError).code).to.equal("invalid_link");
    }
    const again = await engine.posts.get(p.id);
    expect([again?.title, again?.status]).to.deep.equal(["Before", "publish"]);
    expect((await engine.terms.get(tag.id))?.count).to.equal(1);
  });

  it("commits or rolls back a caller's transaction whole, and nested calls reuse it", async () => {
    const { engine } = fx();
    await engine.transaction(async (tx) => {
      const nested = await tx.transaction(async (inner) => inner);
      expect(nested).to.equal(tx);
      const venue = await tx.posts.create({ type: "venue", status: "publish", title: "Tx Venue" });
      const term = await tx.terms.create({ taxonomy: "event_tag", name: "Tx Tag" });
      await tx.posts.create({ type: "event", status: "publish", title: "Tx Event", links: { venue: [venue.id] }, terms: { event_tag: [term.id] } });
    });
    expect(await postCount(engine, "Tx Event")).to.equal(1);
    try {
      await engine.transaction(async (tx) => {
        await tx.posts.create({ type: "venue", status: "publish", title: "Doomed Venue" });
        await tx.terms.create({ taxonomy: "event_tag", name: "Doomed Tag" });
        await tx.options.set("blogname", "Doomed");
        throw new Error("boom");
      });
      expect.fail("should throw");
    } catch (err) {
      expect((err as Error).message).to.equal("boom");
    }
    expect(await postCount(engine, "Doomed Venue")).to.equal(0);
    expect(await engine.terms.bySlug("event_tag", "doomed-tag")).to.equal(undefined);
    expect(await engine.options.get("blogname")).to.not.equal("Doomed");
    // A committed option write is seen at once by the engine that made it.
    await engine.options.get("blogname");
    await engine.transaction(async (tx) => {
      await tx.options.set("blogname", "Committed");
      expect(await tx.options.get("blogname")).to.equal("Committed");
    });
    expect(await engine.options.get("blogname")).to.equal("Committed");
  });
});

forEachDatabase("engine: options and engine independence", (db) => {
  let one: TestDatabase;
  let two: TestDatabase;
  const opened: Array<() => Promise<void>> = [];

  before(async () => {
    one = await db.create();
    two = await db.create();
  });
  after(async () => {
    for (const close of opened) await close();
    await one.drop();
    await two.drop();
  });

  const open = async (target: string): Promise<Engine> => {
    const { engine, close } = await createEngine(target);
    opened.push(close);
    return engine;
  };

  it("serves defaults, validates and caches options", async () => {
    const e = await open(one.target);
    await e.migrate();
    expect(await e.options.timezone()).to.equal("UTC");
    expect(await e.options.defaultLanguage()).to.equal("en");
    expect(await e.options.postsPerPage()).to.equal(10);
    expect(await e.options.get("date_format")).to.be.a("string");
    expect(await e.options.get("no_such_option")).to.equal(undefined);
    await e.options.set("posts_per_page", "25");
    expect(await e.options.postsPerPage()).to.equal(25);
    try {
      await e.options.set("posts_per_page", "0");
      expect.fail("should throw");
    } catch (err) {
      expect((err as EngineError).code).to.equal("invalid_input");
    }
  });

  it("lets a second engine on the same database notice a write within about a second", async function () {
    this.timeout(10_000);
    const a = await open(one.target);
    const b = await open(one.target);
    expect(await b.options.get("blogname")).to.equal("calpress");
    await a.options.set("blogname", "Shared Site");
    expect(await a.options.get("blogname")).to.equal("Shared Site");
    await new Promise((r) => setTimeout(r, 1100));
    expect(await b.options.get("blogname")).to.equal("Shared Site");
    // Reads within the second are served from the cache: no query at all.
    let queries = 0;
    const listener = (): void => {
      queries++;
    };
    b.knex.on("query", listener);
    await b.options.get("blogname");
    await b.options.timezone();
    b.knex.removeListener("query", listener);
    expect(queries).to.equal(0);
  });

  it("keeps two engines on two databases independent", async () => {
    const a = await open(one.target);
    const b = await open(two.target);
    registerTestTypes(a);
    a.registerPostType("only_a", {});
    await a.migrate();
    b.registerPostType("venue", {});
    await b.migrate();
    expect(a.postType("only_a")).to.not.equal(undefined);
    expect(b.postType("only_a")).to.equal(undefined);
    expect(b.taxonomy("event_tag")).to.equal(undefined);
    await b.options.set("timezone", "Europe/Helsinki");
    expect(await a.options.timezone()).to.equal("UTC");
    const pa = await a.posts.create({ type: "venue", status: "publish", title: "Only In A" });
    expect(await b.posts.get(pa.id)).to.equal(undefined);
    expect((await b.posts.find({ type: "venue" })).total).to.equal(0);
  });

  it("does not touch the schema before migrate()", async () => {
    const fresh = await db.create();
    try {
      const { engine, close } = await createEngine(fresh.target);
      try {
        expect(await engine.knex.schema.hasTable(engine.tables.posts)).to.equal(false);
        await engine.migrate();
        expect(await engine.knex.schema.hasTable(engine.tables.posts)).to.equal(true);
      } finally {
        await close();
      }
    } finally {
      await fresh.drop();
    }
  });
});
