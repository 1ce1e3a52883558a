/**
 * `POST /batch/v1` in the REST layer (WordPress `serve_batch_request_v1()`):
 * the index entry, the 207 answer and its slots, both validation modes, the
 * 25-request limit, routes that do not opt in, per-slot permissions with the
 * batch request's user, the sub-request's own headers, query and `_fields`.
 * On a test namespace with in-memory notes (the calendar's writes on real
 * databases are in test/calendar/batch.test.ts).
 */
import { expect } from "chai";
import { RestError, RestResponse, type RestRequest } from "../../lib/routes";
import { call, obj, startTestApp, type CallOptions, type TestApp } from "./helpers";

const BNS = "batchtest/v1";

interface Note {
  id: number;
  title: string;
  by: string;
}

type Slot = { body: any; status: number; headers: Record<string, string> } | null;

function registerNotes(app: TestApp, notes: Map<number, Note>): void {
  const mayEdit = (req: RestRequest): boolean => req.user?.can("edit_items") === true;
  app.server.registerRoute(BNS, "/notes", [
    {
      methods: "GET",
      permission: "public",
      handler: () => [...notes.values()],
    },
    {
      methods: "POST",
      allowBatch: true,
      args: {
        title: { type: "string", required: true, maxLength: 20 },
        color: { type: "string", enum: ["red", "blue"], default: "red" },
      },
      permission: mayEdit,
      handler(req) {
        const note: Note = { id: Math.max(0, ...notes.keys()) + 1, title: String(req.params.title), by: req.user?.login ?? "" };
        notes.set(note.id, note);
        return new RestResponse({ ...note, color: req.params.color }, 201, { Location: req.urls.route(`/${BNS}/notes/${note.id}`) });
      },
    },
  ]);
  app.server.registerRoute(BNS, "/notes/(?P<id>\\d+)", [
    {
      methods: "DELETE",
      allowBatch: true,
      args: { id: { type: "integer", minimum: 1 } },
      permission: (req) => req.user?.can("delete_items") === true,
      handler(req) {
        const note = notes.get(Number(req.params.id));
        if (!note) throw new RestError("note_not_found", "No such note.", 404);
        notes.delete(note.id);
        return { deleted: true, previous: note };
      },
    },
    {
      methods: ["POST", "PUT", "PATCH"],
      allowBatch: true,
      args: { id: { type: "integer", minimum: 1 }, title: { type: "string", maxLength: 20 } },
      permission: mayEdit,
      handler(req) {
        const note = notes.get(Number(req.params.id));
        if (!note) throw new RestError("note_not_found", "No such note.", 404);
        if (typeof req.params.title === "string") note.title = req.params.title;
        return { ...note };
      },
    },
  ]);
  // A write route that does not opt in.
  app.server.registerRoute(BNS, "/plain", { methods: "POST", permission: "public", handler: () => ({ ran: true }) });
  // Echoes what a sub-request sees: its own headers and parameters.
  app.server.registerRoute(BNS, "/echo", {
    methods: ["POST", "PUT"],
    allowBatch: true,
    permission: "public",
    handler: (req) => ({
      method: req.method,
      thing: req.header("x-thing") ?? null,
      underscored: req.header("X_Thing") ?? null,
      list: req.header("x-list") ?? null,
      authorization: req.header("authorization") ?? null,
      user: req.user?.login ?? null,
      q: req.params.q ?? null,
      b: req.params.b ?? null,
      nested: req.params.nested ?? null,
    }),
  });
}

