/**
 * Issue 42: real producers' files (test/vectors/ics-corpus, from npm
 * packages' test fixtures; LICENSES.md) import with no crash and no silent
 * drop, and each imported event has as many occurrences in the window as
 * an independent reader counts (test/vectors/ics-corpus/generate.py:
 * python-dateutil, zoneinfo and dateutil's tzical; recorded in
 * counts.json, so the test needs no Python). Run on SQLite: the counts are
 * the engine's, not the database's.
 */
import { expect } from "chai";
import fs from "node:fs";
import path from "node:path";
import { DERIVED_UID_PREFIX, importIcs, type ImportReport } from "../../lib/calendar/import/ics";
import { testTargets } from "../support/databases";
import type { TestSite } from "../support/site";
import { useSite } from "./events-support";

const CORPUS = path.join(__dirname, "..", "vectors", "ics-corpus");

interface ReaderEvent {
  uid: string | null;
  summary: string;
  count?: number;
  error?: string;
}

interface Counts {
  window: [string, string];
  now: string;
  files: Record<string, { events: ReaderEvent[] }>;
}

const counts = JSON.parse(fs.readFileSync(path.join(CORPUS, "counts.json"), "utf8")) as Counts;
const SQL_WINDOW = counts.window.map((w) => w.replace("T", " ").replace("Z", "")) as [string, string];

/**
 * Where calpress and the reader differ, by file and UID, and why (the RFC
 * section that decides). Each entry is checked to still differ, so a fixed
 * difference must leave the list.
 */
const KNOWN_DIFFERENCES: Readonly<Record<string, string>> = {
  // DTSTART;VALUE=DATE:20110804 (a Thursday) with RRULE:FREQ=WEEKLY;BYDAY=MO,FR: python-dateutil leaves out a DTSTART the rule does not
  // give; calpress keeps it, as RFC 5545 §3.8.5.3 says ("The "DTSTART" property value always counts as the first occurrence", also
  // §3.3.10 on COUNT) and as ical.js and Google do. One occurrence more.
  "ical-0.8.0/test6.ics (without UID)": "RFC 5545 §3.8.5.3: DTSTART is the first occurrence even when the rule does not give it",
  // RRULE UNTIL=20170829T065959Z before DTSTART 2017-08-29 09:00 Los Angeles (Google's "delete this and following"): dateutil gives
  // nothing; calpress's engine keeps DTSTART as the first occurrence (§3.8.5.3), though UNTIL bounds the set inclusively (§3.3.10).
  // The RFC leaves a DTSTART past UNTIL undefined; Google shows no occurrence. For lib/calendar/recurrence to decide.
  "cal-parser-1.0.2/test.ics 08h2v2v4h6bhgqh7co4q1bt595@google.com": "RFC 5545 §3.3.10 / §3.8.5.3: an UNTIL before DTSTART",
};

/** An event's starts in the window: its stored occurrences for a series, else its own start. */
async function startsInWindow(t: TestSite, id: number): Promise<number> {
  const inWindow = (utc: string): boolean => utc >= SQL_WINDOW[0] && utc < SQL_WINDOW[1];
  const record = (await t.get(`/events/${id}`)).body as { utc_start_date: string; recurrence?: string[] };
  // A series' occurrences (none left when the file overrides or excludes them all), else the event's own start.
  if ((record.recurrence ?? []).length > 0) return (await t.site.engine.occurrences.list(id)).filter((o) => inWindow(o.start_utc)).length;
  return inWindow(record.utc_start_date) ? 1 : 0;
}

