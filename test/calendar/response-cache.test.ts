/**
 * The calendar's anonymous reads through the response cache: reused while
 * nothing changed (SQLite and PostgreSQL, where a change is detectable in
 * one statement),
 * never stale after a write through this site or through another connection
 * to the same database (another process), never shared with logged-in users.
 */
import { expect } from "chai";
import type { Knex } from "knex";
import { createEngine } from "../../lib/engine";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import v8 from "node:v8";
import vm from "node:vm";
import { ServerRequest } from "../../lib/routes/request";
import { forEachDatabase, type TestTarget } from "../support/databases";
import { makeEvent, useSite } from "./events-support";
import type { TestSite } from "../support/site";

async function statementsOf(t: TestSite, run: () => Promise<unknown>): Promise<number> {
  let n = 0;
  const knex: Knex = t.site.engine.knex;
  const onQuery = (): void => {
    n++;
  };
  knex.on("query", onQuery);
  try {
    await run();
  } finally {
    knex.removeListener("query", onQuery);
  }
  return n;
}

/**
 * An event list's answer outlives writes that change nothing it shows
 * (`reuseWhile`: its records' tags and its ids and total), and every write
 * that changes something it shows is seen on the next read.
 */
async function keepsListAcrossWrites(t: TestSite, db: TestTarget): Promise<void> {
  const cache = t.site.rest.settings.responseCache;
  if (cache === undefined) throw new Error("the test site has a response cache");
  const cat = await t.post("/categories", { as: "editor", json: { name: "Keepers" } });
  const venue = await t.post("/venues", { as: "editor", json: { venue: "Keep Hall", status: "publish" } });
  const shown = await makeEvent(t, { title: "Keepable Recital", status: "publish", categories: [cat.body.id], venue: venue.body.id });
  const other = await makeEvent(t, { title: "Unrelated Gig", status: "publish" });
  const url = "/events?search=keepable";
  const read = async (): Promise<any> => (await t.get(url)).body;
  await read();
  const first = await read();
  expect(first.events.map((e: { id: number }) => e.id)).to.deep.equal([shown.id]);

  // An edit of an event the list does not hold: the kept answer is proved, not built.
  const before = cache.stats().proved;
  expect((await t.post(`/events/${other.id}`, { as: "editor", json: { excerpt: "Changed, elsewhere." } })).status).to.equal(200);
  expect(await read()).to.deep.equal(first);
  // Proved by the tag feed (every database that keeps tags).
  expect(t.site.engine.readCache?.tagFeed).to.not.equal(null);
  expect(cache.stats().proved).to.equal(before + 1);

  // Every change to what it shows is seen on the next read.
  expect((await t.post(`/events/${shown.id}`, { as: "editor", json: { title: "Keepable Recital, Again" } })).status).to.equal(200);
  expect((await read()).events[0].title).to.equal("Keepable Recital, Again");
  await read();
  expect((await t.post(`/categories/${cat.body.id}`, { as: "editor", json: { name: "Keepers Renamed" } })).status).to.equal(200);
  expect((await read()).events[0].categories[0].name).to.equal("Keepers Renamed");
  await read();
  expect((await t.post(`/venues/${venue.body.id}`, { as: "editor", json: { venue: "Keep Hall Renamed" } })).status).to.equal(200);
  expect((await read()).events[0].venue.venue).to.equal("Keep Hall Renamed");
  await read();
  const joined = await makeEvent(t, { title: "Keepable Encore", status: "publish" });
  const grown = await read();
  expect(grown.total).to.equal(2);
  expect(grown.events.map((e: { id: number }) => e.id)).to.have.members([shown.id, joined.id]);
  await read();
  if (!(db.name === "sqlite" && t.target === ":memory:")) {
    const elsewhere = await createEngine(t.target);
    try {
      await elsewhere.engine.knex(elsewhere.engine.tables.posts).where({ id: shown.id }).update({ title: "Keepable, Changed Elsewhere" });
    } finally {
      await elsewhere.close();
    }
    expect((await read()).events.map((e: { title: string }) => e.title)).to.include("Keepable, Changed Elsewhere");
    await read();
  }
  expect((await t.request("DELETE", `/events/${joined.id}`, { as: "editor" })).status).to.equal(200);
  expect((await read()).total).to.equal(1);
}

