/**
 * The REST layer's response cache, on a real RestServer over real HTTP with a
 * revision token the test controls: what is reused, for whom, and when an
 * answer is built again.
 */
import { expect } from "chai";
import express from "express";
import type { AddressInfo } from "node:net";
import { request as httpRequest, type Server } from "node:http";
import { RestError, RestServer, type RestRequest } from "../../lib/routes";
import type { Answer } from "../../lib/cache/answer";
import { ResponseCache } from "../../lib/cache/response-cache";
import { TagFeed } from "../../lib/cache/tag-feed";
import { scripted } from "../support/scripted-tags";
import { fakeAuthenticate } from "./helpers";

interface Harness {
  base: string;
  builds: () => number;
  setRevision: (token: string | null) => void;
  server: RestServer;
  close: () => Promise<void>;
}

async function start(maxAgeMs = 60_000): Promise<Harness> {
  let revision: string | null = "r1";
  let builds = 0;
  const server = new RestServer({
    authenticate: fakeAuthenticate,
    responseCache: { revision: () => Promise.resolve(revision), maxAgeMs },
  });
  const slow = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 30));
  server.registerRoute("cache/v1", "/count", {
    methods: "GET",
    permission: "public",
    cache: true,
    handler: async (req: RestRequest) => {
      builds++;
      await slow();
      return { build: builds, user: req.user?.login ?? null, q: req.params.q ?? null };
    },
  });
  server.registerRoute("cache/v1", "/missing", {
    methods: "GET",
    permission: "public",
    cache: true,
    handler: () => {
      builds++;
      return new RestError("nope", "Not here.", 404);
    },
  });
  server.registerRoute("cache/v1", "/uncached", {
    methods: ["GET", "POST"],
    permission: "public",
    handler: () => ({ build: ++builds }),
  });
  const app = express();
  app.use("/wp-json", server.router());
  const http: Server = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  return {
    base: `http://127.0.0.1:${(http.address() as AddressInfo).port}/wp-json/cache/v1`,
    builds: () => builds,
    setRevision: (token) => {
      revision = token;
    },
    server,
    close: () => new Promise((resolve) => http.close(() => resolve())),
  };
}

async function json(url: string, init?: RequestInit): Promise<{ status: number; body: { build: number; user: string | null; q: string | null }; headers: Headers }> {
  const res = await fetch(url, init);
  const text = await res.text();
  return { status: res.status, body: text === "" ? ({} as never) : JSON.parse(text), headers: res.headers };
}

