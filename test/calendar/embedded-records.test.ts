/**
 * Embedded venue and organizer records are kept with the shared post objects
 * they were built from (lib/calendar/records/embedded.ts). These tests run
 * without the response cache, so every read builds its event record and a
 * kept embedded record is what it shows: it must follow every change of the
 * venue or organizer, made here or through another connection, and never be
 * kept where the reader decides what it shows (password-protected posts).
 */
import { expect } from "chai";
import { createEngine } from "../../lib/engine";
import { forEachDatabase } from "../support/databases";
import { makeEvent, useSite } from "./events-support";

interface EmbeddedVenue {
  id: number;
  venue?: string;
  city?: string;
  address?: string;
}

forEachDatabase("calendar: embedded venue and organizer records", (db) => {
  const site = useSite(db, { responseCache: false });

  it("shows a shared venue's edit in every event that embeds it, through the API and through another connection", async () => {
    const t = site();
    const venue = await t.post("/venues", { as: "editor", json: { venue: "Corner Hall", city: "Utrecht", status: "publish" } });
    expect(venue.status).to.equal(201);
    const a = await makeEvent(t, { title: "First Night", status: "publish", venue: venue.body.id });
    const b = await makeEvent(t, { title: "Second Night", status: "publish", venue: venue.body.id });
    const embedded = async (id: number): Promise<EmbeddedVenue> => (await t.get(`/events/${id}`)).body.venue as EmbeddedVenue;

    // Both events read the same venue, several times (a kept record serves the later reads).
    for (let i = 0; i < 2; i++) {
      expect(await embedded(a.id)).to.include({ id: venue.body.id, venue: "Corner Hall", city: "Utrecht" });
      expect(await embedded(b.id)).to.include({ venue: "Corner Hall", city: "Utrecht" });
    }
    const edited = await t.post(`/venues/${venue.body.id}`, { as: "editor", json: { city: "Leiden", address: "Breestraat 1" } });
    expect(edited.status).to.equal(200);
    expect(await embedded(b.id)).to.include({ venue: "Corner Hall", city: "Leiden", address: "Breestraat 1" });
    expect(await embedded(a.id)).to.include({ city: "Leiden" });

    const other = await createEngine(t.target);
    try {
      await other.engine.knex(other.engine.tables.posts).where({ id: venue.body.id }).update({ title: "Hall Across Town" });
    } finally {
      await other.close();
    }
    expect(await embedded(a.id)).to.include({ venue: "Hall Across Town", city: "Leiden" });
    expect(await embedded(b.id)).to.include({ venue: "Hall Across Town" });
  });

  it("shows an organizer's edit in the single event and in its JSON-LD", async () => {
    const t = site();
    const org = await t.post("/organizers", { as: "editor", json: { organizer: "Night Owls", email: "owls@example.org", status: "publish" } });
    expect(org.status).to.equal(201);
    const event = await makeEvent(t, { title: "Owl Night", status: "publish", organizer: org.body.id });
    const read = async (): Promise<{ organizer: Array<{ organizer: string; email?: string }>; json_ld: { organizer?: { name: string; email?: string } } }> =>
      (await t.get(`/events/${event.id}`)).body;
    for (let i = 0; i < 2; i++) expect((await read()).organizer[0]).to.include({ organizer: "Night Owls", email: "owls@example.org" });
    expect((await t.post(`/organizers/${org.body.id}`, { as: "editor", json: { organizer: "Early Birds", email: "" } })).status).to.equal(200);
    const after = await read();
    expect(after.organizer[0].organizer).to.equal("Early Birds");
    expect(after.organizer[0]).to.not.have.property("email");
    expect(after.json_ld.organizer).to.deep.include({ name: "Early Birds" });
    expect(after.json_ld.organizer).to.not.have.property("email");
  });

  it("masks a password-protected venue for readers without the password, whoever read it before", async () => {
    const t = site();
    const venue = await t.post("/venues", { as: "editor", json: { venue: "Secret Cellar", address: "Hidden Lane 7", status: "publish" } });
    expect(venue.status).to.equal(201);
    // The API cannot set a post password (calendar-api.md §1.3): set it in the database.
    await t.site.engine.knex(t.site.engine.tables.posts).where({ id: venue.body.id }).update({ password: "cellar-pw" });
    const event = await makeEvent(t, { title: "Cellar Session", status: "publish", venue: venue.body.id });
    // An editor in edit context sees the address; an anonymous reader right after does not.
    const editor = await t.get(`/events/${event.id}?context=edit`, { as: "editor" });
    expect(editor.status).to.equal(200);
    expect((editor.body.venue as EmbeddedVenue).address).to.equal("Hidden Lane 7");
    for (let i = 0; i < 2; i++) {
      const anonymous = await t.get(`/events/${event.id}`);
      expect(anonymous.status).to.equal(200);
      expect(anonymous.text).to.not.contain("Hidden Lane 7");
    }
    expect(((await t.get(`/events/${event.id}?context=edit`, { as: "editor" })).body.venue as EmbeddedVenue).address).to.equal("Hidden Lane 7");
  });
});
