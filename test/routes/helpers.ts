/**
 * A small test namespace (`test/v1`) on a real RestServer, served over real
 * HTTP on a free port: in-memory items and users, a Basic-auth authenticator.
 */
import express from "express";
import type { AddressInfo } from "node:net";
import { request as httpRequest, type Server } from "node:http";
import type { CurrentUser, RoleName } from "../../lib/users/types";
import {
  DELETABLE,
  EDITABLE,
  LoginLimiter,
  RestError,
  RestResponse,
  RestServer,
  basicCredentials,
  paginate,
  type Authenticate,
  type RestEndpoint,
  type RestLogger,
  type RestRequest,
  type RestServerOptions,
} from "../../lib/routes";

export const NS = "test/v1";

interface TestUser {
  id: number;
  login: string;
  email: string;
  password: string;
  role: RoleName;
  caps: string[];
}

export const USERS: readonly TestUser[] = [
  { id: 1, login: "admin", email: "admin@example.com", password: "admin-pass", role: "administrator", caps: ["edit_items", "delete_items"] },
  { id: 2, login: "editor", email: "editor@example.com", password: "editor-pass", role: "editor", caps: ["edit_items"] },
  { id: 3, login: "sub", email: "sub@example.com", password: "sub-pass", role: "subscriber", caps: [] },
];

function currentUser(user: TestUser): CurrentUser {
  return {
    id: user.id,
    login: user.login,
    email: user.email,
    displayName: user.login,
    role: user.role,
    can: (capability: string) => user.caps.includes(capability),
  };
}

/** HTTP Basic against USERS, with WordPress's error codes for wrong credentials. */
export const fakeAuthenticate: Authenticate = (req) => {
  const creds = basicCredentials(req);
  if (!creds) return null;
  const user = USERS.find((u) => u.login === creds.login || u.email === creds.login);
  if (!user) {
    return creds.login.includes("@")
      ? new RestError("invalid_email", "Unknown email address.", 401)
      : new RestError("invalid_username", "Unknown username.", 401);
  }
  if (user.password !== creds.password) return new RestError("incorrect_password", "The password is incorrect.", 401);
  return currentUser(user);
};

export interface Item {
  id: number;
  title: string;
  slug: string;
  tags: number[];
  meta: { color: string; size: number };
}

function makeItems(count: number): Map<number, Item> {
  const items = new Map<number, Item>();
  for (let id = 1; id <= count; id++) {
    items.set(id, { id, title: `Item ${id}`, slug: `item-${id}`, tags: [id], meta: { color: "red", size: id } });
  }
  return items;
}

const can = (capability: string) => (req: RestRequest) => req.user !== null && req.user.can(capability);

export interface TestApp {
  server: RestServer;
  base: string;
  /** REST root URL. */
  root: string;
  items: Map<number, Item>;
  logged: { message: string; error: unknown }[];
  close(): Promise<void>;
}

export interface TestAppOptions {
  itemCount?: number;
  server?: RestServerOptions;
  limiter?: LoginLimiter;
  /** Mount point of the router (default /wp-json). */
  mount?: string;
}

