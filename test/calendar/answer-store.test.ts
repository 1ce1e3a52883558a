/**
 * Stored answers (lib/cache/answer-store.ts): single events, venues and
 * organizers kept in a SQLite file beside the database. The in-memory
 * response cache is off here, so every read after the first one of a URL
 * is either a stored answer (proved still good) or a new build; a stale
 * answer would show here as an old value.
 */
import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createEngine } from "../../lib/engine";
import type { AnswerStore } from "../../lib/cache/answer-store";
import { forEachDatabase } from "../support/databases";
import { startTestSite, type TestSite } from "../support/site";
import { makeEvent, useSite } from "./events-support";

let files = 0;
function storeFile(): string {
  files += 1;
  return path.join(os.tmpdir(), `calpress-answers-${process.pid}-${files}.sqlite`);
}

function removeStore(file: string): void {
  for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });
}

forEachDatabase("calendar: stored answers", (db) => {
  const file = storeFile();
  const site = useSite(db, { responseCache: false, answerStore: { file } });
  after(() => removeStore(file));

  const store = (t: TestSite): AnswerStore => {
    const s = t.site.rest.answerStore;
    if (s === undefined) throw new Error("no answer store");
    return s;
  };
  /** Reads `url` anonymously and tells how the store answered. */
  const read = async (t: TestSite, url: string): Promise<{ status: number; body: any; text: string; how: "stored" | "built" }> => {
    const before = store(t).stats();
    const res = await t.get(url);
    await store(t).flush();
    const after = store(t).stats();
    const how = after.hits + after.proved > before.hits + before.proved ? "stored" : "built";
    return { status: res.status, body: res.body, text: JSON.stringify(res.body), how };
  };

  describe("where it is kept", function () {
    it("answers a second read of an event from the store, with the same bytes and headers", async () => {
      const t = site();
      const venue = await t.post("/venues", { as: "editor", json: { venue: "Stored Hall", city: "Delft", status: "publish" } });
      const event = await makeEvent(t, { title: "Stored Night", status: "publish", venue: venue.body.id });
      const first = await read(t, `/events/${event.id}`);
      expect(first).to.include({ status: 200, how: "built" });
      const firstRaw = await fetch(`${t.ns}/events/${event.id}`);
      const second = await fetch(`${t.ns}/events/${event.id}`);
      expect(await second.text()).to.equal(await firstRaw.text());
      for (const header of ["content-type", "link", "allow", "x-robots-tag"]) expect(second.headers.get(header)).to.equal(firstRaw.headers.get(header));
      expect((await read(t, `/events/${event.id}`)).how).to.equal("stored");
      expect((await read(t, `/events/by-slug/${event.slug}`)).how).to.equal("built");
      expect((await read(t, `/events/by-slug/${event.slug}`)).how).to.equal("stored");
      expect((await read(t, `/venues/${venue.body.id}`)).how).to.equal("built");
      expect((await read(t, `/venues/${venue.body.id}`))).to.include({ how: "stored" });
    });

    it("follows every change of what the answer shows: the event, its venue, organizer, terms, counts and the site", async () => {
      const t = site();
      const venue = await t.post("/venues", { as: "editor", json: { venue: "Canal House", city: "Leiden", status: "publish" } });
      const organizer = await t.post("/organizers", { as: "editor", json: { organizer: "Night Owls", status: "publish" } });
      const category = await t.post("/categories", { as: "editor", json: { name: "Lectures" } });
      const event = await makeEvent(t, { title: "Lecture One", status: "publish", venue: venue.body.id, organizer: [organizer.body.id], categories: [category.body.id] });
      const url = `/events/${event.id}`;
      const fresh = async (): Promise<any> => {
        const r = await read(t, url);
        expect(r.status).to.equal(200);
        return r.body;
      };
      await fresh();
      expect((await read(t, url)).how).to.equal("stored");

      await t.post(`/events/${event.id}`, { as: "editor", json: { title: "Lecture Two" } });
      expect((await fresh()).title).to.equal("Lecture Two");

      await t.post(`/venues/${venue.body.id}`, { as: "editor", json: { city: "Haarlem" } });
      expect((await fresh()).venue.city).to.equal("Haarlem");

      await t.post(`/organizers/${organizer.body.id}`, { as: "editor", json: { organizer: "Early Birds" } });
      expect((await fresh()).organizer[0].organizer).to.equal("Early Birds");

      await t.post(`/categories/${category.body.id}`, { as: "editor", json: { name: "Talks" } });
      expect((await fresh()).categories[0].name).to.equal("Talks");

      // Another event in the category changes the count this one shows.
      const count = (await fresh()).categories[0].count as number;
      await makeEvent(t, { title: "Lecture Three", status: "publish", categories: [category.body.id] });
      expect((await fresh()).categories[0].count).to.equal(count + 1);

      expect((await read(t, url)).how).to.equal("stored");
    });

    it("sees writes made by another connection with plain SQL", async () => {
      const t = site();
      const venue = await t.post("/venues", { as: "editor", json: { venue: "Mill", city: "Zwolle", status: "publish" } });
      const event = await makeEvent(t, { title: "Mill Night", status: "publish", venue: venue.body.id });
      const url = `/events/${event.id}`;
      await read(t, url);
      expect((await read(t, url)).how).to.equal("stored");
      const other = await createEngine(t.target);
      try {
        await other.engine.knex(other.engine.tables.posts).where({ id: event.id }).update({ title: "Mill Morning" });
        expect((await read(t, url)).body.title).to.equal("Mill Morning");
        await other.engine.knex(other.engine.tables.fields("venue")).where({ post_id: venue.body.id }).update({ city: "Kampen" });
        expect((await read(t, url)).body.venue.city).to.equal("Kampen");
        await other.engine.knex(other.engine.tables.posts).where({ id: venue.body.id }).update({ status: "draft" });
        expect((await read(t, url)).body.venue).to.satisfy((v: unknown) => v === undefined || (Array.isArray(v) && v.length === 0) || v === null);
      } finally {
        await other.close();
      }
    });

    it("shows a linked venue published after the answer was stored", async () => {
      const t = site();
      const venue = await t.post("/venues", { as: "editor", json: { venue: "Draft Barn", status: "draft" } });
      const event = await makeEvent(t, { title: "Barn Dance", status: "publish", venue: venue.body.id });
      const url = `/events/${event.id}`;
      const hidden = (await read(t, url)).body.venue;
      expect(hidden?.venue).to.equal(undefined);
      expect((await read(t, url)).how).to.equal("stored");
      await t.post(`/venues/${venue.body.id}`, { as: "editor", json: { status: "publish" } });
      expect((await read(t, url)).body.venue.venue).to.equal("Draft Barn");
    });

    it("by slug: follows a slug moving to another event", async () => {
      const t = site();
      const a = await makeEvent(t, { title: "Slug Owner", status: "publish", slug: "wandering-slug" });
      const url = `/events/by-slug/wandering-slug`;
      expect((await read(t, url)).body.id).to.equal(a.id);
      expect((await read(t, url)).how).to.equal("stored");
      await t.post(`/events/${a.id}`, { as: "editor", json: { slug: "settled-slug" } });
      const b = await makeEvent(t, { title: "New Owner", status: "publish", slug: "wandering-slug" });
      const now = await read(t, url);
      expect(now.body.id).to.equal(b.id);
      expect(now.how).to.equal("built");
      // A post with another slug coming or going leaves the answer stored (only its slug's bucket counts).
      expect((await read(t, url)).how).to.equal("stored");
      const other = await makeEvent(t, { title: "Unrelated Newcomer", status: "publish", slug: "quite-another-slug-entirely" });
      await t.request("DELETE", `/events/${other.id}`, { as: "editor" });
      expect((await read(t, url)).how).to.equal("stored");
    });

    it("never keeps or serves answers of authenticated readers or of password requests", async () => {
      const t = site();
      const event = await makeEvent(t, { title: "Private Eyes", status: "publish" });
      const url = `/events/${event.id}`;
      const stored = (): number => store(t).stats().stored;
      const before = stored();
      await t.get(url, { as: "editor" });
      await t.get(url, { as: "editor" });
      await t.get(`${url}?password=x`);
      await t.get(`${url}?password=x`);
      await store(t).flush();
      expect(stored()).to.equal(before);
      // An anonymous answer stored now is not what the editor gets (edit context shows raw fields).
      await read(t, url);
      await read(t, url);
      const edit = await t.get(`${url}?context=edit`, { as: "editor" });
      expect(edit.status).to.equal(200);
      expect(edit.body).to.have.property("title");
      expect(store(t).stats().hits + store(t).stats().proved).to.be.greaterThan(0);
    });

    it("parameters the endpoint does not declare make no row: 300 junk URLs get the clean URL's answer and ETag", async () => {
      const t = site();
      const event = await makeEvent(t, { title: "Junk Proof", status: "publish" });
      // One row at most for each URL below (an answer built while another test's database commits is not stored: it may be the first junk one).
      const before = store(t).size().answers;
      const clean = await fetch(`${t.ns}/events/${event.id}`);
      const cleanBody = await clean.text();
      const junk = "j".repeat(15 * 1024);
      for (let i = 0; i < 300; i++) {
        // Most with a short distinct name, some with 15 KB of junk, some with an Origin: never a new row.
        const query = i % 10 === 0 ? `x${i}=${junk}` : `utm_${i}=${i}&zz=${i}`;
        const res = await fetch(`${t.ns}/events/${event.id}?${query}`, { headers: i % 7 === 0 ? { origin: `https://o${i}.example` } : {} });
        expect(res.status).to.equal(200);
        expect(await res.text()).to.equal(cleanBody);
        expect(res.headers.get("etag")).to.equal(clean.headers.get("etag"));
        expect(res.headers.get("access-control-allow-origin")).to.equal(i % 7 === 0 ? `https://o${i}.example` : null);
      }
      await store(t).flush();
      expect(store(t).size().answers).to.be.at.most(before + 1);
      // The slug route too, and a declared global parameter is still an answer of its own.
      const beforeSlug = store(t).size().answers;
      for (let i = 0; i < 20; i++) await fetch(`${t.ns}/events/by-slug/${event.slug}?junk=${i}`);
      expect(store(t).size().answers).to.be.at.most(beforeSlug + 1);
      // `_fields` in any order, with repeats, and `_envelope` with any value: one answer each.
      const beforeFields = store(t).size().answers;
      for (const [i, fields] of ["id,title", "title,id", "title, id,id", "id,title,title"].entries()) {
        const res = await t.get(`/events/${event.id}`, { query: { _fields: fields, junk: String(i) } });
        expect(Object.keys(res.body)).to.deep.equal(["id", "title"]);
      }
      for (const envelope of ["", "1", "yes"]) expect((await t.get(`/events/${event.id}?_envelope=${envelope}`)).body.status).to.equal(200);
      expect(store(t).size().answers).to.be.at.most(beforeFields + 2);
    });

    it("keeps no refusal: a password-protected event read with _envelope answers the event once the password is removed", async () => {
      const t = site();
      const event = await makeEvent(t, { title: "Locked Room", status: "publish" });
      // The API sets no post password: as a tool writing SQL would.
      await t.site.engine.knex(t.site.engine.tables.posts).where({ id: event.id }).update({ password: "sesame" });
      for (const url of [`/events/by-slug/${event.slug}?_envelope`, `/events/${event.id}?_envelope`]) {
        for (let i = 0; i < 2; i++) {
          const refused = await t.get(url);
          expect(refused.status).to.equal(200);
          expect(refused.body.status).to.equal(403);
          expect(refused.body.body.code).to.equal("event-password-protected");
        }
      }
      await store(t).flush();
      await t.site.engine.knex(t.site.engine.tables.posts).where({ id: event.id }).update({ password: "" });
      for (const url of [`/events/by-slug/${event.slug}?_envelope`, `/events/${event.id}?_envelope`]) {
        const open = await t.get(url);
        expect(open.body.status, url).to.equal(200);
        expect(open.body.body.title).to.equal("Locked Room");
      }
      // Stored now; the password column is part of the post's tag: setting it again voids them.
      for (let i = 0; i < 2; i++) await read(t, `/events/${event.id}`);
      await t.site.engine.knex(t.site.engine.tables.posts).where({ id: event.id }).update({ password: "again" });
      expect((await read(t, `/events/${event.id}`)).status).to.equal(403);
      expect((await read(t, `/events/by-slug/${event.slug}?_envelope`)).body.status).to.equal(403);
    });

    it("does not store 404s and errors", async () => {
      const t = site();
      const before = store(t).stats().stored;
      expect((await t.get("/events/999999")).status).to.not.equal(200);
      expect((await t.get("/events/999999")).status).to.not.equal(200);
      await store(t).flush();
      expect(store(t).stats().stored).to.equal(before);
    });
  });
});

