/**
 * A request is matched against the route table once: the match found when
 * the request arrives is carried to the kept-answer checks and the pipeline
 * (and, for a batch, from the first pass to the run), not looked up again.
 */
import { expect } from "chai";
import express from "express";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { RestServer, type RouteMatch } from "../../lib/routes";

describe("routes: one match per request", () => {
  let server: RestServer;
  let http: Server;
  let base = "";
  const matched: string[] = [];

  before(async () => {
    server = new RestServer({ responseCache: { revision: () => Promise.resolve("r1") } });
    server.registerRoute("once/v1", "/items", [
      { methods: "GET", permission: "public", cache: true, handler: () => ({ ok: true }) },
      { methods: "POST", permission: "public", allowBatch: true, handler: () => ({ made: true }) },
    ]);
    const match = server.match.bind(server);
    server.match = (path: string, method: string): RouteMatch => {
      matched.push(`${method} ${path}`);
      return match(path, method);
    };
    const app = express();
    app.use("/wp-json", server.router());
    http = await new Promise((resolve) => {
      const s = app.listen(0, "127.0.0.1", () => resolve(s));
    });
    base = `http://127.0.0.1:${(http.address() as AddressInfo).port}/wp-json`;
  });

  after(() => new Promise<void>((resolve) => http.close(() => resolve())));
  beforeEach(() => {
    matched.length = 0;
  });

  it("matches an anonymous GET of a cached route once", async () => {
    const res = await fetch(`${base}/once/v1/items`);
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal({ ok: true });
    expect(matched).to.deep.equal(["GET /once/v1/items"]);
  });

  it("matches a batch once and each sub-request once", async () => {
    const res = await fetch(`${base}/batch/v1`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ requests: [{ path: "/once/v1/items", body: {} }] }),
    });
    expect(res.status).to.equal(207);
    expect(matched).to.deep.equal(["POST /batch/v1", "POST /once/v1/items"]);
  });
});
