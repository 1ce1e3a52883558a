/**
 * Where generated URLs come from (issue 18, item 2): with a site URL, from it
 * alone, whatever the Host header says; without one, from the request, but a
 * Host that is not a syntactically valid `host[:port]` is never copied
 * anywhere. SQLite only: the URL logic does not touch the database.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import net from "node:net";
import http from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { expect } from "chai";
import { createSite, Site, SiteOptions } from "../../lib/site";
import { loadFixture, resolveFixture } from "../../lib/fixtures";
import { parseHostHeader, parseSiteUrl } from "../../lib/format/site-url";

const FORGED = 'evil.com>; rel="preload"';
const EDITOR = `Basic ${Buffer.from("editor:editor-pass").toString("base64")}`;

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request with a Host of our choosing (fetch does not let one be set). */
function raw(port: number, method: string, target: string, headers: Record<string, string> = {}, body?: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, method, path: target, headers: { connection: "close", ...headers }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** Everything of an answer a client can see, as text. */
function wire(r: Raw): string {
  return `${JSON.stringify(r.headers)}\n${r.body}`;
}

interface Served {
  site: Site;
  port: number;
  close(): Promise<void>;
}

/** A site with the minimal fixture, its router at `routerAt` and `?rest_route=` at `homeAt`. */
async function serve(options: Partial<SiteOptions>, routerAt = "/wp-json", homeAt = "/"): Promise<Served> {
  const site = await createSite({ db: ":memory:", timezone: "UTC", loginLimit: false, ...options });
  await loadFixture(site.engine, resolveFixture("minimal"), { quiet: true });
  const app = express();
  app.use(routerAt, site.router);
  app.use(homeAt, site.rootMiddleware);
  const server = await new Promise<http.Server>((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  return {
    site,
    port: (server.address() as AddressInfo).port,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await site.close();
    },
  };
}

describe("site URL (sqlite)", function () {
  this.timeout(30_000);

  describe("syntax", () => {
    it("takes a Host only when it is a valid host[:port], lower case", () => {
      for (const [value, expected] of [
        ["example.com", "example.com"],
        ["Calendar.Example.ORG:8443", "calendar.example.org:8443"],
        ["127.0.0.1:8080", "127.0.0.1:8080"],
        ["localhost", "localhost"],
        ["[::1]:3000", "[::1]:3000"],
        ["[2001:DB8::7]", "[2001:db8::7]"],
        ["example.com.", "example.com."],
      ] as const) {
        expect(parseHostHeader(value), value).to.equal(expected);
      }
      for (const value of [
        FORGED,
        "",
        "evil.com/x",
        "evil.com?x",
        "evil.com#x",
        "user@evil.com",
        "a b",
        "evil.com:",
        "evil.com:99999",
        "evil.com:80:80",
        "-evil.com",
        "evil..com",
        "[::1",
        "[zz::1]",
        "[fe80::1%eth0]",
        "::1",
        `${"a".repeat(64)}.com`,
        `${"a.".repeat(150)}com`,
        "evil.com\t",
        "évil.com",
      ]) {
        expect(parseHostHeader(value), value).to.equal(undefined);
      }
      expect(parseHostHeader(undefined)).to.equal(undefined);
    });

    it("normalizes a site URL and refuses anything but an absolute http(s) URL", () => {
      expect(parseSiteUrl("https://Example.ORG")).to.equal("https://example.org");
      expect(parseSiteUrl("https://example.org:443/calendar/")).to.equal("https://example.org/calendar");
      expect(parseSiteUrl(" http://127.0.0.1:8080// ")).to.equal("http://127.0.0.1:8080");
      expect(parseSiteUrl("http://[::1]:8080/a/b")).to.equal("http://[::1]:8080/a/b");
      for (const bad of ["", "example.org", "/calendar", "ftp://example.org", "javascript:alert(1)", "https://u:p@example.org", "https://example.org/?a=1", "https://example.org/#x", "https://example.org/?", "https://"]) {
        expect(() => parseSiteUrl(bad), bad).to.throw(/site URL/);
      }
    });
  });

  describe("without a site URL (the demo)", () => {
    let t: Served;
    before(async () => {
      t = await serve({ answerStore: { file: ":memory:" } });
    });
    after(() => t.close());

    it("follows a valid Host", async () => {
      const index = await raw(t.port, "GET", "/wp-json/", { host: "Calendar.Example:8443" });
      expect(index.status).to.equal(200);
      const body = JSON.parse(index.body) as { url: string; home: string };
      expect(body.home).to.equal("http://calendar.example:8443");
      expect(body.url).to.equal("http://calendar.example:8443");
      expect(index.headers.link).to.equal('<http://calendar.example:8443/wp-json/>; rel="https://api.w.org/"');
    });

    for (const host of [FORGED, "evil.com/x", "evil.com:99999", "evil.com a", "[::1"]) {
      it(`refuses the Host ${JSON.stringify(host)} with 400, copying none of it (router and ?rest_route=)`, async () => {
        for (const target of ["/wp-json/", "/wp-json/calendar/events/v1/events?per_page=1", "/?rest_route=/calendar/events/v1/events"]) {
          const r = await raw(t.port, "GET", target, { host });
          expect(r.status, target).to.equal(400);
          expect(JSON.parse(r.body)).to.deep.equal({ code: "rest_invalid_host", message: "The Host header is not a valid host name.", data: { status: 400 } });
          expect(wire(r)).to.not.contain("evil");
          expect(r.headers.link).to.equal(undefined);
        }
      });
    }

    it("keeps answers of different host names apart (stored and cached answers are per base URL)", async () => {
      const list = JSON.parse((await raw(t.port, "GET", "/wp-json/calendar/events/v1/events", { host: "a.example" })).body) as { events: Array<{ id: number }> };
      const event = `/wp-json/calendar/events/v1/events/${list.events[0]!.id}`;
      for (let i = 0; i < 3; i++) expect((await raw(t.port, "GET", event, { host: "a.example" })).body).to.contain("http://a.example/");
      const other = await raw(t.port, "GET", event, { host: "b.example" });
      expect(other.body).to.contain("http://b.example/").and.not.contain("a.example");
    });

    it("gives a request without a Host (HTTP/1.0) the local address it came in on", async () => {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = net.connect(t.port, "127.0.0.1", () => socket.end("GET /wp-json/ HTTP/1.0\r\n\r\n"));
        let text = "";
        socket.on("data", (c: Buffer) => (text += c.toString()));
        socket.on("end", () => resolve(text));
        socket.on("error", reject);
      });
      expect(answer).to.match(/^HTTP\/1\.1 200 /);
      expect(answer).to.contain(`Link: <http://127.0.0.1:${t.port}/wp-json/>; rel="https://api.w.org/"`);
    });
  });

  describe("with a site URL", () => {
    const SITE = "https://calendar.example.org/calendar";
    let t: Served;
    let eventId: number;
    let venueId: number;
    before(async () => {
      // Mounted where the site URL's path says; the stored answers and the response cache are on.
      t = await serve({ siteUrl: "https://Calendar.Example.org:443/calendar/", answerStore: { file: ":memory:" } }, "/calendar/wp-json", "/calendar");
      const list = JSON.parse((await raw(t.port, "GET", "/calendar/wp-json/calendar/events/v1/events")).body) as { events: Array<{ id: number; venue?: { id: number } }> };
      const withVenue = list.events.find((e) => e.venue !== undefined && !Array.isArray(e.venue))!;
      eventId = withVenue.id;
      venueId = withVenue.venue!.id;
    });
    after(() => t.close());

    const paths = (): string[] => [
      "/calendar/wp-json/",
      "/calendar/wp-json/calendar/events/v1",
      "/calendar/wp-json/calendar/events/v1/events?per_page=1",
      "/calendar/wp-json/calendar/events/v1/events?per_page=1&page=2",
      "/calendar/wp-json/calendar/events/v1/events?per_page=1&json_ld=1",
      `/calendar/wp-json/calendar/events/v1/events/${eventId}`,
      `/calendar/wp-json/calendar/events/v1/venues/${venueId}`,
      "/calendar/wp-json/calendar/events/v1/categories",
      "/calendar/wp-json/calendar/events/v1/doc",
      "/calendar/?rest_route=/calendar/events/v1/events&per_page=2",
    ];

    it("two Host headers, one of them forged, get byte-identical bodies, ETags and Link headers", async () => {
      for (const target of paths()) {
        // Twice each: the second may come from the response cache or the answer store.
        const answers = [];
        for (const host of ["a.example", FORGED, "a.example", FORGED, "Calendar.Example.org"]) answers.push(await raw(t.port, "GET", target, { host }));
        const first = answers[0]!;
        expect(first.status, target).to.equal(200);
        for (const other of answers.slice(1)) {
          expect(other.status, target).to.equal(first.status);
          expect(other.body, target).to.equal(first.body);
          expect(other.headers.etag, target).to.equal(first.headers.etag);
          expect(other.headers.link, target).to.equal(first.headers.link);
        }
        for (const answer of answers) {
          expect(wire(answer), target).to.not.contain("evil").and.not.contain("a.example").and.not.contain("127.0.0.1");
          expect(answer.headers.link, target).to.contain(`<${SITE}/wp-json/>; rel="https://api.w.org/"`);
        }
      }
    });

    it("builds every URL of the records, the paging Link and the index from the site URL", async () => {
      const list = await raw(t.port, "GET", "/calendar/wp-json/calendar/events/v1/events?per_page=1&page=2", { host: FORGED });
      const links = String(list.headers.link ?? "").split(", <").map((part: string, i: number) => (i === 0 ? part : `<${part}`));
      expect(links[0]).to.equal(`<${SITE}/wp-json/>; rel="https://api.w.org/"`);
      expect(links[1]).to.match(/; rel="prev"$/);
      for (const link of links.slice(1)) expect(link.startsWith(`<${SITE}/wp-json/calendar/events/v1/events/?`), link).to.equal(true);
      const page = JSON.parse(list.body) as { rest_url: string; next_rest_url: string; events: Array<{ id: number; url: string; rest_url: string; global_id: string }> };
      expect(page.rest_url.startsWith(`${SITE}/wp-json/calendar/events/v1/events/?`), page.rest_url).to.equal(true);
      const event = page.events[0]!;
      expect(event.url.startsWith(`${SITE}/event/`), event.url).to.equal(true);
      expect(event.rest_url).to.equal(`${SITE}/wp-json/calendar/events/v1/events/${event.id}`);
      expect(event.global_id).to.equal(`calendar.example.org/calendar?id=${event.id}`);

      const index = JSON.parse((await raw(t.port, "GET", "/calendar/wp-json/", { host: "b.example" })).body) as { url: string; home: string };
      expect(index.url).to.equal(SITE);
      expect(index.home).to.equal(SITE);
    });

    it("gives iCal UIDs of the site's host name", async () => {
      const feed = await raw(t.port, "GET", "/calendar/wp-json/calendar/events/v1/events", { host: FORGED, accept: "text/calendar" });
      expect(feed.status).to.equal(200);
      const uids = feed.body.split(/\r\n/).filter((line) => line.startsWith("UID:"));
      expect(uids.length).to.be.greaterThan(0);
      for (const uid of uids) expect(uid).to.match(/^UID:\d+@calendar\.example\.org$/);
      const again = await raw(t.port, "GET", "/calendar/wp-json/calendar/events/v1/events", { host: "b.example", accept: "text/calendar" });
      expect(again.body).to.equal(feed.body);
    });

    it("answers a forged Host normally and names the new record by the site URL in Location", async () => {
      const created = await raw(
        t.port,
        "POST",
        "/calendar/wp-json/calendar/events/v1/events",
        { host: FORGED, authorization: EDITOR, "content-type": "application/json" },
        JSON.stringify({ title: "Site URL party", start_date: "2030-06-01 19:00:00", end_date: "2030-06-01 23:00:00" }),
      );
      expect(created.status, created.body).to.equal(201);
      const id = (JSON.parse(created.body) as { id: number }).id;
      expect(created.headers.location).to.equal(`${SITE}/wp-json/calendar/events/v1/events/${id}`);
      expect(wire(created)).to.not.contain("evil");
    });

    it("is the only source even where the router is mounted elsewhere", async () => {
      const other = await serve({ siteUrl: SITE }, "/api", "/");
      try {
        const index = await raw(other.port, "GET", "/api/", { host: "c.example" });
        expect(index.headers.link).to.equal(`<${SITE}/wp-json/>; rel="https://api.w.org/"`);
        const viaRestRoute = await raw(other.port, "GET", "/?rest_route=/", { host: "c.example" });
        expect(viaRestRoute.body).to.equal(index.body);
      } finally {
        await other.close();
      }
    });
  });

  describe("as the site options home and siteurl", () => {
    let dir: string;
    before(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), "calpress-siteurl-"));
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    it("createSite writes them; a later start without siteUrl keeps the stored one; an empty home lets URLs follow requests", async () => {
      const db = path.join(dir, "site.sqlite");
      const first = await createSite({ db, siteUrl: "https://events.example.net/" });
      expect(first.siteUrl).to.equal("https://events.example.net");
      expect(await first.engine.options.get("home")).to.equal("https://events.example.net");
      expect(await first.engine.options.get("siteurl")).to.equal("https://events.example.net");
      await first.close();

      const again = await createSite({ db });
      expect(again.siteUrl).to.equal("https://events.example.net");
      expect(again.rest.siteUrl).to.equal("https://events.example.net");
      await again.engine.options.set("home", "");
      await again.close();

      const cleared = await createSite({ db });
      expect(cleared.siteUrl).to.equal(undefined);
      await cleared.close();
    });

    it("the options accept only a site URL (or empty)", async () => {
      const site = await createSite({ db: ":memory:" });
      try {
        await site.engine.options.set("siteurl", "HTTPS://Example.org/x/");
        expect(await site.engine.options.get("siteurl")).to.equal("https://example.org/x");
        for (const bad of ["example.org", "ftp://example.org", "https://example.org/?q"]) {
          let error: unknown;
          await site.engine.options.set("home", bad).catch((err: unknown) => (error = err));
          expect(error, bad).to.be.instanceOf(Error);
          expect((error as Error).message).to.match(/^home: the site URL/);
        }
        expect(await site.engine.options.get("home")).to.equal(undefined);
      } finally {
        await site.close();
      }
    });

    it("createSite refuses a bad siteUrl before it opens the database", async () => {
      for (const bad of ["calendar.example.org", "ftp://calendar.example.org", "https://calendar.example.org/?x=1"]) {
        const db = path.join(dir, "never.sqlite");
        let error: unknown;
        await createSite({ db, siteUrl: bad }).catch((err: unknown) => (error = err));
        expect((error as Error | undefined)?.message, bad).to.match(/site URL/);
        expect(fs.existsSync(db)).to.equal(false);
      }
    });
  });
});
