/**
 * No recurrence can make calpress expand without bound (the hardening
 * issue's finding 1: ical.js looped forever inside one `next()` on rules
 * that keep no day, and froze the server on an anonymous GET).
 *
 * Everything here runs in child processes with a hang guard, so a
 * regression is a failed test rather than a frozen test run: a generated
 * suite of adversarial rules through every expansion, the server answering
 * the requests (an anonymous preview, a contributor's write, a
 * series planted past the horizon for the start-up job), and the import.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { createSite } from "../../lib/site";
import { MAX_PREVIEW_DAYS } from "../../lib/calendar/routes/recurrence-preview";
import { runCli, type Run } from "../cli/run-cli";

const HANG_GUARD_MS = 150_000;

/** Runs a TypeScript file in a child process; rejects when it has not exited within the guard. */
function runScript(file: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--require", require.resolve("tsx/cjs"), file, ...args]);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${path.basename(file)} did not finish within ${HANG_GUARD_MS / 1000} s (an expansion without bound?); stderr: ${stderr}`));
    }, HANG_GUARD_MS);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A request that fails after `ms` rather than waiting on a stuck server. */
async function fetchWithin(url: string, init: RequestInit = {}, ms = 20_000): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(ms) });
  const text = await res.text();
  return { status: res.status, body: text.startsWith("{") || text.startsWith("[") ? JSON.parse(text) : text };
}

