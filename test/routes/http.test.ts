/**
 * HTTP behaviours (rest-conventions §1, §6, §9): headers, CORS, OPTIONS,
 * HEAD, Allow, method override, `?rest_route=`, `_pretty`, `_envelope`,
 * `_fields`.
 */
import { expect } from "chai";
import { RestResponse } from "../../lib/routes/response";
import { call, ns, obj, startTestApp, type TestApp } from "./helpers";

describe("routes: HTTP behaviours", () => {
  let app: TestApp;
  beforeEach(async () => {
    app = await startTestApp();
  });
  afterEach(() => app.close());

  describe("response headers", () => {
    it("every response carries the REST headers, errors included", async () => {
      for (const url of [ns("/items"), ns("/nowhere"), ns("/items?page=x")]) {
        const res = await call(app, url);
        expect(res.headers.get("content-type"), url).to.equal("application/json; charset=UTF-8");
        expect(res.headers.get("x-robots-tag")).to.equal("noindex");
        expect(res.headers.get("x-content-type-options")).to.equal("nosniff");
        expect(res.headers.get("link")?.startsWith(`<${app.root}>; rel="https://api.w.org/"`)).to.equal(true);
        const exposed = (res.headers.get("access-control-expose-headers") ?? "").split(", ");
        expect(exposed).to.include.members(["X-WP-Total", "X-WP-TotalPages", "Link", "X-CAL-Total", "X-CAL-TotalPages", "ETag"]);
        expect(res.headers.get("access-control-allow-headers")).to.equal("Authorization, X-WP-Nonce, Content-Disposition, Content-MD5, Content-Type, If-Match, If-None-Match");
      }
    });

    it("WordPress's no-cache headers only when the request is authenticated; anonymous reads revalidate", async () => {
      const anon = await call(app, ns("/items"));
      expect(anon.headers.get("cache-control")).to.equal("no-cache");
      expect(anon.headers.get("expires")).to.equal(null);
      const admin = await call(app, ns("/items"), { as: "admin" });
      expect(admin.headers.get("cache-control")).to.equal("no-cache, must-revalidate, max-age=0, no-store, private");
      expect(admin.headers.get("expires")).to.equal("Wed, 11 Jan 1984 05:00:00 GMT");
    });
  });

  describe("headers a route sets itself", () => {
    it("are sent once: the layer's value wins, Vary names are merged", async () => {
      // Registered after start: the router reads the table per request.
      app.server.registerRoute("own/v1", "/headers", {
        methods: "GET",
        permission: "public",
        handler: () => new RestResponse({ ok: true }, 200, { "Cache-Control": "max-age=60", vary: "Accept-Language", "X-Own": "yes" }),
      });
      const res = await call(app, "/wp-json/own/v1/headers");
      expect(res.status).to.equal(200);
      expect(res.headers.get("x-own")).to.equal("yes");
      expect(res.headers.get("cache-control")).to.equal("no-cache");
      expect(res.headers.get("vary")).to.equal("Accept-Language, Authorization, Origin");
    });
  });

  describe("CORS", () => {
    it("echoes the Origin with methods, credentials and Vary", async () => {
      const res = await call(app, ns("/items"), { headers: { Origin: "https://app.example" } });
      expect(res.headers.get("access-control-allow-origin")).to.equal("https://app.example");
      expect(res.headers.get("access-control-allow-methods")).to.equal("OPTIONS, GET, POST, PUT, PATCH, DELETE");
      expect(res.headers.get("access-control-allow-credentials")).to.equal("true");
      expect(res.headers.get("vary")).to.contain("Origin");
    });

    it("without Origin, GETs get Vary: Authorization, Origin and writes no Vary", async () => {
      expect((await call(app, ns("/items"))).headers.get("vary")).to.equal("Authorization, Origin");
      expect((await call(app, ns("/items"))).headers.get("access-control-allow-origin")).to.equal(null);
      expect((await call(app, ns("/items"), { as: "admin" })).headers.get("vary")).to.equal("Authorization, Origin");
      expect((await call(app, ns("/echo"), { method: "POST", json: {} })).headers.get("vary")).to.equal(null);
      expect((await call(app, ns("/echo"), { method: "POST", json: {}, headers: { Origin: "https://app.example" } })).headers.get("vary")).to.equal("Origin");
    });

    it("answers a preflight OPTIONS", async () => {
      const res = await call(app, ns("/items/1"), {
        method: "OPTIONS",
        headers: { Origin: "https://app.example", "Access-Control-Request-Method": "DELETE", "Access-Control-Request-Headers": "authorization" },
      });
      expect(res.status).to.equal(200);
      expect(res.headers.get("access-control-allow-origin")).to.equal("https://app.example");
      expect(res.headers.get("access-control-allow-methods")).to.contain("DELETE");
      expect(res.headers.get("access-control-allow-headers")).to.contain("Authorization");
      expect(res.headers.get("access-control-allow-credentials")).to.equal("true");
    });
  });

  describe("OPTIONS", () => {
    it("describes the matched route with Allow, runs no handler and no permission gate", async () => {
      const res = await call(app, ns("/items"), { method: "OPTIONS" });
      expect(res.status).to.equal(200);
      expect(res.headers.get("allow")).to.equal("GET");
      const body = obj(res.body);
      expect(Object.keys(body)).to.deep.equal(["namespace", "methods", "endpoints", "_links"]);
      expect(body.namespace).to.equal("test/v1");
      expect(body.methods).to.deep.equal(["GET", "POST"]);
      expect(body._links).to.deep.equal({ self: [{ href: `${app.root}test/v1/items` }] });
      expect((await call(app, ns("/boom"), { method: "OPTIONS" })).status).to.equal(200);
      expect((await call(app, ns("/protected"), { method: "OPTIONS" })).status).to.equal(200);
      expect((await call(app, ns("/custom-error"), { method: "OPTIONS" })).status).to.equal(200);
      const item = obj((await call(app, ns("/items/3"), { method: "OPTIONS" })).body);
      expect(item).to.not.have.property("_links");
      expect(app.logged).to.have.length(0);
    });

    it("answers [] when no route matches", async () => {
      const res = await call(app, ns("/nowhere"), { method: "OPTIONS" });
      expect(res.status).to.equal(200);
      expect(res.text).to.equal("[]");
      expect(res.headers.get("allow")).to.equal(null);
    });
  });

  describe("HEAD", () => {
    it("runs GET fully and sends its status and headers without a body", async () => {
      const get = await call(app, ns("/items?page=2"));
      const head = await call(app, ns("/items?page=2"), { method: "HEAD" });
      expect(head.status).to.equal(200);
      expect(head.text).to.equal("");
      expect(head.headers.get("x-wp-total")).to.equal("5");
      expect(head.headers.get("x-cal-totalpages")).to.equal("3");
      expect(head.headers.get("link")).to.equal(get.headers.get("link"));
      expect(head.headers.get("content-length")).to.equal(get.headers.get("content-length"));
      expect(head.headers.get("allow")).to.equal("GET");
      const invalid = await call(app, ns("/items?page=0"), { method: "HEAD" });
      expect(invalid.status).to.equal(400);
      expect(invalid.text).to.equal("");
      expect((await call(app, ns("/boom"), { method: "HEAD" })).status).to.equal(500);
    });
  });

  describe("Allow and method matching", () => {
    it("lists the methods whose permission passes for this user, in declaration order", async () => {
      expect((await call(app, ns("/items/1"))).headers.get("allow")).to.equal("GET");
      expect((await call(app, ns("/items/1"), { as: "sub" })).headers.get("allow")).to.equal("GET");
      expect((await call(app, ns("/items/1"), { as: "editor" })).headers.get("allow")).to.equal("GET, POST, PUT, PATCH");
      expect((await call(app, ns("/items/1"), { as: "admin" })).headers.get("allow")).to.equal("GET, POST, PUT, PATCH, DELETE");
    });

    it("is sent on errors of a matched route too", async () => {
      expect((await call(app, ns("/items/999"), { as: "admin" })).headers.get("allow")).to.equal("GET, POST, PUT, PATCH, DELETE");
      expect((await call(app, ns("/items?page=0"))).headers.get("allow")).to.equal("GET");
      expect((await call(app, ns("/boom"))).headers.get("allow")).to.equal("GET");
      expect((await call(app, ns("/nowhere"))).headers.get("allow")).to.equal(null);
    });

    it("a wrong method is rest_no_route 404, never 405", async () => {
      for (const [method, url] of [["DELETE", ns("/items")], ["PUT", "/wp-json/test/v1"], ["PATCH", ns("/list")]] as const) {
        const res = await call(app, url, { method, as: "admin" });
        expect(res.status, `${method} ${url}`).to.equal(404);
        expect(res.body).to.deep.equal({ code: "rest_no_route", message: "No route was found matching the URL and request method.", data: { status: 404 } });
      }
    });

    it("placeholders match only their pattern; path matching ignores case and trailing slashes", async () => {
      expect(obj((await call(app, ns("/items/foo"))).body).code).to.equal("rest_no_route");
      expect((await call(app, ns("/items/"))).status).to.equal(200);
      expect((await call(app, "/wp-json/TEST/V1/Items/2/")).status).to.equal(200);
      expect(obj((await call(app, ns("/items/by-slug/item-4"))).body).id).to.equal(4);
      expect(obj((await call(app, "/wp-json")).body).namespaces).to.deep.equal(["test/v1"]);
    });
  });

  describe("?rest_route=", () => {
    it("reaches the same routes from the site root, combined with other query params", async () => {
      const res = await call(app, `/?rest_route=/${"test/v1"}/items&page=2`);
      expect(res.status).to.equal(200);
      expect(obj(res.body).rest_url).to.equal(`${app.root}test/v1/items/?page=2&per_page=2`);
      const encoded = await call(app, "/?rest_route=%2Ftest%2Fv1%2Fitems%2F3");
      expect(obj(encoded.body).id).to.equal(3);
      expect(encoded.headers.get("link")).to.equal(`<${app.root}>; rel="https://api.w.org/"`);
    });

    it("the rest_route value is an ordinary (ignored) query param; the root index answers rest_route=/", async () => {
      const echo = await call(app, "/?rest_route=/test/v1/echo&name=n");
      expect(obj(obj(echo.body).params)).to.include({ rest_route: "/test/v1/echo", name: "n" });
      expect(obj((await call(app, "/?rest_route=/")).body).namespaces).to.deep.equal(["test/v1"]);
      expect((await call(app, "/?rest_route=/nowhere")).status).to.equal(404);
    });

    it("leaves the site's other pages alone", async () => {
      expect((await call(app, "/")).text).to.equal("home page");
    });
  });

  describe("method override", () => {
    it("?_method replaces the method, and the body is read for the new method", async () => {
      const del = await call(app, ns("/items/2?_method=DELETE"), { method: "POST", as: "admin" });
      expect(del.status).to.equal(200);
      expect(obj(del.body).deleted).to.equal(true);
      expect(app.items.has(2)).to.equal(false);
      const get = await call(app, ns("/echo?_method=GET&name=q"), { method: "POST", form: "name=f" });
      expect(obj(get.body).method).to.equal("GET");
      expect(obj(obj(get.body).params).name).to.equal("q");
    });

    it("X-HTTP-Method-Override works too, and ?_method wins over it", async () => {
      const put = await call(app, ns("/items/1"), { method: "POST", headers: { "X-HTTP-Method-Override": "PUT" }, json: { title: "Renamed" }, as: "admin" });
      expect(obj(put.body).title).to.equal("Renamed");
      const both = await call(app, ns("/echo?_method=PATCH"), { method: "POST", headers: { "X-HTTP-Method-Override": "DELETE" } });
      expect(obj(both.body).method).to.equal("PATCH");
    });

    it("a 4xx after a header override gets no-cache headers; after ?_method it does not", async () => {
      const header = await call(app, ns("/items/1"), { method: "POST", headers: { "X-HTTP-Method-Override": "DELETE" } });
      expect(header.status).to.equal(401);
      expect(header.headers.get("cache-control")).to.equal("no-cache, must-revalidate, max-age=0, no-store, private");
      const query = await call(app, ns("/items/1?_method=DELETE"), { method: "POST" });
      expect(query.status).to.equal(401);
      expect(query.headers.get("cache-control")).to.equal(null);
      const ok = await call(app, ns("/items"), { method: "POST", headers: { "X-HTTP-Method-Override": "GET" } });
      expect(ok.status).to.equal(200);
      expect(ok.headers.get("cache-control")).to.equal("no-cache");
    });
  });

  describe("global parameters", () => {
    it("_pretty pretty-prints", async () => {
      const res = await call(app, ns("/items/1?_pretty"));
      expect(res.text).to.match(/^\{\n {4}"id": 1,/);
      expect((await call(app, ns("/items/1"))).text).to.not.contain("\n");
    });

    it("_envelope: status 200, {body, status, headers} with the route's headers", async () => {
      const res = await call(app, ns("/items?_envelope&page=1"));
      expect(res.status).to.equal(200);
      const body = obj(res.body);
      expect(Object.keys(body)).to.deep.equal(["body", "status", "headers"]);
      expect(body.status).to.equal(200);
      expect(obj(body.headers)).to.include({ "X-WP-Total": "5", "X-CAL-Total": "5", Allow: "GET" });
      expect(obj(body.body).total).to.equal(5);
      const error = await call(app, ns("/items/999?_envelope"));
      expect(error.status).to.equal(200);
      expect(obj(error.body).status).to.equal(404);
      expect(obj(obj(error.body).body).code).to.equal("item_not_found");
    });

    it("_fields filters top-level and dotted nested members of an object body", async () => {
      expect((await call(app, ns("/items/1?_fields=id,title"))).body).to.deep.equal({ id: 1, title: "Item 1" });
      expect((await call(app, ns("/items/1?_fields=id,meta.size"))).body).to.deep.equal({ id: 1, meta: { size: 1 } });
      expect((await call(app, ns("/items/1?_fields=meta,meta.size"))).body).to.deep.equal({ meta: { color: "red", size: 1 } });
      expect((await call(app, ns("/items/1?_fields[]=id&_fields[]=slug"))).body).to.deep.equal({ id: 1, slug: "item-1" });
    });

    it("_fields filters each item of a list body, but does not descend into a list member", async () => {
      expect((await call(app, ns("/list?_fields=id,venue.city"))).body).to.deep.equal([
        { id: 1, venue: { city: "Rome" } },
        { id: 2, venue: { city: "Oslo" } },
      ]);
      expect((await call(app, ns("/items?_fields=items.id,total"))).body).to.deep.equal({ items: [], total: 5 });
      expect((await call(app, ns("/items?_fields=items,total"))).body).to.have.keys(["items", "total"]);
    });

    it("_fields never filters error bodies", async () => {
      const res = await call(app, ns("/items/999?_fields=id"));
      expect(obj(res.body)).to.have.keys(["code", "message", "data"]);
    });
  });
});
