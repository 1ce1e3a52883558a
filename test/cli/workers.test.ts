/**
 * `calpress serve --workers N`: a primary and N workers on one port
 * (node:cluster), run as users run it: a separate process tree.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";
import { CLI, Run, runCli } from "./run-cli";

const ADMIN = `Basic ${Buffer.from("ada:ada-workers-pass-0123456789").toString("base64")}`;

async function until<T>(what: string, run: Run, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}; stderr: ${run.stderr}`);
    if (run.child.exitCode !== null) throw new Error(`exited ${run.child.exitCode} waiting for ${what}; stderr: ${run.stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The primary's worker processes. */
function workerPids(primary: number): number[] {
  try {
    // Only those running the CLI (tsx also starts a helper process of its own).
    return execFileSync("ps", ["-o", "pid=,args=", "--ppid", String(primary)], { encoding: "utf8" })
      .split("\n")
      .filter((line) => line.includes(CLI))
      .map((line) => Number(line.trim().split(/\s+/)[0]))
      .filter((n) => n > 0);
  } catch {
    return []; // ps exits 1 when there are none
  }
}

/** One request on a connection of its own, so that the cluster hands each to the next worker. */
function request(url: string, options: { method?: string; body?: unknown; auth?: boolean } = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    const req = http.request(
      url,
      {
        method: options.method ?? "GET",
        agent: false,
        headers: {
          Connection: "close",
          ...(options.auth ? { Authorization: ADMIN } : {}),
          ...(payload === undefined ? {} : { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(payload) }),
        },
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

describe("calpress serve --workers", function () {
  this.timeout(180_000);
  let dir: string;
  let run: Run;
  let root: string;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "calpress-workers-"));
    run = runCli(["serve", "--port", "0", "--workers", "2", "--db", path.join(dir, "site.sqlite"), "--fixture", "minimal", "--answer-store", path.join(dir, "answers.sqlite"), "--user", "ada:ada-workers-pass-0123456789:administrator", "--worker-timeout", "3"]);
    const line = await until("the ready line", run, () => run.stdout.find((l) => l.startsWith("calpress listening on ")));
    root = line.slice("calpress listening on ".length);
  });

  after(async () => {
    if (run.child.exitCode === null) {
      run.child.kill("SIGKILL");
      await run.exit;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("prints one ready line, once every worker listens, and runs the workers as children", () => {
    expect(root).to.match(/^http:\/\/127\.0\.0\.1:\d+\/wp-json\/$/);
    expect(run.stdout.filter((l) => l.startsWith("calpress listening on "))).to.have.length(1);
    expect(workerPids(run.child.pid!)).to.have.length(2);
  });

  it("a write through one worker is read at once through the others", async () => {
    const created = await request(`${root}calendar/events/v1/events`, { method: "POST", auth: true, body: { title: "Before", start_date: "2031-05-01 10:00:00", end_date: "2031-05-01 11:00:00", status: "publish" } });
    expect(created.status, created.body).to.equal(201);
    const id = (JSON.parse(created.body) as { id: number }).id;
    const url = `${root}calendar/events/v1/events/${id}`;
    const list = `${root}calendar/events/v1/events?start_date=2031-05-01&end_date=2031-05-02`;
    // Every worker reads (and keeps what it keeps) the old version first.
    for (let i = 0; i < 6; i++) {
      expect((await request(url)).body).to.contain('"Before"');
      expect((await request(list)).body).to.contain('"Before"');
    }
    const updated = await request(url, { method: "POST", auth: true, body: { title: "After" } });
    expect(updated.status, updated.body).to.equal(200);
    // Round-robin: consecutive connections go to alternating workers.
    for (let i = 0; i < 6; i++) {
      const one = await request(url);
      expect(one.body, `read ${i}`).to.contain('"After"').and.not.contain('"Before"');
      const many = await request(list);
      expect(many.body, `list ${i}`).to.contain('"After"').and.not.contain('"Before"');
    }
  });

  it("replaces a worker that dies, and keeps answering meanwhile", async () => {
    const before = workerPids(run.child.pid!);
    const victim = before[0]!;
    process.kill(victim, "SIGKILL");
    const replaced = await until("a replacement worker", run, () => {
      const now = workerPids(run.child.pid!);
      return now.length === 2 && !now.includes(victim) ? now : undefined;
    });
    expect(replaced).to.include(before[1]);
    await until("the replacement's stderr note", run, () => (run.stderr.includes(`worker ${victim} stopped (signal SIGKILL); starting another`) ? true : undefined));
    const replacement = replaced.find((pid) => pid !== before[1]);
    await until("the replacement listening", run, () => (run.stderr.includes(`worker ${replacement} listens (a replacement)`) ? true : undefined));
    for (let i = 0; i < 4; i++) expect((await request(`${root}calendar/events/v1/events`)).status).to.equal(200);
  });

  it("replaces a worker that stops answering (its event loop stuck), which SIGTERM would not stop", async () => {
    const before = workerPids(run.child.pid!);
    const victim = before[0]!;
    // A stopped process neither answers the primary's checks nor dies by itself, as a worker stuck in a loop.
    process.kill(victim, "SIGSTOP");
    const replaced = await until("a replacement for the silent worker", run, () => {
      const now = workerPids(run.child.pid!);
      return now.length === 2 && !now.includes(victim) ? now : undefined;
    });
    expect(replaced).to.include(before[1]);
    // The primary writes its note and replaces the worker at about the same time: wait for the note rather than race it.
    const silent = new RegExp(`worker ${victim} has not answered for \\d+ s; stopping it`);
    await until("the primary's note on the silent worker", run, () => (silent.test(run.stderr) ? true : undefined));
    await until("the replacement's stderr note", run, () => (run.stderr.includes(`worker ${victim} stopped (not answering); starting another`) ? true : undefined));
    const replacement = replaced.find((pid) => pid !== before[1]);
    await until("the replacement listening", run, () => (run.stderr.includes(`worker ${replacement} listens (a replacement)`) ? true : undefined));
    for (let i = 0; i < 4; i++) expect((await request(`${root}calendar/events/v1/events`)).status).to.equal(200);
  });

  it("SIGTERM lets requests in flight finish, then the primary and every worker exit 0", async () => {
    const pids = workerPids(run.child.pid!);
    // Requests certainly in flight when the signal comes: each has sent its
    // headers and half its body to a worker, and sends the rest after it.
    const body = (i: number): string => JSON.stringify({ title: `Draining ${i}`, start_date: "2031-06-01 10:00:00", end_date: "2031-06-01 11:00:00", status: "publish" });
    const open = Array.from({ length: 4 }, (_, i) => {
      const text = body(i);
      const req = http.request(`${root}calendar/events/v1/events`, {
        method: "POST",
        agent: false,
        headers: { Connection: "close", Authorization: ADMIN, "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text) },
      });
      const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
        req.on("response", (res) => {
          let got = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => (got += chunk));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: got }));
        });
        req.on("error", reject);
      });
      req.write(text.slice(0, 10));
      return { req, rest: text.slice(10), answer };
    });
    await new Promise((r) => setTimeout(r, 1500));
    run.child.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 500));
    for (const o of open) o.req.end(o.rest);
    const answers = await Promise.all(open.map((o) => o.answer));
    expect(answers.map((a) => a.status), answers.map((a) => a.body).join("\n")).to.deep.equal([201, 201, 201, 201]);
    expect(await run.exit).to.equal(0);
    for (const pid of pids) expect(() => process.kill(pid, 0), `worker ${pid} still runs`).to.throw();
  });
});

describe("calpress serve --workers: usage", function () {
  this.timeout(60_000);

  it("refuses a database the workers cannot share, and a bad count", async () => {
    const cases = [
      [["--workers", "2", "--db", ":memory:"], "--workers needs a database the workers share"],
      [["--workers", "0", "--db", ":memory:"], "--workers must be a number from 1 to 64 or auto"],
      [["--workers", "2", "--worker-timeout", "0", "--db", "x.sqlite"], "--worker-timeout must be a number of seconds from 1 to 3600"],
    ] as const;
    // Refused before anything starts: the three run side by side, each judged in turn once its output is all read.
    const runs = cases.map(([args]) => runCli(["serve", "--port", "0", ...args]));
    await Promise.all(runs.map((r) => new Promise((resolve) => (r.child.exitCode !== null && r.child.stderr.closed ? resolve(null) : r.child.once("close", resolve)))));
    for (const [i, [, message]] of cases.entries()) {
      const r = runs[i]!;
      expect(await r.exit).to.equal(2);
      expect(r.stderr).to.contain(message);
    }
  });
});