/** The venues with upcoming events, a list the index answers from the events that link to them: the same rule as `keepsListAcrossWrites`. */
async function keepsVenueListAcrossWrites(t: TestSite): Promise<void> {
  const cache = t.site.rest.settings.responseCache;
  if (cache === undefined) throw new Error("the test site has a response cache");
  const busy = await t.post("/venues", { as: "editor", json: { venue: "Busy Hall", status: "publish" } });
  const quiet = await t.post("/venues", { as: "editor", json: { venue: "Quiet Hall", status: "publish" } });
  const event = await makeEvent(t, { title: "Busy Night", status: "publish", venue: busy.body.id });
  const url = "/venues?only_with_upcoming=1&per_page=50";
  const read = async (): Promise<any> => (await t.get(url)).body;
  const names = (body: { venues: Array<{ venue: string }> }): string[] => body.venues.map((v) => v.venue);
  await read();
  const first = await read();
  expect(names(first)).to.include("Busy Hall").and.not.include("Quiet Hall");
  const before = cache.stats().proved;
  expect((await t.post(`/events/${event.id}`, { as: "editor", json: { excerpt: "Still at the busy hall." } })).status).to.equal(200);
  expect(await read()).to.deep.equal(first);
  // Proved by the tag feed (every database that keeps tags).
  expect(t.site.engine.readCache?.tagFeed).to.not.equal(null);
  expect(cache.stats().proved).to.equal(before + 1);
  expect((await t.post(`/venues/${busy.body.id}`, { as: "editor", json: { venue: "Busy Hall Renamed" } })).status).to.equal(200);
  expect(names(await read())).to.include("Busy Hall Renamed");
  await read();
  const moved = await makeEvent(t, { title: "Quiet Night", status: "publish", venue: quiet.body.id });
  expect(names(await read())).to.include("Quiet Hall");
  await read();
  expect((await t.request("DELETE", `/events/${moved.id}`, { as: "editor" })).status).to.equal(200);
  expect(names(await read())).to.not.include("Quiet Hall");
}

forEachDatabase("response cache on calendar reads", (db) => {
  const site = useSite(db);
  let event: { id: number; title: string };

  before(async () => {
    const body = await makeEvent(site(), { title: "Cached Concert", status: "publish" });
    event = { id: body.id, title: body.title };
  });

  it("answers a repeated anonymous read from the cache (SQLite) or the database (elsewhere), with the same bytes", async () => {
    const t = site();
    const first = await t.get(`/events/${event.id}`);
    await t.get(`/events/${event.id}`);
    let third: Awaited<ReturnType<TestSite["get"]>> | undefined;
    const statements = await statementsOf(t, async () => {
      third = await t.get(`/events/${event.id}`);
    });
    expect(third?.status).to.equal(200);
    expect(third?.body).to.deep.equal(first.body);
    // SQLite: nothing through the pool (a file's revision is read on a connection of its own).
    // PostgreSQL, MariaDB: only the revision check.
    expect(statements).to.equal(db.name === "sqlite" ? 0 : 1);
  });

  it("shows a write made through the API at once", async () => {
    const t = site();
    for (let i = 0; i < 3; i++) await t.get(`/events/${event.id}`);
    const res = await t.post(`/events/${event.id}`, { as: "editor", json: { title: "Renamed Concert" } });
    expect(res.status).to.equal(200);
    expect((await t.get(`/events/${event.id}`)).body.title).to.equal("Renamed Concert");
    const list = await t.get("/events");
    expect(list.body.events.map((e: { title: string }) => e.title)).to.include("Renamed Concert");
  });

  it("shows a write committed by another connection to the same database (another process) on the next read", async function () {
    if (db.name === "sqlite" && site().target === ":memory:") this.skip();
    const t = site();
    for (let i = 0; i < 3; i++) await t.get(`/events/${event.id}`);
    for (let i = 0; i < 3; i++) await t.get("/events");
    const other = await createEngine(t.target);
    try {
      await other.engine.knex(other.engine.tables.posts).where({ id: event.id }).update({ title: "Changed Elsewhere" });
    } finally {
      await other.close();
    }
    expect((await t.get(`/events/${event.id}`)).body.title).to.equal("Changed Elsewhere");
    expect((await t.get("/events")).body.events.map((e: { title: string }) => e.title)).to.include("Changed Elsewhere");
  });

  it("never hands an anonymous answer to a logged-in reader, nor the reverse", async () => {
    const t = site();
    const draft = await makeEvent(t, { title: "Hidden Draft", status: "draft" });
    const refused = (await t.get(`/events/${draft.id}`)).status;
    expect(refused).to.be.within(401, 403);
    for (let i = 0; i < 2; i++) expect((await t.get(`/events/${draft.id}`)).status).to.equal(refused);
    const authed = await t.get(`/events/${draft.id}`, { as: "editor" });
    expect(authed.status).to.equal(200);
    expect(authed.headers.get("cache-control")).to.contain("private");
    for (let i = 0; i < 3; i++) expect((await t.get(`/events/${draft.id}`, { as: "editor" })).body.title).to.equal("Hidden Draft");
    expect((await t.get(`/events/${draft.id}`)).status).to.equal(refused);
  });

  it("embeds a linked venue as it is now, after an edit through the API or another connection", async () => {
    const t = site();
    const venue = await t.post("/venues", { as: "editor", json: { venue: "Shared Hall", status: "publish" } });
    expect(venue.status).to.equal(201);
    const body = await makeEvent(t, { title: "Hall Night", status: "publish", venue: venue.body.id });
    const venueName = async (): Promise<string> => (await t.get(`/events/${body.id}`)).body.venue.venue;
    for (let i = 0; i < 3; i++) expect(await venueName()).to.equal("Shared Hall");
    expect((await t.post(`/venues/${venue.body.id}`, { as: "editor", json: { venue: "Renamed Hall" } })).status).to.equal(200);
    expect(await venueName()).to.equal("Renamed Hall");
    const other = await createEngine(t.target);
    try {
      await other.engine.knex(other.engine.tables.posts).where({ id: venue.body.id }).update({ title: "Hall Elsewhere" });
    } finally {
      await other.close();
    }
    expect(await venueName()).to.equal("Hall Elsewhere");
  });
});