async function until<T>(what: string, run: Run, probe: () => T | undefined): Promise<T> {
  for (const start = Date.now(); ; ) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() - start > 60_000) throw new Error(`timed out waiting for ${what}; stderr: ${run.stderr}`);
    if (run.child.exitCode !== null) throw new Error(`exited ${run.child.exitCode} waiting for ${what}; stderr: ${run.stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const NEVER = "RRULE:FREQ=DAILY;INTERVAL=7;BYDAY=TU";
const MONDAY = "2030-01-07 10:00:00";

describe("recurrence: no expansion runs without bound", function () {
  this.timeout(HANG_GUARD_MS + 60_000);

  it("a generated suite of adversarial rules finishes, every expansion within its budget, refusals as 400s", async () => {
    const { code, stdout, stderr } = await runScript(path.join(__dirname, "adversarial-rules.ts"), ["--rules", "800", "--seed", "5545"]);
    expect(code, stderr).to.equal(0);
    const result = JSON.parse(stdout) as { counts: Record<string, number>; mostPreviewDays: number; unexpected: string[] };
    expect(result.unexpected, result.unexpected.join("\n")).to.deep.equal([]);
    // A preview tests at most its budget, plus the rest of the period it was in (a year at most).
    expect(result.mostPreviewDays).to.be.at.most(MAX_PREVIEW_DAYS + 366);
    // The generator reaches every outcome: refused, previewed, stored and not.
    for (const outcome of ["refused", "previewed", "previewRefused", "stored", "storeRefused"]) expect(result.counts[outcome], outcome).to.be.greaterThan(20);
  });

  describe("calpress serve, with a series planted past the horizon", () => {
    let dir: string;
    let run: Run;
    let root: string;

    before(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), "calpress-never-"));
      const db = path.join(dir, "site.sqlite");
      // A draft series whose rule never repeats, written past the API's checks (an older version, a tool writing
      // SQL): the start-up horizon job reaches it.
      expect(await runCli(["fixture", "load", "minimal", "--db", db]).exit).to.equal(0);
      const site = await createSite({ db });
      await site.engine.posts.create({
        type: "event",
        status: "draft",
        title: "Planted",
        fields: { start_local: MONDAY, end_local: "2030-01-07 11:00:00", start_utc: MONDAY, end_utc: "2030-01-07 11:00:00", timezone: "UTC", all_day: false, recurrence: JSON.stringify([NEVER]) },
      });
      await site.close();
      run = runCli(["serve", "--port", "0", "--db", db, "--user", "carl:carl-contributor-pass-0123456789:contributor"]);
      root = (await until("the ready line", run, () => run.stdout.find((l) => l.startsWith("calpress listening on ")))).slice("calpress listening on ".length);
    });

    after(async () => {
      if (run?.child.exitCode === null) {
        run.child.kill("SIGKILL");
        await run.exit;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it("answers an anonymous preview of a rule that never repeats with a 400 naming it, and goes on answering", async () => {
      const query = new URLSearchParams({ "recurrence[]": NEVER, start_date: MONDAY });
      const res = await fetchWithin(`${root}calendar/events/v1/recurrence-preview?${query}`);
      expect(res.status, JSON.stringify(res.body)).to.equal(400);
      expect(res.body.data.params.recurrence).to.match(/^recurrence\[0\]: the rule makes no occurrence after the start/);
      expect((await fetchWithin(`${root}calendar/events/v1/events`)).status).to.equal(200);
    });

    it("refuses a contributor's series with that rule (400), inside no held transaction", async () => {
      const auth = `Basic ${Buffer.from("carl:carl-contributor-pass-0123456789").toString("base64")}`;
      const body = JSON.stringify({ title: "Never again", start_date: MONDAY, end_date: "2030-01-07 11:00:00", recurrence: [NEVER] });
      const res = await fetchWithin(`${root}calendar/events/v1/events`, { method: "POST", headers: { Authorization: auth, "Content-Type": "application/json" }, body });
      expect(res.status, JSON.stringify(res.body)).to.equal(400);
      // The database is free: another write goes through at once.
      const ok = await fetchWithin(`${root}calendar/events/v1/events`, { method: "POST", headers: { Authorization: auth, "Content-Type": "application/json" }, body: JSON.stringify({ title: "Once", start_date: MONDAY, end_date: "2030-01-07 11:00:00" }) });
      expect(ok.status, JSON.stringify(ok.body)).to.equal(201);
    });
  });

  it("calpress import ics skips a VEVENT whose rule never repeats, saying why, and imports the rest", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "calpress-never-import-"));
    try {
      const db = path.join(dir, "site.sqlite");
      const ics = path.join(dir, "never.ics");
      fs.writeFileSync(
        ics,
        [
          "BEGIN:VCALENDAR",
          "VERSION:2.0",
          "PRODID:-//calpress tests//EN",
          "BEGIN:VEVENT",
          "UID:never@example.org",
          "DTSTAMP:20261101T000000Z",
          "DTSTART:20300107T100000Z",
          "DTEND:20300107T110000Z",
          "SUMMARY:Never",
          "RRULE:FREQ=DAILY;INTERVAL=7;BYDAY=TU",
          "END:VEVENT",
          "BEGIN:VEVENT",
          "UID:weekly@example.org",
          "DTSTAMP:20261101T000000Z",
          "DTSTART:20300108T100000Z",
          "DTEND:20300108T110000Z",
          "SUMMARY:Weekly",
          "RRULE:FREQ=DAILY;INTERVAL=7;BYDAY=TU;COUNT=3",
          "END:VEVENT",
          "END:VCALENDAR",
          "",
        ].join("\r\n"),
      );
      expect(await runCli(["fixture", "load", "minimal", "--db", db]).exit).to.equal(0);
      const imported = runCli(["import", "ics", ics, "--db", db]);
      const exit = await Promise.race([imported.exit, new Promise<"hung">((r) => setTimeout(() => r("hung"), HANG_GUARD_MS))]);
      if (exit === "hung") imported.child.kill("SIGKILL");
      expect(exit, imported.stderr).to.not.equal("hung");
      const out = imported.stdout.join("\n");
      expect(out, imported.stderr).to.match(/1 created, 0 updated, 1 skipped/);
      expect(out).to.match(/skipped Never \(never@example\.org\): .*would never repeat/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
