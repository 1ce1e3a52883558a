import { expect } from "chai";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { importIcs, ianaZoneOf, type ImportReport } from "../../lib/calendar/import/ics";
import type { CurrentUser } from "../../lib/users/types";
import { runCli, removeSqliteFile } from "../support/cli";
import { forEachDatabase } from "../support/databases";
import type { TestSite } from "../support/site";
import { useSite } from "./events-support";

const ICS_DIR = path.join(__dirname, "ics");
const file = (name: string): string => fs.readFileSync(path.join(ICS_DIR, `${name}.ics`), "utf8");

async function admin(t: TestSite): Promise<CurrentUser> {
  const record = await t.site.engine.users.byLogin("admin");
  if (!record) throw new Error("no admin");
  return t.site.engine.users.currentUser(record);
}

async function eventCount(t: TestSite): Promise<number> {
  const row = (await t.site.engine.knex(t.site.engine.tables.posts).where({ type: "event" }).count("* as n").first()) as { n: number | string };
  return Number(row.n);
}

function created(report: ImportReport, uid: string): number {
  const found = report.created.find((e) => e.uid === uid) ?? report.updated.find((e) => e.uid === uid);
  if (!found) throw new Error(`${uid} not imported: ${JSON.stringify(report)}`);
  return found.id;
}

describe("iCalendar import: time zone names", () => {
  it("knows IANA names, Outlook's Windows names and Mozilla-style prefixes", () => {
    expect(ianaZoneOf("Europe/Rome")).to.equal("Europe/Rome");
    expect(ianaZoneOf("W. Europe Standard Time")).to.equal("Europe/Berlin");
    expect(ianaZoneOf("/mozilla.org/20050126_1/America/New_York")).to.equal("America/New_York");
    expect(ianaZoneOf("Customized Time Zone")).to.equal(null);
  });
});