const sqlite = testTargets().filter((target) => target.name === "sqlite");
for (const target of sqlite) {
  describe(`iCalendar import: a corpus of real producers' files (${target.name})`, function () {
    this.timeout(120_000);
    const site = useSite(target);

    it("has at least the 25 files counts.json names, each with its licence", () => {
      const names = Object.keys(counts.files);
      expect(names.length).to.be.at.least(25);
      const licences = fs.readFileSync(path.join(CORPUS, "LICENSES.md"), "utf8");
      for (const name of names) {
        expect(fs.existsSync(path.join(CORPUS, name)), name).to.equal(true);
        expect(licences, name).to.include(name.split("/")[0] as string);
      }
    });

    for (const [name, expected] of Object.entries(counts.files)) {
      it(`${name}: imports with no crash, reports every VEVENT it skips, and counts the reader's occurrences`, async () => {
        const t = site();
        // The clock the counts were recorded for: open-ended series are stored up to 730 days from it, past the window's end.
        Object.assign(t.site.engine, { now: () => new Date(counts.now) });
        const record = await t.site.engine.users.byLogin("admin");
        if (!record) throw new Error("no admin");
        const text = fs.readFileSync(path.join(CORPUS, name), "utf8");
        const report: ImportReport = await importIcs(t.site.engine, text, t.site.engine.users.currentUser(record), { source: name, budgets: { seconds: 0 } });
        // A UID's first entry is its series; a changed occurrence (RECURRENCE-ID) it detached follows with the same UID.
        const imported = new Map<string, number>();
        for (const e of [...report.created, ...report.updated]) if (!imported.has(e.uid)) imported.set(e.uid, e.id);
        const skipped = new Map(report.skipped.map((s) => [s.uid, s.reason]));
        const differences: string[] = [];
        const byUid = new Map<string, ReaderEvent[]>();
        for (const e of expected.events) if (e.uid !== null) byUid.set(e.uid, [...(byUid.get(e.uid) ?? []), e]);

        // No silent drop: every VEVENT the reader saw is imported or skipped with a reason; one the reader cannot read is skipped.
        for (const [uid, events] of byUid) {
          expect(imported.has(uid) || skipped.has(uid), `${uid} neither imported nor reported`).to.equal(true);
          if (events.some((e) => e.error !== undefined)) expect(skipped.get(uid), `${uid}: the reader could not read it (${events[0]?.error})`).to.be.a("string");
          if (events.length > 1) expect(skipped.get(uid), `${uid} is in the file ${events.length} times`).to.match(/^duplicate UID/);
        }
        const withoutUid = expected.events.filter((e) => e.uid === null);
        const derived = [...imported.keys(), ...report.skipped.map((s) => s.uid ?? "")].filter((u) => u.startsWith(DERIVED_UID_PREFIX));
        const uidlessSkipped = report.skipped.filter((s) => s.uid === null);
        expect(derived.length + uidlessSkipped.length, "VEVENTs without UID").to.equal(withoutUid.length);

        // Occurrence counts, event by event.
        for (const [uid, events] of byUid) {
          const id = imported.get(uid);
          const only = events[0];
          if (id === undefined || events.length > 1 || only?.count === undefined) continue;
          const got = await startsInWindow(t, id);
          if (got !== only.count) differences.push(`${name} ${uid}: calpress ${got}, reader ${only.count}`);
        }
        // Without UIDs, the file's total over them (their derived identities are calpress's).
        if (withoutUid.length > 0) {
          let got = 0;
          for (const [uid, id] of imported) if (uid.startsWith(DERIVED_UID_PREFIX)) got += await startsInWindow(t, id);
          const want = withoutUid.reduce((n, e) => n + (e.count ?? 0), 0);
          if (got !== want) differences.push(`${name} (without UID): calpress ${got}, reader ${want}`);
        }
        const unexplained = differences.filter((d) => KNOWN_DIFFERENCES[d.split(":")[0] as string] === undefined);
        expect(unexplained, JSON.stringify(report.skipped.slice(0, 20))).to.deep.equal([]);
        // A known difference that no longer differs leaves the list.
        for (const key of Object.keys(KNOWN_DIFFERENCES).filter((k) => k.startsWith(`${name} `))) {
          expect(differences.map((d) => d.split(":")[0]), key).to.include(key);
        }
      });
    }
  });
}
