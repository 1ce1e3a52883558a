/**
 * Conditional requests in the REST layer (lib/routes/conditional.ts, http.ts):
 * ETags on GET/HEAD answers, If-None-Match → 304, If-Match/If-None-Match on
 * writes → 412, caching headers, on the test namespace over real HTTP.
 */
import { expect } from "chai";
import express from "express";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { RestServer, type RestRequest } from "../../lib/routes";
import { call, fakeAuthenticate, ns, obj, startTestApp, type TestApp } from "./helpers";

function etagOf(res: { headers: Headers }): string {
  const etag = res.headers.get("etag");
  if (etag === null) throw new Error("no ETag");
  return etag;
}

describe("routes: conditional requests", () => {
  let app: TestApp;
  beforeEach(async () => {
    app = await startTestApp();
  });
  afterEach(() => app.close());

  describe("ETag", () => {
    it("every GET 200 carries a strong ETag that follows the content", async () => {
      const first = await call(app, ns("/items/1"));
      const etag = etagOf(first);
      expect(etag).to.match(/^"[A-Za-z0-9_-]{27}"$/);
      expect(etagOf(await call(app, ns("/items/1")))).to.equal(etag);
      expect(etagOf(await call(app, ns("/items/2")))).to.not.equal(etag);
      // Another representation of the same resource is another tag.
      expect(etagOf(await call(app, ns("/items/1?_fields=id")))).to.not.equal(etag);
      expect(etagOf(await call(app, ns("/items")))).to.not.equal(etagOf(await call(app, ns("/items?page=2"))));
      // Only what the answer shows counts: the Origin changes CORS headers, not the tag.
      expect(etagOf(await call(app, ns("/items/1"), { headers: { Origin: "https://app.example" } }))).to.equal(etag);
      const item = app.items.get(1);
      if (item === undefined) throw new Error("no item 1");
      item.title = "Changed behind the server's back";
      expect(etagOf(await call(app, ns("/items/1")))).to.not.equal(etag);
    });

    it("HEAD carries the GET's ETag; errors and writes carry none", async () => {
      const get = await call(app, ns("/items/1"));
      const head = await call(app, ns("/items/1"), { method: "HEAD" });
      expect(head.status).to.equal(200);
      expect(head.text).to.equal("");
      expect(etagOf(head)).to.equal(etagOf(get));
      expect((await call(app, ns("/items/999"))).headers.get("etag")).to.equal(null);
      expect((await call(app, ns("/echo"), { method: "POST", json: {} })).headers.get("etag")).to.equal(null);
      expect((await call(app, ns("/items/1"), { method: "PUT", json: { title: "x" }, as: "admin" })).headers.get("etag")).to.equal(null);
    });

    it("differs by what this user is shown (Allow), with Vary: Authorization, Origin", async () => {
      const anon = await call(app, ns("/items/1"));
      const admin = await call(app, ns("/items/1"), { as: "admin" });
      expect(admin.text).to.equal(anon.text);
      expect(etagOf(admin)).to.not.equal(etagOf(anon));
      expect(etagOf(await call(app, ns("/items/1"), { as: "admin" }))).to.equal(etagOf(admin));
      expect(anon.headers.get("vary")).to.equal("Authorization, Origin");
      expect(admin.headers.get("vary")).to.equal("Authorization, Origin");
      expect(anon.headers.get("cache-control")).to.equal("no-cache");
      expect(admin.headers.get("cache-control")).to.equal("no-cache, must-revalidate, max-age=0, no-store, private");
    });

    it("a post password in the request keeps the answer out of shared caches", async () => {
      const res = await call(app, ns("/echo?password=secret"));
      expect(res.status).to.equal(200);
      expect(res.headers.get("cache-control")).to.equal("no-cache, private");
    });
  });

  describe("If-None-Match on reads", () => {
    it("answers 304 without a body, keeping ETag, Cache-Control, Vary and CORS headers", async () => {
      const origin = { Origin: "https://app.example" };
      const etag = etagOf(await call(app, ns("/items/1"), { headers: origin }));
      const res = await call(app, ns("/items/1"), { headers: { ...origin, "If-None-Match": etag } });
      expect(res.status).to.equal(304);
      expect(res.text).to.equal("");
      expect(res.headers.get("etag")).to.equal(etag);
      expect(res.headers.get("cache-control")).to.equal("no-cache");
      expect(res.headers.get("vary")).to.equal("Authorization, Origin");
      expect(res.headers.get("access-control-allow-origin")).to.equal("https://app.example");
      expect(res.headers.get("access-control-allow-credentials")).to.equal("true");
      expect(res.headers.get("access-control-expose-headers")).to.contain("ETag");
      expect(res.headers.get("content-type")).to.equal(null);
      expect(res.headers.get("x-wp-total")).to.equal(null);
    });

    it("compares weakly, reads lists and *, and answers 200 for a stale tag", async () => {
      const etag = etagOf(await call(app, ns("/items/1")));
      for (const header of [`W/${etag}`, `"nope", ${etag}`, `"a",W/${etag} , "b"`, "*"]) {
        expect((await call(app, ns("/items/1"), { headers: { "If-None-Match": header } })).status, header).to.equal(304);
      }
      for (const header of ['"nope"', "W/\"nope\"", "garbage", etag.slice(1, -1)]) {
        const res = await call(app, ns("/items/1"), { headers: { "If-None-Match": header } });
        expect(res.status, header).to.equal(200);
        expect(obj(res.body).id).to.equal(1);
      }
      // A 404 stays a 404 whatever the precondition.
      expect((await call(app, ns("/items/999"), { headers: { "If-None-Match": "*" } })).status).to.equal(404);
    });

    it("HEAD answers 304 too; a changed item answers 200 with its new tag", async () => {
      const etag = etagOf(await call(app, ns("/items/2")));
      const head = await call(app, ns("/items/2"), { method: "HEAD", headers: { "If-None-Match": etag } });
      expect(head.status).to.equal(304);
      expect(head.headers.get("etag")).to.equal(etag);
      const put = await call(app, ns("/items/2"), { method: "PUT", json: { title: "Renamed" }, as: "admin" });
      expect(put.status).to.equal(200);
      const after = await call(app, ns("/items/2"), { headers: { "If-None-Match": etag } });
      expect(after.status).to.equal(200);
      expect(obj(after.body).title).to.equal("Renamed");
      expect(etagOf(after)).to.not.equal(etag);
    });

    it("an authenticated 304 keeps WordPress's no-cache headers", async () => {
      const etag = etagOf(await call(app, ns("/items/1"), { as: "editor" }));
      const res = await call(app, ns("/items/1"), { as: "editor", headers: { "If-None-Match": etag } });
      expect(res.status).to.equal(304);
      expect(res.headers.get("cache-control")).to.equal("no-cache, must-revalidate, max-age=0, no-store, private");
      expect(res.headers.get("expires")).to.equal("Wed, 11 Jan 1984 05:00:00 GMT");
      // The anonymous tag is not the editor's (the answers differ in Allow).
      const anonymous = etagOf(await call(app, ns("/items/1")));
      expect((await call(app, ns("/items/1"), { as: "editor", headers: { "If-None-Match": anonymous } })).status).to.equal(200);
    });

    it("If-Match on a read: 412 when stale, the answer when current", async () => {
      const etag = etagOf(await call(app, ns("/items/1")));
      const stale = await call(app, ns("/items/1"), { headers: { "If-Match": '"stale"' } });
      expect(stale.status).to.equal(412);
      expect(stale.body).to.deep.equal({ code: "rest_precondition_failed", message: obj(stale.body).message, data: { status: 412 } });
      expect(stale.headers.get("etag")).to.equal(null);
      expect((await call(app, ns("/items/1"), { headers: { "If-Match": etag } })).status).to.equal(200);
    });
  });

  describe("If-Match on writes", () => {
    it("a stale tag: 412 in the error envelope, nothing changed; the current tag: the write", async () => {
      const etag = etagOf(await call(app, ns("/items/3"), { as: "editor" }));
      await call(app, ns("/items/3"), { method: "PATCH", json: { title: "Someone else's edit" }, as: "admin" });
      const stale = await call(app, ns("/items/3"), { method: "PUT", json: { title: "Mine" }, as: "editor", headers: { "If-Match": etag } });
      expect(stale.status).to.equal(412);
      expect(obj(stale.body).code).to.equal("rest_precondition_failed");
      expect(obj(stale.body).data).to.deep.equal({ status: 412 });
      expect(stale.headers.get("cache-control")).to.contain("no-store");
      expect(app.items.get(3)?.title).to.equal("Someone else's edit");

      const current = etagOf(await call(app, ns("/items/3"), { as: "editor" }));
      const ok = await call(app, ns("/items/3"), { method: "PUT", json: { title: "Mine" }, as: "editor", headers: { "If-Match": current } });
      expect(ok.status).to.equal(200);
      expect(app.items.get(3)?.title).to.equal("Mine");
      // The same tag again is stale now.
      const again = await call(app, ns("/items/3"), { method: "PUT", json: { title: "Mine again" }, as: "editor", headers: { "If-Match": current } });
      expect(again.status).to.equal(412);
      expect(app.items.get(3)?.title).to.equal("Mine");
    });

    it("the tag is the one this user reads: the anonymous tag does not pass for the editor", async () => {
      const anonymous = etagOf(await call(app, ns("/items/1")));
      const res = await call(app, ns("/items/1"), { method: "POST", json: { title: "X" }, as: "editor", headers: { "If-Match": anonymous } });
      expect(res.status).to.equal(412);
      expect(app.items.get(1)?.title).to.equal("Item 1");
    });

    it("compares strongly; * passes when the resource exists; lists are read", async () => {
      const etag = etagOf(await call(app, ns("/items/1"), { as: "admin" }));
      const weak = await call(app, ns("/items/1"), { method: "PATCH", json: { title: "Weak" }, as: "admin", headers: { "If-Match": `W/${etag}` } });
      expect(weak.status).to.equal(412);
      const listed = await call(app, ns("/items/1"), { method: "PATCH", json: { title: "Listed" }, as: "admin", headers: { "If-Match": `"other", ${etag}` } });
      expect(listed.status).to.equal(200);
      expect(app.items.get(1)?.title).to.equal("Listed");
      const star = await call(app, ns("/items/1"), { method: "PATCH", json: { title: "Star" }, as: "admin", headers: { "If-Match": "*" } });
      expect(star.status).to.equal(200);
      expect(app.items.get(1)?.title).to.equal("Star");
      const missing = await call(app, ns("/items/999"), { method: "PATCH", json: { title: "None" }, as: "admin", headers: { "If-Match": "*" } });
      expect(missing.status).to.equal(412);
    });

    it("If-None-Match: * refuses to overwrite an existing resource", async () => {
      const res = await call(app, ns("/items/2"), { method: "PUT", json: { title: "Overwritten" }, as: "admin", headers: { "If-None-Match": "*" } });
      expect(res.status).to.equal(412);
      expect(app.items.get(2)?.title).to.equal("Item 2");
    });

    it("guards DELETE and method overrides too", async () => {
      const etag = etagOf(await call(app, ns("/items/4"), { as: "admin" }));
      await call(app, ns("/items/4"), { method: "PUT", json: { title: "Changed" }, as: "admin" });
      const del = await call(app, ns("/items/4"), { method: "DELETE", as: "admin", headers: { "If-Match": etag } });
      expect(del.status).to.equal(412);
      const override = await call(app, ns("/items/4"), { method: "POST", as: "admin", headers: { "If-Match": etag, "X-HTTP-Method-Override": "DELETE" } });
      expect(override.status).to.equal(412);
      const query = await call(app, ns("/items/4?_method=DELETE"), { method: "POST", as: "admin", headers: { "If-Match": etag } });
      expect(query.status).to.equal(412);
      expect(app.items.has(4)).to.equal(true);
      const current = etagOf(await call(app, ns("/items/4"), { as: "admin" }));
      const ok = await call(app, ns("/items/4?_method=DELETE"), { method: "POST", as: "admin", headers: { "If-Match": current } });
      expect(ok.status).to.equal(200);
      expect(app.items.has(4)).to.equal(false);
    });

    it("wrong credentials are a 401 before any precondition; a refused write stays refused", async () => {
      const etag = etagOf(await call(app, ns("/items/1")));
      const bad = await call(app, ns("/items/1"), {
        method: "PUT",
        json: { title: "X" },
        headers: { "If-Match": '"stale"', Authorization: `Basic ${Buffer.from("admin:wrong").toString("base64")}` },
      });
      expect(bad.status).to.equal(401);
      expect(obj(bad.body).code).to.equal("incorrect_password");
      // The subscriber reads the same bytes as anyone, but may not write: its tag passes, the permission does not.
      const sub = etagOf(await call(app, ns("/items/1"), { as: "sub" }));
      expect(sub).to.equal(etag);
      const refused = await call(app, ns("/items/1"), { method: "PUT", json: { title: "X" }, as: "sub", headers: { "If-Match": sub } });
      expect(refused.status).to.equal(403);
      expect(app.items.get(1)?.title).to.equal("Item 1");
    });

    it("routes without a GET ignore the headers", async () => {
      const res = await call(app, ns("/validate"), { method: "POST", json: {}, as: "admin", headers: { "If-Match": '"stale"' } });
      expect(res.status).to.not.equal(412);
    });
  });
});

