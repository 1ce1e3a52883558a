/**
 * Write guards (lib/cache/write-guard.ts): the first write transaction run in a
 * guard fails, and writes nothing, when a tag of its snapshot moved since,
 * whether the other writer committed before the guarded transaction began
 * or was still open while it began (PostgreSQL and MariaDB wait for it; SQLite's
 * second connection makes the guarded write run again).
 */
import { expect } from "chai";
import knexFactory, { type Knex } from "knex";
import type { Engine } from "../../lib/engine";
import { postTag } from "../../lib/db/cache-tags";
import { configFromTarget } from "../../lib/db/target";
import { runGuarded, snapshotTags } from "../../lib/cache/write-guard";
import { forEachDatabase, type TestDatabase } from "../support/databases";
import { useCalendarEngine } from "../support/engine";

class StaleError extends Error {
  constructor() {
    super("stale");
  }
}
const stale = (): Error => new StaleError();

forEachDatabase("engine: write guards", (db) => {
  let database: TestDatabase;
  let engine: Engine;
  useCalendarEngine(db, (made) => ({ engine, database } = made));

  const title = async (id: number): Promise<string> => ((await engine.knex(engine.tables.posts).where({ id }).first("title")) as { title: string }).title;
  const makePost = async (name: string): Promise<number> => (await engine.posts.create({ type: "venue", title: name, status: "publish" })).id;

  it("exist on every database: its triggers keep the cache tags", () => {
    expect(engine.cacheTagsKept).to.equal(true);
  });

  it("refuses the write when another writer committed after the snapshot, and lets it through otherwise", async () => {
    const id = await makePost("Guarded Hall");
    const other = await makePost("Other Hall");

    const snapshot = await snapshotTags(engine.knex, engine.tables, [postTag(id)]);
    // A write to another post does not matter.
    await engine.posts.update(other, { title: "Other Hall 2" });
    await runGuarded(snapshot, stale, () => engine.posts.update(id, { title: "First Edit" }));
    expect(await title(id)).to.equal("First Edit");

    const old = await snapshotTags(engine.knex, engine.tables, [postTag(id)]);
    // The concurrent editor, with plain SQL as any other process would.
    await engine.knex(engine.tables.posts).where({ id }).update({ title: "Concurrent Edit" });
    let caught: unknown;
    try {
      await runGuarded(old, stale, () => engine.posts.update(id, { title: "Lost Update" }));
    } catch (err) {
      caught = err;
    }
    expect(caught).to.be.instanceOf(StaleError);
    expect(await title(id)).to.equal("Concurrent Edit");
  });

  it("checks only the first transaction of the guarded work: the later ones follow its own write", async () => {
    const id = await makePost("Twice Hall");
    const snapshot = await snapshotTags(engine.knex, engine.tables, [postTag(id)]);
    await runGuarded(snapshot, stale, async () => {
      await engine.posts.update(id, { title: "Once" });
      await engine.posts.update(id, { title: "Twice" });
    });
    expect(await title(id)).to.equal("Twice");
  });

  it("catches a writer whose transaction was still open when the guarded one began", async function () {
    this.timeout(20_000);
    const id = await makePost("Racing Hall");
    const snapshot = await snapshotTags(engine.knex, engine.tables, [postTag(id)]);
    // A second connection, as another process would have.
    const second: Knex = knexFactory(configFromTarget(database.target));
    try {
      if (db.name === "sqlite") await second.raw("PRAGMA busy_timeout = 5000");
      const trx = await second.transaction();
      await trx(engine.tables.posts).where({ id }).update({ title: "Open Edit" });
      let settled = false;
      const guarded = runGuarded(snapshot, stale, () => engine.posts.update(id, { title: "Lost Update" })).then(
        () => {
          settled = true;
          return undefined;
        },
        (err: unknown) => {
          settled = true;
          return err;
        },
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      // It waits for the open transaction (its row lock, or the SQLite write lock) …
      expect(settled).to.equal(false);
      await trx.commit();
      // … and then finds the tag moved.
      expect(await guarded).to.be.instanceOf(StaleError);
      expect(await title(id)).to.equal("Open Edit");
    } finally {
      await second.destroy();
    }
  });
});
