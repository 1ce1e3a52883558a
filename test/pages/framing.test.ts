/**
 * No HTML page calpress serves can be framed by another site (clickjacking
 * the editor): every one carries `X-Frame-Options: SAMEORIGIN` and a CSP
 * with `frame-ancestors 'self'` — the calendar, the API reference, the
 * editor, wherever they are mounted, and the error pages of `calpress serve`.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import path from "node:path";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { expect } from "chai";
import express from "express";
import { createSite } from "../../lib/site";
import { errorPages } from "../../lib/pages";
import { startPagesSite } from "./support";

/** The pages below a site home, as `site.pages` mounts them (with and without a trailing slash). */
const PAGES = ["/", "/docs", "/docs/", "/editor", "/editor/"];
/** The pages' templates, which are never sent unfilled. */
const TEMPLATES = ["/calendar-assets/index.html", "/docs/assets/index.html", "/editor/editor-assets/index.html"];

async function expectUnframeable(url: string, status = 200): Promise<string> {
  const res = await fetch(url);
  expect(res.status, url).to.equal(status);
  expect(res.headers.get("content-type"), url).to.equal("text/html; charset=utf-8");
  expect(res.headers.get("x-frame-options"), url).to.equal("SAMEORIGIN");
  const directives = (res.headers.get("content-security-policy") ?? "").split(";").map((d) => d.trim());
  expect(directives, url).to.include("frame-ancestors 'self'");
  return res.text();
}

async function listen(app: express.Express): Promise<{ base: string; close: () => Promise<void> }> {
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe("pages: no framing by other sites", function () {
  this.timeout(30_000);

  it("every page, as calpress serve mounts them; the templates are not served as pages", async () => {
    const t = await startPagesSite();
    try {
      for (const page of PAGES) await expectUnframeable(`${t.home}${page}`);
      for (const template of TEMPLATES) expect((await fetch(`${t.home}${template}`)).status, template).to.equal(404);
    } finally {
      await t.close();
    }
  });

  it("every page, mounted by a host under a path of its own", async () => {
    const site = await createSite({ db: ":memory:", restPrefix: "/api" });
    try {
      const app = express();
      app.use("/events-site/api", site.router);
      for (const [mount, router] of site.pages) app.use(`/events-site${mount === "/" ? "" : mount}`, router);
      const server = await listen(app);
      try {
        for (const page of PAGES) await expectUnframeable(`${server.base}/events-site${page}`);
        for (const template of TEMPLATES) expect((await fetch(`${server.base}/events-site${template}`)).status, template).to.equal(404);
      } finally {
        await server.close();
      }
    } finally {
      await site.close();
    }
  });

  it("calpress serve under a site URL's path: the pages, and the 404 page for anything else (templates included)", async () => {
    const root = path.resolve(__dirname, "../..");
    const child: ChildProcessWithoutNullStreams = spawn(process.execPath, ["--require", require.resolve("tsx/cjs"), path.join(root, "lib/cli.ts"), "serve", "--port", "0", "--db", ":memory:", "--site-url", "https://example.org/cal"], { cwd: root });
    try {
      const origin = await new Promise<string>((resolve, reject) => {
        let out = "";
        let err = "";
        child.stdout.on("data", (chunk: Buffer) => {
          out += chunk.toString();
          const ready = /calpress listening on (http:\/\/[^/\s]+)\//.exec(out);
          if (ready) resolve(ready[1]);
        });
        child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
        child.once("exit", (code) => reject(new Error(`exited ${code}: ${err}`)));
      });
      for (const page of PAGES) await expectUnframeable(`${origin}/cal${page}`);
      for (const missing of ["/cal/no-such-page", "/elsewhere", ...TEMPLATES.map((t) => `/cal${t}`)]) {
        const html = await expectUnframeable(`${origin}${missing}`, 404);
        expect(html, missing).to.contain("<h1>404 Not Found</h1>");
      }
    } finally {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
    }
  });

  it("the error pages: the status and its name only, the error logged when it is the server's", async () => {
    const logged: unknown[] = [];
    const app = express();
    app.get("/broken", () => {
      throw new Error("secret detail at /srv/calpress/lib/x.ts:12");
    });
    app.get("/bad", () => {
      throw Object.assign(new Error("secret detail"), { status: 400 });
    });
    app.use(...errorPages((err) => logged.push(err)));
    const server = await listen(app);
    try {
      for (const [url, status, title] of [
        ["/broken", 500, "500 Internal Server Error"],
        ["/bad", 400, "400 Bad Request"],
        ["/missing", 404, "404 Not Found"],
      ] as const) {
        const html = await expectUnframeable(`${server.base}${url}`, status);
        expect(html, url).to.contain(`<h1>${title}</h1>`).and.not.contain("secret").and.not.contain("/srv/");
      }
      expect(logged.map((e) => (e as Error).message)).to.deep.equal(["secret detail at /srv/calpress/lib/x.ts:12"]);
    } finally {
      await server.close();
    }
  });
});
