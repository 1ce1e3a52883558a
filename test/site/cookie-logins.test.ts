/**
 * Host logins by session cookie (`authenticate` answers `{ user, ambient: true }`):
 * they count only with a nonce from `site.createNonce`, as WordPress's cookie
 * logins, so a page of another site cannot act as the user. Real HTTP to a
 * listening site; the host's session store is a map.
 */
import { expect } from "chai";
import os from "node:os";
import path from "node:path";
import type { Request } from "express";
import { createSite, type HostUser } from "../../lib/site";
import { formEncode, startTestSite, type StartOptions, type TestSite } from "../support/site";
import { forEachDatabase, removeSqliteFile } from "../support/databases";
import { dayAt } from "../calendar/events-support";

/** The host's sessions: cookie value → login. */
class Sessions {
  private readonly byId = new Map<string, string>();
  private next = 0;

  open(login: string): string {
    this.next += 1;
    const sid = `s${this.next}`;
    this.byId.set(sid, login);
    return `sid=${sid}`;
  }

  /** The host's authenticate: the session cookie's user, which the browser sends by itself. */
  authenticate = (req: Request): HostUser => {
    const sid = /(?:^|;\s*)sid=([^;]+)/.exec(req.headers.cookie ?? "")?.[1];
    const login = sid === undefined ? undefined : this.byId.get(sid);
    return login === undefined ? null : { user: login, ambient: true };
  };
}

const eventForm = (title: string): Record<string, string> => ({ title, start_date: dayAt(1, "10:00:00"), end_date: dayAt(1, "11:00:00"), status: "publish" });

async function eventsTitled(t: TestSite, title: string): Promise<number> {
  const rows = await t.site.engine.knex(t.site.engine.tables.posts).where({ title }).count<Array<{ n: number | string }>>({ n: "*" });
  return Number(rows[0]?.n ?? 0);
}

describe("site: cookie logins need a nonce", function () {
  this.timeout(60_000);
  const sessions = new Sessions();
  const logged: string[] = [];
  let t: TestSite;
  let admin: string;
  let editor: string;

  before(async () => {
    t = await startTestSite({ fixture: "minimal", timezone: "UTC", authenticate: sessions.authenticate, logger: { error: (m) => logged.push(m) } });
    admin = sessions.open("admin");
    editor = sessions.open("editor");
  });
  after(() => t.close());

  it("a cross-site form POST carrying the session cookie and no nonce is anonymous: 401, nothing created", async () => {
    const res = await fetch(`${t.ns}/events`, {
      method: "POST",
      headers: { cookie: admin, origin: "https://evil.example", "content-type": "application/x-www-form-urlencoded" },
      body: formEncode(eventForm("Forged")),
    });
    expect(res.status).to.equal(401);
    expect(((await res.json()) as { data: { status: number } }).data.status).to.equal(401);
    expect(await eventsTitled(t, "Forged")).to.equal(0);
    // Reads are anonymous too: no drafts, the public answer's caching.
    const read = await fetch(`${t.ns}/events?status=draft`, { headers: { cookie: admin } });
    expect(read.status).to.be.oneOf([400, 401]);
  });

  it("a wrong, empty or another user's nonce is 403 rest_cookie_invalid_nonce, on reads too", async () => {
    const editorNonce = await t.site.createNonce("editor");
    for (const nonce of ["0123456789", "", editorNonce]) {
      const res = await fetch(`${t.ns}/events`, { method: "POST", headers: { cookie: admin, "x-wp-nonce": nonce, "content-type": "application/json" }, body: JSON.stringify(eventForm("Wrong nonce")) });
      expect(res.status, nonce).to.equal(403);
      expect(res.headers.get("x-wp-nonce")).to.equal(null);
      expect(await res.json()).to.deep.equal({ code: "rest_cookie_invalid_nonce", message: "Cookie check failed", data: { status: 403 } });
    }
    expect((await fetch(`${t.ns}/events?_wpnonce=nope`, { headers: { cookie: admin } })).status).to.equal(403);
    expect(await eventsTitled(t, "Wrong nonce")).to.equal(0);
  });

  it("the user's nonce logs in, in X-WP-Nonce, ?_wpnonce= or a form body's _wpnonce: 201", async () => {
    const nonce = await t.site.createNonce("admin");
    expect(nonce).to.match(/^[0-9a-f]{10}$/);
    // Made from the id or the record, it is the same nonce.
    const record = await t.site.engine.users.byLogin("admin");
    expect(await t.site.createNonce(record!.id)).to.equal(nonce);
    expect(await t.site.createNonce({ login: "admin" })).to.equal(nonce);

    const byHeader = await fetch(`${t.ns}/events`, { method: "POST", headers: { cookie: admin, "x-wp-nonce": nonce, "content-type": "application/json" }, body: JSON.stringify(eventForm("By header")) });
    expect(byHeader.status).to.equal(201);
    // A fresh nonce comes with the answer, as WordPress sends one.
    expect(byHeader.headers.get("x-wp-nonce")).to.equal(nonce);
    expect(String(((await byHeader.json()) as { author: unknown }).author)).to.equal(String(record!.id));
    const byQuery = await fetch(`${t.ns}/events?_wpnonce=${nonce}`, { method: "POST", headers: { cookie: admin, "content-type": "application/x-www-form-urlencoded" }, body: formEncode(eventForm("By query")) });
    expect(byQuery.status).to.equal(201);
    const byBody = await fetch(`${t.ns}/events`, { method: "POST", headers: { cookie: admin, "content-type": "application/x-www-form-urlencoded" }, body: formEncode({ ...eventForm("By body"), _wpnonce: nonce }) });
    expect(byBody.status).to.equal(201);
    // Authenticated answers are private.
    const read = await fetch(`${t.ns}/events?status=draft`, { headers: { cookie: admin, "x-wp-nonce": nonce } });
    expect(read.status).to.equal(200);
    expect(read.headers.get("cache-control")).to.contain("no-store");
  });

  it("a nonce without the session cookie is nobody's login; HTTP Basic still works beside a cookie without nonce", async () => {
    const nonce = await t.site.createNonce("admin");
    const noCookie = await fetch(`${t.ns}/events`, { method: "POST", headers: { "x-wp-nonce": nonce, "content-type": "application/json" }, body: JSON.stringify(eventForm("No cookie")) });
    expect(noCookie.status).to.equal(401);
    const basic = await t.post("/events", { as: "editor", headers: { cookie: admin }, json: eventForm("Basic beside cookie") });
    expect(basic.status).to.equal(201);
    expect(await eventsTitled(t, "No cookie")).to.equal(0);
    // The editor's session with the editor's nonce.
    const own = await fetch(`${t.ns}/events`, { method: "POST", headers: { cookie: editor, "x-wp-nonce": await t.site.createNonce("editor"), "content-type": "application/json" }, body: JSON.stringify(eventForm("Editor session")) });
    expect(own.status).to.equal(201);
  });

  it("createNonce refuses a user calpress does not know", async () => {
    let error: unknown;
    try {
      await t.site.createNonce("ghost");
    } catch (err) {
      error = err;
    }
    expect(String(error)).to.match(/knows no user "ghost"/);
  });
});

