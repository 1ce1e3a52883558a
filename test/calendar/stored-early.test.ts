/**
 * Stored answers sent before the request is parsed, routed or authenticated
 * (lib/routes/send.ts): only where the answer the usual path would give is
 * certainly the stored one. Every case here compares with what the usual
 * path answers, and counts the store's `early` hits to tell the two apart.
 * SQLite only: elsewhere the store proves answers asynchronously and there
 * is no early path.
 */
import { expect } from "chai";
import Sqlite from "better-sqlite3";
import express from "express";
import fs from "node:fs";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import os from "node:os";
import path from "node:path";
import type { AnswerStore } from "../../lib/cache/answer-store";
import { RestServer } from "../../lib/routes/server";
import { forEachDatabase } from "../support/databases";
import { startTestSite, type StartOptions, type TestSite } from "../support/site";
import { makeEvent, useSite } from "./events-support";
import { tableNames } from "../../lib/db/tables";

function removeStore(file: string): void {
  for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });
}

/** Headers of a response without those that differ per send. */
function stableHeaders(res: Response): Record<string, string> {
  const out: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (name !== "date" && name !== "keep-alive" && name !== "connection") out[name] = value;
  });
  return out;
}

forEachDatabase("calendar: stored answers sent early", (db) => {
  const file = path.join(os.tmpdir(), `calpress-early-${process.pid}.sqlite`);
  const site = useSite(db, { responseCache: false, answerStore: { file } });
  after(() => removeStore(file));
  before(function () {
    if (db.name !== "sqlite") this.skip();
  });

  const store = (t: TestSite): AnswerStore => {
    const s = t.site.rest.answerStore;
    if (s === undefined) throw new Error("no answer store");
    return s;
  };
  const early = (t: TestSite): number => store(t).stats().early;
  /** An event whose answer is stored (read twice, the second time early). */
  const storedEvent = async (t: TestSite, title: string): Promise<{ id: number; slug: string; url: string }> => {
    const event = await makeEvent(t, { title, status: "publish" });
    const url = `${t.ns}/events/${event.id}`;
    // The first read builds and stores; a first read racing a commit is not stored, hence a few tries.
    for (let i = 0; i < 4; i++) {
      const before = early(t);
      expect((await fetch(url)).status).to.equal(200);
      if (early(t) === before + 1) return { id: event.id, slug: event.slug, url };
    }
    throw new Error(`${url} was never answered early`);
  };

  it("sends the same status, headers and bytes as the usual path, for GET and HEAD", async () => {
    const t = site();
    const event = await makeEvent(t, { title: "Early Bird Concert", status: "publish" });
    const url = `${t.ns}/events/${event.id}`;
    const built = await fetch(url);
    const builtBody = await built.text();
    await fetch(url);
    const before = early(t);
    const sent = await fetch(url);
    expect(early(t)).to.equal(before + 1);
    expect(sent.status).to.equal(200);
    expect(await sent.text()).to.equal(builtBody);
    expect(stableHeaders(sent)).to.deep.equal(stableHeaders(built));
    expect(sent.headers.get("content-length")).to.equal(String(Buffer.byteLength(builtBody)));

    const head = await fetch(url, { method: "HEAD" });
    expect(early(t)).to.equal(before + 2);
    expect(head.status).to.equal(200);
    expect(head.headers.get("content-length")).to.equal(String(Buffer.byteLength(builtBody)));
    expect(head.headers.get("etag")).to.equal(built.headers.get("etag"));
    expect(await head.text()).to.equal("");
  });

  it("answers If-None-Match with a 304, and leaves If-Match to the usual path (412 when stale)", async () => {
    const t = site();
    const { url } = await storedEvent(t, "Conditional Early");
    const etag = (await fetch(url)).headers.get("etag") ?? "";
    expect(etag).to.match(/^"/);
    const before = early(t);
    const notModified = await fetch(url, { headers: { "If-None-Match": `"other", W/${etag}` } });
    expect(notModified.status).to.equal(304);
    expect(notModified.headers.get("etag")).to.equal(etag);
    expect(notModified.headers.get("content-length")).to.equal(null);
    expect(early(t)).to.equal(before + 1);
    const changed = await fetch(url, { headers: { "If-None-Match": '"other"' } });
    expect(changed.status).to.equal(200);
    expect(early(t)).to.equal(before + 2);

    const stale = await fetch(url, { headers: { "If-Match": '"other"' } });
    expect(stale.status).to.equal(412);
    expect(((await stale.json()) as { code: string }).code).to.equal("rest_precondition_failed");
    const fresh = await fetch(url, { headers: { "If-Match": etag } });
    expect(fresh.status).to.equal(200);
    expect(early(t)).to.equal(before + 2);
  });

  it("answers from the store, after routing, a URL whose extra parameters it cannot tell apart early; any Origin gets its own CORS headers", async () => {
    const t = site();
    const { url } = await storedEvent(t, "Junk Early");
    const clean = await fetch(url);
    const cleanBody = await clean.text();
    const { built, hits, early: earlyHits } = store(t).stats();
    for (const query of ["?utm_source=x", "?b=2&a=1", `?junk=${"z".repeat(15 * 1024)}`]) {
      const res = await fetch(`${url}${query}`, { headers: { origin: "https://other.example" } });
      expect(await res.text()).to.equal(cleanBody);
      expect(res.headers.get("etag")).to.equal(clean.headers.get("etag"));
      expect(res.headers.get("access-control-allow-origin")).to.equal("https://other.example");
    }
    // Not early (the key before routing holds every parameter), not built: the stored answer under the declared-args key.
    expect(store(t).stats()).to.include({ built, hits: hits + 3, early: earlyHits });
    // An Origin alone changes nothing in the key: early, with the CORS headers added on sending.
    const cors = await fetch(url, { headers: { origin: "https://a.example" } });
    expect(store(t).stats().early).to.equal(earlyHits + 1);
    expect(cors.headers.get("access-control-allow-origin")).to.equal("https://a.example");
    expect(cors.headers.get("vary")).to.equal("Authorization, Origin");
    expect(clean.headers.get("access-control-allow-origin")).to.equal(null);
  });

  it("never answers requests with credentials, good or bad, from the store", async () => {
    const t = site();
    const { url } = await storedEvent(t, "Credentials Early");
    const before = early(t);
    const editor = await t.get(url, { as: "editor" });
    expect(editor.status).to.equal(200);
    expect(editor.headers.get("cache-control")).to.contain("no-store");
    const wrong = await t.get(url, { as: { login: "editor", password: "not the password" } });
    expect(wrong.status).to.equal(401);
    // Not Basic: the usual path decides (anonymous for calpress's own authenticator), and that is the stored answer again.
    const bearer = await t.get(url, { headers: { authorization: "Bearer something" } });
    expect(bearer.status).to.equal(200);
    expect(early(t)).to.equal(before);
  });

  it("leaves method overrides and requests with bodies to the usual path", async () => {
    const t = site();
    const { url } = await storedEvent(t, "Override Early");
    const before = early(t);
    const overridden = await fetch(url, { method: "GET", headers: { "X-HTTP-Method-Override": "DELETE" } });
    expect(overridden.status).to.equal(401);
    const withBody = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(withBody.status).to.equal(401);
    const queryOverride = await fetch(`${url}?_method=DELETE`);
    expect(queryOverride.status).to.equal(401);
    expect(early(t)).to.equal(before);
    expect((await t.get(url)).body.title).to.equal("Override Early");
  });

  it("answers ?rest_route= URLs too, keyed apart from the pretty ones", async () => {
    const t = site();
    const { id } = await storedEvent(t, "Plain Permalinks");
    const url = `${t.home}/?rest_route=/calendar/events/v1/events/${id}`;
    const first = await fetch(url);
    expect(first.status).to.equal(200);
    await fetch(url);
    const before = early(t);
    const again = await fetch(url);
    expect(early(t)).to.equal(before + 1);
    expect(await again.text()).to.equal(await first.text());
  });

  it("keeps a host middleware's headers and merges its Vary", async () => {
    const t = site();
    const { url } = await storedEvent(t, "Hosted Early");
    const app = express();
    app.use((_req, res, next) => {
      res.setHeader("Vary", "Accept-Encoding");
      res.setHeader("X-Host", "kept");
      next();
    });
    app.use("/wp-json", t.site.router);
    const server: Server = await new Promise((resolve) => {
      const s = app.listen(0, "127.0.0.1", () => resolve(s));
    });
    try {
      const hosted = `http://127.0.0.1:${(server.address() as AddressInfo).port}${new URL(url).pathname}`;
      for (let i = 0; i < 3; i++) await fetch(hosted);
      const before = early(t);
      const res = await fetch(hosted);
      expect(early(t)).to.equal(before + 1);
      expect(res.status).to.equal(200);
      expect(res.headers.get("vary")).to.equal("Accept-Encoding, Authorization, Origin");
      expect(res.headers.get("x-host")).to.equal("kept");
      expect(res.headers.get("etag")).to.match(/^"/);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe("routes: who may be answered before authentication", () => {
  it("everyone when there is no authenticator; nobody known when there is one and no isAnonymous", () => {
    expect(new RestServer().settings.isAnonymous?.({} as express.Request)).to.equal(true);
    expect(new RestServer({ authenticate: () => null }).settings.isAnonymous).to.equal(undefined);
    const own = (req: express.Request): boolean => req.headers.cookie === undefined;
    expect(new RestServer({ authenticate: () => null, isAnonymous: own }).settings.isAnonymous).to.equal(own);
  });
});

forEachDatabase("calendar: stored answers with a host authenticator", (db) => {
  /**
   * Runs `work` against a site (own database, own store file) whose host logs
   * its admin in with a session cookie, then removes all of it.
   */
  async function withHostSite(name: string, extra: Pick<StartOptions, "isAnonymous">, work: (t: TestSite) => Promise<void>): Promise<void> {
    const file = path.join(os.tmpdir(), `calpress-${name}-${process.pid}.sqlite`);
    const database = await db.create();
    // The host's user is whoever sends the cookie; without it, anonymous.
    const t = await startTestSite({
      target: database.target,
      fixture: "minimal",
      timezone: "UTC",
      responseCache: false,
      answerStore: { file },
      authenticate: (req) => (req.headers.cookie === "session=admin" ? "admin" : null),
      ...extra,
    });
    try {
      await work(t);
    } finally {
      await t.close();
      await database.drop();
      removeStore(file);
    }
  }

  it("are never sent early: the host's credentials (a cookie, say) are only known to its authenticator", async function () {
    if (db.name !== "sqlite") this.skip();
    await withHostSite("early-host", {}, async (t) => {
      const event = await makeEvent(t, { title: "Host Session", status: "publish" });
      const url = `${t.ns}/events/${event.id}`;
      for (let i = 0; i < 3; i++) expect((await fetch(url)).status).to.equal(200);
      const s = t.site.rest.answerStore;
      expect(s?.stats().hits).to.be.greaterThan(0);
      expect(s?.stats().early).to.equal(0);
      const admin = await fetch(`${url}?context=edit`, { headers: { cookie: "session=admin" } });
      expect(admin.status).to.equal(200);
      const plain = await fetch(url, { headers: { cookie: "session=admin" } });
      expect(plain.headers.get("cache-control")).to.contain("no-store");
      expect(s?.stats().early).to.equal(0);
    });
  });

  it("with the host's isAnonymous, requests without its cookie (and without Authorization) are sent early", async function () {
    if (db.name !== "sqlite") this.skip();
    await withHostSite("early-host2", { isAnonymous: (req) => req.headers.cookie === undefined }, async (t) => {
      const event = await makeEvent(t, { title: "Host Session Two", status: "publish" });
      const url = `${t.ns}/events/${event.id}`;
      for (let i = 0; i < 3; i++) expect((await fetch(url)).status).to.equal(200);
      const s = t.site.rest.answerStore;
      const early = s?.stats().early ?? 0;
      expect(early).to.be.greaterThan(0);
      const admin = await fetch(url, { headers: { cookie: "session=admin" } });
      expect(admin.headers.get("cache-control")).to.contain("no-store");
      const basic = await t.get(url, { as: { login: "editor", password: "wrong" } });
      expect(basic.status).to.equal(401);
      expect(s?.stats().early).to.equal(early);
    });
  });

  it("survive a restart with the same settings (the time zone is not written again)", async function () {
    if (db.name !== "sqlite") this.skip();
    const file = path.join(os.tmpdir(), `calpress-early-restart-${process.pid}.sqlite`);
    const database = await db.create();
    const options = { target: database.target, timezone: "Europe/Rome", responseCache: false as const, answerStore: { file } };
    // Stored answers still good against the site's tags now (the query the store itself proves them with).
    const stillGood = (): number => {
      const reader = new Sqlite(file, { readonly: true });
      try {
        reader.prepare("ATTACH DATABASE ? AS site").run(database.target);
        const row = reader
          .prepare(
            `SELECT count(*) AS n FROM stored_answers a WHERE NOT EXISTS (SELECT 1 FROM json_each(a.tags) j
              WHERE coalesce((SELECT t.version FROM site.${tableNames().cacheTags} t WHERE t.tag = json_extract(j.value, '$[0]')), 0) <> json_extract(j.value, '$[1]'))`,
          )
          .get() as { n: number };
        return row.n;
      } finally {
        reader.close();
      }
    };
    const first = await startTestSite({ ...options, fixture: "minimal" });
    try {
      const event = await makeEvent(first, { title: "Before Restart", status: "publish" });
      for (let i = 0; i < 3; i++) await first.get(`/events/${event.id}`);
      expect(first.site.rest.answerStore?.stats().early).to.be.greaterThan(0);
    } finally {
      await first.close();
    }
    const good = stillGood();
    expect(good).to.be.greaterThan(0);
    const second = await startTestSite(options);
    try {
      expect(stillGood()).to.equal(good);
    } finally {
      await second.close();
      await database.drop();
      removeStore(file);
    }
  });
});
