/**
 * The REST root index and namespace indexes (rest-conventions §7): shape,
 * route keys and order, arg descriptions, global args, computed defaults.
 */
import express from "express";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import { RestServer } from "../../lib/routes";
import { call, NS, obj, startTestApp, type TestApp } from "./helpers";

describe("routes: index routes", () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  it("GET / describes the site, its namespaces and every route", async () => {
    const res = await call(app, "/wp-json/");
    expect(res.status).to.equal(200);
    const body = obj(res.body);
    expect(Object.keys(body)).to.deep.equal(["name", "description", "url", "home", "gmt_offset", "timezone_string", "namespaces", "authentication", "routes", "_links"]);
    expect(body).to.deep.include({
      name: "Test site",
      description: "Just testing",
      url: app.base,
      home: app.base,
      gmt_offset: 0,
      timezone_string: "UTC",
      namespaces: [NS],
      authentication: {},
    });
    const routes = obj(body.routes);
    // `/batch/v1` comes second, as WordPress registers it with the root route (test/routes/batch.test.ts).
    expect(Object.keys(routes).slice(0, 4)).to.deep.equal(["/", "/batch/v1", "/test/v1", "/test/v1/items"]);
    expect(routes["/"]).to.deep.equal({
      namespace: "",
      methods: ["GET"],
      endpoints: [{ methods: ["GET"], args: { context: { default: "view", required: false } } }],
      _links: { self: [{ href: app.root }] },
    });
    expect(res.text).to.not.contain('"authentication":[]');
  });

  it("GET /<namespace> lists its routes in registration order, with _links.up", async () => {
    const res = await call(app, "/wp-json/test/v1");
    expect(res.status).to.equal(200);
    const body = obj(res.body);
    expect(Object.keys(body)).to.deep.equal(["namespace", "routes", "_links"]);
    expect(body.namespace).to.equal(NS);
    expect(body._links).to.deep.equal({ up: [{ href: app.root }] });
    expect(Object.keys(obj(body.routes))).to.deep.equal([
      "/test/v1",
      "/test/v1/items",
      "/test/v1/items/(?P<id>\\d+)",
      "/test/v1/items/by-slug/(?P<slug>[^/]+)",
      "/test/v1/merged",
      "/test/v1/types",
      "/test/v1/echo",
      "/test/v1/echo/(?P<id>\\d+)",
      "/test/v1/validate",
      "/test/v1/protected",
      "/test/v1/boom",
      "/test/v1/custom-error",
      "/test/v1/multi-error",
      "/test/v1/no-status-error",
      "/test/v1/list",
    ]);
    expect(res.text).to.contain('"/test/v1/items/(?P<id>\\\\d+)"');
  });

  it("the namespace index route takes namespace and context, plus the global args", async () => {
    const routes = obj(obj((await call(app, "/wp-json/test/v1")).body).routes);
    expect(routes["/test/v1"]).to.deep.equal({
      namespace: NS,
      methods: ["GET"],
      endpoints: [
        {
          methods: ["GET"],
          args: {
            namespace: { default: NS, required: false },
            context: { default: "view", required: false },
            lang: { type: "string", enum: ["en", "fr", "nl"], description: "Content language.", required: false },
          },
        },
      ],
      _links: { self: [{ href: `${app.root}test/v1` }] },
    });
  });

  it("route entries: union of methods, endpoints with schema-only args and required, links only without placeholders", async () => {
    const routes = obj(obj((await call(app, "/wp-json/test/v1")).body).routes);
    const items = obj(routes["/test/v1/items"]);
    expect(items.methods).to.deep.equal(["GET", "POST"]);
    expect(items._links).to.deep.equal({ self: [{ href: `${app.root}test/v1/items` }] });
    const [list, create] = items.endpoints as Record<string, unknown>[];
    expect(list).to.deep.equal({
      methods: ["GET"],
      args: {
        page: { type: "integer", minimum: 1, default: 1, description: "Page.", required: false },
        per_page: { type: "integer", minimum: 1, default: 2, description: "Items per page.", required: false },
        search: { type: "string", description: "Search in titles.", required: false },
        lang: { type: "string", enum: ["en", "fr", "nl"], description: "Content language.", required: false },
      },
    });
    // Key order of an arg follows its declaration; `required` comes last.
    expect(Object.keys(obj(obj(list?.args).page))).to.deep.equal(["type", "minimum", "default", "description", "required"]);
    expect(obj(obj(create?.args).title)).to.deep.equal({ type: "string", required: true, description: "Title." });

    const item = obj(routes["/test/v1/items/(?P<id>\\d+)"]);
    expect(item.methods).to.deep.equal(["GET", "POST", "PUT", "PATCH", "DELETE"]);
    expect((item.endpoints as { methods: string[] }[]).map((e) => e.methods)).to.deep.equal([["GET"], ["POST", "PUT", "PATCH"], ["DELETE"]]);
    expect(item).to.not.have.property("_links");

    const merged = obj(routes["/test/v1/merged"]);
    expect(merged.methods).to.deep.equal(["GET", "POST"]);
    expect((merged.endpoints as { methods: string[] }[]).map((e) => e.methods)).to.deep.equal([["GET"], ["POST"]]);
  });

  it("internal keys are dropped, computed defaults shown, null defaults shown", async () => {
    const routes = obj(obj((await call(app, "/wp-json/test/v1")).body).routes);
    const echoArgs = obj((obj(routes["/test/v1/echo"]).endpoints as { args: unknown }[])[0]?.args);
    expect(echoArgs.fixed).to.deep.equal({ default: "x", required: false });
    expect(echoArgs.computed).to.deep.equal({ default: "computed-for-GET", required: false });
    expect(echoArgs.nothing).to.deep.equal({ default: null, required: false });
    const typesArgs = obj((obj(routes["/test/v1/types"]).endpoints as { args: unknown }[])[0]?.args);
    // A documentation-only type does not appear: the arg is "untyped" in the index.
    expect(typesArgs.loose).to.deep.equal({ description: "Untyped: passes as sent.", required: false });
    const validateArgs = obj((obj(routes["/test/v1/validate"]).endpoints as { args: unknown }[])[0]?.args);
    expect(validateArgs.plain).to.deep.equal({ required: false });
    expect(validateArgs.upper).to.deep.equal({ type: "string", required: false });
    // An endpoint without args at all shows `[]` (WordPress's empty PHP array); the global arg keeps it an object here.
    expect(obj((obj(routes["/test/v1/boom"]).endpoints as { args: unknown }[])[0]?.args)).to.have.keys(["lang"]);
  });

  it("?namespace= picks another namespace; an unknown one is rest_invalid_namespace 404", async () => {
    const res = await call(app, "/wp-json/test/v1?namespace=nope/v1");
    expect(res.status).to.equal(404);
    expect(res.body).to.deep.equal({ code: "rest_invalid_namespace", message: "The specified namespace could not be found.", data: { status: 404 } });
    expect(obj((await call(app, "/wp-json/nope/v1")).body).code).to.equal("rest_no_route");
  });

  it("indexArgs, args-less endpoints and global args for every namespace", () => {
    const server = new RestServer();
    server.registerRoute("a/v1", "/bare", { methods: "GET", permission: "public", handler: () => null });
    server.registerNamespace("a/v1", { indexArgs: { extra: { type: "string" } } });
    server.addGlobalArgs({ everywhere: { type: "boolean" } });
    server.registerRoute("b/v1", "/late", { methods: "GET", permission: "public", handler: () => null });
    const routes = server.getRoutes();
    expect(routes.map((r) => r.pattern.source)).to.deep.equal(["/", "/batch/v1", "/a/v1", "/a/v1/bare", "/b/v1", "/b/v1/late"]);
    expect(routes[0]?.endpoints[0]?.args.map(([name]) => name)).to.deep.equal(["context"]);
    // Outside every namespace, like the root: no global args.
    expect(routes[1]?.endpoints[0]?.args.map(([name]) => name)).to.deep.equal(["validation", "requests"]);
    expect(routes[2]?.endpoints[0]?.args.map(([name]) => name)).to.deep.equal(["namespace", "context", "extra", "everywhere"]);
    expect(routes[3]?.endpoints[0]?.args.map(([name]) => name)).to.deep.equal(["everywhere"]);
    expect(routes[5]?.endpoints[0]?.args.map(([name]) => name)).to.deep.equal(["everywhere"]);
  });

  it("an endpoint without args is described with args []", async () => {
    const server = new RestServer();
    server.registerRoute("a/v1", "/bare", { methods: "GET", permission: "public", handler: () => ({ ok: true }) });
    const site = express();
    site.use("/site/api", server.router());
    const http = site.listen(0, "127.0.0.1");
    await new Promise((resolve) => http.once("listening", resolve));
    try {
      const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
      const res = await fetch(`${base}/site/api/a/v1`);
      const text = await res.text();
      expect(text).to.contain('"args":[]');
      const body = obj(JSON.parse(text));
      // Mounted elsewhere: the REST root follows the mount point; the home drops its last segment.
      expect(body._links).to.deep.equal({ up: [{ href: `${base}/site/api/` }] });
      const index = obj(await (await fetch(`${base}/site/api/`)).json());
      expect(index.home).to.equal(`${base}/site`);
    } finally {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    }
  });

  it("the REST prefix is stripped from a deeper mount point for the home URL", async () => {
    const deep = await startTestApp({ mount: "/blog/wp-json" });
    try {
      const body = obj((await call(deep, "/blog/wp-json/")).body);
      expect(body.home).to.equal(`${deep.base}/blog`);
      expect(obj(obj(obj(body.routes)["/"])._links)).to.deep.equal({ self: [{ href: `${deep.base}/blog/wp-json/` }] });
      expect(obj((await call(deep, `/blog/wp-json/${NS}/items?page=1`)).body).rest_url).to.equal(`${deep.base}/blog/wp-json/test/v1/items/?page=1&per_page=2`);
    } finally {
      await deep.close();
    }
  });

  it("the index is reachable through ?rest_route= with prefix-form URLs", async () => {
    const body = obj((await call(app, `/?rest_route=/${NS}`)).body);
    expect(body._links).to.deep.equal({ up: [{ href: app.root }] });
  });
});