describe("site: host answers without ambient credentials", function () {
  this.timeout(60_000);

  it("need no nonce (a token the page adds itself); an unknown user is anonymous and logged once", async () => {
    const logged: string[] = [];
    const t = await startTestSite({
      fixture: "minimal",
      timezone: "UTC",
      authenticate: (req) => (req.headers["x-token"] === "t-admin" ? { user: "admin", ambient: false } : req.headers["x-token"] === "t-ghost" ? "ghost" : null),
      logger: { error: (m) => logged.push(m) },
    });
    try {
      expect((await t.post("/events", { headers: { "x-token": "t-admin" }, json: eventForm("Token login") })).status).to.equal(201);
      for (let i = 0; i < 3; i++) expect((await t.post("/events", { headers: { "x-token": "t-ghost" }, json: eventForm("Ghost") })).status).to.equal(401);
      const ghostLines = logged.filter((m) => m.includes('"ghost"'));
      expect(ghostLines).to.have.length(1);
      expect(ghostLines[0]).to.contain("provisionUsers");
    } finally {
      await t.close();
    }
  });
});

describe("site: stored answers and cookie logins", function () {
  this.timeout(60_000);

  it("a cookie without nonce gets the stored anonymous answer; with its nonce, the user's own", async () => {
    const file = path.join(os.tmpdir(), `calpress-cookie-store-${process.pid}.sqlite`);
    const dbFile = path.join(os.tmpdir(), `calpress-cookie-db-${process.pid}.sqlite`);
    const sessions = new Sessions();
    const opts: StartOptions = {
      target: dbFile,
      fixture: "minimal",
      timezone: "UTC",
      responseCache: false,
      answerStore: { file },
      authenticate: sessions.authenticate,
      isAnonymous: (req) => req.headers.cookie === undefined,
    };
    const t = await startTestSite(opts);
    try {
      const admin = sessions.open("admin");
      const made = await t.post("/events", { as: "editor", json: eventForm("Stored for cookies") });
      expect(made.status).to.equal(201);
      const url = `${t.ns}/events/${(made.body as { id: number }).id}`;
      const store = t.site.rest.answerStore!;
      for (let i = 0; i < 3; i++) expect((await fetch(url)).status).to.equal(200);
      const anonymous = await fetch(url);
      const anonymousText = await anonymous.text();
      const hits = store.stats().hits;
      const early = store.stats().early;
      // Cookie, no nonce: anonymous, so the stored answer (through the usual path: the cookie is the host's to judge).
      const cookieOnly = await fetch(url, { headers: { cookie: admin } });
      expect(cookieOnly.headers.get("cache-control")).to.equal("no-cache");
      expect(await cookieOnly.text()).to.equal(anonymousText);
      expect(store.stats().hits).to.equal(hits + 1);
      expect(store.stats().early).to.equal(early);
      // Cookie and nonce: the admin's answer, never the store's.
      const nonce = await t.site.createNonce("admin");
      const own = await fetch(`${url}?context=edit`, { headers: { cookie: admin, "x-wp-nonce": nonce } });
      expect(own.status).to.equal(200);
      expect(own.headers.get("cache-control")).to.contain("no-store");
      const plain = await fetch(url, { headers: { cookie: admin, "x-wp-nonce": nonce } });
      expect(plain.headers.get("cache-control")).to.contain("no-store");
      // A nonce without a cookie is left to the authenticator (anonymous there), never sent early.
      const nonceOnly = await fetch(url, { headers: { "x-wp-nonce": nonce } });
      expect(await nonceOnly.text()).to.equal(anonymousText);
      expect(store.stats().early).to.equal(early);
    } finally {
      await t.close();
      for (const f of [file, dbFile]) removeSqliteFile(f);
    }
  });
});

