import { expect } from "chai";
import { createEngine } from "../../lib/engine";
import { CHANGES_KEEP_DAYS_OPTION, readChangeLog, writeChangeLog } from "../../lib/hooks/change-log";
import { termChange } from "../../lib/hooks/journal";
import { registerCalendarContent } from "../../lib/calendar/post-types";
import { forEachDatabase } from "../support/databases";
import type { TestSite } from "../support/site";
import { dayAt, makeEvent, useSite } from "./events-support";

interface Entry {
  id: number;
  type: string;
  deleted: boolean;
  language?: string;
  record?: Record<string, unknown>;
  occurrences?: Array<Record<string, unknown>>;
}
interface FeedBody {
  changes: Entry[];
  next: string;
  more: boolean;
}

async function token(t: TestSite): Promise<string> {
  const res = await t.get("/changes");
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  expect(res.body.changes).to.deep.equal([]);
  expect(res.body.next).to.match(/^\d+$/);
  return res.body.next as string;
}

/** Every page after `since`, as `as` reads them; the entries in order and the last token. */
async function readAll(t: TestSite, since: string, as?: string, perPage = 50): Promise<{ entries: Entry[]; next: string; pages: number }> {
  const entries: Entry[] = [];
  let next = since;
  let pages = 0;
  for (;;) {
    const res = await t.get<FeedBody>("/changes", { as, query: { since: next, per_page: perPage } });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    pages++;
    entries.push(...res.body.changes);
    expect(Number(res.body.next)).to.be.at.least(Number(next));
    next = res.body.next;
    if (!res.body.more) {
      expect(res.headers.get("link") ?? "").not.to.contain('rel="next"');
      return { entries, next, pages };
    }
    expect(res.headers.get("link")).to.contain(`since=${next}`).and.to.contain('rel="next"');
  }
}

function named(entries: Entry[], type: string, id: number): Entry[] {
  return entries.filter((e) => e.type === type && e.id === id);
}