forEachDatabase("iCalendar import", (db) => {
  const site = useSite(db);

  it("brings in a Google Calendar export: zones, a series with its exceptions, all-day, the venue, and says what it skipped", async () => {
    const t = site();
    const report = await importIcs(t.site.engine, file("google"), await admin(t));
    const choir = (await t.get(`/events/${created(report, "0a1b2c3d4e5f@google.com")}`)).body;
    expect(choir).to.include({ title: "Choir rehearsal", start_date: "2027-03-02 19:00:00", end_date: "2027-03-02 21:00:00", timezone: "Europe/Rome", status: "publish" });
    // The cancelled occurrence (its own VEVENT) joins the EXDATEs, all as UTC instants.
    expect(choir.recurrence).to.deep.equal(["RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20270525T165959Z", "EXDATE:20270406T170000Z,20270413T170000Z"]);
    expect(choir.venue.venue).to.equal("Sala Verdi, Via Roma 1, 00100 Roma RM, Italia");
    expect(choir.description).to.equal("<p>Bring your score, a pencil and water.</p>\n<p>We start with warm-ups at 19:00 sharp.</p>");
    const starts = (await t.site.engine.occurrences.list(choir.id)).map((o) => o.start_local.slice(0, 10));
    expect(starts).to.include("2027-03-30").and.include("2027-05-18");
    // UNTIL 16:59:59Z is 18:59:59 in Rome: the 25th's 19:00 is past it.
    expect(starts).to.not.include("2027-05-25");
    expect(starts).to.not.include("2027-04-06");
    expect(starts).to.not.include("2027-04-13");

    const festa = (await t.get(`/events/${created(report, "festa-2027@google.com")}`)).body;
    // DTEND of an all-day event is exclusive; X-WR-TIMEZONE gives its zone.
    expect(festa).to.include({ all_day: true, start_date: "2027-06-01 00:00:00", end_date: "2027-06-02 23:59:59", timezone: "Europe/Rome" });

    expect(report.skipped.map((s) => [s.uid, s.reason.split(":")[0]])).to.deep.equal([["cancelled-1@google.com", "cancelled (STATUS"]]);

    // The changed occurrence (its own VEVENT with a RECURRENCE-ID) is detached from the series with its fields.
    const late = report.created.find((e) => e.title === "Choir rehearsal (late start)");
    expect(late, JSON.stringify(report.created)).to.not.equal(undefined);
    const detached = (await t.get(`/events/${late?.id}`)).body;
    expect(detached).to.include({ series_id: choir.id, original_start_date: "2027-04-20 19:00:00", start_date: "2027-04-20 20:00:00", timezone: "Europe/Rome" });
    expect((await t.site.engine.occurrences.list(choir.id)).map((o) => o.start_local.slice(0, 10))).to.not.include("2027-04-20");
    const listed = await t.get("/events", { query: { start_date: "2027-04-19", end_date: "2027-04-21" } });
    expect(listed.body.events.map((e: { id: number }) => e.id)).to.deep.equal([detached.id]);

    // Imported again unchanged: nothing written. With the occurrence changed again: the detached event is updated, not duplicated.
    const again = await importIcs(t.site.engine, file("google"), await admin(t));
    expect(again.created).to.deep.equal([]);
    const moved = await importIcs(t.site.engine, file("google").replace("SUMMARY:Choir rehearsal (late start)", "SUMMARY:Choir rehearsal (later start)"), await admin(t));
    expect(moved.created).to.deep.equal([]);
    expect(moved.updated.map((e) => [e.id, e.title])).to.deep.include.members([[detached.id, "Choir rehearsal (later start)"]]);
    const relisted = await t.get("/events", { query: { start_date: "2027-04-19", end_date: "2027-04-21" } });
    expect(relisted.body.events.map((e: { id: number; title: string }) => [e.id, e.title])).to.deep.equal([[detached.id, "Choir rehearsal (later start)"]]);
  });

  it("is idempotent by UID: a second import updates or skips, never duplicates", async () => {
    const t = site();
    const before = await eventCount(t);
    const first = await importIcs(t.site.engine, file("apple"), await admin(t));
    // The VEVENT without UID too, by an identity derived from its DTSTART, SUMMARY and RRULE (issue 42).
    expect(first.created.map((e) => e.title)).to.deep.equal(["Book club", "No uid here"]);
    expect(await eventCount(t)).to.equal(before + 2);
    const again = await importIcs(t.site.engine, file("apple"), await admin(t));
    expect(again.created).to.deep.equal([]);
    expect(again.updated).to.deep.equal([]);
    expect(again.skipped.map((s) => s.reason)).to.deep.equal(["unchanged since the last import", "unchanged since the last import"]);
    const changed = await importIcs(t.site.engine, file("apple").replace("SUMMARY:Book club", "SUMMARY:Book club (new room)"), await admin(t));
    expect(changed.updated.map((e) => e.title)).to.deep.equal(["Book club (new room)"]);
    expect(await eventCount(t)).to.equal(before + 2);
  });

  it("reads an Apple Calendar export: DURATION, CATEGORIES, URL, a monthly ordinal rule; an event without UID gets a derived identity", async () => {
    const t = site();
    const report = await importIcs(t.site.engine, file("apple").replace(/5D8E2F1A-1111/g, "5D8E2F1A-2222"), await admin(t));
    const club = (await t.get(`/events/${created(report, "5D8E2F1A-2222-4C4C-9E9E-ABCDEF012345")}`)).body;
    expect(club).to.include({ start_date: "2027-01-15 18:30:00", end_date: "2027-01-15 20:00:00", timezone: "America/New_York", website: "https://example.org/book-club" });
    expect(club.categories.map((c: { name: string }) => c.name)).to.have.members(["Books", "Meetups"]);
    expect(club.recurrence).to.deep.equal(["RRULE:FREQ=MONTHLY;COUNT=6;BYDAY=3FR"]);
    expect((await t.site.engine.occurrences.list(club.id)).map((o) => o.start_local)).to.have.length(6);
    // Imported by the test before (same derived identity, same source): unchanged.
    expect(report.skipped.map((e) => [e.uid?.slice(0, 17), e.title, e.reason])).to.deep.equal([["calpress-derived-", "No uid here", "unchanged since the last import"]]);
  });

  it("reads an Outlook export: Windows zone names, a custom VTIMEZONE, the organizer, and sanitises its HTML description", async () => {
    const t = site();
    const report = await importIcs(t.site.engine, file("outlook"), await admin(t));
    const review = (await t.get(`/events/${report.created[0].id}`)).body;
    expect(review).to.include({ title: "Quarterly review", start_date: "2027-02-10 10:00:00", timezone: "Europe/Berlin" });
    expect(review.description).to.equal("<p>Quarterly <b>review</b>.</p>\n<p>Agenda attached.</p>");
    expect(review.organizer.map((o: { organizer: string; email: string }) => [o.organizer, o.email])).to.deep.equal([["Jane Doe", "jane.doe@example.com"]]);
    // "Customized Time Zone" (+05:30 all year) is only known from the file: kept as the first zone with its offsets over 2027 (issue 42), never UTC.
    const call = (await t.get(`/events/${report.created[1].id}`)).body;
    expect(call).to.include({ timezone: "Asia/Kolkata", start_date: "2027-03-01 09:00:00", end_date: "2027-03-01 10:00:00", utc_start_date: "2027-03-01 03:30:00" });
    expect(report.notes).to.deep.equal([]);
  });

  it("POST /import: administrators only, a text/calendar body or a URL under the fetch policy, 400 for what is not a calendar", async () => {
    const t = site();
    const body = file("outlook").replace(/outlook-custom-zone-1/, "outlook-rest-1").replace(/040000008200E0007/, "REST00008200E0007");
    const headers = { "content-type": "text/calendar; charset=utf-8" };
    for (const as of ["editor", undefined]) {
      const refused = await t.request("POST", "/import", { as, headers, json: undefined });
      expect(refused.status, String(as)).to.equal(as ? 403 : 401);
    }
    const res = await fetch(`${t.ns}/import`, { method: "POST", headers: { ...headers, authorization: `Basic ${Buffer.from("admin:admin-pass").toString("base64")}` }, body });
    const report = (await res.json()) as ImportReport;
    expect(res.status, JSON.stringify(report)).to.equal(200);
    expect(report.created.map((e) => e.uid)).to.have.members(["outlook-rest-1", "REST00008200E00074C5B7101A82E00800000000A0B1C2D3E4F5A6B7C8D9E0F1A2B3C4D5"]);

    const notIcs = await fetch(`${t.ns}/import`, { method: "POST", headers: { ...headers, authorization: `Basic ${Buffer.from("admin:admin-pass").toString("base64")}` }, body: "hello" });
    expect(notIcs.status).to.equal(400);
    expect(((await notIcs.json()) as { code: string }).code).to.equal("calendar-import-invalid-file");

    // An internal address is never fetched.
    const internal = await t.post("/import", { as: "admin", json: { url: `${t.home}/feed.ics` } });
    expect(internal.status, JSON.stringify(internal.body)).to.equal(400);
    expect(internal.body.data.params.url).to.match(/cannot be fetched/);
    const missing = await t.post("/import", { as: "admin", json: {} });
    expect(missing.status).to.equal(400);
  });
});

