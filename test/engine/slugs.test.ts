import { expect } from "chai";
import { forEachDatabase } from "../support/databases";
import { useFixture } from "../support/engine";

forEachDatabase("engine: post slugs", (db) => {
  const fx = useFixture(db);

  it("derives the slug from the title, folding accents", async () => {
    const { engine } = fx();
    const p = await engine.posts.create({ type: "venue", status: "publish", title: "Crème Brûlée Night: 2030 Edition!" });
    expect(p.slug).to.equal("creme-brulee-night-2030-edition");
    const q = await engine.posts.create({ type: "venue", status: "publish", title: "Ελληνικά" });
    expect(q.slug).to.match(/^%ce%b5/);
  });

  it("normalises an asked-for slug", async () => {
    const { engine } = fx();
    const p = await engine.posts.create({ type: "venue", status: "publish", title: "Whatever", slug: "Mÿ Own Slug" });
    expect(p.slug).to.equal("my-own-slug");
  });

  it("appends -2, -3 to published collisions in the same type and language", async () => {
    const { engine } = fx();
    const a = await engine.posts.create({ type: "venue", status: "publish", title: "Town Hall" });
    const b = await engine.posts.create({ type: "venue", status: "publish", title: "Town Hall" });
    const c = await engine.posts.create({ type: "venue", status: "private", title: "town hall" });
    expect([a.slug, b.slug, c.slug]).to.deep.equal(["town-hall", "town-hall-2", "town-hall-3"]);
    // Another type, or another language, may have the same slug.
    const d = await engine.posts.create({ type: "event", status: "publish", title: "Town Hall" });
    const e = await engine.posts.create({ type: "venue", status: "publish", title: "Town Hall", language: "fr" });
    expect(d.slug).to.equal("town-hall");
    expect(e.slug).to.equal("town-hall");
  });

  it("lets drafts share a slug and makes it unique when one is published", async () => {
    const { engine } = fx();
    const pub = await engine.posts.create({ type: "venue", status: "publish", title: "Shared Name" });
    const d1 = await engine.posts.create({ type: "venue", status: "draft", title: "Shared Name" });
    const d2 = await engine.posts.create({ type: "venue", status: "pending", title: "Shared Name" });
    expect([pub.slug, d1.slug, d2.slug]).to.deep.equal(["shared-name", "shared-name", "shared-name"]);
    const published = await engine.posts.update(d1.id, { status: "publish" });
    expect(published.slug).to.equal("shared-name-2");
    expect(published.status).to.equal("publish");
    // Updating a published post keeps its own slug.
    const again = await engine.posts.update(pub.id, { title: "Renamed" });
    expect(again.slug).to.equal("shared-name");
  });

  it("claims no slug again when an edit keeps the slug a published post holds", async () => {
    const { engine } = fx();
    const pub = await engine.posts.create({ type: "venue", status: "publish", title: "Corn Exchange" });
    const draft = await engine.posts.create({ type: "venue", status: "draft", title: "Corn Exchange" });
    const sql: string[] = [];
    const listener = (q: { sql: string }): void => {
      sql.push(q.sql);
    };
    engine.knex.on("query", listener);
    try {
      const edited = await engine.posts.update(pub.id, { excerpt: "Now with a bar.", title: "The Corn Exchange" });
      expect(edited.slug).to.equal("corn-exchange");
      // Neither the free-slug lookup nor the write of the same slug back.
      expect(sql.filter((s) => /slug_lock/i.test(s))).to.deep.equal([]);
    } finally {
      engine.knex.removeListener("query", listener);
    }
    // A post that holds no slug yet (a draft being published) still claims one, unique.
    const published = await engine.posts.update(draft.id, { status: "publish" });
    expect(published.slug).to.equal("corn-exchange-2");
    // An edit asking for another slug claims it.
    const renamed = await engine.posts.update(pub.id, { slug: "corn-exchange-2" });
    expect(renamed.slug).to.equal("corn-exchange-2-2");
  });

  it("keeps an empty slug for drafts of emptySlugWhileDraft types until published", async () => {
    const { engine } = fx();
    const d = await engine.posts.create({ type: "event", status: "draft", title: "Jazz Night" });
    expect(d.slug).to.equal("");
    const asked = await engine.posts.create({ type: "event", status: "draft", title: "Jazz Night", slug: "jazz" });
    expect(asked.slug).to.equal("jazz");
    const renamed = await engine.posts.update(d.id, { title: "Late Jazz Night" });
    expect(renamed.slug).to.equal("");
    const pub = await engine.posts.update(d.id, { status: "publish" });
    expect(pub.slug).to.equal("late-jazz-night");
  });

  it("uses the id when a published title gives no slug", async () => {
    const { engine } = fx();
    const p = await engine.posts.create({ type: "venue", status: "publish", title: "!!!" });
    expect(p.slug).to.equal(String(p.id));
  });

  it("renames trashed posts to <slug>__trashed, freeing the slug, and restores on untrash", async () => {
    const { engine } = fx();
    const a = await engine.posts.create({ type: "venue", status: "publish", title: "Old Barn" });
    const trashed = await engine.posts.trash(a.id);
    expect(trashed.slug).to.equal("old-barn__trashed");
    expect(trashed.status).to.equal("trash");
    expect(trashed.previousStatus).to.equal("publish");
    const b = await engine.posts.create({ type: "venue", status: "publish", title: "Old Barn" });
    expect(b.slug).to.equal("old-barn");
    const back = await engine.posts.untrash(a.id);
    expect(back.status).to.equal("publish");
    expect(back.slug).to.equal("old-barn-2");
    expect(back.previousStatus).to.equal(null);
  });

  it("gives 50 parallel creates of one title 50 distinct slugs", async function () {
    this.timeout(120_000);
    const { engine } = fx();
    const posts = await Promise.all(
      Array.from({ length: 50 }, () => engine.posts.create({ type: "venue", status: "publish", title: "Concurrent Title" })),
    );
    const slugs = new Set(posts.map((p) => p.slug));
    expect(slugs.size).to.equal(50);
    expect(slugs.has("concurrent-title")).to.equal(true);
    for (let n = 2; n <= 50; n++) expect(slugs.has(`concurrent-title-${n}`), `concurrent-title-${n}`).to.equal(true);
  });

  it("makes the slug unique again when a published post moves to another language", async () => {
    const { engine } = fx();
    await engine.posts.create({ type: "venue", status: "publish", title: "Movers", language: "de" });
    const en = await engine.posts.create({ type: "venue", status: "publish", title: "Movers" });
    expect(en.slug).to.equal("movers");
    const moved = await engine.posts.update(en.id, { language: "de" });
    expect([moved.language, moved.slug]).to.deep.equal(["de", "movers-2"]);
  });

  it("finds by slug, preferring a language, never in the trash", async () => {
    const { engine } = fx();
    const en = await engine.posts.create({ type: "venue", status: "publish", title: "Bilingual Spot" });
    const fr = await engine.posts.create({ type: "venue", status: "publish", title: "Bilingual Spot", language: "fr" });
    expect((await engine.posts.getBySlug("venue", "bilingual-spot", { language: "fr" }))?.id).to.equal(fr.id);
    expect((await engine.posts.getBySlug("venue", "bilingual-spot", { language: "de" }))?.id).to.equal(en.id);
    await engine.posts.trash(en.id);
    expect((await engine.posts.getBySlug("venue", "bilingual-spot"))?.id).to.equal(fr.id);
  });
});