forEachDatabase("changes feed", (db) => {
  const site = useSite(db);

  it("answers the token to start from, then each changed record once, as it is now", async () => {
    const t = site();
    const start = await token(t);
    const venue = await t.post("/venues", { as: "editor", json: { venue: "Feed Hall", status: "publish" } });
    expect(venue.status).to.equal(201);
    const ev = await makeEvent(t, { title: "Feed one", status: "publish", venue: venue.body.id });
    const edit = await t.post(`/events/${ev.id}`, { as: "editor", json: { title: "Feed one, edited" } });
    expect(edit.status).to.equal(200);

    const { entries, next } = await readAll(t, start);
    expect(Number(next)).to.be.greaterThan(Number(start));
    const events = named(entries, "event", ev.id);
    expect(events).to.have.length(1);
    expect(events[0].deleted).to.equal(false);
    expect(events[0].record?.title).to.equal("Feed one, edited");
    expect(named(entries, "venue", venue.body.id)[0].record?.venue).to.equal("Feed Hall");
    // The event came after the venue, and is reported at its last change.
    expect(entries.findIndex((e) => e.type === "event" && e.id === ev.id)).to.be.greaterThan(entries.findIndex((e) => e.type === "venue"));

    // Nothing new: the same token back, no entries.
    const again = await t.get<FeedBody>("/changes", { query: { since: next } });
    expect(again.body).to.deep.equal({ changes: [], next, more: false });
  });

  it("reports a category whose count a new event changed, and a deleted tag as a tombstone", async () => {
    const t = site();
    const cat = await t.post("/categories", { as: "editor", json: { name: "Feed category" } });
    const tag = await t.post("/tags", { as: "editor", json: { name: "feed-tag" } });
    expect(cat.status).to.equal(201);
    const start = await token(t);
    await makeEvent(t, { title: "Counted", status: "publish", categories: [cat.body.id] });
    const del = await t.request("DELETE", `/tags/${tag.body.id}`, { as: "editor", query: { force: "true" } });
    expect(del.status, JSON.stringify(del.body)).to.equal(200);
    const { entries } = await readAll(t, start);
    const category = named(entries, "category", cat.body.id);
    expect(category).to.have.length(1);
    expect(category[0].record?.count).to.equal(1);
    expect(named(entries, "tag", tag.body.id)).to.deep.equal([{ id: tag.body.id, type: "tag", deleted: true }]);
  });

  it("never tells a reader of what they may not read; tombstones what they could have seen", async () => {
    const t = site();
    const start = await token(t);
    const draft = await makeEvent(t, { title: "Secret draft", status: "draft" });
    const shown = await makeEvent(t, { title: "Soon hidden", status: "publish" });
    const mine = await makeEvent(t, { title: "Author's draft", status: "draft" }, "author");

    const anonymous = (await readAll(t, start)).entries;
    expect(named(anonymous, "event", draft.id)).to.deep.equal([]);
    expect(named(anonymous, "event", mine.id)).to.deep.equal([]);
    expect(named(anonymous, "event", shown.id)[0].record?.title).to.equal("Soon hidden");
    const editor = (await readAll(t, start, "editor")).entries;
    expect(named(editor, "event", draft.id)[0].record?.title).to.equal("Secret draft");

    const mid = await token(t);
    // Published → draft: newly hidden from the public; the drafts deleted for good.
    expect((await t.post(`/events/${shown.id}`, { as: "editor", json: { status: "draft" } })).status).to.equal(200);
    await t.site.engine.posts.delete(draft.id);
    await t.site.engine.posts.delete(mine.id);

    const after = (await readAll(t, mid)).entries;
    expect(after).to.deep.equal([{ id: shown.id, type: "event", deleted: true }]);
    const byAuthor = (await readAll(t, mid, "author")).entries;
    expect(named(byAuthor, "event", mine.id)).to.deep.equal([{ id: mine.id, type: "event", deleted: true }]);
    expect(named(byAuthor, "event", draft.id)).to.deep.equal([]);
    const byEditor = (await readAll(t, mid, "editor")).entries;
    expect(named(byEditor, "event", draft.id)).to.deep.equal([{ id: draft.id, type: "event", deleted: true }]);
    expect(named(byEditor, "event", shown.id)[0].record?.status).to.equal("draft");

    // Trashed: gone for everyone, editors included.
    const pub = await makeEvent(t, { title: "To the trash", status: "publish" });
    const beforeTrash = await token(t);
    expect((await t.request("DELETE", `/events/${pub.id}`, { as: "editor" })).status).to.equal(200);
    expect((await readAll(t, beforeTrash, "editor")).entries).to.deep.equal([{ id: pub.id, type: "event", deleted: true }]);
  });

  it("pages with per_page, a next token and a Link, and loses nothing between pages", async () => {
    const t = site();
    const start = await token(t);
    const made: number[] = [];
    for (let i = 0; i < 5; i++) made.push((await makeEvent(t, { title: `Paged ${i}`, status: "publish" })).id);
    const { entries, pages } = await readAll(t, start, undefined, 2);
    expect(pages).to.be.at.least(3);
    const events = entries.filter((e) => e.type === "event").map((e) => e.id);
    for (const id of made) expect(events).to.include(id);
  });

  it("refuses a malformed or unknown token with 400, and a pruned one with 410", async () => {
    const t = site();
    for (const since of ["abc", "-1", "1.5"]) {
      const res = await t.get("/changes", { query: { since } });
      expect(res.status, since).to.equal(400);
      expect(res.body.code).to.equal("rest_invalid_param");
    }
    const head = Number(await token(t));
    const unknown = await t.get("/changes", { query: { since: head + 1000 } });
    expect(unknown.status).to.equal(400);
    expect(unknown.body.data.params).to.have.property("since");

    const { knex, tables } = t.site.engine;
    const counter = async (): Promise<{ seq: number; pruned_through: number }> => {
      const row = (await knex(tables.changeCounter).where({ id: 1 }).first()) as { seq: number | string; pruned_through: number | string };
      return { seq: Number(row.seq), pruned_through: Number(row.pruned_through) };
    };
    const saved = await counter();
    await knex(tables.changeCounter).where({ id: 1 }).update({ pruned_through: saved.seq });
    try {
      const gone = await t.get("/changes", { query: { since: saved.seq - 1 } });
      expect(gone.status).to.equal(410);
      expect(gone.body.code).to.equal("changes-token-expired");
      expect((await t.get("/changes", { query: { since: saved.seq } })).status).to.equal(200);
    } finally {
      await knex(tables.changeCounter).where({ id: 1 }).update({ pruned_through: saved.pruned_through });
    }
  });

  it("misses no change of concurrent writers, read while they write", async function () {
    this.timeout(120_000);
    const t = site();
    const start = await token(t);
    const made: number[] = [];
    const writers = Array.from({ length: 4 }, async (_, w) => {
      for (let i = 0; i < 6; i++) {
        const res = await t.post("/events", {
          as: "editor",
          json: { title: `Concurrent ${w}-${i}`, status: "publish", start_date: dayAt(2, "10:00:00"), end_date: dayAt(2, "11:00:00") },
        });
        expect(res.status, JSON.stringify(res.body)).to.equal(201);
        made.push(res.body.id as number);
      }
    });
    // A mirror polling while they write: every token it keeps must cover what it was told.
    const seen = new Set<number>();
    let next = start;
    let writing = true;
    const done = Promise.all(writers).finally(() => {
      writing = false;
    });
    while (writing) {
      const page = await readAll(t, next);
      for (const e of page.entries) if (e.type === "event") seen.add(e.id);
      next = page.next;
    }
    await done;
    for (const e of (await readAll(t, next)).entries) if (e.type === "event") seen.add(e.id);
    expect(made).to.have.length(24);
    for (const id of made) expect(seen.has(id), `event ${id} reported`).to.equal(true);
  });

  // SQLite has one writer at a time already; on the server databases two writers run together.
  (db.name === "sqlite" ? it.skip : it)("numbers changes in commit order: a second writer waits until the first commits", async () => {
    const t = site();
    const { knex, tables } = t.site.engine;
    const change = (id: number) => termChange("updated", { id, taxonomy: "post_tag", name: "x", slug: "x", description: "", parent: 0, count: 0, termGroup: 0, language: "en", translationGroup: null }, new Date());
    const first = await knex.transaction();
    await writeChangeLog(first, t.site.engine.dialect, tables, [change(900001)], { posts: [], terms: [] }, new Date(), null);
    let secondDone = false;
    const second = knex.transaction(async (trx) => {
      await writeChangeLog(trx, t.site.engine.dialect, tables, [change(900002)], { posts: [], terms: [] }, new Date(), null);
      secondDone = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(secondDone, "the second writer numbered its change before the first committed").to.equal(false);
    await first.commit();
    await second;
    const head = (await readChangeLog(knex, tables, 0, 0)).head;
    const rows = (await readChangeLog(knex, tables, head - 2, 10)).rows.map((r) => r.objectId);
    expect(rows).to.deep.equal([900001, 900002]);
  });

  it("reports the events of a venue that becomes readable: its link was not in their public form", async () => {
    const t = site();
    const venue = await t.post("/venues", { as: "editor", json: { venue: "Feed draft hall", status: "draft" } });
    expect(venue.status, JSON.stringify(venue.body)).to.equal(201);
    const ev = await makeEvent(t, { title: "Linked to a draft", status: "publish", venue: venue.body.id });
    const start = await token(t);
    expect((await t.post(`/venues/${venue.body.id}`, { as: "editor", json: { status: "publish" } })).status).to.equal(200);
    const anonymous = (await readAll(t, start)).entries;
    expect(named(anonymous, "venue", venue.body.id)[0]?.record?.venue).to.equal("Feed draft hall");
    const event = named(anonymous, "event", ev.id);
    expect(event, "the event now shows the venue to everyone").to.have.length(1);
    expect((event[0].record?.venue as { id?: number } | undefined)?.id).to.equal(venue.body.id);

    // Back to draft: the venue is a tombstone for everyone who saw it, the event is reported without it.
    const mid = await token(t);
    expect((await t.post(`/venues/${venue.body.id}`, { as: "editor", json: { status: "draft" } })).status).to.equal(200);
    const hidden = (await readAll(t, mid)).entries;
    expect(named(hidden, "venue", venue.body.id)).to.deep.equal([{ id: venue.body.id, type: "venue", deleted: true }]);
    expect(named(hidden, "event", ev.id)[0]?.record?.venue).to.deep.equal([]);
    // An editor read the venue all along: the event is theirs to see again, as it is now.
    expect(named((await readAll(t, mid, "editor")).entries, "venue", venue.body.id)[0]?.record?.status).to.equal("draft");

    // Draft to private: hidden from everyone before and after, so the anonymous feed names nothing.
    const quiet = await token(t);
    expect((await t.post(`/venues/${venue.body.id}`, { as: "editor", json: { status: "private" } })).status).to.equal(200);
    expect((await readAll(t, quiet)).entries).to.deep.equal([]);
    expect(named((await readAll(t, quiet, "editor")).entries, "event", ev.id)).to.have.length(1);
  });

  it("reports the events a trashed venue left, also when it is restored in the same page", async () => {
    const t = site();
    const venue = await t.post("/venues", { as: "editor", json: { venue: "Feed trashed hall", status: "publish" } });
    const ev = await makeEvent(t, { title: "At the trashed hall", status: "publish", venue: venue.body.id });
    expect((ev.venue as { id?: number }).id).to.equal(venue.body.id);
    const start = await token(t);
    expect((await t.request("DELETE", `/venues/${venue.body.id}`, { as: "editor" })).status).to.equal(200);
    expect((await t.post(`/venues/${venue.body.id}`, { as: "editor", json: { status: "publish" } })).status).to.equal(200);
    // The venue is one entry, as it is now: only the event's own entry can say it lost the link.
    const entries = (await readAll(t, start)).entries;
    expect(named(entries, "venue", venue.body.id)[0]?.record?.status).to.equal("publish");
    expect(named(entries, "event", ev.id)[0]?.record?.venue).to.deep.equal([]);
  });

  it("reports the children of a deleted category, and the descendants of one whose slug changed", async () => {
    const t = site();
    const make = async (name: string, parent?: number): Promise<number> => {
      const res = await t.post("/categories", { as: "editor", json: { name, ...(parent === undefined ? {} : { parent }) } });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      return res.body.id as number;
    };
    const top = await make("Feed top");
    const middle = await make("Feed middle", top);
    const child = await make("Feed child", middle);
    const grandchild = await make("Feed grandchild", child);

    const beforeSlug = await token(t);
    expect((await t.post(`/categories/${middle}`, { as: "editor", json: { slug: "feed-middle-renamed" } })).status).to.equal(200);
    const renamed = (await readAll(t, beforeSlug)).entries;
    expect(named(renamed, "category", child)[0]?.record?.url).to.contain("/feed-middle-renamed/feed-child/");
    expect(named(renamed, "category", grandchild)[0]?.record?.url).to.contain("/feed-middle-renamed/feed-child/feed-grandchild/");

    const beforeDelete = await token(t);
    expect((await t.request("DELETE", `/categories/${middle}`, { as: "editor", query: { force: "true" } })).status).to.equal(200);
    const entries = (await readAll(t, beforeDelete)).entries;
    expect(named(entries, "category", middle)).to.deep.equal([{ id: middle, type: "category", deleted: true }]);
    const moved = named(entries, "category", child);
    expect(moved, "the child moved up to the grandparent").to.have.length(1);
    expect(moved[0].record?.parent).to.equal(top);
    expect(named(entries, "category", grandchild)[0]?.record?.url).to.match(/\/feed-top\/feed-child\/feed-grandchild\/$/);
  });

  it("gives each record its language, builds it as that language's list shows it, and takes i18n_language", async () => {
    const t = site();
    const start = await token(t);
    const townHall = (await t.get<Array<{ id: number; slug: string }>>("/venues", { query: { per_page: 50 } })).body;
    const hall = (townHall as unknown as { venues: Array<{ id: number; slug: string }> }).venues.find((v) => v.slug === "town-hall");
    expect(hall, "the fixture's town hall").not.to.equal(undefined);
    const fr = await t.post("/events", {
      as: "editor",
      query: { i18n_language: "fr" },
      json: { title: "Soirée", status: "publish", venue: hall!.id, start_date: dayAt(3, "20:00:00"), end_date: dayAt(3, "22:00:00") },
    });
    expect(fr.status, JSON.stringify(fr.body)).to.equal(201);
    const en = await makeEvent(t, { title: "Evening", status: "publish" });

    const all = (await readAll(t, start)).entries;
    expect(named(all, "event", fr.body.id)[0]?.language).to.equal("fr");
    expect(named(all, "event", en.id)[0]?.language).to.equal("en");
    // As the French list shows it: the venue in its French translation.
    const list = await t.get("/events", { query: { i18n_language: "fr", include: fr.body.id } });
    const listed = (list.body.events as Array<Record<string, unknown>>).find((e) => e.id === fr.body.id);
    expect(listed?.venue).to.have.property("venue", "Hôtel de Ville");
    expect(named(all, "event", fr.body.id)[0]?.record?.venue).to.deep.equal(listed?.venue);

    const french = (await t.get<FeedBody>("/changes", { query: { since: start, i18n_language: "fr" } })).body.changes;
    expect(named(french, "event", fr.body.id)).to.have.length(1);
    expect(named(french, "event", en.id)).to.deep.equal([]);
  });

  it("reports a series with its occurrences as the list shows them: a hidden detached one leaves a gap", async () => {
    const t = site();
    const series = await makeEvent(t, {
      title: "Feed series",
      status: "publish",
      start_date: "2027-05-04 18:00:00",
      end_date: "2027-05-04 19:00:00",
      recurrence: ["RRULE:FREQ=WEEKLY;COUNT=4"],
    });
    const window = { start_date: "2027-05-01", end_date: "2027-05-31", per_page: 50 };
    const listedIds = async (): Promise<number[]> =>
      ((await t.get("/events", { query: window })).body.events as Array<{ id: number; series_id: number | null }>).filter((e) => e.series_id === series.id).map((e) => e.id);
    const before = await listedIds();
    expect(before).to.have.length(4);
    const start = await token(t);
    const detached = await t.post(`/events/${before[1]}`, { as: "editor", json: { status: "draft", title: "Feed series, moved" } });
    expect(detached.status, JSON.stringify(detached.body)).to.equal(200);
    const after = await listedIds();
    expect(after).to.deep.equal([before[0], before[2], before[3]]);

    const entries = (await readAll(t, start)).entries;
    const reported = named(entries, "event", series.id);
    expect(reported, "the series is reported: its public occurrences changed").to.have.length(1);
    expect((reported[0].occurrences ?? []).map((o) => o.id)).to.deep.equal(after);
    const list = ((await t.get("/events", { query: window })).body.events as Array<Record<string, unknown>>).filter((e) => e.series_id === series.id);
    expect(reported[0].occurrences).to.deep.equal(list);
    expect(named(entries, "event", detached.body.id), "the draft is not shown to everyone").to.deep.equal([]);
  });

  it("skips a category whose record a hidden write left as it was", async () => {
    const t = site();
    const cat = await t.post("/categories", { as: "editor", json: { name: "Feed quiet" } });
    expect(cat.status).to.equal(201);
    const draft = await makeEvent(t, { title: "Quiet draft", status: "draft" });
    const start = await token(t);
    expect((await t.post(`/events/${draft.id}`, { as: "editor", json: { categories: [cat.body.id], status: "draft" } })).status).to.equal(200);
    const { entries, next } = await readAll(t, start);
    expect(Number(next), "the token moves on").to.be.greaterThan(Number(start));
    expect(named(entries, "category", cat.body.id), "a draft does not count: nothing anyone sees changed").to.deep.equal([]);
    await makeEvent(t, { title: "Counted now", status: "publish", categories: [cat.body.id] });
    expect(named((await readAll(t, next)).entries, "category", cat.body.id)[0]?.record?.count).to.equal(1);
  });

  it("prunes changes older than changes_keep_days, after which their tokens are answered 410", async () => {
    const t = site();
    const before = await token(t);
    await makeEvent(t, { title: "Old change", status: "publish" });
    // A second engine on the database whose clock is 40 days ahead: its first write prunes.
    const later = new Date(Date.now() + 40 * 86_400_000);
    const made = await createEngine(t.site.engine.knex, { now: () => later, publishedIndex: false });
    try {
      registerCalendarContent(made.engine);
      await made.engine.options.set(CHANGES_KEEP_DAYS_OPTION, "30");
      await made.engine.posts.create({ type: "event", title: "Much later", status: "draft" });
    } finally {
      await made.close();
    }
    const res = await t.get("/changes", { query: { since: before } });
    expect(res.status, JSON.stringify(res.body)).to.equal(410);
  });
});