forEachDatabase("calendar: a bounded answer store", (db) => {
  const file = storeFile();
  const maxBytes = 128 * 1024;
  const site = useSite(db, { responseCache: false, answerStore: { file, maxBytes } });
  after(() => removeStore(file));

  it("stays within answerStore.maxBytes whatever is asked, evicting the oldest answers, and still answers right", async function () {
    const t = site();
    const s = t.site.rest.answerStore;
    if (s === undefined) throw new Error("no answer store");
    const event = await makeEvent(t, { title: "Bounded", status: "publish" });
    // A declared global parameter with made-up field names: each is an answer ({}) and a row of its own.
    for (let i = 0; i < 400; i++) {
      const res = await t.get(`/events/${event.id}`, { query: { _fields: `f${i}-${"x".repeat(1000)}` } });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({});
    }
    expect(s.size().bytes).to.be.at.most(maxBytes);
    expect(s.stats().evicted).to.be.greaterThan(0);
    expect((await t.get(`/events/${event.id}`)).body.title).to.equal("Bounded");
  });
});

forEachDatabase("calendar: stored answers shared by two sites on one database", (db) => {
  it("a write through one site is seen in the other's stored answers, and a store file from another database is emptied", async function () {
    const database = await db.create();
    const file = storeFile();
    const a = await startTestSite({ target: database.target, fixture: "minimal", timezone: "UTC", responseCache: false, answerStore: { file } });
    let b: TestSite | undefined;
    try {
      b = await startTestSite({ target: database.target, timezone: "UTC", responseCache: false, answerStore: { file } });
      const event = await makeEvent(a, { title: "Shared Night", status: "publish" });
      const url = `/events/${event.id}`;
      // A fresh process's first reads may race a commit (a new pooled SQLite connection refreshes statistics): not stored then.
      for (let i = 0; i < 3 && (b.site.rest.answerStore?.stats().stored ?? 0) === 0; i++) {
        expect((await b.get(url)).body.title).to.equal("Shared Night");
        await b.site.rest.answerStore?.flush();
      }
      expect(b.site.rest.answerStore?.stats().stored).to.equal(1);
      expect((await b.get(url)).body.title).to.equal("Shared Night");
      const served = b.site.rest.answerStore?.stats();
      expect((served?.hits ?? 0) + (served?.proved ?? 0)).to.equal(1);
      await a.post(url, { as: "editor", json: { title: "Shared Morning" } });
      expect((await b.get(url)).body.title).to.equal("Shared Morning");
    } finally {
      await b?.close();
      await a.close();
    }
    // The same store file opened for another database starts empty.
    const other = await db.create();
    const c = await startTestSite({ target: other.target, fixture: "minimal", timezone: "UTC", responseCache: false, answerStore: { file } });
    try {
      const sqlite3 = (await import("sqlite3")).default;
      const count = await new Promise<number>((resolve, reject) => {
        const handle = new sqlite3.Database(file, (err) => {
          if (err) return reject(err);
          handle.get("SELECT count(*) AS n FROM stored_answers", (e: Error | null, row: { n: number }) => {
            handle.close();
            return e ? reject(e) : resolve(row.n);
          });
        });
      });
      expect(count).to.equal(0);
    } finally {
      await c.close();
      await other.drop();
      await database.drop();
      removeStore(file);
    }
  });
});
