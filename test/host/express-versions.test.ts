import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import path from "node:path";
import { expect } from "chai";
import { readyLine } from "../support/process";

/**
 * calpress mounted in an Express 4 and an Express 5 host (express is a peer
 * dependency: `^4.21.0 || ^5.0.0`). The same checks run against both: the
 * host app (test/host/express-host.ts) runs in a child process where every
 * `require("express")`, calpress's own included, gives that major, and its
 * stderr is kept to catch deprecation warnings.
 */
const HOST = path.join(__dirname, "express-host.ts");
const HOOK = path.join(__dirname, "resolve-hooks.cjs");
const ADMIN = { login: "admin", password: "host-test-app-password" };

interface Host {
  child: ChildProcessWithoutNullStreams;
  origin: string;
  version: string;
  stderr: () => string;
}

async function startHost(expressPackage: string): Promise<Host> {
  const child = spawn(process.execPath, ["--require", require.resolve("tsx/cjs"), "--require", HOOK, HOST], {
    env: { ...process.env, CALPRESS_EXPRESS_PACKAGE: expressPackage },
  });
  const ready = readyLine(child);
  const line = await ready.line;
  const m = /^listening on (http:\/\/\S+) express (\S+)$/.exec(line);
  if (!m) throw new Error(`unexpected ready line: ${line}`);
  return { child, origin: m[1] ?? "", version: m[2] ?? "", stderr: ready.stderr };
}

function stopHost(host: Host): Promise<void> {
  return new Promise((resolve) => {
    if (host.child.exitCode !== null) return resolve();
    host.child.once("exit", () => resolve());
    host.child.kill("SIGTERM");
  });
}

const basic = `Basic ${Buffer.from(`${ADMIN.login}:${ADMIN.password}`).toString("base64")}`;

for (const { major, pkg } of [
  { major: 5, pkg: "express" },
  { major: 4, pkg: "express4" },
]) {
  describe(`host: calpress mounted under /calendar in an Express ${major} app`, function () {
    this.timeout(60_000);
    let host: Host;
    let ns: string;

    before(async () => {
      host = await startHost(pkg);
      ns = `${host.origin}/calendar/wp-json/calendar/events/v1`;
    });
    after(async () => {
      if (host) await stopHost(host);
    });

    it(`runs on Express ${major}`, () => {
      expect(Number(host.version.split(".")[0])).to.equal(major);
    });

    it("the host keeps its own routes", async () => {
      const res = await fetch(`${host.origin}/`);
      expect(res.status).to.equal(200);
      expect(await res.text()).to.equal("the host's own home page");
    });

    let created: { id: number; url: string };

    it("POST with an application password creates an event; its URL keeps the port and the mount path", async () => {
      const res = await fetch(`${ns}/events`, {
        method: "POST",
        headers: { authorization: basic, "content-type": "application/json" },
        body: JSON.stringify({ title: "Host party", status: "publish", start_date: "2030-05-01 19:00:00", end_date: "2030-05-01 23:00:00" }),
      });
      const body = (await res.json()) as { id: number; url: string };
      expect(res.status, JSON.stringify(body)).to.equal(201);
      created = body;
      expect(body.url.startsWith(`${host.origin}/`), body.url).to.equal(true);
    });

    it("GET the list: every URL keeps the port", async () => {
      const res = await fetch(`${ns}/events?start_date=2030-01-01&end_date=2030-12-31`);
      expect(res.status).to.equal(200);
      const body = (await res.json()) as { events: Array<{ id: number; url: string }>; rest_url: string };
      expect(body.events.map((e) => e.id)).to.include(created.id);
      expect(body.rest_url.startsWith(`${ns}/events`), body.rest_url).to.equal(true);
      for (const e of body.events) expect(e.url.startsWith(`${host.origin}/`), e.url).to.equal(true);
    });

    it("GET one event by id", async () => {
      const res = await fetch(`${ns}/events/${created.id}`);
      expect(res.status).to.equal(200);
      const body = (await res.json()) as { id: number; title: string; url: string };
      expect(body).to.include({ id: created.id, title: "Host party", url: created.url });
    });

    it("the REST index links to the mounted root with the port", async () => {
      const res = await fetch(`${host.origin}/calendar/wp-json/`);
      expect(res.status).to.equal(200);
      expect(res.headers.get("link") ?? "").to.include(`<${host.origin}/calendar/wp-json/>`);
    });

    it("?rest_route= at the mount's root", async () => {
      const res = await fetch(`${host.origin}/calendar/?rest_route=/calendar/events/v1/events/${created.id}`);
      expect(res.status).to.equal(200);
      expect(((await res.json()) as { id: number }).id).to.equal(created.id);
    });

    it("unknown routes and bad input answer with the WordPress error envelope", async () => {
      const missing = await fetch(`${ns}/no-such-route`);
      expect(missing.status).to.equal(404);
      expect(await missing.json()).to.have.nested.property("data.status", 404);
      const bad = await fetch(`${ns}/events?per_page=nope`);
      expect(bad.status).to.equal(400);
      expect(await bad.json()).to.have.property("code", "rest_invalid_param");
    });

    it("serves the calendar and docs pages under the mount path", async () => {
      const page = await fetch(`${host.origin}/calendar/`);
      expect(page.status).to.equal(200);
      expect(page.headers.get("content-type") ?? "").to.match(/^text\/html/);
      const docs = await fetch(`${host.origin}/calendar/docs/`);
      expect(docs.status).to.equal(200);
      expect(docs.headers.get("content-type") ?? "").to.match(/^text\/html/);
    });

    it("prints no deprecation warning or error", () => {
      expect(host.stderr()).to.equal("");
    });

    it("a route that fails outside its handler reaches the host's error handling (a 500), and the host lives on", async () => {
      const res = await fetch(`${host.origin}/calendar/wp-json/host/v1/unwritable`);
      expect(res.status).to.equal(500);
      const after = await fetch(`${ns}/events/${created.id}`);
      expect(after.status).to.equal(200);
    });
  });
}
