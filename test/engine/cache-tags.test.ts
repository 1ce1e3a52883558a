/**
 * Cache tags (lib/db/cache-tags.ts): the triggers that bump them are what
 * stored answers trust, so each table whose rows an answer shows is checked
 * here, written the way a tool outside calpress would (plain SQL through
 * knex), on every database that keeps tags.
 */
import { expect } from "chai";
import os from "node:os";
import path from "node:path";
import { createEngine, type Engine } from "../../lib/engine";
import { EPOCH_TAG, postTag, readTagVersions, SITE_TAG, SLUGS_TAG, slugTag, termTag } from "../../lib/db/cache-tags";
import { cacheTagsMaintained } from "../../lib/db/dialects";
import { forEachDatabase, removeSqliteFile } from "../support/databases";
import { useCalendarEngine } from "../support/engine";

forEachDatabase("engine: cache tags", (db) => {
  let engine: Engine;
  useCalendarEngine(db, (made) => ({ engine } = made));

  const version = async (tag: number): Promise<number> => (await readTagVersions(engine.knex, engine.tables, [tag])).get(tag) ?? 0;
  /** Runs `write` and gives how much each tag moved. */
  const moved = async (tags: number[], write: () => Promise<unknown>): Promise<number[]> => {
    const before = await readTagVersions(engine.knex, engine.tables, tags);
    await write();
    const after = await readTagVersions(engine.knex, engine.tables, tags);
    return tags.map((t) => (after.get(t) ?? 0) - (before.get(t) ?? 0));
  };

  it("keeps them on every database, and every database has a random epoch", async () => {
    expect(cacheTagsMaintained(engine.knex)).to.equal(true);
    expect(engine.cacheTagsKept).to.equal(true);
    expect(await version(EPOCH_TAG)).to.be.greaterThan(0);
  });

  it("bumps a post's tag for its row, typed fields, meta, terms and links, and the slug tag only when a lookup could change", async function () {
    const k = engine.knex;
    const venue = await engine.posts.create({ type: "venue", title: "Hall", status: "publish" });
    const event = await engine.posts.create({ type: "event", title: "Night", status: "publish", fields: { start_local: "2030-01-01 10:00:00", end_local: "2030-01-01 11:00:00" } });
    const termId = (await engine.terms.create({ taxonomy: "post_tag", name: "jazz" })).id;
    const e = postTag(event.id);

    expect(await moved([e, SLUGS_TAG], () => k(engine.tables.posts).where({ id: event.id }).update({ title: "Night 2" }))).to.deep.equal([1, 0]);
    expect(await moved([e, SLUGS_TAG], () => k(engine.tables.posts).where({ id: event.id }).update({ slug: "night-two" }))).to.deep.equal([1, 1]);
    expect(await moved([e, SLUGS_TAG], () => k(engine.tables.posts).where({ id: event.id }).update({ status: "draft" }))).to.deep.equal([1, 1]);
    expect(await moved([e], () => k(engine.tables.fields("event")).where({ post_id: event.id }).update({ timezone: "Europe/Paris" }))).to.deep.equal([1]);
    expect(await moved([e], () => k(engine.tables.postmeta).insert({ post_id: event.id, meta_key: "k", meta_value: "v" }))).to.deep.equal([1]);
    expect(await moved([e], () => k(engine.tables.postmeta).where({ post_id: event.id }).update({ meta_value: "w" }))).to.deep.equal([1]);
    expect(await moved([e], () => k(engine.tables.postmeta).where({ post_id: event.id }).delete())).to.deep.equal([1]);
    expect(await moved([e, postTag(venue.id)], () => k(engine.tables.postLinks).insert({ from_id: event.id, relation: "venue", to_id: venue.id, position: 0 }))).to.deep.equal([1, 0]);
    expect(await moved([e], () => k(engine.tables.termRelationships).insert({ object_id: event.id, term_id: termId, term_order: 0 }))).to.deep.equal([1]);
    expect(await moved([termTag(termId), e], () => k(engine.tables.terms).where({ id: termId }).update({ name: "Jazz" }))).to.deep.equal([1, 0]);
    expect(await moved([e], () => k(engine.tables.termRelationships).where({ object_id: event.id }).delete())).to.deep.equal([1]);
    expect(await moved([postTag(venue.id), e], () => k(engine.tables.fields("venue")).where({ post_id: venue.id }).update({ city: "Gouda" }))).to.deep.equal([1, 0]);
    expect((await moved([SITE_TAG], () => engine.options.set("blogname", "Cal")))[0]).to.be.greaterThan(0);
    expect((await moved([SITE_TAG], () => engine.users.ensure({ login: "tagged", role: "editor" })))[0]).to.be.greaterThan(0);
    // The engine's own writes go through the same triggers.
    const [post, slugs] = await moved([e, SLUGS_TAG], () => engine.posts.trash(event.id));
    expect(post).to.be.greaterThan(0);
    expect(slugs).to.be.greaterThan(0);
  });

  it("bumps a slug's bucket, computed in SQL as slugTag computes it, when a post with that slug comes, goes or changes", async function () {
    const k = engine.knex;
    const slugs = ["a", "ab", "late-night-jazz-2030", "caf%c3%a9-concert", "café-ünïcode-😀-x", "x".repeat(150)];
    const other = slugTag("nothing-like-these-at-all-0");
    for (const slug of slugs) {
      const bucket = slugTag(slug);
      expect(bucket % 4).to.equal(3);
      const id = (await engine.posts.create({ type: "venue", title: `Bucket ${slugs.indexOf(slug)}`, status: "publish" })).id;
      // Set as it is (the engine would sanitise it): the trigger must hash exactly what is stored.
      expect(await moved([bucket, other], () => k(engine.tables.posts).where({ id }).update({ slug })), slug).to.deep.equal([1, 0]);
      expect(await moved([bucket], () => k(engine.tables.posts).where({ id }).update({ title: "Renamed" }))).to.deep.equal([0]);
      expect(await moved([bucket, slugTag(`${slug}-moved`)], () => k(engine.tables.posts).where({ id }).update({ slug: `${slug}-moved` }))).to.deep.equal([1, 1]);
      expect(await moved([slugTag(`${slug}-moved`)], () => k(engine.tables.posts).where({ id }).delete())).to.deep.equal([1]);
    }
  });

  it("bumps a term's tag when its count changes through the engine", async function () {
    const term = await engine.terms.create({ taxonomy: "post_tag", name: "Folk" });
    const tag = termTag(term.id);
    const [delta] = await moved([tag], () =>
      engine.posts.create({ type: "event", title: "Folk Night", status: "publish", terms: { post_tag: [term.id] }, fields: { start_local: "2030-01-02 10:00:00", end_local: "2030-01-02 11:00:00" } }),
    );
    expect(delta).to.be.greaterThan(0);
  });

  it("tag changes name every tag a commit changed after a position, in commit order across connections (the published index's feed)", async function () {
    this.timeout(30_000);
    const changes = engine.dialect.tagChanges(engine.knex, engine.tables);
    expect(changes, "every database follows tag changes").to.not.equal(null);
    if (changes === null) return;
    const k = engine.knex;
    const venue = async (title: string): Promise<number> => (await engine.posts.create({ type: "venue", title, status: "publish" })).id;
    const [a, b, c] = [await venue("Feed A"), await venue("Feed B"), await venue("Feed C")];
    const first = await changes.since(null);
    expect(first).to.have.property("all", true);
    const rename = (id: number, title: string, on = k): Promise<unknown> => on(engine.tables.posts).where({ id }).update({ title });

    await rename(a, "Feed A2");
    const afterA = await changes.since(first.position);
    expect("tags" in afterA && afterA.tags, "the renamed post").to.include(postTag(a));
    const quiet = await changes.since(afterA.position);
    expect("tags" in quiet && quiet.tags, "nothing since").to.not.include(postTag(a));
    // Another epoch (a database made again) starts over.
    expect(await changes.since(`1:${afterA.position.split(":").slice(1).join(":")}`)).to.have.property("all", true);

    if (db.name === "sqlite") return; // one writer at a time: nothing interleaves
    // A commit still open when a position is read is named after it, whichever connection it was on.
    let position = afterA.position;
    await k.transaction(async (trx) => {
      await rename(b, "Feed B2", trx);
      const during = await changes.since(position);
      position = during.position;
    });
    const afterB = await changes.since(position);
    expect("tags" in afterB && afterB.tags, "the commit that was open").to.include(postTag(b));
    // Two commits on two connections to one tag: the one who waited for the other wrote last, and a position past it has seen both.
    const before = afterB.position;
    let second: Promise<unknown> = Promise.resolve();
    await k.transaction(async (t1) => {
      await rename(c, "Feed C1", t1);
      // Waits for t1's row lock, so commits after it.
      second = k.transaction(async (trx) => rename(c, "Feed C2", trx));
      await new Promise((r) => setTimeout(r, 100));
    });
    await second;
    const both = await changes.since(before);
    expect("tags" in both && both.tags, "the tag both wrote").to.include(postTag(c));
    const past = await changes.since(both.position);
    expect("tags" in past && past.tags, "a position past both").to.not.include(postTag(c));
    expect((await k(engine.tables.posts).where({ id: c }).first("title")).title).to.equal("Feed C2");
  });

  it("a database made again in the same SQLite file gets a new epoch", async function () {
    if (db.name !== "sqlite") this.skip();
    const file = path.join(os.tmpdir(), `calpress-epoch-${process.pid}.sqlite`);
    const epochOf = async (): Promise<number> => {
      const made = await createEngine(file);
      try {
        await made.engine.migrate();
        return (await readTagVersions(made.engine.knex, made.engine.tables, [EPOCH_TAG])).get(EPOCH_TAG) ?? 0;
      } finally {
        await made.close();
      }
    };
    const remove = (): void => removeSqliteFile(file);
    try {
      const first = await epochOf();
      expect(await epochOf()).to.equal(first);
      remove();
      expect(await epochOf()).to.not.equal(first);
    } finally {
      remove();
    }
  });
});
