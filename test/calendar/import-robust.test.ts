/**
 * Issue 42, import: Outlook and custom zones kept as their rules (not UTC),
 * VEVENTs without UID, duplicate UIDs, and one malformed VEVENT among good
 * ones. Every VEVENT the file has is either imported or named in the
 * report's skipped list with its reason; `POST /import` never answers 500
 * for what a file contains.
 */
import { expect } from "chai";
import { DERIVED_UID_PREFIX, importIcs, type ImportReport } from "../../lib/calendar/import/ics";
import type { CurrentUser } from "../../lib/users/types";
import { forEachDatabase } from "../support/databases";
import type { TestSite } from "../support/site";
import { useSite } from "./events-support";

const CRLF = "\r\n";

function calendar(...parts: string[]): string {
  return ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Microsoft Corporation//Outlook 16.0 MIMEDIR//EN", ...parts, "END:VCALENDAR", ""].join(CRLF);
}

function vevent(...props: string[]): string {
  return ["BEGIN:VEVENT", "DTSTAMP:20270101T000000Z", ...props, "END:VEVENT"].join(CRLF);
}

/** A VTIMEZONE with a standard and a daylight observance, as Outlook writes them (rules from 1601). */
function vtimezone(tzid: string, std: { offset: string; rule: string; start: string }, dst: { offset: string; rule: string; start: string }): string {
  return [
    "BEGIN:VTIMEZONE",
    `TZID:${tzid}`,
    "BEGIN:STANDARD",
    `DTSTART:${std.start}`,
    `RRULE:${std.rule}`,
    `TZOFFSETFROM:${dst.offset}`,
    `TZOFFSETTO:${std.offset}`,
    "END:STANDARD",
    "BEGIN:DAYLIGHT",
    `DTSTART:${dst.start}`,
    `RRULE:${dst.rule}`,
    `TZOFFSETFROM:${std.offset}`,
    `TZOFFSETTO:${dst.offset}`,
    "END:DAYLIGHT",
    "END:VTIMEZONE",
  ].join(CRLF);
}

/** Central Europe's rules as Outlook writes them for "W. Europe Standard Time". */
const EU = (tzid: string): string =>
  vtimezone(
    tzid,
    { offset: "+0100", rule: "FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10", start: "16011028T030000" },
    { offset: "+0200", rule: "FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3", start: "16010325T020000" },
  );

/** Today's US rules (since 2007), applied by Outlook to every year from 1601. */
const US_EASTERN = (tzid: string): string =>
  vtimezone(
    tzid,
    { offset: "-0500", rule: "FREQ=YEARLY;BYDAY=1SU;BYMONTH=11", start: "16011104T020000" },
    { offset: "-0400", rule: "FREQ=YEARLY;BYDAY=2SU;BYMONTH=3", start: "16010311T020000" },
  );

async function admin(t: TestSite): Promise<CurrentUser> {
  const record = await t.site.engine.users.byLogin("admin");
  if (!record) throw new Error("no admin");
  return t.site.engine.users.currentUser(record);
}

function idOf(report: ImportReport, uid: string): number {
  const found = report.created.find((e) => e.uid === uid) ?? report.updated.find((e) => e.uid === uid);
  if (!found) throw new Error(`${uid} not imported: ${JSON.stringify(report)}`);
  return found.id;
}

async function occurrences(t: TestSite, id: number): Promise<string[]> {
  return (await t.site.engine.occurrences.list(id)).map((o) => `${o.start_local} ${o.start_utc}`);
}

/** POST /import with the file as the body, as the administrator. */
async function postIcs(t: TestSite, body: string): Promise<{ status: number; body: ImportReport & { code?: string } }> {
  const creds = t.users.admin;
  if (!creds) throw new Error("no admin credentials");
  const res = await fetch(`${t.ns}/import`, {
    method: "POST",
    headers: { "content-type": "text/calendar; charset=utf-8", authorization: `Basic ${Buffer.from(`${creds.login}:${creds.password}`).toString("base64")}` },
    body,
  });
  return { status: res.status, body: (await res.json()) as ImportReport & { code?: string } };
}