forEachDatabase("response cache: list answers outliving writes", (db) => {
  describe("records kept in memory", () => {
    const site = useSite(db);
    it("keeps the list across an edit of another event and shows each change to what it shows at once", () => keepsListAcrossWrites(site(), db));
    it("keeps the venues with upcoming events across an edit that changes none, and shows each change at once", () => keepsVenueListAcrossWrites(site()));
  });
  describe("records kept in a stored-answer file", () => {
    const file = path.join(os.tmpdir(), `calpress-outliving-${process.pid}-${db.name}.sqlite`);
    const site = useSite(db, { answerStore: { file } });
    after(() => {
      for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });
    });
    it("keeps the list across an edit of another event and shows each change to what it shows at once", () => keepsListAcrossWrites(site(), db));
  });
});

forEachDatabase("response cache: what a kept answer's check holds", (db) => {
  const site = useSite(db);

  it("keeps no request alive with the answer: the check closes over its own arguments only", async function () {
    // A forced collection: without it, whether the request is still reachable cannot be told.
    v8.setFlagsFromString("--expose-gc");
    const gc = vm.runInNewContext("gc") as () => void;
    const t = site();
    await makeEvent(t, { title: "Retention Check", status: "publish" });
    const held: Array<WeakRef<object>> = [];
    const proto = ServerRequest.prototype;
    const original = proto.reuseWhile;
    proto.reuseWhile = function (this: ServerRequest, check: () => Promise<boolean>): void {
      held.push(new WeakRef(this));
      original.call(this, check);
    };
    try {
      for (const q of ["?search=retention", "?per_page=5", "/../venues?per_page=5"]) {
        const path = q.startsWith("/..") ? q.slice(3) : `/events${q}`;
        for (let i = 0; i < 2; i++) expect((await t.get(path)).status).to.equal(200);
      }
    } finally {
      proto.reuseWhile = original;
    }
    expect(held.length).to.be.greaterThan(3);
    // The answers are kept (the second request of each URL) with their checks.
    expect(t.site.rest.settings.responseCache?.stats().entries).to.be.greaterThan(2);
    for (let i = 0; i < 5 && held.some((r) => r.deref() !== undefined); i++) {
      await new Promise((resolve) => setImmediate(resolve));
      gc();
    }
    expect(held.filter((r) => r.deref() !== undefined)).to.have.length(0);
  });
});