describe("routes: POST /batch/v1", () => {
  let app: TestApp;
  const notes = new Map<number, Note>();

  before(async () => {
    app = await startTestApp();
    registerNotes(app, notes);
  });
  after(() => app.close());
  beforeEach(() => notes.clear());

  const batch = (json: unknown, as?: CallOptions["as"], url = "/wp-json/batch/v1") => call(app, url, { method: "POST", json, as });
  const slots = (body: unknown): Slot[] => obj(body).responses as Slot[];

  describe("the index", () => {
    it("lists /batch/v1 second in the root index, outside every namespace, with WordPress's args", async () => {
      const body = obj((await call(app, "/wp-json/")).body);
      expect(body.namespaces).to.not.include("batch/v1");
      const routes = obj(body.routes);
      expect(Object.keys(routes).slice(0, 2)).to.deep.equal(["/", "/batch/v1"]);
      expect(routes["/batch/v1"]).to.deep.equal({
        namespace: "",
        methods: ["POST"],
        endpoints: [
          {
            methods: ["POST"],
            args: {
              validation: { type: "string", enum: ["require-all-validate", "normal"], default: "normal", required: false },
              requests: {
                type: "array",
                maxItems: 25,
                items: {
                  type: "object",
                  properties: {
                    method: { type: "string", enum: ["POST", "PUT", "PATCH", "DELETE"], default: "POST" },
                    path: { type: "string", required: true },
                    body: { type: "object", properties: {}, additionalProperties: true },
                    headers: { type: "object", properties: {}, additionalProperties: { type: ["string", "array"], items: { type: "string" } } },
                  },
                },
                required: true,
              },
            },
          },
        ],
        _links: { self: [{ href: `${app.root}batch/v1` }] },
      });
    });

    it("shows allow_batch {v1: true} on the endpoints that opt in, between methods and args", async () => {
      const res = await call(app, `/wp-json/${BNS}`);
      const routes = obj(obj(res.body).routes) as Record<string, { endpoints: Array<Record<string, unknown>> }>;
      const collection = routes[`/${BNS}/notes`]!.endpoints;
      expect(collection[0]).to.not.have.property("allow_batch");
      expect(Object.keys(collection[1]!)).to.deep.equal(["methods", "allow_batch", "args"]);
      expect(collection[1]!.allow_batch).to.deep.equal({ v1: true });
      expect(routes[`/${BNS}/plain`]!.endpoints[0]).to.not.have.property("allow_batch");
    });

    it("answers only POST: GET /batch/v1 is rest_no_route", async () => {
      const res = await call(app, "/wp-json/batch/v1");
      expect(res.status).to.equal(404);
      expect(obj(res.body).code).to.equal("rest_no_route");
    });
  });

  describe("normal mode", () => {
    it("runs each sub-request in order and answers 207 with one {body, status, headers} slot each", async () => {
      const res = await batch(
        {
          requests: [
            { path: `/${BNS}/notes`, body: { title: "First" } },
            { method: "PUT", path: `/${BNS}/notes/1`, body: { title: "First, renamed" } },
            { method: "POST", path: `/${BNS}/notes`, body: { title: "Second", color: "blue" } },
          ],
        },
        "admin",
      );
      expect(res.status).to.equal(207);
      expect(Object.keys(obj(res.body))).to.deep.equal(["responses"]);
      const [created, updated, second] = slots(res.body);
      expect(created).to.deep.equal({
        body: { id: 1, title: "First", by: "admin", color: "red" },
        status: 201,
        headers: { Location: `${app.root}${BNS}/notes/1`, Allow: "GET, POST" },
      });
      expect(updated).to.deep.equal({ body: { id: 1, title: "First, renamed", by: "admin" }, status: 200, headers: { Allow: "DELETE, POST, PUT, PATCH" } });
      expect(second!.status).to.equal(201);
      expect(second!.body).to.include({ id: 2, color: "blue" });
      expect([...notes.values()].map((n) => n.title)).to.deep.equal(["First, renamed", "Second"]);
    });

    it("a failing slot leaves the writes of the others: invalid args, unknown route, route without opt-in", async () => {
      const res = await batch(
        {
          requests: [
            { path: `/${BNS}/notes`, body: { title: "Kept" } },
            { path: `/${BNS}/notes`, body: { title: "x".repeat(21) } },
            { path: `/${BNS}/nowhere`, body: {} },
            { path: `/${BNS}/plain` },
            { path: `/${BNS}/notes`, body: { title: "Also kept" } },
          ],
        },
        "admin",
      );
      expect(res.status).to.equal(207);
      const [kept, invalid, missing, plain, alsoKept] = slots(res.body);
      expect(kept!.status).to.equal(201);
      expect(invalid!.status).to.equal(400);
      expect(invalid!.body).to.deep.include({ code: "rest_invalid_param", message: "Invalid parameter(s): title" });
      expect(invalid!.body.data.params).to.deep.equal({ title: "title must be at most 20 characters long." });
      expect(invalid!.headers).to.deep.equal({ Allow: "GET, POST" });
      expect(missing).to.deep.equal({
        body: { code: "rest_no_route", message: "No route was found matching the URL and request method.", data: { status: 404 } },
        status: 404,
        headers: {},
      });
      expect(plain!.status).to.equal(400);
      expect(plain!.body).to.deep.equal({ code: "rest_batch_not_allowed", message: "The requested route does not support batch requests.", data: { status: 400 } });
      expect(alsoKept!.status).to.equal(201);
      expect([...notes.values()].map((n) => n.title)).to.deep.equal(["Kept", "Also kept"]);
    });

    it("a handler's own error is its slot's answer; the batch itself is not a route that takes batches", async () => {
      const res = await batch(
        {
          requests: [
            { method: "DELETE", path: `/${BNS}/notes/99` },
            { path: "/batch/v1", body: { requests: [{ path: `/${BNS}/notes`, body: { title: "Nested" } }] } },
          ],
        },
        "admin",
      );
      const [gone, nested] = slots(res.body);
      expect(gone!.status).to.equal(404);
      expect(gone!.body.code).to.equal("note_not_found");
      expect(nested!.status).to.equal(400);
      expect(nested!.body.code).to.equal("rest_batch_not_allowed");
      expect(notes.size).to.equal(0);
    });

    it("checks each slot's permission with the batch request's user: 401 anonymous, 403 without the capability", async () => {
      notes.set(7, { id: 7, title: "Seven", by: "admin" });
      const requests = [
        { path: `/${BNS}/notes`, body: { title: "New" } },
        { method: "DELETE", path: `/${BNS}/notes/7` },
      ];
      const anonymous = slots((await batch({ requests })).body);
      expect(anonymous.map((s) => [s!.status, s!.body.code])).to.deep.equal([
        [401, "rest_forbidden"],
        [401, "rest_forbidden"],
      ]);
      // The editor may create but not delete.
      const editor = slots((await batch({ requests }, "editor")).body);
      expect(editor.map((s) => s!.status)).to.deep.equal([201, 403]);
      expect(editor[1]!.body).to.deep.equal({ code: "rest_forbidden", message: "Sorry, you are not allowed to do that.", data: { status: 403 } });
      expect([...notes.keys()]).to.deep.equal([7, 8]);
      expect(notes.get(8)!.by).to.equal("editor");
    });

    it("bad credentials fail the whole batch before anything runs", async () => {
      const res = await call(app, "/wp-json/batch/v1", {
        method: "POST",
        json: { requests: [{ path: `/${BNS}/notes`, body: { title: "Nope" } }] },
        headers: { Authorization: `Basic ${Buffer.from("admin:wrong").toString("base64")}` },
      });
      expect(res.status).to.equal(401);
      expect(obj(res.body).code).to.equal("incorrect_password");
      expect(notes.size).to.equal(0);
    });
  });

  describe("require-all-validate", () => {
    it("runs nothing when one request fails validation: {failed: 'validation'}, null for the valid slots", async () => {
      const res = await batch(
        {
          validation: "require-all-validate",
          requests: [
            { path: `/${BNS}/notes`, body: { title: "Would be fine" } },
            { path: `/${BNS}/notes`, body: { color: "green" } },
            { path: `/${BNS}/plain` },
          ],
        },
        "admin",
      );
      expect(res.status).to.equal(207);
      expect(obj(res.body).failed).to.equal("validation");
      const [fine, missing, plain] = slots(res.body);
      expect(fine).to.equal(null);
      expect(missing).to.deep.equal({
        body: { code: "rest_missing_callback_param", message: "Missing parameter(s): title", data: { status: 400, params: ["title"] } },
        status: 400,
        headers: {},
      });
      expect(plain!.body.code).to.equal("rest_batch_not_allowed");
      expect(notes.size).to.equal(0);
    });

    it("checks permissions before anything runs too: one refused slot, nothing written", async () => {
      notes.set(3, { id: 3, title: "Three", by: "admin" });
      const res = await batch(
        {
          validation: "require-all-validate",
          requests: [
            { path: `/${BNS}/notes`, body: { title: "Editor's" } },
            { method: "DELETE", path: `/${BNS}/notes/3` },
          ],
        },
        "editor",
      );
      expect(obj(res.body).failed).to.equal("validation");
      const [create, remove] = slots(res.body);
      expect(create).to.equal(null);
      expect(remove!.status).to.equal(403);
      expect([...notes.keys()]).to.deep.equal([3]);
    });

    it("runs everything when all requests validate", async () => {
      const res = await batch(
        {
          validation: "require-all-validate",
          requests: [
            { path: `/${BNS}/notes`, body: { title: "One" } },
            { path: `/${BNS}/notes`, body: { title: "Two" } },
          ],
        },
        "admin",
      );
      expect(res.status).to.equal(207);
      expect(obj(res.body)).to.not.have.property("failed");
      expect(slots(res.body).map((s) => s!.status)).to.deep.equal([201, 201]);
      expect(notes.size).to.equal(2);
    });
  });

  describe("the batch request's own arguments", () => {
    it("takes at most 25 requests (rest_invalid_param, nothing runs); exactly 25 run", async () => {
      const one = { path: `/${BNS}/notes`, body: { title: "N" } };
      const tooMany = await batch({ requests: Array.from({ length: 26 }, () => one) }, "admin");
      expect(tooMany.status).to.equal(400);
      expect(obj(tooMany.body).code).to.equal("rest_invalid_param");
      expect(obj(obj(tooMany.body).data).params).to.deep.equal({ requests: "requests must contain at most 25 items." });
      expect(notes.size).to.equal(0);
      const max = await batch({ requests: Array.from({ length: 25 }, () => one) }, "admin");
      expect(max.status).to.equal(207);
      expect(slots(max.body)).to.have.length(25);
      expect(notes.size).to.equal(25);
    });

    it("requires requests, each with a path; a method outside POST, PUT, PATCH, DELETE and an unknown validation are refused", async () => {
      const missing = await batch({}, "admin");
      expect(missing.status).to.equal(400);
      expect(obj(missing.body).code).to.equal("rest_missing_callback_param");
      const noPath = await batch({ requests: [{ body: { title: "x" } }] }, "admin");
      expect(noPath.status).to.equal(400);
      expect(obj(obj(noPath.body).data).params).to.deep.equal({ requests: "path is a required property of requests[0]." });
      const get = await batch({ requests: [{ method: "GET", path: `/${BNS}/notes` }] }, "admin");
      expect(get.status).to.equal(400);
      expect(obj(obj(get.body).data).params).to.deep.equal({ requests: "requests[0][method] is not one of POST, PUT, PATCH, and DELETE." });
      const mode = await batch({ validation: "all", requests: [] }, "admin");
      expect(mode.status).to.equal(400);
      expect(obj(obj(mode.body).data).params).to.have.property("validation");
      expect(notes.size).to.equal(0);
    });

    it("an empty list answers 207 with no slots", async () => {
      const res = await batch({ requests: [] });
      expect(res.status).to.equal(207);
      expect(res.body).to.deep.equal({ responses: [] });
    });
  });

  describe("what a sub-request sees", () => {
    it("its own headers only (names without case, - or _; lists joined with commas), its query and body, the batch's user", async () => {
      const res = await batch(
        {
          requests: [
            {
              method: "PUT",
              path: `/${BNS}/echo?q=from-query&nested[a]=1`,
              body: { b: { deep: [1, 2] } },
              headers: { "X-Thing": "yes", x_list: ["a", "b"] },
            },
            { path: `/${BNS}/echo` },
          ],
        },
        "editor",
      );
      const [withHeaders, bare] = slots(res.body);
      expect(withHeaders!.body).to.deep.equal({
        method: "PUT",
        thing: "yes",
        underscored: "yes",
        list: "a,b",
        // The batch request's Authorization header is not the sub-request's; its user is.
        authorization: null,
        user: "editor",
        q: "from-query",
        b: { deep: [1, 2] },
        nested: { a: "1" },
      });
      expect(bare!.body).to.include({ method: "POST", thing: null, q: null, user: "editor" });
    });

    it("applies a sub-request's _fields to its own slot", async () => {
      const res = await batch({ requests: [{ path: `/${BNS}/notes?_fields=id,title`, body: { title: "Trimmed" } }] }, "admin");
      expect(slots(res.body)[0]!.body).to.deep.equal({ id: 1, title: "Trimmed" });
    });

    it("is reachable through ?rest_route=/batch/v1", async () => {
      const res = await batch({ requests: [{ path: `/${BNS}/notes`, body: { title: "Via rest_route" } }] }, "admin", "/?rest_route=/batch/v1");
      expect(res.status).to.equal(207);
      expect(slots(res.body)[0]!.status).to.equal(201);
      expect(notes.get(1)!.title).to.equal("Via rest_route");
    });
  });
});