forEachDatabase("iCalendar import: Outlook and custom zones", (db) => {
  const site = useSite(db);

  it("keeps a Windows-named zone as its IANA zone once the file's rules agree: DST, the weekday after the change and EXDATEs come out right", async () => {
    const t = site();
    const tz = "W. Europe Standard Time";
    const report = await importIcs(
      t.site.engine,
      calendar(
        EU(tz),
        vevent(
          "UID:weekly-berlin",
          "SUMMARY:Weekly sync",
          `DTSTART;TZID="${tz}":20270318T100000`,
          `DTEND;TZID="${tz}":20270318T110000`,
          "RRULE:FREQ=WEEKLY;COUNT=4",
          `EXDATE;TZID="${tz}":20270401T100000`,
        ),
        vevent("UID:monday-early", "SUMMARY:Monday early", `DTSTART;TZID="${tz}":20270322T003000`, `DTEND;TZID="${tz}":20270322T013000`, "RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=3"),
      ),
      await admin(t),
      { source: "outlook-eu" },
    );
    expect(report.skipped, JSON.stringify(report.skipped)).to.deep.equal([]);
    const weekly = (await t.get(`/events/${idOf(report, "weekly-berlin")}`)).body;
    expect(weekly).to.include({ timezone: "Europe/Berlin", start_date: "2027-03-18 10:00:00", end_date: "2027-03-18 11:00:00" });
    // 28 March 2027 is the change to summer time: 10:00 stays 10:00 (08:00Z after it); the EXDATE (1 April, in the file's zone) removes its occurrence.
    expect(await occurrences(t, weekly.id)).to.deep.equal(["2027-03-18 10:00:00 2027-03-18 09:00:00", "2027-03-25 10:00:00 2027-03-25 09:00:00", "2027-04-08 10:00:00 2027-04-08 08:00:00"]);
    // 00:30 on Mondays is a Sunday in UTC: kept in UTC, BYDAY=MO would have picked other days.
    const monday = idOf(report, "monday-early");
    expect(await occurrences(t, monday)).to.deep.equal(["2027-03-22 00:30:00 2027-03-21 23:30:00", "2027-03-29 00:30:00 2027-03-28 22:30:00", "2027-04-05 00:30:00 2027-04-04 22:30:00"]);
    expect(report.notes).to.deep.equal([]);
  });

  it("checks a Windows name against the file's own rules: a VTIMEZONE that is not the name's zone picks the zone that agrees", async () => {
    const t = site();
    // Named "Pacific Standard Time", but the file defines Central Europe's rules: the file's definition wins (RFC 5545 §3.2.19).
    const tz = "Pacific Standard Time";
    const report = await importIcs(
      t.site.engine,
      calendar(EU(tz), vevent("UID:misnamed", "SUMMARY:Misnamed zone", `DTSTART;TZID="${tz}":20270701T100000`, `DTEND;TZID="${tz}":20270701T110000`)),
      await admin(t),
      { source: "outlook-misnamed" },
    );
    const event = (await t.get(`/events/${idOf(report, "misnamed")}`)).body;
    expect(event.timezone).to.match(/^Europe\//);
    expect(event).to.include({ start_date: "2027-07-01 10:00:00", utc_start_date: "2027-07-01 08:00:00" });
    // Without a VTIMEZONE the name is all there is: CLDR's zone for it.
    const bare = await importIcs(t.site.engine, calendar(vevent("UID:bare-pacific", "SUMMARY:Bare", `DTSTART;TZID="${tz}":20270701T100000`)), await admin(t), { source: "outlook-bare" });
    expect((await t.get(`/events/${idOf(bare, "bare-pacific")}`)).body).to.include({ timezone: "America/Los_Angeles", start_date: "2027-07-01 10:00:00" });
  });

  it("a custom zone with today's US rules: New York over years where they agree; an older series kept where its instants agree, and the report says so", async () => {
    const t = site();
    const tz = "Customized Time Zone";
    const report = await importIcs(
      t.site.engine,
      calendar(
        US_EASTERN(tz),
        vevent("UID:us-2027", "SUMMARY:Standup 2027", `DTSTART;TZID="${tz}":20270308T090000`, `DTEND;TZID="${tz}":20270308T091500`, "RRULE:FREQ=DAILY;COUNT=10"),
        // In 2005 the US changed clocks in April: the file's rules (March) are no zone's over 2005.
        vevent("UID:us-2005", "SUMMARY:Standup 2005", `DTSTART;TZID="${tz}":20050110T090000`, `DTEND;TZID="${tz}":20050110T091500`, "RRULE:FREQ=WEEKLY;COUNT=3"),
      ),
      await admin(t),
      { source: "outlook-us" },
    );
    expect(report.skipped, JSON.stringify(report.skipped)).to.deep.equal([]);
    const y2027 = (await t.get(`/events/${idOf(report, "us-2027")}`)).body;
    expect(y2027.timezone).to.equal("America/New_York");
    const list = await occurrences(t, y2027.id);
    // 14 March 2027: 09:00 EDT is 13:00Z; before, 14:00Z.
    expect(list[5]).to.equal("2027-03-13 09:00:00 2027-03-13 14:00:00");
    expect(list[6]).to.equal("2027-03-14 09:00:00 2027-03-14 13:00:00");
    const y2005 = (await t.get(`/events/${idOf(report, "us-2005")}`)).body;
    expect(y2005.timezone).to.not.equal("UTC");
    expect(await occurrences(t, y2005.id)).to.deep.equal(["2005-01-10 09:00:00 2005-01-10 14:00:00", "2005-01-17 09:00:00 2005-01-17 14:00:00", "2005-01-24 09:00:00 2005-01-24 14:00:00"]);
    expect(report.notes.map((n) => [n.uid, n.note.replace(/kept in \S+,/, "kept in ZONE,")])).to.deep.equal([
      ["us-2005", `TZID ${tz}: no known time zone follows the file's VTIMEZONE over 2005-2005; kept in ZONE, which has its offsets at every start and end of the event`],
    ]);
  });

  it("a zone no known zone matches at the event's times is skipped with its reason, never kept in UTC", async () => {
    const t = site();
    const zone = ["BEGIN:VTIMEZONE", "TZID:Odd", "BEGIN:STANDARD", "DTSTART:16010101T000000", "TZOFFSETFROM:+0317", "TZOFFSETTO:+0317", "END:STANDARD", "END:VTIMEZONE"].join(CRLF);
    const report = await importIcs(
      t.site.engine,
      calendar(zone, vevent("UID:odd-1", "SUMMARY:Odd", "DTSTART;TZID=Odd:20270301T090000", "RRULE:FREQ=DAILY;COUNT=2"), vevent("UID:fine-1", "SUMMARY:Fine", "DTSTART:20270301T090000Z")),
      await admin(t),
      { source: "odd" },
    );
    expect(report.created.map((e) => e.uid)).to.deep.equal(["fine-1"]);
    expect(report.skipped).to.deep.equal([{ uid: "odd-1", title: "Odd", reason: "TZID Odd: no known time zone has the offsets of the file's VTIMEZONE at the event's times" }]);
  });
});

forEachDatabase("iCalendar import: identities, duplicates and malformed VEVENTs", (db) => {
  const site = useSite(db);

  it("gives VEVENTs without UID a derived identity: a re-import skips or updates them, never duplicates", async () => {
    const t = site();
    const file = calendar(
      vevent("SUMMARY:Lecture", "DTSTART:20270301T090000Z", "RRULE:FREQ=WEEKLY;COUNT=3"),
      vevent("SUMMARY:Seminar", "DTSTART:20270302T090000Z"),
      // The same start, title and rule twice: the second is the first's "-2".
      vevent("SUMMARY:Seminar", "DTSTART:20270302T090000Z", "DESCRIPTION:a second copy"),
    );
    const first = await importIcs(t.site.engine, file, await admin(t), { source: "no-uids" });
    expect(first.skipped).to.deep.equal([]);
    const uids = first.created.map((e) => e.uid);
    expect(uids).to.have.length(3);
    for (const uid of uids) expect(uid.startsWith(DERIVED_UID_PREFIX)).to.equal(true);
    expect(uids[2]).to.equal(`${uids[1]}-2`);
    // Folded differently and with other DTSTAMPs, the file names the same events.
    const again = await importIcs(t.site.engine, file.replace(/DTSTAMP:20270101T000000Z/g, "DTSTAMP:20270202T000000Z"), await admin(t), { source: "no-uids" });
    expect(again.created).to.deep.equal([]);
    expect(again.skipped.map((s) => [s.uid, s.reason])).to.deep.equal(uids.map((u) => [u, "unchanged since the last import"]));
    const edited = await importIcs(t.site.engine, file.replace("DESCRIPTION:a second copy", "DESCRIPTION:a changed copy"), await admin(t), { source: "no-uids" });
    expect(edited.created).to.deep.equal([]);
    expect(edited.updated.map((e) => e.uid)).to.deep.equal([uids[2]]);
  });

  it("reports a duplicate UID: the later SEQUENCE is imported, the other named with its reason", async () => {
    const t = site();
    const report = await importIcs(
      t.site.engine,
      calendar(
        vevent("UID:dup-1", "SEQUENCE:0", "SUMMARY:Old time", "DTSTART:20270301T090000Z"),
        vevent("UID:dup-1", "SEQUENCE:2", "SUMMARY:New time", "DTSTART:20270301T100000Z"),
        vevent("UID:dup-2", "SUMMARY:Twice", "DTSTART:20270302T090000Z"),
        vevent("UID:dup-2", "SUMMARY:Twice", "DTSTART:20270302T090000Z"),
        vevent("UID:dup-3", "SUMMARY:First", "DTSTART:20270303T090000Z"),
        vevent("UID:dup-3", "SUMMARY:Second", "DTSTART:20270304T090000Z"),
      ),
      await admin(t),
      { source: "dups" },
    );
    expect(report.created.map((e) => [e.uid, e.title])).to.deep.equal([
      ["dup-1", "New time"],
      ["dup-2", "Twice"],
      ["dup-3", "First"],
    ]);
    expect(report.skipped.map((s) => [s.uid, s.title, s.reason.split(":")[0]])).to.deep.equal([
      ["dup-1", "Old time", "duplicate UID"],
      ["dup-2", "Twice", "duplicate UID"],
      ["dup-3", "Second", "duplicate UID"],
    ]);
    expect(report.skipped[0]?.reason).to.match(/older revision \(SEQUENCE 0\).*SEQUENCE 2/);
    expect(report.skipped[1]?.reason).to.match(/twice; it is imported once/);
    expect(report.skipped[2]?.reason).to.match(/RFC 5545 §3\.8\.4\.7/);
  });

  const good = vevent("UID:good-1", "SUMMARY:Good one", "DTSTART:20270301T090000Z", "DTEND:20270301T100000Z");
  const cases: Array<[string, string, RegExp]> = [
    ["an RRULE ical.js refuses (it refuses the whole file)", vevent("UID:bad", "SUMMARY:Bad", "DTSTART:20270301T090000Z", "RRULE:FREQ=FOO;COUNT=3"), /^the VEVENT cannot be read: invalid frequency/],
    ["a BYDAY that is no day", vevent("UID:bad", "SUMMARY:Bad", "DTSTART:20270301T090000Z", "RRULE:FREQ=WEEKLY;BYDAY=XX"), /^the VEVENT cannot be read: invalid BYDAY/],
    ["an RRULE without FREQ", vevent("UID:bad", "SUMMARY:Bad", "DTSTART:20270301T090000Z", "RRULE:COUNT=3"), /^RRULE has no FREQ$/],
    ["a DTSTART that is no date", vevent("UID:bad", "SUMMARY:Bad", "DTSTART:2027XX01T090000"), /^DTSTART cannot be read: /],
    ["a DTSTART in month 13 (ical.js would roll it into the next year)", vevent("UID:bad", "SUMMARY:Bad", "DTSTART:20271345T090000"), /^DTSTART 20271345T090000 is not a real date or time$/],
    ["a DTEND at 25 o'clock", vevent("UID:bad", "SUMMARY:Bad", "DTSTART:20270301T090000Z", "DTEND:20270301T250000Z"), /^DTEND 20270301T250000Z is not a real date or time$/],
    ["an UNTIL on 30 February", vevent("UID:bad", "SUMMARY:Bad", "DTSTART:20270301T090000Z", "RRULE:FREQ=DAILY;UNTIL=20270230T000000Z"), /^RRULE 20270230T000000Z is not a real date or time$/],
    ["a DURATION that is none", vevent("UID:bad", "SUMMARY:Bad", "DTSTART:20270301T090000Z", "DURATION:PXYZ"), /^DURATION cannot be read: /],
    ["an EXDATE that is text", vevent("UID:bad", "SUMMARY:Bad", "DTSTART:20270301T090000Z", "RRULE:FREQ=DAILY;COUNT=3", "EXDATE:hello"), /^EXDATE cannot be read: /],
    ["an unknown TZID", vevent("UID:bad", "SUMMARY:Bad", "DTSTART;TZID=Nowhere/Zone:20270301T090000"), /^TZID Nowhere\/Zone is neither a known time zone nor defined by a VTIMEZONE of the file$/],
    ["a line without a colon", ["BEGIN:VEVENT", "UID:bad", "SUMMARY:Bad", "DTSTART:20270301T090000Z", "THIS LINE IS BROKEN", "END:VEVENT"].join(CRLF), /^the VEVENT cannot be read: /],
    ["a rule the engine refuses (BYSETPOS without another BY part)", vevent("UID:bad", "SUMMARY:Bad", "DTSTART:20270301T090000Z", "RRULE:FREQ=DAILY;BYSETPOS=400"), /./],
  ];
  for (const [what, bad, reason] of cases) {
    it(`skips one VEVENT with ${what}, says why, and imports the rest (POST /import answers 200)`, async () => {
      const t = site();
      const uidGood = `good-${Math.random().toString(36).slice(2)}`;
      const res = await postIcs(t, calendar(bad, good.replace("UID:good-1", `UID:${uidGood}`)));
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.created.map((e) => e.uid)).to.deep.equal([uidGood]);
      expect(res.body.skipped.map((s) => [s.uid, s.title])).to.deep.equal([["bad", "Bad"]]);
      expect(res.body.skipped[0]?.reason).to.match(reason);
    });
  }

  it("an unreadable VTIMEZONE leaves its TZID unknown: its events are skipped saying why, the rest import", async () => {
    const t = site();
    const zone = ["BEGIN:VTIMEZONE", "TZID:Broken Zone", "BEGIN:STANDARD", "DTSTART:16010101T000000", "TZOFFSETFROM:+0100", "TZOFFSETTO:garbage", "END:STANDARD", "END:VTIMEZONE"].join(CRLF);
    const res = await postIcs(t, calendar(zone, vevent("UID:in-broken", "SUMMARY:In broken", "DTSTART;TZID=Broken Zone:20270301T090000"), vevent("UID:fine-2", "SUMMARY:Fine", "DTSTART:20270301T090000Z")));
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.created.map((e) => e.uid)).to.deep.equal(["fine-2"]);
    expect(res.body.skipped.map((s) => s.uid)).to.deep.equal(["in-broken"]);
    expect(res.body.skipped[0]?.reason).to.match(/^TZID Broken Zone: its VTIMEZONE cannot be read/);
  });

  it("never answers 500 for a file's content: every line of a real export broken in turn imports the rest or is a 400", async function () {
    if (db.name !== "sqlite") this.skip();
    this.timeout(120_000);
    const t = site();
    const base = calendar(
      US_EASTERN("Eastern Standard Time"),
      vevent("UID:m-1", "SUMMARY:Series", 'DTSTART;TZID="Eastern Standard Time":20270308T090000', 'DTEND;TZID="Eastern Standard Time":20270308T100000', "RRULE:FREQ=WEEKLY;BYDAY=MO,WE;COUNT=6", 'EXDATE;TZID="Eastern Standard Time":20270310T090000'),
      vevent("UID:m-1", "RECURRENCE-ID;TZID=\"Eastern Standard Time\":20270315T090000", "SUMMARY:Moved", 'DTSTART;TZID="Eastern Standard Time":20270315T110000', 'DTEND;TZID="Eastern Standard Time":20270315T120000'),
      vevent("UID:m-2", "SUMMARY:Single", "DTSTART;VALUE=DATE:20270401", "DTEND;VALUE=DATE:20270402", "RDATE;VALUE=DATE:20270501"),
    );
    const lines = base.split(CRLF);
    // Each line replaced by values a producer might get wrong: an empty value, a bad date, text, a lone colon.
    const breakings = [(l: string) => l.replace(/:.*$/, ":"), (l: string) => l.replace(/:.*$/, ":20271399T999999"), (l: string) => l.replace(/:.*$/, ":x;y=z"), () => "::", (l: string) => l.replace(/;/g, ";;")];
    let runs = 0;
    for (let i = 0; i < lines.length; i++) {
      for (const breakLine of breakings) {
        const text = [...lines.slice(0, i), breakLine(lines[i] as string), ...lines.slice(i + 1)].join(CRLF);
        const res = await postIcs(t, text);
        runs++;
        expect([200, 400], `line ${i} (${lines[i]}): ${JSON.stringify(res.body).slice(0, 300)}`).to.include(res.status);
        if (res.status === 200) {
          // Every VEVENT is accounted for: imported, unchanged, or skipped with a reason.
          const accounted = res.body.created.length + res.body.updated.length + res.body.skipped.length;
          expect(accounted, JSON.stringify(res.body)).to.be.at.least(2);
          for (const s of res.body.skipped) expect(s.reason).to.be.a("string").and.not.equal("");
        }
      }
    }
    expect(runs).to.be.greaterThan(100);
  });
});
