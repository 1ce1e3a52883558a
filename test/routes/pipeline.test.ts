/**
 * The request pipeline (rest-conventions §2–5, §8): parameter sources and
 * precedence, the validation stages and their exact error bodies,
 * validation before permission, 401 vs 403, bad credentials, body errors,
 * unexpected exceptions.
 */
import { expect } from "chai";
import { RestServer } from "../../lib/routes";
import { basicHeader, call, ns, obj, rawHttp, startTestApp, type TestApp } from "./helpers";

describe("routes: request pipeline", () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  describe("required and validation stages", () => {
    it("lists missing required params in declaration order", async () => {
      const res = await call(app, ns("/validate"), { method: "POST", json: {}, as: "admin" });
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.equal({
        code: "rest_missing_callback_param",
        message: "Missing parameter(s): must, also",
        data: { status: 400, params: ["must", "also"] },
      });
    });

    it("reports only the first failing stage (missing beats invalid)", async () => {
      const res = await call(app, ns("/validate"), { method: "POST", json: { also: "x", plain: "bad", clamp: "x" }, as: "admin" });
      expect(res.body).to.deep.equal({
        code: "rest_missing_callback_param",
        message: "Missing parameter(s): must",
        data: { status: 400, params: ["must"] },
      });
    });

    it("false → 'Invalid parameter.', details [] when no error carries a code", async () => {
      const res = await call(app, ns("/validate"), { method: "POST", json: { must: "a", also: "b", plain: "bad", even: 3 }, as: "admin" });
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.equal({
        code: "rest_invalid_param",
        message: "Invalid parameter(s): plain, even",
        data: { status: 400, params: { plain: "Invalid parameter.", even: "even must be an even number." }, details: [] },
      });
      expect(res.text).to.contain('"details":[]');
    });

    it("a RestError from a validator goes into details with its code and data", async () => {
      const res = await call(app, ns("/validate"), { method: "POST", json: { must: "a", also: "b", code: "bad" }, as: "admin" });
      expect(res.body).to.deep.equal({
        code: "rest_invalid_param",
        message: "Invalid parameter(s): code",
        data: {
          status: 400,
          params: { code: "The code is not good." },
          details: { code: { code: "bad_code", message: "The code is not good.", data: { status: 400, hint: "good" } } },
        },
      });
    });

    it("validate callbacks run before type checks (only their failures are reported)", async () => {
      const res = await call(app, ns("/validate"), { method: "POST", json: { must: "a", also: "b", plain: "bad", clamp: "x" }, as: "admin" });
      expect(Object.keys(obj(obj(obj(res.body).data).params))).to.deep.equal(["plain"]);
      const typed = await call(app, ns("/validate"), { method: "POST", json: { must: "a", also: "b", clamp: "x" }, as: "admin" });
      expect(obj(obj(typed.body).data).params).to.deep.equal({ clamp: "clamp is not of type integer." });
    });

    it("sanitize callbacks replace the type rules and shape the value", async () => {
      const res = await call(app, ns("/validate"), { method: "POST", json: { must: "a", also: "b", plain: "ok", even: "4", code: "good", upper: 5 }, as: "admin" });
      expect(res.status, res.text).to.equal(200);
      expect(obj(obj(res.body).params)).to.include({ must: "a", plain: "ok", even: "4", code: "good", upper: "5" });
      const up = await call(app, ns("/validate?upper=abc"), { method: "POST", json: { must: "a", also: "b" }, as: "admin" });
      expect(obj(obj(up.body).params).upper).to.equal("ABC");
    });
  });

  describe("validation before permission, 401 vs 403", () => {
    it("an invalid request from an anonymous client gets 400, not 401", async () => {
      expect((await call(app, ns("/validate"), { method: "POST", json: {} })).status).to.equal(400);
      expect((await call(app, ns("/items"), { method: "POST", json: { title: 5 } })).status).to.equal(400);
      expect((await call(app, ns("/protected?n=x"))).status).to.equal(400);
      expect((await call(app, ns("/protected?n=x"), { as: "sub" })).status).to.equal(400);
    });

    it("a valid request without permission: 401 anonymous, 403 logged in", async () => {
      const anon = await call(app, ns("/items"), { method: "POST", json: { title: "New" } });
      expect(anon.status).to.equal(401);
      expect(anon.body).to.deep.equal({ code: "rest_forbidden", message: "Sorry, you are not allowed to do that.", data: { status: 401 } });
      const sub = await call(app, ns("/items"), { method: "POST", json: { title: "New" }, as: "sub" });
      expect(sub.status).to.equal(403);
      expect(sub.body).to.deep.equal({ code: "rest_forbidden", message: "Sorry, you are not allowed to do that.", data: { status: 403 } });
    });

    it("a permission check may answer its own error", async () => {
      const res = await call(app, ns("/custom-error"));
      expect(res.status).to.equal(403);
      expect(res.body).to.deep.equal({ code: "custom_denied", message: "Denied by policy.", data: { status: 403, reason: "policy" } });
    });

    it("with permission the handler runs: 201 from a RestResponse", async () => {
      const res = await call(app, ns("/items"), { method: "POST", json: { title: "Created", tags: "3,4", meta: { size: "2" } }, as: "editor" });
      expect(res.status).to.equal(201);
      expect(obj(res.body)).to.include({ title: "Created" });
      expect(obj(res.body).tags).to.deep.equal([3, 4]);
      expect(obj(res.body).meta).to.deep.equal({ color: "red", size: 2 });
    });

    it("a handler's RestError is answered with its status", async () => {
      const res = await call(app, ns("/items/999"));
      expect(res.status).to.equal(404);
      expect(res.body).to.deep.equal({ code: "item_not_found", message: "Item with ID 999 does not exist.", data: { status: 404 } });
    });
  });

  describe("error envelope", () => {
    it("further errors go to additional_errors; the first error's status is the HTTP status", async () => {
      const res = await call(app, ns("/multi-error"));
      expect(res.status).to.equal(409);
      expect(res.body).to.deep.equal({
        code: "first_problem",
        message: "First problem.",
        data: { status: 409 },
        additional_errors: [{ code: "second_problem", message: "Second problem.", data: { status: 400, field: "x" } }],
      });
    });

    it("an error raised without a status is sent as 500 with data null", async () => {
      const res = await call(app, ns("/no-status-error"));
      expect(res.status).to.equal(500);
      expect(res.body).to.deep.equal({ code: "no_status", message: "Raised without a status.", data: null });
    });
  });

  describe("authentication", () => {
    it("wrong credentials fail with 401 even on public and unknown routes", async () => {
      const wrongPassword = { Authorization: basicHeader("admin", "nope") };
      const items = await call(app, ns("/items"), { headers: wrongPassword });
      expect(items.status).to.equal(401);
      expect(obj(items.body).code).to.equal("incorrect_password");
      const unknown = await call(app, "/wp-json/nowhere/v9", { headers: { Authorization: basicHeader("ghost", "x") } });
      expect(unknown.status).to.equal(401);
      expect(unknown.body).to.deep.equal({ code: "invalid_username", message: "Unknown username.", data: { status: 401 } });
      const email = await call(app, ns("/items"), { headers: { Authorization: basicHeader("ghost@example.com", "x") } });
      expect(obj(email.body).code).to.equal("invalid_email");
      // Before routing, so no Allow header either.
      expect(items.headers.get("allow")).to.equal(null);
    });

    it("right credentials reach the handler as req.user", async () => {
      const res = await call(app, ns("/echo"), { as: "editor" });
      expect(obj(res.body).user).to.equal("editor");
    });
  });

  describe("parameter sources", () => {
    it("JSON body beats the query string; JSON null counts as not sent", async () => {
      const json = await call(app, ns("/echo?name=q"), { method: "POST", json: { name: "j" } });
      expect(obj(obj(json.body).params).name).to.equal("j");
      expect(obj(obj(json.body).sentIn).name).to.equal("json");
      expect(obj(json.body).sentInBody).to.equal(true);
      const nulled = await call(app, ns("/echo?name=q"), { method: "POST", json: { name: null } });
      expect(obj(obj(nulled.body).params).name).to.equal("q");
      expect(obj(obj(nulled.body).sentIn).name).to.equal("query");
      expect(obj(nulled.body).sentInQuery).to.equal(true);
      expect(obj(nulled.body).sentInBody).to.equal(false);
    });

    it("a form body beats the query string for POST, PUT, PATCH and DELETE", async () => {
      for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
        const res = await call(app, ns("/echo?name=q"), { method, form: "name=f" });
        expect(obj(obj(res.body).params).name, method).to.equal("f");
        expect(obj(obj(res.body).sentIn).name, method).to.equal("body");
      }
    });

    it("a form body on GET is ignored, a JSON body on GET is read", async () => {
      const form = await rawHttp(app, ns("/echo?name=q"), "GET", { "Content-Type": "application/x-www-form-urlencoded" }, "name=f&extra=1");
      expect(obj(obj(form.body).params).name).to.equal("q");
      expect(obj(obj(form.body).params)).to.not.have.property("extra");
      const json = await rawHttp(app, ns("/echo?name=q"), "GET", { "Content-Type": "application/json" }, '{"name":"j"}');
      expect(obj(obj(json.body).params).name).to.equal("j");
    });

    it("query and body beat path params; path params beat defaults", async () => {
      const path = await call(app, ns("/echo/5"));
      expect(path.body).to.deep.equal({ id: "5", sentIn: "path" });
      const query = await call(app, ns("/echo/5?id=7"));
      expect(query.body).to.deep.equal({ id: "7", sentIn: "query" });
      const update = await call(app, ns("/items/1?id=2"), { method: "PUT", json: { title: "Two" }, as: "admin" });
      expect(obj(update.body)).to.include({ id: 2, title: "Two" });
    });

    it("defaults fill what was not sent, computed per request; a null default is never applied", async () => {
      const res = await call(app, ns("/echo"));
      const params = obj(obj(res.body).params);
      expect(params).to.include({ fixed: "x", computed: "computed-for-GET" });
      expect(params).to.not.have.property("nothing");
      expect(obj(obj(res.body).sentIn).fixed).to.equal(null);
      expect(obj(obj(res.body).sources).defaults).to.deep.equal({ fixed: "x", computed: "computed-for-GET" });
      const sent = await call(app, ns("/echo?fixed=y"));
      expect(obj(obj(sent.body).params).fixed).to.equal("y");
    });

    it("undeclared params are readable by the handler, bracket notation decoded", async () => {
      const res = await call(app, ns("/echo?extra=1&a[]=1&a[]=2&venue[city]=Rome&org[0][id]=9&org[1][name]=B"));
      const params = obj(obj(res.body).params);
      expect(params).to.deep.include({ extra: "1", a: ["1", "2"], venue: { city: "Rome" }, org: [{ id: "9" }, { name: "B" }] });
      expect(obj(obj(res.body).sentIn).extra).to.equal("query");
      const form = await call(app, ns("/echo"), { method: "POST", form: "venue%5Bvenue%5D=Hall&venue%5Bcity%5D=Rome&categories%5B%5D=3&categories%5B%5D=5" });
      expect(obj(obj(form.body).params)).to.deep.include({ venue: { venue: "Hall", city: "Rome" }, categories: ["3", "5"] });
    });

    it("bodies of other content types are ignored", async () => {
      const res = await call(app, ns("/echo"), { method: "POST", raw: "name=f", contentType: "text/plain" });
      expect(res.status).to.equal(200);
      expect(obj(obj(res.body).params)).to.not.have.property("name");
      const ld = await call(app, ns("/echo"), { method: "POST", json: { name: "ld" }, contentType: "application/ld+json" });
      expect(obj(obj(ld.body).params).name).to.equal("ld");
    });
  });

  describe("body errors", () => {
    it("broken JSON → rest_invalid_json with PHP's json error code and message", async () => {
      const res = await call(app, ns("/echo"), { method: "POST", raw: '{"name":', contentType: "application/json" });
      expect(res.status).to.equal(400);
      expect(res.body).to.deep.equal({
        code: "rest_invalid_json",
        message: "Invalid JSON body passed.",
        data: { status: 400, json_error_code: 4, json_error_message: "Syntax error" },
      });
      const utf8 = await call(app, ns("/echo"), { method: "POST", raw: Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]), contentType: "application/json" });
      expect(obj(obj(utf8.body).data).json_error_code).to.equal(5);
    });

    it("broken JSON to an unknown route is still a 404 (checked after routing)", async () => {
      const res = await call(app, ns("/nowhere"), { method: "POST", raw: "{", contentType: "application/json" });
      expect(res.status).to.equal(404);
      expect(obj(res.body).code).to.equal("rest_no_route");
    });

    it("a body over the limit → 413 rest_request_too_large in the envelope", async () => {
      const big = JSON.stringify({ name: "x".repeat(1024 * 1024 + 10) });
      const res = await call(app, ns("/echo"), { method: "POST", raw: big, contentType: "application/json" });
      expect(res.status).to.equal(413);
      expect(res.headers.get("content-type")).to.equal("application/json; charset=UTF-8");
      expect(obj(res.body).code).to.equal("rest_request_too_large");
      expect(obj(res.body).data).to.deep.equal({ status: 413 });
    });

    it("the limit is configurable", async () => {
      const small = await startTestApp({ server: { maxBodyBytes: 100 } });
      try {
        expect((await call(small, ns("/echo"), { method: "POST", form: `name=${"x".repeat(200)}` })).status).to.equal(413);
        expect((await call(small, ns("/echo"), { method: "POST", form: "name=short" })).status).to.equal(200);
      } finally {
        await small.close();
      }
    });
  });

  describe("unexpected exceptions", () => {
    it("→ 500 internal_server_error envelope, nothing of the cause in the body, logged", async () => {
      const before = app.logged.length;
      const res = await call(app, ns("/boom"));
      expect(res.status).to.equal(500);
      expect(res.body).to.deep.equal({
        code: "internal_server_error",
        message: "There has been a critical error on this website.",
        data: { status: 500 },
      });
      for (const leak of ["SQLITE", "SELECT", "hunter2", "wp_posts", " at ", ".ts"]) expect(res.text).to.not.contain(leak);
      expect(app.logged.length).to.equal(before + 1);
      expect(String(app.logged[app.logged.length - 1]?.error)).to.contain("no such table");
    });
  });

  describe("registration refuses incomplete endpoints", () => {
    it("without permission, with an unknown method, or a bad pattern", () => {
      const server = new RestServer();
      const noPermission = { methods: "GET", handler: () => null } as unknown as Parameters<RestServer["registerRoute"]>[2];
      expect(() => server.registerRoute("x/v1", "/a", noPermission)).to.throw(/permission/);
      const badMethod = { methods: "FETCH", permission: "public", handler: () => null } as unknown as Parameters<RestServer["registerRoute"]>[2];
      expect(() => server.registerRoute("x/v1", "/b", badMethod)).to.throw(/unknown method/);
      expect(() => server.registerRoute("x/v1", "/c/(?P<id>\\d+", { methods: "GET", permission: "public", handler: () => null })).to.throw(/Invalid route pattern/);
      expect(() => server.registerRoute("x/v1", "/d", { methods: "GET", args: { a: { type: "string", pattern: "(" } }, permission: "public", handler: () => null })).to.throw(/Invalid argument schema/);
    });
  });
});