/** Registers the test namespace on `server`. */
export function registerTestRoutes(server: RestServer, items: Map<number, Item>): void {
  server.registerNamespace(NS);
  server.addGlobalArgs({ lang: { type: "string", enum: ["en", "fr", "nl"], description: "Content language." } }, { namespace: NS });

  server.registerRoute(NS, "/items", [
    {
      methods: "GET",
      args: {
        page: { type: "integer", minimum: 1, default: 1, description: "Page." },
        per_page: { type: "integer", minimum: 1, default: 2, description: "Items per page." },
        search: { type: "string", description: "Search in titles." },
      },
      permission: "public",
      summary: "List items",
      responses: { "200": { description: "Items", schema: "Item[]" } },
      handler(req: RestRequest<{ page: number; per_page: number; search?: string }>) {
        const { page, per_page: perPage, search } = req.params;
        const all = [...items.values()].filter((i) => search === undefined || i.title.includes(search));
        const p = paginate(req, {
          total: all.length,
          page,
          perPage,
          collectionUrl: `/${NS}/items/`,
          query: { page, per_page: perPage, search },
        });
        const body: Record<string, unknown> = { items: all.slice((page - 1) * perPage, page * perPage), rest_url: p.rest_url };
        if (p.next_rest_url) body.next_rest_url = p.next_rest_url;
        if (p.previous_rest_url) body.previous_rest_url = p.previous_rest_url;
        body.total = p.total;
        body.total_pages = p.total_pages;
        return new RestResponse(body, 200, p.headers);
      },
    },
    {
      methods: "POST",
      args: {
        title: { type: "string", required: true, description: "Title." },
        tags: { type: "array", items: { type: "integer" }, description: "Tag ids." },
        meta: {
          type: "object",
          properties: { color: { type: "string", enum: ["red", "blue"] }, size: { type: "integer" } },
          description: "Meta.",
        },
      },
      permission: can("edit_items"),
      responses: { "201": { description: "Created", schema: "Item" } },
      handler(req: RestRequest<{ title: string; tags?: number[]; meta?: { color?: string; size?: number } }>) {
        const id = Math.max(0, ...items.keys()) + 1;
        const item: Item = {
          id,
          title: req.params.title,
          slug: `item-${id}`,
          tags: req.params.tags ?? [],
          meta: { color: req.params.meta?.color ?? "red", size: req.params.meta?.size ?? 0 },
        };
        items.set(id, item);
        return new RestResponse(item, 201);
      },
    },
  ]);

  const idArg = { id: { type: "integer", description: "Item id.", required: true } } as const;
  const getItem = (id: number): Item => {
    const item = items.get(id);
    if (!item) throw new RestError("item_not_found", `Item with ID ${id} does not exist.`, 404);
    return item;
  };
  const itemEndpoints: RestEndpoint<{ id: number; title?: string; force?: boolean }>[] = [
    { methods: "GET", args: idArg, permission: "public", handler: (req) => getItem(req.params.id) },
    {
      methods: EDITABLE,
      args: { ...idArg, title: { type: "string", description: "Title." } },
      permission: can("edit_items"),
      responses: { "200": { description: "Updated", schema: "Item" }, "201": { description: "Created", schema: "Item" } },
      handler(req) {
        const item = getItem(req.params.id);
        if (req.params.title !== undefined) item.title = req.params.title;
        return item;
      },
    },
    {
      methods: DELETABLE,
      args: { ...idArg, force: { type: "boolean", default: false, description: "Skip the trash." } },
      permission: can("delete_items"),
      handler(req) {
        const item = getItem(req.params.id);
        items.delete(item.id);
        return { deleted: true, previous: item, force: req.params.force };
      },
    },
  ];
  server.registerRoute(NS, "/items/(?P<id>\\d+)", itemEndpoints);

  server.registerRoute(NS, "/items/by-slug/(?P<slug>[^/]+)", {
    methods: "GET",
    args: { slug: { type: "string", required: true, description: "Slug." } },
    permission: "public",
    handler(req) {
      const item = [...items.values()].find((i) => i.slug === req.params.slug);
      return item ?? new RestError("item_not_found", "No such item.", 404);
    },
  });

  server.registerRoute(NS, "/merged", { methods: "GET", permission: "public", handler: () => ({ via: "GET" }) });

  server.registerRoute(NS, "/types", {
    methods: ["GET", "POST"],
    args: {
      int: { type: "integer" },
      num: { type: "number" },
      bool: { type: "boolean" },
      str: { type: "string" },
      color: { type: "string", enum: ["red", "green", "blue"] },
      list: { type: "array", items: { type: "integer" } },
      obj: { type: "object", properties: { a: { type: "integer" }, b: { type: "string" } } },
      nullable: { type: ["integer", "null"] },
      small: { type: "integer", minimum: 1, maximum: 10 },
      positive: { type: "integer", minimum: 1 },
      when: { type: "string", format: "date-time" },
      loose: { docType: "integer", description: "Untyped: passes as sent." },
    },
    permission: "public",
    handler: (req) => ({ params: { ...req.params } }),
  });

  server.registerRoute(NS, "/echo", {
    methods: ["GET", "POST", "PUT", "PATCH", "DELETE"],
    args: {
      name: { type: "string", description: "A name." },
      fixed: { default: "x" },
      computed: { default: (req) => `computed-for-${req.method}` },
      nothing: { default: null },
    },
    permission: "public",
    handler(req) {
      const sentIn: Record<string, string | null> = {};
      for (const name of ["name", "id", "fixed", "extra", "a"]) sentIn[name] = req.sentIn(name) ?? null;
      return {
        method: req.method,
        params: { ...req.params },
        sources: req.sources,
        sentIn,
        sentInQuery: req.sentInQuery("name"),
        sentInBody: req.sentInBody("name"),
        user: req.user?.login ?? null,
      };
    },
  });
  server.registerRoute(NS, "/echo/(?P<id>\\d+)", { methods: "GET", permission: "public", handler: (req) => ({ id: req.params.id, sentIn: req.sentIn("id") }) });

  server.registerRoute(NS, "/validate", {
    methods: "POST",
    args: {
      must: { type: "string", required: true },
      also: { type: "string", required: true },
      plain: { validate: (value) => value === "ok" },
      // Async, as validators that look something up are.
      even: { validate: async (value) => (Number(value) % 2 === 0 ? true : "even must be an even number.") },
      code: {
        validate: (value) => (value === "good" ? true : new RestError("bad_code", "The code is not good.", 400, { hint: "good" })),
      },
      upper: { type: "string", sanitize: (value) => String(value).toUpperCase() },
      clamp: { type: "integer", minimum: 1 },
    },
    permission: can("edit_items"),
    handler: (req) => ({ params: { ...req.params } }),
  });

  server.registerRoute(NS, "/protected", {
    methods: "GET",
    args: { n: { type: "integer" } },
    permission: can("edit_items"),
    handler: () => ({ secret: true }),
  });

  server.registerRoute(NS, "/boom", {
    methods: "GET",
    permission: "public",
    handler() {
      throw new Error("SQLITE_ERROR: no such table: wp_posts (SELECT * FROM wp_posts WHERE password = 'hunter2')");
    },
  });

  server.registerRoute(NS, "/custom-error", {
    methods: "GET",
    permission: () => new RestError("custom_denied", "Denied by policy.", 403, { reason: "policy" }),
    handler: () => ({ never: true }),
  });

  // Registered separately from its GET: merged into the same route entry, at the GET's place.
  server.registerRoute(NS, "/merged", { methods: "POST", permission: can("edit_items"), handler: () => ({ via: "POST" }) });

  server.registerRoute(NS, "/multi-error", {
    methods: "GET",
    permission: "public",
    handler: () => new RestError("first_problem", "First problem.", 409).add("second_problem", "Second problem.", 400, { field: "x" }),
  });

  server.registerRoute(NS, "/no-status-error", {
    methods: "GET",
    permission: "public",
    handler() {
      throw new RestError("no_status", "Raised without a status.");
    },
  });

  server.registerRoute(NS, "/list", {
    methods: "GET",
    permission: "public",
    handler: () => [
      { id: 1, title: "a", venue: { city: "Rome", zip: "00100" } },
      { id: 2, title: "b", venue: { city: "Oslo", zip: "0150" } },
    ],
  });
}

