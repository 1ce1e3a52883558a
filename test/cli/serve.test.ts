import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "chai";

import { upFront } from "../support/lanes";
import { Run, runCli } from "./run-cli";

async function waitForLine(run: Run, timeoutMs = 20000): Promise<string> {
  const start = Date.now();
  while (run.stdout.length === 0) {
    if (Date.now() - start > timeoutMs) throw new Error(`no ready line; stderr: ${run.stderr}`);
    if (run.child.exitCode !== null) throw new Error(`exited ${run.child.exitCode}; stderr: ${run.stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return run.stdout[0];
}

/** The run once its process has ended and its output is all read. */
function ran(run: Run): Promise<Run> {
  return new Promise((resolve) => {
    if (run.child.stdout.closed && run.child.stderr.closed && run.child.exitCode !== null) resolve(run);
    else run.child.once("close", () => resolve(run));
  });
}

describe("calpress CLI", function () {
  this.timeout(60000);

  it("serve prints only the ready line first, answers HTTP, and exits 0 on SIGTERM", async () => {
    const run = runCli(["serve", "--port", "0", "--db", ":memory:", "--timezone", "Europe/Rome", "--user", "ada:ada-pass:administrator"]);
    const line = await waitForLine(run);
    const m = /^calpress listening on (http:\/\/127\.0\.0\.1:(\d+)\/wp-json\/)$/.exec(line);
    expect(m, line).to.not.equal(null);
    const root = m![1];

    const index = await fetch(root);
    expect(index.status).to.equal(200);
    const body = (await index.json()) as { namespaces: string[]; timezone_string: string };
    expect(body.namespaces).to.include("calendar/events/v1");
    expect(body.timezone_string).to.equal("Europe/Rome");

    // --user made an administrator whose application password works.
    const auth = { authorization: `Basic ${Buffer.from("ada:ada-pass").toString("base64")}` };
    const created = await fetch(`${root}calendar/events/v1/events`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ title: "CLI event", start_date: "2030-01-01 10:00:00", end_date: "2030-01-01 12:00:00" }),
    });
    expect(created.status).to.equal(201);

    const viaRestRoute = await fetch(root.replace(/wp-json\/$/, "?rest_route=/calendar/events/v1/events"));
    expect(viaRestRoute.status).to.equal(200);

    run.child.kill("SIGTERM");
    expect(await run.exit).to.equal(0);
  });

  it("serve --rest-prefix changes the REST root", async () => {
    const run = runCli(["serve", "--port", "0", "--db", ":memory:", "--rest-prefix", "/api"]);
    const line = await waitForLine(run);
    expect(line).to.match(/^calpress listening on http:\/\/127\.0\.0\.1:\d+\/api\/$/);
    const res = await fetch(`${line.split(" ").pop()}calendar/events/v1`);
    expect(res.status).to.equal(200);
    run.child.kill("SIGINT");
    expect(await run.exit).to.equal(0);
  });

  const usageErrors = [
    ["serve", "--port", "abc"],
    ["serve", "--bogus"],
    ["serve", "--user", "nopassword"],
    ["serve", "--user", "a:b:emperor"],
    ["migrate"],
    ["user", "add", "x", "--db", ":memory:"],
    ["frobnicate"],
  ];
  const helps = [["--help"], ["serve", "--help"], ["migrate", "--help"], ["fixture", "--help"], ["user", "--help"]];
  // These commands end by themselves and share nothing: started together (two at a time), each judged by its test.
  const finished = upFront([...usageErrors, ...helps].map((args) => [args.join(" "), () => ran(runCli(args))] as const));
  before(() => finished.start());
  after(() => finished.settled());

  for (const args of usageErrors) {
    it(`exits 2 with a message on stderr for: ${args.join(" ")}`, async () => {
      const run = await finished.get(args.join(" "));
      expect(await run.exit).to.equal(2);
      expect(run.stdout.join("")).to.equal("");
      expect(run.stderr).to.match(/calpress: /);
    });
  }

  it("--help works on every command", async () => {
    for (const args of helps) {
      const run = await finished.get(args.join(" "));
      expect(await run.exit, args.join(" ")).to.equal(0);
      expect(run.stdout.join("\n")).to.match(/Usage: calpress/);
    }
  });

  it("migrate and user add work on a SQLite file, and the app password authenticates", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "calpress-cli-"));
    const db = path.join(dir, "site.sqlite");
    try {
      let run = runCli(["migrate", "--db", db]);
      expect(await run.exit, run.stderr).to.equal(0);
      run = runCli(["user", "add", "grace", "--role", "editor", "--email", "grace@example.com", "--app-password", "grace pass 1234", "--db", db]);
      expect(await run.exit, run.stderr).to.equal(0);
      run = runCli(["user", "add", "linus", "--role", "author", "--db", `sqlite:${db}`]);
      expect(await run.exit, run.stderr).to.equal(0);
      expect(run.stdout.join("\n")).to.match(/application password: \S+/);

      const serve = runCli(["serve", "--port", "0", "--db", db]);
      const root = (await waitForLine(serve)).split(" ").pop()!;
      // Grouping spaces are ignored (rest-conventions.md §8).
      const ok = await fetch(`${root}calendar/events/v1/events`, {
        headers: { authorization: `Basic ${Buffer.from("grace:gracepass1234").toString("base64")}` },
      });
      expect(ok.status).to.equal(200);
      const bad = await fetch(`${root}calendar/events/v1/events`, {
        headers: { authorization: `Basic ${Buffer.from("grace:wrong").toString("base64")}` },
      });
      expect(bad.status).to.equal(401);
      // A database that is not the new default one gets no demo data.
      const list = (await (await fetch(`${root}calendar/events/v1/events`)).json()) as { total: number };
      expect(list.total).to.equal(0);
      serve.child.kill("SIGTERM");
      expect(await serve.exit).to.equal(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("npm start's default: a new ./data/calpress.sqlite gets the demo and a curl line", async function () {
    this.timeout(120000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "calpress-start-"));
    try {
      const run = runCli(["serve", "--port", "0"], dir);
      const line = await waitForLine(run, 90000);
      const root = line.split(" ").pop()!;
      expect(fs.existsSync(path.join(dir, "data/calpress.sqlite"))).to.equal(true);
      const res = await fetch(`${root}calendar/events/v1/events`);
      expect(res.status).to.equal(200);
      expect(Number(res.headers.get("x-wp-total"))).to.be.greaterThan(0);
      await new Promise((r) => setTimeout(r, 200));
      expect(run.stdout.join("\n")).to.match(/curl /);
      run.child.kill("SIGTERM");
      expect(await run.exit).to.equal(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
