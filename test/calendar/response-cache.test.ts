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
import { forEachDatabase } from "../support/databases";
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
    // PostgreSQL: only the revision check. MariaDB: the whole read.
    if (db.name === "mysql") expect(statements).to.be.greaterThan(1);
    else expect(statements).to.equal(db.name === "sqlite" ? 0 : 1);
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
