import { expect } from "chai";
import { EngineError } from "../../lib/engine-errors";
import { forEachDatabase } from "../support/databases";
import { useFixture } from "../support/engine";

/** The pinned "now" of these tests: 2026-03-10 12:00:00 UTC (13:00 in Rome, CET). */
const NOW = new Date(Date.UTC(2026, 2, 10, 12, 0, 0));

async function rejects(p: Promise<unknown>, code: string): Promise<EngineError> {
  try {
    await p;
  } catch (err) {
    expect(err).to.be.instanceOf(EngineError);
    expect((err as EngineError).code).to.equal(code);
    return err as EngineError;
  }
  throw new Error(`expected EngineError ${code}`);
}

forEachDatabase("engine: statuses and dates", (db) => {
  const fx = useFixture(db, { now: () => NOW, timezone: "Europe/Rome", setup: (e) => e.registerPostType("note", { statuses: ["publish", "draft"] }) });

  it("derives date_utc from a local date in the site zone (CET and CEST)", async () => {
    const { engine } = fx();
    const winter = await engine.posts.create({ type: "venue", status: "publish", title: "W", dateLocal: "2026-01-15 12:00:00" });
    expect(winter.dateUtc).to.equal("2026-01-15 11:00:00");
    const summer = await engine.posts.create({ type: "venue", status: "publish", title: "S", dateLocal: "2025-07-01 12:00:00" });
    expect(summer.dateUtc).to.equal("2025-07-01 10:00:00");
    expect(summer.status).to.equal("publish");
  });

  it("derives the local date from date_utc, and stores both as given when both are sent", async () => {
    const { engine } = fx();
    const p = await engine.posts.create({ type: "venue", status: "publish", title: "U", dateUtc: "2025-07-01 10:00:00" });
    expect(p.dateLocal).to.equal("2025-07-01 12:00:00");
    const both = await engine.posts.create({ type: "venue", status: "publish", title: "B", dateLocal: "2017-01-05 14:23:36", dateUtc: "2017-01-05 01:02:03" });
    expect([both.dateLocal, both.dateUtc]).to.deep.equal(["2017-01-05 14:23:36", "2017-01-05 01:02:03"]);
  });

  it("uses now (site time and UTC) without dates, with a new post's modified equal to its date", async () => {
    const { engine } = fx();
    const p = await engine.posts.create({ type: "venue", status: "publish", title: "Now" });
    expect([p.dateLocal, p.dateUtc]).to.deep.equal(["2026-03-10 13:00:00", "2026-03-10 12:00:00"]);
    expect([p.modifiedLocal, p.modifiedUtc]).to.deep.equal(["2026-03-10 13:00:00", "2026-03-10 12:00:00"]);
  });

  it("gives drafts and pending posts without a date the floating UTC date", async () => {
    const { engine } = fx();
    for (const status of ["draft", "pending"] as const) {
      const p = await engine.posts.create({ type: "venue", status, title: `F ${status}` });
      expect(p.dateUtc).to.equal("0000-00-00 00:00:00");
      expect(p.dateLocal).to.equal("2026-03-10 13:00:00");
    }
    const dated = await engine.posts.create({ type: "venue", status: "draft", title: "Dated", dateLocal: "2026-05-01 09:00:00" });
    expect(dated.dateUtc).to.equal("2026-05-01 07:00:00");
  });

  it("gives a floating draft a real date when it is published", async () => {
    const { engine } = fx();
    const d = await engine.posts.create({ type: "venue", status: "draft", title: "Later" });
    const p = await engine.posts.update(d.id, { status: "publish" });
    expect(p.status).to.equal("publish");
    expect([p.dateLocal, p.dateUtc]).to.deep.equal(["2026-03-10 13:00:00", "2026-03-10 12:00:00"]);
  });

  it("schedules publish with a future date and publishes future with a past date", async () => {
    const { engine } = fx();
    const f = await engine.posts.create({ type: "venue", status: "publish", title: "Soon", dateLocal: "2026-04-01 10:00:00" });
    expect(f.status).to.equal("future");
    const p = await engine.posts.create({ type: "venue", status: "future", title: "Past", dateLocal: "2026-01-01 10:00:00" });
    expect(p.status).to.equal("publish");
    const moved = await engine.posts.update(f.id, { dateLocal: "2026-03-01 10:00:00" });
    expect(moved.status).to.equal("publish");
    const back = await engine.posts.update(moved.id, { status: "publish", dateUtc: "2027-01-01 00:00:00" });
    expect(back.status).to.equal("future");
    expect(back.dateLocal).to.equal("2027-01-01 01:00:00");
  });

  it("trash remembers the status and untrash restores it", async () => {
    const { engine } = fx();
    const f = await engine.posts.create({ type: "venue", status: "future", title: "Sched", dateLocal: "2026-06-01 10:00:00" });
    const t = await engine.posts.trash(f.id);
    expect([t.status, t.previousStatus]).to.deep.equal(["trash", "future"]);
    const u = await engine.posts.untrash(f.id);
    expect([u.status, u.previousStatus]).to.deep.equal(["future", null]);
    const d = await engine.posts.create({ type: "venue", status: "pending", title: "Pend" });
    await engine.posts.trash(d.id);
    expect((await engine.posts.untrash(d.id)).status).to.equal("pending");
  });

  it("publishes due future posts on publishDue", async () => {
    const { engine } = fx();
    const f = await engine.posts.create({ type: "venue", status: "future", title: "Due", dateLocal: "2026-06-01 10:00:00" });
    await engine.knex(engine.tables.posts).where({ id: f.id }).update({ date_utc: "2026-03-01 00:00:00" });
    const ids = await engine.posts.publishDue();
    expect(ids).to.include(f.id);
    expect((await engine.posts.get(f.id))?.status).to.equal("publish");
  });

  it("works with a manual UTC offset zone", async () => {
    const { engine } = fx();
    await engine.options.set("timezone", "UTC+5.5");
    try {
      const p = await engine.posts.create({ type: "venue", status: "publish", title: "Offset", dateLocal: "2026-01-01 05:30:00" });
      expect(p.dateUtc).to.equal("2026-01-01 00:00:00");
    } finally {
      await engine.options.set("timezone", "Europe/Rome");
    }
  });

  it("rejects statuses the type does not allow and malformed dates", async () => {
    const { engine } = fx();
    await rejects(engine.posts.create({ type: "note", status: "pending", title: "x" }), "invalid_status");
    await rejects(engine.posts.create({ type: "venue", status: "publish", title: "x", dateLocal: "yesterday" }), "invalid_date");
    await rejects(engine.posts.create({ type: "nope", title: "x" }), "invalid_type");
    await rejects(engine.posts.update(999999, { title: "x" }), "not_found");
    await rejects(engine.posts.create({ type: "venue", title: "x", author: 424242 }), "invalid_user");
    await rejects(engine.posts.create({ type: "venue", title: "x", parent: 424242 }), "invalid_parent");
    await rejects(engine.options.set("timezone", "Mars/Olympus"), "invalid_timezone");
  });

  it("refuses a parent cycle on hierarchical posts and moves children up on delete", async () => {
    const { engine } = fx();
    const a = await engine.posts.create({ type: "page", status: "publish", title: "A" });
    const b = await engine.posts.create({ type: "page", status: "publish", title: "B", parent: a.id });
    const c = await engine.posts.create({ type: "page", status: "publish", title: "C", parent: b.id });
    await rejects(engine.posts.update(a.id, { parent: c.id }), "invalid_parent");
    await rejects(engine.posts.update(a.id, { parent: a.id }), "invalid_parent");
    await engine.posts.delete(b.id);
    expect((await engine.posts.get(c.id))?.parent).to.equal(a.id);
    expect(await engine.posts.get(b.id)).to.equal(undefined);
  });

  it("stores language and translation groups", async () => {
    const { engine } = fx();
    const en = await engine.posts.create({ type: "venue", status: "publish", title: "Group" });
    expect(en.language).to.equal("en");
    expect(en.translationGroup).to.equal(en.id);
    const fr = await engine.posts.create({ type: "venue", status: "publish", title: "Groupe", language: "fr", translationGroup: en.id });
    expect(fr.translationGroup).to.equal(en.id);
    await engine.options.set("default_language", "nl");
    try {
      expect((await engine.posts.create({ type: "venue", title: "Groep" })).language).to.equal("nl");
    } finally {
      await engine.options.set("default_language", "en");
    }
  });

  it("stores typed fields, meta and links and reads them back", async () => {
    const { engine, users } = fx();
    const v = await engine.posts.create({ type: "venue", status: "publish", title: "Hall", fields: { city: "Rome", address: "Via 1" } });
    const e = await engine.posts.create({
      type: "event",
      status: "publish",
      title: "Gig",
      author: users.author.id,
      password: "pw",
      fields: { start: "2026-05-01T20:00:00", capacity: "120", all_day: true, rating: 4.5 },
      meta: { note: "bring ears", gone: null },
      links: { venue: [v.id] },
    });
    expect(e.fields).to.deep.equal({ start: "2026-05-01 20:00:00", end: null, cost: null, all_day: true, capacity: 120, city: null, rating: 4.5 });
    expect(e.meta).to.deep.equal({ note: "bring ears" });
    expect(e.links).to.deep.equal({ venue: [v.id] });
    expect(e.password).to.equal("pw");
    expect(e.author).to.equal(users.author.id);
    const u = await engine.posts.update(e.id, { fields: { all_day: false, cost: "10 EUR" }, meta: { note: null, extra: "x" } });
    expect(u.fields.all_day).to.equal(false);
    expect(u.fields.cost).to.equal("10 EUR");
    expect(u.fields.capacity).to.equal(120);
    expect(await engine.posts.getMeta(e.id)).to.deep.equal({ extra: "x" });
    expect((await engine.posts.linkedFrom("venue", [v.id])).get(v.id)).to.deep.equal([e.id]);
    await engine.posts.unlinkAllTo("venue", v.id);
    expect((await engine.posts.get(e.id, { links: ["venue"] }))?.links).to.deep.equal({ venue: [] });
    await rejects(engine.posts.update(e.id, { fields: { nope: 1 } }), "invalid_field");
    await rejects(engine.posts.update(e.id, { fields: { capacity: "many" } }), "invalid_field");
    await rejects(engine.posts.update(e.id, { links: { venue: [987654] } }), "invalid_link");
  });

  it("migrate() is idempotent and extends a field table with new fields", async () => {
    const { engine } = fx();
    await engine.migrate();
    engine.registerPostType("venue", {
      capabilityType: ["venue", "venues"],
      fields: { city: { type: "string", length: 100, index: true }, address: { type: "text" }, zip: { type: "string", length: 20, index: true } },
    });
    await engine.migrate();
    await engine.migrate();
    const v = await engine.posts.create({ type: "venue", status: "publish", title: "Zip", fields: { zip: "00100" } });
    expect(v.fields.zip).to.equal("00100");
    const found = await engine.posts.find({ type: "venue", where: [{ field: "zip", op: "=", value: "00100" }] });
    expect(found.posts.map((p) => p.id)).to.deep.equal([v.id]);
  });
});