describe("routes: conditional requests with kept answers and host middleware", () => {
  let http: Server;
  let base: string;
  let builds = 0;
  let revision = "r1";
  let title = "First";
  before(async () => {
    const server = new RestServer({ authenticate: fakeAuthenticate, responseCache: { revision: () => Promise.resolve(revision), maxAgeMs: 60_000 } });
    server.registerRoute("cond/v1", "/thing", {
      methods: "GET",
      permission: "public",
      cache: true,
      handler: (req: RestRequest) => {
        builds++;
        return { title, user: req.user?.login ?? null };
      },
    });
    const app = express();
    // A host middleware that set Vary already (as compression does).
    app.use((_req, res, next) => {
      res.setHeader("Vary", "Accept-Encoding, origin");
      next();
    });
    app.use("/wp-json", server.router());
    http = await new Promise((resolve) => {
      const s = app.listen(0, "127.0.0.1", () => resolve(s));
    });
    base = `http://127.0.0.1:${(http.address() as AddressInfo).port}/wp-json/cond/v1`;
  });
  after(() => {
    http.closeAllConnections();
    return new Promise<void>((resolve) => http.close(() => resolve()));
  });

  it("a kept answer is revalidated from its stored ETag without building, and a change is a new tag", async () => {
    const first = await fetch(`${base}/thing`);
    await fetch(`${base}/thing`);
    const etag = first.headers.get("etag") ?? "";
    expect(etag).to.match(/^"/);
    const built = builds;
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${base}/thing`, { headers: { "If-None-Match": etag } });
      expect(res.status).to.equal(304);
      expect(await res.text()).to.equal("");
      expect(res.headers.get("etag")).to.equal(etag);
    }
    expect(builds).to.equal(built);
    title = "Second";
    revision = "r2";
    const changed = await fetch(`${base}/thing`, { headers: { "If-None-Match": etag } });
    expect(changed.status).to.equal(200);
    expect(((await changed.json()) as { title: string }).title).to.equal("Second");
    expect(changed.headers.get("etag")).to.not.equal(etag);
  });

  it("merges Vary with the host's, each name once", async () => {
    const res = await fetch(`${base}/thing`);
    expect(res.headers.get("vary")).to.equal("Accept-Encoding, origin, Authorization");
  });
});

/**
 * The layer's side of closing the check-then-write window (write guards,
 * lib/cache/write-guard.ts): a fake guard keeps tag versions in memory, so the
 * test can commit a "concurrent" write at each point between the check and
 * the write.
 */
describe("routes: If-Match with write guards", () => {
  let http: Server;
  let base: string;
  const versions = new Map<number, number>();
  let title = "First";
  let writes = 0;
  const snapshots: number[][] = [];
  /** Runs when the guard is asked for a snapshot (after the first GET) or when the guarded write starts. */
  let atSnapshot: (() => void) | undefined;
  let atWrite: (() => void) | undefined;
  const concurrentEdit = (to: string) => (): void => {
    title = to;
    versions.set(7, (versions.get(7) ?? 0) + 1);
  };

  before(async () => {
    const server = new RestServer({
      authenticate: fakeAuthenticate,
      writeGuards: {
        snapshot: async (tags) => {
          snapshots.push([...tags].sort((a, b) => a - b));
          const taken = { tags: [...tags], versions: new Map([...tags].map((t) => [t, versions.get(t) ?? 0])) };
          atSnapshot?.();
          return taken;
        },
        run: async (snapshot, stale, work) => {
          atWrite?.();
          if (snapshot.tags.some((t) => (versions.get(t) ?? 0) !== (snapshot.versions.get(t) ?? 0))) throw stale();
          return work();
        },
      },
    });
    server.registerRoute("guard/v1", "/thing", [
      {
        methods: "GET",
        permission: "public",
        handler: (req: RestRequest) => {
          req.dependsOn(7);
          return { title };
        },
      },
      {
        methods: "PUT",
        permission: "public",
        args: { title: { type: "string", required: true } },
        handler: (req: RestRequest) => {
          writes++;
          title = String(req.params.title);
          versions.set(7, (versions.get(7) ?? 0) + 1);
          return { title };
        },
      },
    ]);
    const app = express();
    app.use("/wp-json", server.router());
    http = await new Promise((resolve) => {
      const s = app.listen(0, "127.0.0.1", () => resolve(s));
    });
    base = `http://127.0.0.1:${(http.address() as AddressInfo).port}/wp-json/guard/v1`;
  });
  after(() => {
    http.closeAllConnections();
    return new Promise<void>((resolve) => http.close(() => resolve()));
  });
  afterEach(() => {
    atSnapshot = undefined;
    atWrite = undefined;
  });

  const put = (to: string, etag: string): Promise<Response> =>
    fetch(`${base}/thing`, { method: "PUT", headers: { "content-type": "application/json", "If-Match": etag }, body: JSON.stringify({ title: to }) });
  const currentTag = async (): Promise<string> => (await fetch(`${base}/thing`)).headers.get("etag") ?? "";

  it("snapshots the tags the GET named, and writes when nothing moved", async () => {
    const before = writes;
    const res = await put("Second", await currentTag());
    expect(res.status).to.equal(200);
    expect(writes).to.equal(before + 1);
    expect(snapshots.at(-1)).to.deep.equal([7]);
  });

  it("a write committed after the check and before the write: 412, the handler never runs", async () => {
    const etag = await currentTag();
    const before = writes;
    atWrite = concurrentEdit("Concurrent");
    const res = await put("Lost", etag);
    expect(res.status).to.equal(412);
    expect(await res.json()).to.deep.include({ code: "rest_precondition_failed", data: { status: 412 } });
    expect(writes).to.equal(before);
    expect(title).to.equal("Concurrent");
  });

  it("a write committed right after the snapshot is seen by the GET the tag is compared with", async () => {
    const etag = await currentTag();
    const before = writes;
    atSnapshot = concurrentEdit("Between");
    const res = await put("Lost", etag);
    expect(res.status).to.equal(412);
    expect(writes).to.equal(before);
    expect(title).to.equal("Between");
  });
});