export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const items = makeItems(options.itemCount ?? 5);
  const logged: { message: string; error: unknown }[] = [];
  const logger: RestLogger = { error: (message, error) => logged.push({ message, error }) };
  const authenticate = options.limiter ? options.limiter.wrap(fakeAuthenticate) : fakeAuthenticate;
  const server = new RestServer({ authenticate, logger, siteInfo: () => ({ name: "Test site", description: "Just testing" }), ...options.server });
  registerTestRoutes(server, items);
  const mount = options.mount ?? "/wp-json";
  const app = express();
  app.use(server.restRouteMiddleware());
  app.use(mount, server.router());
  app.get("/", (_req, res) => {
    res.type("text/plain").send("home page");
  });
  const http: Server = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  const { port } = http.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  return {
    server,
    base,
    root: `${base}${mount}/`,
    items,
    logged,
    close: () =>
      new Promise<void>((resolve, reject) => {
        http.closeAllConnections();
        http.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

export interface CallOptions {
  method?: string;
  headers?: Record<string, string>;
  /** Sent as JSON (objects) unless `form` or `raw` is used. */
  json?: unknown;
  form?: string;
  raw?: string | Buffer;
  contentType?: string;
  as?: "admin" | "editor" | "sub";
}

export interface CallResult {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON body (undefined when the body is empty). */
  body: unknown;
}

export function basicHeader(login: string, password: string): string {
  return `Basic ${Buffer.from(`${login}:${password}`).toString("base64")}`;
}

/** A request to the test app; `url` is relative to the app origin (`/wp-json/test/v1/items`). */
export async function call(app: TestApp, url: string, options: CallOptions = {}): Promise<CallResult> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | Buffer | undefined;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers["Content-Type"] = options.contentType ?? "application/json";
  } else if (options.form !== undefined) {
    body = options.form;
    headers["Content-Type"] = options.contentType ?? "application/x-www-form-urlencoded";
  } else if (options.raw !== undefined) {
    body = options.raw;
    if (options.contentType) headers["Content-Type"] = options.contentType;
  }
  if (options.as) {
    const user = USERS.find((u) => u.login === options.as);
    if (user) headers.Authorization = basicHeader(user.login, user.password);
  }
  const res = await fetch(`${app.base}${url}`, { method: options.method ?? "GET", headers, body });
  const text = await res.text();
  let parsed: unknown;
  if (text !== "") {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
  }
  return { status: res.status, headers: res.headers, text, body: parsed };
}

/** Shorthand for `/wp-json/test/v1<path>`. */
export function ns(path: string): string {
  return `/wp-json/${NS}${path}`;
}

/** Narrowing helper for assertions on JSON bodies. */
export function obj(value: unknown): Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new Error(`not an object: ${JSON.stringify(value)}`);
  return value as Record<string, unknown>;
}

/** A request through node:http, for what fetch refuses (a body on GET). */
export function rawHttp(app: TestApp, url: string, method: string, headers: Record<string, string>, body?: string): Promise<CallResult> {
  return new Promise((resolve, reject) => {
    const allHeaders = body === undefined ? headers : { ...headers, "Content-Length": String(Buffer.byteLength(body)) };
    const req = httpRequest(`${app.base}${url}`, { method, headers: allHeaders }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        const h = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (typeof value === "string") h.set(name, value);
        resolve({ status: res.statusCode ?? 0, headers: h, text, body: text === "" ? undefined : (JSON.parse(text) as unknown) });
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}
