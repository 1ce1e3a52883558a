/**
 * The pages over plain HTTP (no browser): where they are mounted, what the
 * server injects, what it refuses to serve, how a host skips or moves them,
 * and what `calpress serve` prints.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { expect } from "chai";
import express from "express";
import { createSite, Site } from "../../lib/site";
import { createCalendarPage, createDocsPage, pageTitle } from "../../lib/pages";
import { startPagesSite, PagesSite } from "./support";

/** The `data-*` attribute of the <body> of a page. */
function bodyData(html: string, name: string): string | undefined {
  const body = /<body([^>]*)>/.exec(html)?.[1] ?? "";
  const m = new RegExp(`data-${name}="([^"]*)"`).exec(body);
  return m ? m[1].replace(/&amp;/g, "&").replace(/&quot;/g, '"') : undefined;
}

async function listen(app: express.Express): Promise<{ base: string; close: () => Promise<void> }> {
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("pages over HTTP", function () {
  this.timeout(20_000);

  describe("as calpress serve mounts them", () => {
    let t: PagesSite;
    before(async () => {
      t = await startPagesSite();
    });
    after(async () => {
      await t.close();
    });

    it("site.pages holds the calendar at /, the reference at /docs and the editor at /editor, with their names", () => {
      expect(t.site.pages.map(([mount, router]) => [mount, pageTitle(router)])).to.deep.equal([
        ["/", "Calendar"],
        ["/docs", "API reference"],
        ["/editor", "Editor"],
      ]);
    });

    it("serves the calendar at / with the REST root injected and a strict content policy", async () => {
      const res = await fetch(`${t.home}/`);
      expect(res.status).to.equal(200);
      expect(res.headers.get("content-type")).to.equal("text/html; charset=utf-8");
      const csp = res.headers.get("content-security-policy") ?? "";
      expect(csp).to.contain("script-src 'self'").and.contain("connect-src 'self'").and.not.contain("unsafe-inline");
      const html = await res.text();
      expect(bodyData(html, "rest-root")).to.equal("/wp-json/");
      expect(bodyData(html, "namespace")).to.equal("calendar/events/v1");
      expect(bodyData(html, "docs-url")).to.equal("/docs");
      expect(html).to.contain('src="/calendar-assets/app.js"').and.not.contain("{{");
      for (const file of ["app.js", "api.js", "format.js", "views.js", "calendar.css"]) {
        const asset = await fetch(`${t.home}/calendar-assets/${file}`);
        expect(asset.status, file).to.equal(200);
        expect(asset.headers.get("content-type"), file).to.match(file.endsWith(".js") ? /javascript/ : /text\/css/);
      }
    });

    it("leaves /?rest_route= to the REST API and other paths to the host", async () => {
      const rest = await fetch(`${t.home}/?rest_route=/calendar/events/v1/events`);
      expect(rest.status).to.equal(200);
      expect(rest.headers.get("content-type")).to.match(/^application\/json/);
      expect(((await rest.json()) as { events: unknown[] }).events).to.be.an("array");
      expect((await fetch(`${t.home}/not-a-page`)).status).to.equal(404);
      expect((await fetch(`${t.home}/calendar-assets/missing.js`)).status).to.equal(404);
    });

    it("serves the reference at /docs with self-hosted Swagger UI, and only the files it needs", async () => {
      const res = await fetch(`${t.home}/docs`);
      expect(res.status).to.equal(200);
      const html = await res.text();
      expect(bodyData(html, "doc-url")).to.equal("/wp-json/calendar/events/v1/doc");
      expect(bodyData(html, "calendar-url")).to.equal("/");
      expect(html).to.contain('src="/docs/swagger-ui/swagger-ui-bundle.js"').and.not.contain("unpkg").and.not.contain("cdn");
      const bundle = await fetch(`${t.home}/docs/swagger-ui/swagger-ui-bundle.js`);
      expect(bundle.status).to.equal(200);
      expect(bundle.headers.get("content-type")).to.match(/javascript/);
      expect((await fetch(`${t.home}/docs/swagger-ui/swagger-ui.css`)).status).to.equal(200);
      expect((await fetch(`${t.home}/docs/assets/docs.js`)).status).to.equal(200);
      // Swagger UI's own demo page and initializer (which open the public Petstore) are not served.
      for (const file of ["index.html", "swagger-initializer.js", "package.json", "../package.json"]) {
        expect((await fetch(`${t.home}/docs/swagger-ui/${file}`)).status, file).to.equal(404);
      }
      expect((await fetch(`${t.home}/docs/`)).status).to.equal(200);
    });
  });

  it("the npm package ships web/, where the pages' files are read from", () => {
    const pkg = JSON.parse(fs.readFileSync(path.resolve(__dirname, "../../package.json"), "utf8")) as { files?: string[] };
    expect(pkg.files).to.include("web");
    expect(fs.existsSync(path.resolve(__dirname, "../../web/calendar/index.html"))).to.equal(true);
    expect(fs.existsSync(path.resolve(__dirname, "../../web/docs/index.html"))).to.equal(true);
  });

  it("pages: false leaves site.pages empty, so nothing is served at /", async () => {
    const site = await createSite({ db: ":memory:", pages: false });
    try {
      expect(site.pages).to.deep.equal([]);
      const app = express();
      app.use("/wp-json", site.router);
      app.use(site.rootMiddleware);
      for (const [mount, router] of site.pages) app.use(mount, router);
      const server = await listen(app);
      try {
        expect((await fetch(`${server.base}/`)).status).to.equal(404);
        expect((await fetch(`${server.base}/docs`)).status).to.equal(404);
        expect((await fetch(`${server.base}/wp-json/calendar/events/v1/events`)).status).to.equal(200);
      } finally {
        await server.close();
      }
    } finally {
      await site.close();
    }
  });

  it("without a site URL the pages call the REST prefix from the origin's root, wherever they are mounted (the README's mount)", async () => {
    // The README mounts the router at /wp-json; a host puts the pages at /calendar.
    for (const [restPrefix, routerAt] of [[undefined, "/wp-json"], ["/api", "/api"]] as const) {
      const site: Site = await createSite({ db: ":memory:", restPrefix });
      try {
        const app = express();
        app.use(routerAt, site.router);
        for (const [mount, router] of site.pages) app.use(`/calendar${mount === "/" ? "" : mount}`, router);
        const server = await listen(app);
        try {
          const calendar = await (await fetch(`${server.base}/calendar/`)).text();
          expect(bodyData(calendar, "rest-root")).to.equal(`${routerAt}/`);
          expect(bodyData(calendar, "docs-url")).to.equal("/calendar/docs");
          expect(calendar).to.contain('src="/calendar/calendar-assets/app.js"');
          expect((await fetch(`${server.base}/calendar/calendar-assets/app.js`)).status).to.equal(200);
          expect((await fetch(`${server.base}${bodyData(calendar, "rest-root")}calendar/events/v1/events`)).status).to.equal(200);
          const docs = await (await fetch(`${server.base}/calendar/docs`)).text();
          expect(bodyData(docs, "doc-url")).to.equal(`${routerAt}/calendar/events/v1/doc`);
          expect(bodyData(docs, "calendar-url")).to.equal("/calendar/");
          expect((await fetch(`${server.base}${bodyData(docs, "doc-url")}`)).status).to.equal(200);
          const editor = await (await fetch(`${server.base}/calendar/editor`)).text();
          expect(bodyData(editor, "rest-root")).to.equal(`${routerAt}/`);
        } finally {
          await server.close();
        }
      } finally {
        await site.close();
      }
    }
  });

  it("with a site URL the pages call its REST root, wherever they are mounted", async () => {
    // The router at the site URL's REST root, the pages at a path of their own.
    const site: Site = await createSite({ db: ":memory:", siteUrl: "https://cal.example.org/" });
    try {
      const app = express();
      app.use("/wp-json", site.router);
      for (const [mount, router] of site.pages) app.use(`/calendar${mount === "/" ? "" : mount}`, router);
      const server = await listen(app);
      try {
        const res = await fetch(`${server.base}/calendar`);
        const calendar = await res.text();
        expect(bodyData(calendar, "rest-root")).to.equal("/wp-json/");
        // Origin-relative: the page calls the server it came from, under 'self'.
        expect(res.headers.get("content-security-policy")).to.contain("connect-src 'self';");
        expect(bodyData(calendar, "docs-url")).to.equal("/calendar/docs");
        expect((await fetch(`${server.base}${bodyData(calendar, "rest-root")}calendar/events/v1/events`)).status).to.equal(200);
        const docs = await (await fetch(`${server.base}/calendar/docs`)).text();
        expect(bodyData(docs, "doc-url")).to.equal("/wp-json/calendar/events/v1/doc");
        expect(bodyData(docs, "calendar-url")).to.equal("/calendar/");
        expect((await fetch(`${server.base}${bodyData(docs, "doc-url")}`)).status).to.equal(200);
      } finally {
        await server.close();
      }
    } finally {
      await site.close();
    }
  });

  it("with a site URL that has a path, the pages and the router live under it", async () => {
    const site: Site = await createSite({ db: ":memory:", siteUrl: "https://example.org/calendar", restPrefix: "/api" });
    try {
      const app = express();
      app.use("/calendar/api", site.router);
      for (const [mount, router] of site.pages) app.use(`/calendar${mount === "/" ? "" : mount}`, router);
      const server = await listen(app);
      try {
        const calendar = await (await fetch(`${server.base}/calendar/`)).text();
        expect(bodyData(calendar, "rest-root")).to.equal("/calendar/api/");
        expect((await fetch(`${server.base}/calendar/api/calendar/events/v1/events`)).status).to.equal(200);
        const docs = await (await fetch(`${server.base}/calendar/docs`)).text();
        expect(bodyData(docs, "doc-url")).to.equal("/calendar/api/calendar/events/v1/doc");
      } finally {
        await server.close();
      }
    } finally {
      await site.close();
    }
  });

  it("a host can build the pages itself, pointing at a REST root elsewhere", async () => {
    const app = express();
    app.use("/calendar", createCalendarPage({ restRoot: "https://api.example.com/wp-json", docsPath: false }));
    app.use("/reference", createDocsPage({ restRoot: "https://api.example.com/wp-json/", calendarPath: "/calendar" }));
    const server = await listen(app);
    try {
      const res = await fetch(`${server.base}/calendar`);
      const html = await res.text();
      expect(bodyData(html, "rest-root")).to.equal("https://api.example.com/wp-json/");
      expect(bodyData(html, "docs-url")).to.equal("");
      expect(res.headers.get("content-security-policy")).to.contain("connect-src 'self' https://api.example.com");
      const docs = await (await fetch(`${server.base}/reference`)).text();
      expect(bodyData(docs, "doc-url")).to.equal("https://api.example.com/wp-json/calendar/events/v1/doc");
      expect(bodyData(docs, "calendar-url")).to.equal("/calendar");
    } finally {
      await server.close();
    }
  });

  it("calpress serve prints the page URLs right after the ready line, under any REST prefix", async function () {
    this.timeout(30_000);
    const root = path.resolve(__dirname, "../..");
    const child = spawn(process.execPath, ["--require", require.resolve("tsx/cjs"), path.join(root, "lib/cli.ts"), "serve", "--port", "0", "--db", ":memory:", "--rest-prefix", "/api"], {
      cwd: root,
    });
    try {
      const lines = await new Promise<string[]>((resolve, reject) => {
        let out = "";
        let err = "";
        child.stdout.on("data", (chunk: Buffer) => {
          out += chunk.toString();
          const got = out.split("\n");
          if (got.length > 4) resolve(got.slice(0, 4));
        });
        child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
        child.once("exit", (code) => reject(new Error(`exited ${code}: ${err}`)));
      });
      const ready = /^calpress listening on (http:\/\/127\.0\.0\.1:\d+)\/api\/$/.exec(lines[0]);
      expect(ready, lines[0]).to.not.equal(null);
      const origin = ready![1];
      expect(lines.slice(1)).to.deep.equal([`Calendar:      ${origin}/`, `API reference: ${origin}/docs`, `Editor:        ${origin}/editor`]);
      const html = await (await fetch(`${origin}/`)).text();
      expect(bodyData(html, "rest-root")).to.equal("/api/");
      // The ?rest_route= form builds its URLs with the real prefix too.
      const viaRoute = (await (await fetch(`${origin}/?rest_route=/calendar/events/v1/doc`)).json()) as { servers: Array<{ url: string }> };
      expect(viaRoute.servers[0].url).to.equal(`${origin}/api/calendar/events/v1/`);
    } finally {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
    }
  });
});
