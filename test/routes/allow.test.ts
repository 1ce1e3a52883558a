/**
 * The `Allow` header's permission checks (rest-conventions §6): each other
 * endpoint's check sees the request as its own endpoint validates it, never
 * parameters validated (or not) for another method; a check that throws is
 * a bug, reported once per endpoint; the requested endpoint's own check
 * runs once.
 */
import express from "express";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { expect } from "chai";
import { RestError, RestServer, type RestRequest } from "../../lib/routes";
import { call, fakeAuthenticate, type TestApp } from "./helpers";

const NS = "allow/v1";

/** What the checks saw, by endpoint. */
interface Seen {
  filter: unknown[];
  idTypes: string[];
  sanitized: number;
  lookups: number;
}

const LOOKUP = Symbol("lookup");

function registerRoutes(server: RestServer, seen: Seen): void {
  const editor = (req: RestRequest): boolean => req.user?.can("edit_items") === true;
  server.registerNamespace(NS);
  // GET takes `filter` as a list of integers and its check relies on that; POST takes a `filter` string.
  server.registerRoute(NS, "/things/(?P<id>\\d+)", [
    {
      methods: "GET",
      args: { id: { type: "integer" }, filter: { type: "array", items: { type: "integer" } } },
      permission: (req) => {
        const filter = req.params.filter as number[] | undefined;
        seen.filter.push(filter);
        return filter === undefined || filter.every((n) => n > 0);
      },
      handler: (req) => ({ id: req.params.id }),
    },
    {
      methods: "POST",
      args: {
        id: { type: "integer" },
        filter: { type: "string" },
        image: {
          type: "string",
          sanitize: (value) => {
            seen.sanitized++;
            return value;
          },
        },
      },
      permission: editor,
      handler: (req) => ({ id: req.params.id, filter: req.params.filter }),
    },
    {
      methods: "DELETE",
      // The same path parameter under another rule: this check sees what its own rule makes of it.
      args: { id: { type: "string", pattern: "^[0-9]+$" } },
      permission: (req) => {
        seen.idTypes.push(typeof req.params.id);
        return req.user?.can("delete_items") === true;
      },
      handler: () => ({ deleted: true }),
    },
  ]);
  // Every endpoint looks the addressed thing up through `req.memo`: once per request, whichever asks first.
  const lookup = (req: RestRequest): number => req.memo(LOOKUP, () => ++seen.lookups);
  server.registerRoute(NS, "/memo/(?P<id>\\d+)", [
    { methods: "GET", permission: "public", handler: (req) => ({ id: req.params.id, lookup: lookup(req) }) },
    { methods: "POST", permission: (req) => editor(req) && lookup(req) > 0, handler: () => ({}) },
    { methods: "DELETE", permission: (req) => req.user?.can("delete_items") === true && lookup(req) > 0, handler: () => ({}) },
  ], { args: { id: { type: "integer" } } });
  server.registerRoute(NS, "/broken", [
    { methods: "GET", permission: "public", handler: () => ({ ok: true }) },
    {
      methods: "PATCH",
      permission: () => {
        throw new TypeError("the check has a bug");
      },
      handler: () => ({ patched: true }),
    },
    {
      methods: "PUT",
      // A refusal thrown rather than returned is still an answer, not a bug.
      permission: () => {
        throw new RestError("rest_forbidden", "Sorry, you are not allowed to do that.", 403);
      },
      handler: () => ({ put: true }),
    },
  ]);
}

describe("routes: Allow runs each endpoint's check on its own validated view of the request", () => {
  let app: TestApp;
  let seen: Seen;
  let logged: { message: string; error: unknown }[];

  before(async () => {
    seen = { filter: [], idTypes: [], sanitized: 0, lookups: 0 };
    logged = [];
    const server = new RestServer({ authenticate: fakeAuthenticate, logger: { error: (message, error) => logged.push({ message, error }) } });
    registerRoutes(server, seen);
    const host = express();
    host.use("/wp-json", server.router());
    const http: Server = await new Promise((resolve) => {
      const s = host.listen(0, "127.0.0.1", () => resolve(s));
    });
    const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    app = {
      server,
      base,
      root: `${base}/wp-json/`,
      items: new Map(),
      logged,
      close: () => new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
    };
  });
  after(() => app.close());
  beforeEach(() => {
    seen.filter.length = 0;
    seen.idTypes.length = 0;
    seen.sanitized = 0;
    seen.lookups = 0;
    logged.length = 0;
  });

  it("another endpoint's check never sees a parameter validated for the requested one (no error, no log, every POST)", async () => {
    for (let i = 0; i < 3; i++) {
      const res = await call(app, `/wp-json/${NS}/things/5`, { method: "POST", json: { filter: "abc" }, as: "editor" });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ id: 5, filter: "abc" });
      // GET's check ran, on GET's view: `filter` was sent for POST's rule, which is not GET's, so GET's check does not see it.
      expect(res.headers.get("allow")).to.equal("GET, POST");
    }
    expect(seen.filter).to.deep.equal([undefined, undefined, undefined]);
    expect(logged).to.deep.equal([]);
  });

  it("a path parameter is validated by each endpoint's own rule", async () => {
    const res = await call(app, `/wp-json/${NS}/things/7`, { as: "admin" });
    expect(res.status).to.equal(200);
    expect(res.headers.get("allow")).to.equal("GET, POST, DELETE");
    // DELETE declares `id` a string; GET (answered) made it an integer.
    expect(seen.idTypes).to.deep.equal(["string"]);
  });

  it("the requested endpoint's arguments that another endpoint shares the rule of are seen validated; its own values never run foreign sanitizers", async () => {
    const res = await call(app, `/wp-json/${NS}/things/7?filter[]=3&image=x`, { as: "admin" });
    expect(res.status).to.equal(200);
    expect(seen.filter).to.deep.equal([[3]]);
    expect(seen.sanitized, "POST's sanitizer does not run for Allow").to.equal(0);
  });

  it("req.memo is shared by the handler and every check behind Allow", async () => {
    const res = await call(app, `/wp-json/${NS}/memo/7`, { as: "admin" });
    expect(res.body).to.deep.equal({ id: 7, lookup: 1 });
    expect(res.headers.get("allow")).to.equal("GET, POST, DELETE");
    expect(seen.lookups).to.equal(1);
  });

  it("a check that throws is reported once per endpoint and leaves its methods out of Allow; a thrown refusal is not reported", async () => {
    for (let i = 0; i < 3; i++) {
      const res = await call(app, `/wp-json/${NS}/broken`, { as: "admin" });
      expect(res.status).to.equal(200);
      expect(res.headers.get("allow")).to.equal("GET");
    }
    expect(logged).to.have.length(1);
    expect(logged[0].message).to.contain("PATCH");
    expect((logged[0].error as Error).message).to.equal("the check has a bug");
  });

  it("the requested endpoint's throwing check is a 500, logged once for the request (not again for Allow)", async () => {
    const res = await call(app, `/wp-json/${NS}/broken`, { method: "PATCH", json: {}, as: "admin" });
    expect(res.status).to.equal(500);
    expect(res.body).to.deep.equal({ code: "internal_server_error", message: "There has been a critical error on this website.", data: { status: 500 } });
    expect(res.headers.get("allow")).to.equal("GET");
    expect(logged).to.have.length(1);
    expect((logged[0].error as Error).message).to.equal("the check has a bug");
  });
});