forEachDatabase("iCalendar import from a URL the site's fetch policy allows", (db) => {
  const site = useSite(db, { fetch: { allowHosts: ["127.0.0.1"] } });

  it("fetches the file and imports it", async () => {
    const t = site();
    const server = http.createServer((req, res) => {
      res.writeHead(req.url === "/apple.ics" ? 200 : 404, { "content-type": "text/calendar" });
      res.end(req.url === "/apple.ics" ? file("apple").replace(/5D8E2F1A-1111/g, "5D8E2F1A-3333") : "");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const res = await t.post("/import", { as: "admin", json: { url: `${base}/apple.ics` } });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.created.map((e: { title: string }) => e.title)).to.deep.equal(["Book club", "No uid here"]);
      const missing = await t.post("/import", { as: "admin", json: { url: `${base}/gone.ics` } });
      expect(missing.status).to.equal(400);
      expect(missing.body.data.params.url).to.equal("The URL answered 404.");
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe("calpress import ics", () => {
  it("imports a file into a site as its first administrator and prints the report", async function () {
    this.timeout(60_000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "calpress-import-"));
    const db = path.join(dir, "site.sqlite");
    try {
      expect((await runCli(["fixture", "load", "minimal", "--db", db])).code).to.equal(0);
      const run = await runCli(["import", "ics", path.join(ICS_DIR, "google.ics"), "--db", db]);
      expect(run.code, run.err.join("\n")).to.equal(0);
      expect(run.out[0]).to.match(/^imported .*google\.ics: 3 created, 0 updated, 1 skipped$/);
      expect(run.out.some((l) => /created \d+ Choir rehearsal \(0a1b2c3d4e5f@google.com\)/.test(l))).to.equal(true);
      const again = await runCli(["import", "ics", path.join(ICS_DIR, "google.ics"), "--db", db, "--as", "editor"]);
      expect(again.out[0]).to.match(/0 created, 0 updated, 3 skipped$/);
      const bad = await runCli(["import", "ics", path.join(dir, "missing.ics"), "--db", db]);
      expect(bad.code).to.equal(2);
      expect(bad.err[0]).to.match(/no such file/);
    } finally {
      removeSqliteFile(db);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
