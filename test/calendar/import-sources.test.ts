/**
 * Whose UID is it (hardening issue, finding 9): an import matches UIDs only
 * among the events imported from the same source, and never undoes what an
 * editor did to an imported event (unpublished, trashed) unless told to.
 */
import { expect } from "chai";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { ICAL_SOURCE_META, ICAL_UID_META, importIcs, type ImportOptions, type ImportReport } from "../../lib/calendar/import/ics";
import { createSite } from "../../lib/site";
import type { CurrentUser } from "../../lib/users/types";
import { removeSqliteFile, runCli } from "../support/cli";
import { forEachDatabase } from "../support/databases";
import type { TestSite } from "../support/site";
import { useSite } from "./events-support";

const CRLF = "\r\n";

function file(uid: string, summary: string, extra: string[] = [], calendarProps: string[] = []): string {
  return [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//calpress tests//sources//EN",
    ...calendarProps,
    "BEGIN:VEVENT",
    `UID:${uid}`,
    "DTSTAMP:20260101T000000Z",
    `SUMMARY:${summary}`,
    "DTSTART:20270510T180000Z",
    "DTEND:20270510T200000Z",
    ...extra,
    "END:VEVENT",
    "END:VCALENDAR",
    "",
  ].join(CRLF);
}

async function admin(t: TestSite): Promise<CurrentUser> {
  const record = await t.site.engine.users.byLogin("admin");
  if (!record) throw new Error("no admin");
  return t.site.engine.users.currentUser(record);
}

async function run(t: TestSite, text: string, options: ImportOptions): Promise<ImportReport> {
  return importIcs(t.site.engine, text, await admin(t), options);
}

/** The one event a report created or updated. */
function only(report: ImportReport): number {
  const all = [...report.created, ...report.updated];
  expect(all, JSON.stringify(report)).to.have.length(1);
  return all[0]?.id ?? 0;
}

/** The event as stored (trashed ones too). */
async function event(t: TestSite, id: number): Promise<{ title: string; status: string }> {
  const post = await t.site.engine.posts.get(id);
  if (!post) throw new Error(`no post ${id}`);
  return { title: post.title, status: post.status };
}

