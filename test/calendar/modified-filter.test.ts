import { expect } from "chai";
import { forEachDatabase } from "../support/databases";
import type { TestSite } from "../support/site";
import { expectInvalidParam, ids, makeEvent, useSite } from "./events-support";

/** Sets a post's modification time (UTC) directly: the API always stamps "now". */
async function modifiedAt(t: TestSite, id: number, utc: string): Promise<void> {
  await t.site.engine.knex(t.site.engine.tables.posts).where({ id }).update({ modified_utc: utc, modified_local: utc });
}

const STAMPS = ["2026-01-01 10:00:00", "2026-03-01 10:00:00", "2026-05-01 10:00:00"];

forEachDatabase("modified_after / modified_before", (db) => {
  describe("in a UTC site", () => {
    const site = useSite(db);
    let events: number[] = [];
    let venues: number[] = [];

    before(async () => {
      const t = site();
      events = [];
      venues = [];
      for (const [i, stamp] of STAMPS.entries()) {
        const ev = await makeEvent(t, { title: `Modtest event ${i}`, status: "publish" });
        const venue = await t.post("/venues", { as: "editor", json: { venue: `Modtest hall ${i}`, status: "publish" } });
        expect(venue.status).to.equal(201);
        events.push(ev.id as number);
        venues.push(venue.body.id as number);
        await modifiedAt(t, ev.id as number, stamp);
        await modifiedAt(t, venue.body.id as number, stamp);
      }
    });

    it("narrows the event list, with dates, relative dates and Unix timestamps", async () => {
      const t = site();
      const list = async (query: Record<string, string | number>): Promise<number[]> => {
        const res = await t.get("/events", { query: { search: "Modtest", ...query } });
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        return ids(res.body.events);
      };
      expect(await list({})).to.have.members(events);
      expect(await list({ modified_after: "2026-02-01" })).to.have.members([events[1], events[2]]);
      expect(await list({ modified_before: "2026-02-01 00:00:00" })).to.have.members([events[0]]);
      expect(await list({ modified_after: "2026-01-01 10:00:00", modified_before: "2026-05-01 10:00:00" })).to.have.members([events[1]]);
      expect(await list({ modified_before: Date.UTC(2026, 3, 1) / 1000 })).to.have.members([events[0], events[1]]);
      expect(await list({ modified_after: "2026-03-01T11:00:00+02:00" })).to.have.members([events[1], events[2]]);
      // Relative to now: everything here was "modified" in 2026's first half.
      expect(await list({ modified_after: "+1 day" })).to.deep.equal([]);
    });

    it("echoes the arguments in the list's links", async () => {
      const t = site();
      const res = await t.get("/events", { query: { search: "Modtest", modified_after: "2026-02-01", per_page: 1 } });
      expect(res.status).to.equal(200);
      expect(res.body.total).to.equal(2);
      expect(decodeURIComponent(res.body.next_rest_url as string)).to.contain("modified_after=2026-02-01");
    });

    it("narrows the venue and organizer lists the same way", async () => {
      const t = site();
      const res = await t.get("/venues", { query: { search: "Modtest", modified_after: "2026-02-01" } });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(ids(res.body.venues)).to.have.members([venues[1], venues[2]]);
      const before = await t.get("/venues", { query: { search: "Modtest", modified_before: "2026-02-01", per_page: 1 } });
      expect(ids(before.body.venues)).to.deep.equal([venues[0]]);
      const organizers = await t.get("/organizers", { query: { modified_after: "+1 day" } });
      expect(organizers.status).to.equal(200);
      expect(organizers.body.organizers).to.deep.equal([]);
    });

    it("refuses a date that does not parse, on every list", async () => {
      const t = site();
      for (const route of ["/events", "/venues", "/organizers"]) {
        expectInvalidParam(await t.get(route, { query: { modified_after: "not a date" } }), "modified_after");
        expectInvalidParam(await t.get(route, { query: { modified_before: "" } }), "modified_before");
      }
    });
  });

  describe("in a site with another time zone", () => {
    const site = useSite(db, { timezone: "Europe/Rome" });

    it("reads a date without an offset in the site's zone", async () => {
      const t = site();
      const ev = await makeEvent(t, { title: "Zoned modtest", status: "publish" });
      await modifiedAt(t, ev.id as number, "2026-03-01 10:00:00");
      const list = async (modified_after: string): Promise<number[]> =>
        ids((await t.get("/events", { query: { search: "Zoned", modified_after } })).body.events);
      // 10:30 in Rome (winter, UTC+1) is 09:30 UTC: the 10:00 UTC change is after it.
      expect(await list("2026-03-01 10:30:00")).to.deep.equal([ev.id]);
      expect(await list("2026-03-01 11:30:00")).to.deep.equal([]);
      expect(await list("2026-03-01 10:30:00 UTC")).to.deep.equal([]);
    });
  });
});