/** A GET with a body, which fetch refuses to send. */
function getWithBody(url: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: "GET", headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const admin = { authorization: `Basic ${Buffer.from("admin:admin-pass").toString("base64")}` };

describe("REST response cache: memory bound", () => {
  const answerOf = (bytes: number): Answer => ({ status: 200, headers: [["Content-Type", "application/json"]], body: Buffer.alloc(bytes, 120), noCache: false });
  const ask = (cache: ResponseCache, key: string, bytes: number): Promise<Answer> =>
    cache.answer(key, () => true, async () => ({ answer: answerOf(bytes), keep: true }));

  it("counts keys and headers, not only bodies, against maxBytes", async () => {
    const maxBytes = 1024 * 1024;
    const cache = new ResponseCache({ revision: async () => "r", maxBytes, maxEntries: 1_000_000 });
    // Tiny bodies under 15 kB keys: the keys are what takes the memory.
    for (let i = 0; i < 500; i++) {
      const key = `${i}:${"q".repeat(15 * 1024)}`;
      await ask(cache, key, 10);
      await ask(cache, key, 10);
    }
    const { entries, bytes } = cache.stats();
    expect(bytes).to.be.at.most(maxBytes);
    expect(entries).to.be.greaterThan(0).and.at.most(Math.floor(maxBytes / (30 * 1024)));
  });

  it("holds at most maxEntries answers", async () => {
    const cache = new ResponseCache({ revision: async () => "r", maxEntries: 50 });
    for (let i = 0; i < 400; i++) {
      await ask(cache, `k${i}`, 1);
      await ask(cache, `k${i}`, 1);
    }
    expect(cache.stats().entries).to.equal(50);
  });
});

describe("REST response cache", () => {
  let h: Harness;
  beforeEach(async () => {
    h = await start();
  });
  afterEach(() => h.close());

  it("builds the first two answers of a URL and reuses the second until the revision changes", async () => {
    expect((await json(`${h.base}/count`)).body.build).to.equal(1);
    expect((await json(`${h.base}/count`)).body.build).to.equal(2);
    const third = await json(`${h.base}/count`);
    expect(third.body.build).to.equal(2);
    expect(third.headers.get("content-type")).to.equal("application/json; charset=UTF-8");
    expect(third.headers.get("vary")).to.equal("Authorization, Origin");
    expect(third.headers.get("link")).to.contain('rel="https://api.w.org/"');
    h.setRevision("r2");
    expect((await json(`${h.base}/count`)).body.build).to.equal(3);
    expect((await json(`${h.base}/count`)).body.build).to.equal(3);
  });

  it("keys by query string, not by Origin (CORS headers are added to the kept answer), and sends HEAD without the body", async () => {
    for (let i = 0; i < 2; i++) await json(`${h.base}/count?q=a`);
    expect((await json(`${h.base}/count?q=a`)).body).to.include({ build: 2, q: "a" });
    expect((await json(`${h.base}/count?q=b`)).body).to.include({ build: 3, q: "b" });
    const cors = await json(`${h.base}/count?q=a`, { headers: { origin: "https://a.example" } });
    expect(cors.body.build).to.equal(2);
    expect(cors.headers.get("access-control-allow-origin")).to.equal("https://a.example");
    expect(cors.headers.get("access-control-allow-credentials")).to.equal("true");
    expect(cors.headers.get("vary")).to.equal("Authorization, Origin");
    const other = await json(`${h.base}/count?q=a`, { headers: { origin: "https://b.example" } });
    expect(other.body.build).to.equal(2);
    expect(other.headers.get("access-control-allow-origin")).to.equal("https://b.example");
    const plain = await json(`${h.base}/count?q=a`);
    expect(plain.body.build).to.equal(2);
    expect(plain.headers.get("access-control-allow-origin")).to.equal(null);
    const head = await fetch(`${h.base}/count?q=a`, { method: "HEAD" });
    expect(head.status).to.equal(200);
    expect(await head.text()).to.equal("");
    expect(Number(head.headers.get("content-length"))).to.equal(Buffer.byteLength(JSON.stringify(plain.body)));
    expect(h.builds()).to.equal(3);
  });

  it("never serves or keeps answers for authenticated requests, and they carry no-cache headers", async () => {
    for (let i = 0; i < 3; i++) await json(`${h.base}/count`);
    const authed = await json(`${h.base}/count`, { headers: admin });
    expect(authed.body).to.include({ build: 3, user: "admin" });
    expect(authed.headers.get("cache-control")).to.contain("no-store");
    expect((await json(`${h.base}/count`, { headers: admin })).body.build).to.equal(4);
    // The anonymous answer kept before is still the anonymous one.
    expect((await json(`${h.base}/count`)).body).to.include({ build: 2, user: null });
    // Wrong credentials are an error, whatever is cached.
    const bad = await json(`${h.base}/count`, { headers: { authorization: `Basic ${Buffer.from("admin:nope").toString("base64")}` } });
    expect(bad.status).to.equal(401);
  });

  it("does not cache endpoints that did not opt in, method overrides, requests with a body or error answers", async () => {
    for (let i = 0; i < 3; i++) await json(`${h.base}/uncached`);
    expect((await json(`${h.base}/uncached`)).body.build).to.equal(4);
    for (let i = 0; i < 3; i++) await json(`${h.base}/count?_method=GET`);
    expect(h.builds()).to.equal(7);
    for (let i = 0; i < 3; i++) {
      await json(`${h.base}/count`, { method: "GET", headers: { "x-http-method-override": "GET" } });
    }
    expect(h.builds()).to.equal(10);
    for (let i = 0; i < 3; i++) expect((await json(`${h.base}/missing`)).status).to.equal(404);
    expect(h.builds()).to.equal(13);
    for (let i = 0; i < 3; i++) expect(await getWithBody(`${h.base}/count`, "{}")).to.equal(200);
    expect(h.builds()).to.equal(16);
  });

  it("answers a burst of identical requests with one build", async () => {
    await json(`${h.base}/count`);
    const burst = await Promise.all(Array.from({ length: 8 }, () => json(`${h.base}/count`)));
    expect(new Set(burst.map((r) => r.body.build))).to.deep.equal(new Set([2]));
    expect(h.builds()).to.equal(2);
  });

  it("builds every time when no revision can be had", async () => {
    h.setRevision(null);
    for (let i = 0; i < 4; i++) await json(`${h.base}/count`);
    expect(h.builds()).to.equal(4);
  });

  it("holds no answer longer than maxAgeMs", async () => {
    await h.close();
    h = await start(100);
    for (let i = 0; i < 3; i++) await json(`${h.base}/count`);
    expect(h.builds()).to.equal(2);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect((await json(`${h.base}/count`)).body.build).to.equal(3);
    expect((await json(`${h.base}/count`)).body.build).to.equal(3);
    expect(h.server.settings.responseCache?.stats().entries).to.equal(1);
  });
});

describe("REST response cache: answers that outlive writes (reuseWhile)", () => {
  /** A list whose members the test sets; it shows tag 8 and the site's tag 1 (`always`). */
  async function proved(): Promise<{ base: string; db: ReturnType<typeof scripted>; checks: () => number; set(members: string): void; failNext(): void; whileBuilding(work: () => void): void; server: RestServer; close(): Promise<void> }> {
    const db = scripted();
    const feed = new TagFeed(db.changes, { revision: db.revision });
    let builds = 0;
    let checks = 0;
    let members = "a";
    let fail = false;
    let during: (() => void) | undefined;
    const server = new RestServer({ authenticate: fakeAuthenticate, responseCache: { revision: db.revision, feed, always: [1], maxAgeMs: 60_000 } });
    server.registerRoute("cache/v1", "/listed", {
      methods: "GET",
      permission: "public",
      cache: true,
      handler: async (req: RestRequest) => {
        builds++;
        const shown = members;
        during?.();
        during = undefined;
        req.dependsOn(8);
        req.reuseWhile(async () => {
          checks++;
          await new Promise((resolve) => setTimeout(resolve, 20));
          if (fail) {
            fail = false;
            throw new Error("the check failed");
          }
          return members === shown;
        });
        return { build: builds, members: shown };
      },
    });
    const app = express();
    app.use("/wp-json", server.router());
    const http: Server = await new Promise((resolve) => {
      const s = app.listen(0, "127.0.0.1", () => resolve(s));
    });
    return {
      base: `http://127.0.0.1:${(http.address() as AddressInfo).port}/wp-json/cache/v1`,
      db,
      checks: () => checks,
      set: (m) => {
        members = m;
      },
      failNext: () => {
        fail = true;
      },
      whileBuilding: (work) => {
        during = work;
      },
      server,
      close: () => new Promise((resolve) => http.close(() => resolve())),
    };
  }
  const build = async (base: string): Promise<number> => (await json(`${base}/listed`)).body.build;
  let h: Awaited<ReturnType<typeof proved>>;
  beforeEach(async () => {
    h = await proved();
  });
  afterEach(() => h.close());

  it("reuses the answer under a new revision while its tags are unchanged and its check holds", async () => {
    await build(h.base);
    expect(await build(h.base)).to.equal(2);
    // A write of something the answer does not show: proved, not built.
    h.db.commit(9, 12);
    expect(await build(h.base)).to.equal(2);
    expect(await build(h.base)).to.equal(2);
    expect(h.checks()).to.equal(1);
    expect(h.server.settings.responseCache?.stats()).to.include({ proved: 1, failed: 0 });
    // A tag it shows changed: built again, whatever the check says.
    h.db.commit(8);
    expect(await build(h.base)).to.equal(3);
    // The site's own tag (`always`) too.
    h.db.commit(1);
    expect(await build(h.base)).to.equal(4);
    // Its members changed (the check says so): built again.
    h.db.commit(40);
    h.set("b");
    expect(await build(h.base)).to.equal(5);
    // A check that throws proves nothing.
    h.db.commit(41);
    h.failNext();
    expect(await build(h.base)).to.equal(6);
    expect(h.server.settings.responseCache?.stats()).to.include({ proved: 1 });
  });

  it("shares one check among a burst of requests after a write", async () => {
    await build(h.base);
    await build(h.base);
    h.db.commit(30);
    const burst = await Promise.all(Array.from({ length: 6 }, () => build(h.base)));
    expect(new Set(burst)).to.deep.equal(new Set([2]));
    expect(h.checks()).to.equal(1);
  });

  it("keeps no proof for an answer built while something committed", async () => {
    await build(h.base);
    // The second build (the one kept) sees a commit land while it runs: what it shows is no longer the token's state.
    h.whileBuilding(() => h.db.commit(50));
    expect(await build(h.base)).to.equal(2);
    h.db.commit(51);
    expect(await build(h.base)).to.equal(3);
    expect(h.checks()).to.equal(0);
  });
});