forEachDatabase("iCalendar import: UIDs belong to their source", (db) => {
  const site = useSite(db);

  it("a second calendar reusing a UID gets its own event and leaves the first one alone", async () => {
    const t = site();
    const first = only(await run(t, file("shared-uid@example.org", "Choir concert"), { source: "https://choir.example/feed.ics" }));
    const second = await run(t, file("shared-uid@example.org", "Hijacked!"), { source: "https://other.example/feed.ics" });
    expect(second.created).to.have.length(1);
    expect(second.created[0]?.id).to.not.equal(first);
    expect((await event(t, first)).title).to.equal("Choir concert");
    // The first calendar's next import still finds its own event.
    const again = await run(t, file("shared-uid@example.org", "Choir concert (sold out)"), { source: "https://choir.example/feed.ics" });
    expect(again.updated.map((e) => e.id)).to.deep.equal([first]);
  });

  it("a file without a source given belongs to its calendar's X-WR-RELCALID, else its X-WR-CALNAME", async () => {
    const t = site();
    const named = (name: string, summary: string): string => file("named-uid@example.org", summary, [], [`X-WR-CALNAME:${name}`]);
    const a = only(await run(t, named("Choir", "Rehearsal"), {}));
    const b = await run(t, named("Football club", "Match"), {});
    expect(b.created).to.have.length(1);
    expect(only(await run(t, named("Choir", "Rehearsal moved"), {}))).to.equal(a);
    const byId = (id: string, summary: string): string => file("relcal-uid@example.org", summary, [], [`X-WR-RELCALID:${id}`, "X-WR-CALNAME:Same name"]);
    const c = only(await run(t, byId("4B1E-1", "One"), {}));
    const d = only(await run(t, byId("4B1E-2", "Two"), {}));
    expect(d).to.not.equal(c);
  });

  it("never republishes an event an editor unpublished, unless told to restore it", async () => {
    const t = site();
    const source = { source: "unpublish" };
    const id = only(await run(t, file("unpublish@example.org", "Open day"), source));
    const drafted = await t.request("PUT", `/events/${id}`, { as: "editor", json: { status: "draft" } });
    expect(drafted.status, JSON.stringify(drafted.body)).to.equal(200);
    // Changed in the calendar: the new title comes in, the editor's status stays.
    const changed = await run(t, file("unpublish@example.org", "Open day (new time)"), source);
    expect(changed.updated.map((e) => e.id)).to.deep.equal([id]);
    expect(await event(t, id)).to.deep.equal({ title: "Open day (new time)", status: "draft" });
    // Unchanged and told to restore: published again.
    const restored = await run(t, file("unpublish@example.org", "Open day (new time)"), { ...source, restore: true });
    expect(restored.updated.map((e) => e.id)).to.deep.equal([id]);
    expect((await event(t, id)).status).to.equal("publish");
  });

  it("never brings back an event an editor trashed, and says so, unless told to restore it", async () => {
    const t = site();
    const source = { source: "trash" };
    const id = only(await run(t, file("trashed@example.org", "Picnic"), source));
    expect((await t.request("DELETE", `/events/${id}`, { as: "editor" })).status).to.equal(200);
    const changed = await run(t, file("trashed@example.org", "Picnic (rain date)"), source);
    expect(changed.created).to.deep.equal([]);
    expect(changed.updated).to.deep.equal([]);
    expect(changed.skipped.map((s) => s.uid)).to.deep.equal(["trashed@example.org"]);
    expect(changed.skipped[0]?.reason).to.match(/trash.*restore/);
    expect((await event(t, id)).status).to.equal("trash");
    const restored = await run(t, file("trashed@example.org", "Picnic (rain date)"), { ...source, restore: true });
    expect(restored.updated.map((e) => e.id)).to.deep.equal([id]);
    expect(await event(t, id)).to.deep.equal({ title: "Picnic (rain date)", status: "publish" });
  });

  it("keeps a changed occurrence of an unpublished series unpublished", async () => {
    const t = site();
    const source = { source: "series" };
    const series = (summary: string, moved: string): string =>
      [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "BEGIN:VEVENT",
        "UID:series@example.org",
        "DTSTAMP:20260101T000000Z",
        `SUMMARY:${summary}`,
        "DTSTART:20270503T180000Z",
        "DTEND:20270503T190000Z",
        "RRULE:FREQ=WEEKLY;COUNT=4",
        "END:VEVENT",
        "BEGIN:VEVENT",
        "UID:series@example.org",
        "DTSTAMP:20260101T000000Z",
        "RECURRENCE-ID:20270510T180000Z",
        `SUMMARY:${moved}`,
        "DTSTART:20270510T190000Z",
        "DTEND:20270510T200000Z",
        "END:VEVENT",
        "END:VCALENDAR",
        "",
      ].join(CRLF);
    const first = await run(t, series("Yoga", "Yoga (late)"), source);
    const seriesId = first.created.find((e) => e.title === "Yoga")?.id ?? 0;
    const detachedId = first.created.find((e) => e.title === "Yoga (late)")?.id ?? 0;
    for (const id of [seriesId, detachedId]) {
      const res = await t.request("PUT", `/events/${id}`, { as: "editor", json: { status: "private" } });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
    }
    const changed = await run(t, series("Yoga!", "Yoga (later)"), source);
    expect(changed.updated.map((e) => e.id)).to.have.members([seriesId, detachedId]);
    expect(await event(t, seriesId)).to.deep.equal({ title: "Yoga!", status: "private" });
    expect(await event(t, detachedId)).to.deep.equal({ title: "Yoga (later)", status: "private" });
  });

  it("an event imported before sources were kept is matched by the next import, which then owns it", async () => {
    const t = site();
    const id = only(await run(t, file("legacy@example.org", "Old import"), { source: "new-home" }));
    // As an import before this change left it: a UID and no source.
    const { knex, tables } = t.site.engine;
    expect(await knex(tables.postmeta).where({ post_id: id, meta_key: ICAL_SOURCE_META }).del()).to.equal(1);
    const again = await run(t, file("legacy@example.org", "Old import, updated"), { source: "new-home" });
    expect(again.updated.map((e) => e.id)).to.deep.equal([id]);
    const stored = await knex(tables.postmeta).where({ post_id: id }).whereIn("meta_key", [ICAL_SOURCE_META, ICAL_UID_META]).orderBy("meta_key").select("meta_key", "meta_value");
    expect(stored.map((r: { meta_key: string; meta_value: string }) => [r.meta_key, r.meta_value])).to.deep.equal([
      [ICAL_SOURCE_META, "new-home"],
      [ICAL_UID_META, "legacy@example.org"],
    ]);
    // From then on another source does not reach it.
    const other = await run(t, file("legacy@example.org", "Someone else's"), { source: "elsewhere" });
    expect(other.created).to.have.length(1);
    expect((await event(t, id)).title).to.equal("Old import, updated");
  });

  it("POST /import: source and restore as parameters", async () => {
    const t = site();
    const creds = t.users.admin;
    if (!creds) throw new Error("no admin credentials");
    const post = async (body: string, query: string): Promise<{ status: number; body: ImportReport }> => {
      const res = await fetch(`${t.ns}/import?${query}`, {
        method: "POST",
        headers: { "content-type": "text/calendar", authorization: `Basic ${Buffer.from(`${creds.login}:${creds.password}`).toString("base64")}` },
        body,
      });
      return { status: res.status, body: (await res.json()) as ImportReport };
    };
    const a = await post(file("rest@example.org", "From A"), "source=calendar-a");
    expect(a.status, JSON.stringify(a.body)).to.equal(200);
    const b = await post(file("rest@example.org", "From B"), "source=calendar-b");
    expect(b.body.created).to.have.length(1);
    const id = a.body.created[0]?.id ?? 0;
    expect((await t.request("DELETE", `/events/${id}`, { as: "editor" })).status).to.equal(200);
    const kept = await post(file("rest@example.org", "From A again"), "source=calendar-a");
    expect(kept.body.skipped.map((s) => s.uid)).to.deep.equal(["rest@example.org"]);
    const restored = await post(file("rest@example.org", "From A again"), "source=calendar-a&restore=true");
    expect(restored.body.updated.map((e) => e.id)).to.deep.equal([id]);
  });
});

