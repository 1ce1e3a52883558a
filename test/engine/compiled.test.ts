/**
 * Statements compiled once per shape (lib/db/compiled.ts): the raw re-runs
 * give exactly what the builder gives, on every database, and a caller whose
 * bindings do not match the statement's is never served a kept text.
 */
import { expect } from "chai";
import type { Knex } from "knex";
import { selectByShape } from "../../lib/db/compiled";
import { dialectFor } from "../../lib/db/dialects";
import { forEachDatabase } from "../support/databases";
import { useFixture } from "../support/engine";

forEachDatabase("statements compiled by shape", (db) => {
  const fx = useFixture(db);

  it("runs the kept text with new bindings and returns the builder's rows", async () => {
    const { engine } = fx();
    const k = engine.knex;
    const a = await engine.posts.create({ type: "event", status: "publish", title: "Shape One" });
    const b = await engine.posts.create({ type: "event", status: "draft", title: "Shape Two" });
    const build = (id: number, status: string) => () => k(engine.tables.posts).where("id", id).whereNot("status", status).select("id", "title");
    const statements: string[] = [];
    const onQuery = (q: { sql: string }): void => {
      statements.push(q.sql);
    };
    k.on("query", onQuery);
    try {
      const shape = `test-shape-${db.name}-${Date.now()}`;
      const first = await selectByShape<{ id: number; title: string }>(k, engine.tables, shape, [a.id, "trash"], build(a.id, "trash"));
      const second = await selectByShape<{ id: number; title: string }>(k, engine.tables, shape, [b.id, "trash"], build(b.id, "trash"));
      const none = await selectByShape<{ id: number; title: string }>(k, engine.tables, shape, [b.id, "draft"], build(b.id, "draft"));
      expect(first.map((r) => [Number(r.id), r.title])).to.deep.equal([[a.id, "Shape One"]]);
      expect(second.map((r) => [Number(r.id), r.title])).to.deep.equal([[b.id, "Shape Two"]]);
      expect(none).to.deep.equal([]);
    } finally {
      k.removeListener("query", onQuery);
    }
    expect(new Set(statements).size).to.equal(1);
  });

  it("never keeps a shape whose bindings the caller got wrong", async () => {
    const { engine } = fx();
    const k: Knex = engine.knex;
    const a = await engine.posts.create({ type: "event", status: "publish", title: "Shape Three" });
    const shape = `test-wrong-${db.name}-${Date.now()}`;
    // Bindings named in the wrong order: a kept text would look up id "trash".
    const build = () => k(engine.tables.posts).where("id", a.id).whereNot("status", "trash").select("id");
    for (let i = 0; i < 3; i++) {
      const rows = await selectByShape<{ id: number }>(k, engine.tables, shape, ["trash", a.id], build);
      expect(rows.map((r) => Number(r.id))).to.deep.equal([a.id]);
    }
  });

  it("serves the post loads, the slug lookup and the relations from kept texts once warm", async () => {
    const { engine } = fx();
    const k: Knex = engine.knex;
    const post = await engine.posts.create({ type: "event", status: "publish", title: "Warm Load" });
    const read = async (): Promise<void> => {
      await engine.posts.getMany([post.id], { terms: true, links: true });
      await engine.posts.getBySlug("event", post.slug, { withRel: { terms: true } });
    };
    await read();
    const methods: string[] = [];
    const onQuery = (q: { method?: string; sql: string }): void => {
      if (/^select/i.test(q.sql)) methods.push(q.method ?? "");
    };
    k.on("query", onQuery);
    try {
      await read();
    } finally {
      k.removeListener("query", onQuery);
    }
    expect(methods).to.deep.equal(["raw", "raw", "raw", "raw"]);
  });

  it("runs a warm shape as a named statement where the database keeps statements, and never inside a transaction", async () => {
    const { engine } = fx();
    const k: Knex = engine.knex;
    const post = await engine.posts.create({ type: "event", status: "publish", title: "Named" });
    await engine.posts.getMany([post.id], { terms: true });
    const names: Array<string | undefined> = [];
    const onQuery = (q: { sql: string; options?: { name?: string } }): void => {
      if (/^select/i.test(q.sql)) names.push(q.options?.name);
    };
    k.on("query", onQuery);
    try {
      for (let i = 0; i < 8; i++) expect((await engine.posts.getMany([post.id], { terms: true })).get(post.id)?.title).to.equal("Named");
      await k.transaction(async (trx) => {
        const shape = `test-trx-${db.name}-${Date.now()}`;
        const build = () => trx(engine.tables.posts).where("id", post.id).select("id");
        for (let i = 0; i < 2; i++) expect((await selectByShape<{ id: number }>(trx, engine.tables, shape, [post.id], build)).map((r) => Number(r.id))).to.deep.equal([post.id]);
      });
    } finally {
      k.removeListener("query", onQuery);
    }
    const named = names.slice(0, 16);
    const inTrx = names.slice(16);
    if (dialectFor(k).preparedStatements) {
      expect(named.every((n) => typeof n === "string" && /^calpress_[0-9a-f]{24}$/.test(n))).to.equal(true);
      // The rows and their relations are two texts, so two names.
      expect(new Set(named).size).to.equal(2);
    } else {
      expect(named.every((n) => n === undefined)).to.equal(true);
    }
    expect(inTrx.every((n) => n === undefined)).to.equal(true);
  });

  it("names at most a bounded number of texts (each is kept per connection in the server's memory)", async function () {
    const { engine } = fx();
    const k: Knex = engine.knex;
    if (!dialectFor(k).preparedStatements) this.skip();
    const post = await engine.posts.create({ type: "event", status: "publish", title: "Many Shapes" });
    const names: Array<string | undefined> = [];
    const onQuery = (q: { sql: string; options?: { name?: string } }): void => {
      if (/ as "many_/.test(q.sql)) names.push(q.options?.name);
    };
    const stamp = Date.now();
    k.on("query", onQuery);
    try {
      for (let i = 0; i < 250; i++) {
        // A text of its own per shape: the column alias differs.
        const build = () => k(engine.tables.posts).where("id", post.id).select(`id as many_${stamp}_${i}`);
        for (let run = 0; run < 2; run++) await selectByShape(k, engine.tables, `test-many-${stamp}-${i}`, [post.id], build);
      }
    } finally {
      k.removeListener("query", onQuery);
    }
    // Every second run is the kept text's.
    const kept = names.filter((_n, i) => i % 2 === 1);
    expect(kept).to.have.length(250);
    const withName = kept.filter((n) => n !== undefined);
    expect(withName.length).to.be.at.most(200);
    expect(kept.length - withName.length).to.be.at.least(50);
  });

  it("keeps reading once a column is added under a kept statement (a migration by a newer process)", async () => {
    const { engine } = fx();
    const k: Knex = engine.knex;
    const post = await engine.posts.create({ type: "event", status: "publish", title: "Before Column" });
    // Every pooled connection gets to keep the statement.
    const readMany = () => Promise.all(Array.from({ length: 12 }, () => engine.posts.getMany([post.id])));
    for (let i = 0; i < 3; i++) await readMany();
    await k.schema.alterTable(engine.tables.posts, (t) => t.integer("added_later").nullable());
    try {
      for (let i = 0; i < 3; i++) for (const got of await readMany()) expect(got.get(post.id)?.title).to.equal("Before Column");
    } finally {
      await k.schema.alterTable(engine.tables.posts, (t) => t.dropColumn("added_later"));
    }
    for (const got of await readMany()) expect(got.get(post.id)?.title).to.equal("Before Column");
  });

  it("reads a post whole when the caller's likely types are wrong (the hint only narrows the joins)", async () => {
    const { engine } = fx();
    const post = await engine.posts.create({ type: "event", status: "publish", title: "Hinted", fields: { city: "Rome" } });
    const right = await engine.posts.get(post.id, undefined, ["event"]);
    const wrong = await engine.posts.get(post.id, undefined, ["venue"]);
    const none = await engine.posts.getMany([post.id], undefined, []);
    expect(right?.fields.city).to.equal("Rome");
    expect(wrong?.fields).to.deep.equal(right?.fields);
    expect(none.get(post.id)?.fields).to.deep.equal(right?.fields);
  });
  // Last in the suite: afterwards this database's statements run unnamed.
  it("falls back to unnamed statements when the connections lose what they kept (a transaction-pooling PgBouncer)", async function () {
    const { engine } = fx();
    const k: Knex = engine.knex;
    if (!dialectFor(k).preparedStatements) this.skip();
    const post = await engine.posts.create({ type: "event", status: "publish", title: "Behind A Pooler" });
    const readMany = () => Promise.all(Array.from({ length: 12 }, () => engine.posts.getMany([post.id], { terms: true })));
    for (let i = 0; i < 3; i++) await readMany();
    // What a pooler does: the server connection behind a client connection no longer has the statements the driver parsed.
    const pool = (k.client as { pool: { free: Array<{ resource: { query(sql: string): Promise<unknown> } }> } }).pool;
    expect(pool.free.length).to.be.greaterThan(0);
    for (const { resource } of pool.free) await resource.query("DEALLOCATE ALL");
    const names: Array<string | undefined> = [];
    const onQuery = (q: { sql: string; options?: { name?: string } }): void => {
      if (/^select/i.test(q.sql)) names.push(q.options?.name);
    };
    for (const got of await readMany()) expect(got.get(post.id)?.title).to.equal("Behind A Pooler");
    k.on("query", onQuery);
    try {
      for (const got of await readMany()) expect(got.get(post.id)?.title).to.equal("Behind A Pooler");
    } finally {
      k.removeListener("query", onQuery);
    }
    expect(names.length).to.be.greaterThan(0);
    expect(names.every((n) => n === undefined)).to.equal(true);
  });
});