forEachDatabase("site: users a host names", (db) => {
  it("are created with provisionUsers' role on first use, once even when first requests race", async () => {
    const database = await db.create();
    const sessions = new Sessions();
    const t = await startTestSite({ target: database.target, fixture: "minimal", timezone: "UTC", authenticate: sessions.authenticate, provisionUsers: { role: "author" } });
    try {
      const cookie = sessions.open("newcomer");
      const nonce = await t.site.createNonce("newcomer");
      const user = await t.site.engine.users.byLogin("newcomer");
      expect(user?.role).to.equal("author");
      const results = await Promise.all(
        [1, 2, 3, 4].map((i) =>
          fetch(`${t.ns}/events`, { method: "POST", headers: { cookie, "x-wp-nonce": nonce, "content-type": "application/json" }, body: JSON.stringify({ ...eventForm(`Newcomer ${i}`), status: "draft" }) }),
        ),
      );
      expect(results.map((r) => r.status)).to.deep.equal([201, 201, 201, 201]);
      // And a login first seen in a request (no createNonce before): created, then its nonce is checked.
      const late = sessions.open("latecomer");
      const anon = await fetch(`${t.ns}/events`, { method: "POST", headers: { cookie: late, "content-type": "application/json" }, body: JSON.stringify(eventForm("Late")) });
      expect(anon.status).to.equal(401);
      const racing = await Promise.all(
        [1, 2, 3].map(() => fetch(`${t.ns}/events`, { headers: { cookie: late, "x-wp-nonce": "0000000000" } })),
      );
      expect(racing.map((r) => r.status)).to.deep.equal([403, 403, 403]);
      const rows = await t.site.engine.knex(t.site.engine.tables.users).where({ login: "latecomer" }).select("role");
      expect(rows).to.deep.equal([{ role: "author" }]);
      expect(await t.site.engine.knex(t.site.engine.tables.users).where({ login: "newcomer" }).count<Array<{ n: number | string }>>({ n: "*" })).to.satisfy((r: Array<{ n: number | string }>) => Number(r[0]?.n) === 1);
    } finally {
      await t.close();
      await database.drop();
    }
  });

  it("without provisionUsers, stay anonymous until the host makes them (engine.users.ensure)", async () => {
    const database = await db.create();
    const sessions = new Sessions();
    const logged: string[] = [];
    const t = await startTestSite({ target: database.target, fixture: "minimal", timezone: "UTC", authenticate: sessions.authenticate, logger: { error: (m) => logged.push(m) } });
    try {
      const cookie = sessions.open("walter");
      // Unknown: the nonce cannot even be made, and the request is anonymous.
      const res = await fetch(`${t.ns}/events`, { method: "POST", headers: { cookie, "x-wp-nonce": "0123456789", "content-type": "application/json" }, body: JSON.stringify(eventForm("Walter")) });
      expect(res.status).to.equal(401);
      expect(logged.filter((m) => m.includes('"walter"'))).to.have.length(1);
      await t.site.engine.users.ensure({ login: "walter", role: "editor" });
      const nonce = await t.site.createNonce("walter");
      const made = await fetch(`${t.ns}/events`, { method: "POST", headers: { cookie, "x-wp-nonce": nonce, "content-type": "application/json" }, body: JSON.stringify(eventForm("Walter")) });
      expect(made.status).to.equal(201);
    } finally {
      await t.close();
      await database.drop();
    }
  });
});

describe("site: options of cookie logins", () => {
  it("refuses an unknown provisionUsers role and an empty secret", async () => {
    let error: unknown;
    try {
      await createSite({ db: ":memory:", provisionUsers: { role: "owner" as "author" } });
    } catch (err) {
      error = err;
    }
    expect(String(error)).to.contain("provisionUsers");
    error = undefined;
    try {
      await createSite({ db: ":memory:", secret: " " });
    } catch (err) {
      error = err;
    }
    expect(String(error)).to.contain("secret");
  });
});