forEachDatabase("iCalendar import: a URL import's UIDs belong to the URL", (db) => {
  const site = useSite(db, { fetch: { allowHosts: ["127.0.0.1"] } });

  it("two feeds with one UID make two events", async () => {
    const t = site();
    const server = http.createServer((req, res) => {
      res.writeHead(200, { "content-type": "text/calendar" });
      res.end(file("feed-uid@example.org", req.url === "/a.ics" ? "Feed A" : "Feed B"));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const a = await t.post("/import", { as: "admin", json: { url: `${base}/a.ics` } });
      expect(a.status, JSON.stringify(a.body)).to.equal(200);
      const b = await t.post("/import", { as: "admin", json: { url: `${base}/b.ics` } });
      expect(b.body.created.map((e: { title: string }) => e.title)).to.deep.equal(["Feed B"]);
      const again = await t.post("/import", { as: "admin", json: { url: `${base}/a.ics` } });
      expect(again.body.skipped.map((s: { reason: string }) => s.reason)).to.deep.equal(["unchanged since the last import"]);
      expect((await event(t, a.body.created[0].id)).title).to.equal("Feed A");
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe("calpress import ics --source --restore --time-limit", () => {
  it("scopes UIDs to the source named, restores when told to, and takes a time limit", async function () {
    this.timeout(60_000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "calpress-import-sources-"));
    const db = path.join(dir, "site.sqlite");
    const write = (name: string, summary: string): string => {
      const at = path.join(dir, name);
      fs.writeFileSync(at, file("cli-uid@example.org", summary));
      return at;
    };
    try {
      expect((await runCli(["fixture", "load", "minimal", "--db", db])).code).to.equal(0);
      const a = await runCli(["import", "ics", write("a.ics", "From A"), "--db", db, "--source", "A"]);
      expect(a.out[0], a.err.join("\n")).to.match(/1 created, 0 updated, 0 skipped$/);
      const b = await runCli(["import", "ics", write("b.ics", "From B"), "--db", db, "--source", "B"]);
      expect(b.out[0]).to.match(/1 created, 0 updated, 0 skipped$/);
      const id = Number(/created (\d+) From A/.exec(a.out.join("\n"))?.[1]);
      const site = await createSite({ db, webhooks: false, pages: false });
      try {
        await site.engine.knex(site.engine.tables.posts).where({ id }).update({ status: "draft" });
      } finally {
        await site.close();
      }
      const kept = await runCli(["import", "ics", write("a.ics", "From A, changed"), "--db", db, "--source", "A", "--time-limit", "0"]);
      expect(kept.out[0]).to.match(/0 created, 1 updated, 0 skipped$/);
      const restored = await runCli(["import", "ics", write("a.ics", "From A, changed"), "--db", db, "--source", "A", "--restore"]);
      expect(restored.out[0]).to.match(/0 created, 1 updated, 0 skipped$/);
      const check = await createSite({ db, webhooks: false, pages: false });
      try {
        expect((await check.engine.posts.get(id))?.status).to.equal("publish");
      } finally {
        await check.close();
      }
      const bad = await runCli(["import", "ics", write("a.ics", "x"), "--db", db, "--time-limit", "soon"]);
      expect(bad.code).to.equal(2);
    } finally {
      removeSqliteFile(db);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
