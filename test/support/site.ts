import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import express from "express";
import type { Knex } from "knex";
import { createSite, Site, SiteOptions } from "../../lib/site";
import { loadFixture, resolveFixture } from "../../lib/fixtures";
import type { Fixture } from "../../lib/fixtures";

// Every suite that starts a site checks that stored answers name every post
// and term they read (lib/cache/tag-audit.ts): a handler that misses one fails with a 500.
process.env.CALPRESS_TAG_AUDIT ??= "1";

export interface Credentials {
  login: string;
  password: string;
}

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  /** Basic credentials, or a login of the fixture's users (see `users`). */
  as?: Credentials | string;
  json?: unknown;
  /** Sent as application/x-www-form-urlencoded; nested values in PHP bracket notation. */
  form?: Record<string, unknown>;
  query?: Record<string, string | number | boolean | Array<string | number>>;
  headers?: Record<string, string>;
}

export interface TestSite {
  site: Site;
  /** `http://127.0.0.1:<port>` */
  home: string;
  /** `<home>/wp-json/` */
  root: string;
  /** `<root>calendar/events/v1` */
  ns: string;
  /** Known application passwords of the loaded fixture, by login. */
  users: Record<string, Credentials>;
  /** The database target the site runs on (a host's knex: its filename or client name). */
  target: string;
  // Response bodies default to `any` on purpose: tests assert on arbitrary
  // JSON shapes, and a cast per assertion would hide nothing the asserts don't check.
  request<T = any>(method: string, path: string, opts?: RequestOptions): Promise<ApiResponse<T>>;
  get<T = any>(path: string, opts?: RequestOptions): Promise<ApiResponse<T>>;
  post<T = any>(path: string, opts?: RequestOptions): Promise<ApiResponse<T>>;
  close(): Promise<void>;
}

export interface StartOptions extends Partial<SiteOptions> {
  /** Database target (default `:memory:`), a host's knex config, or a host's own knex instance. */
  target?: string | Knex | Knex.Config;
  /** A fixture name under fixtures/, a path, or a fixture object. */
  fixture?: string | Fixture;
  /** "Now" for relative fixture dates. */
  now?: Date;
}

/** In bracket notation, as PHP and qs read it: `venue[city]=Rome`, `organizer[0][id]=9`. */
export function formEncode(data: Record<string, unknown>): string {
  const parts: string[] = [];
  const walk = (prefix: string, value: unknown): void => {
    if (value === null || value === undefined) return;
    if (Array.isArray(value)) value.forEach((v, i) => walk(`${prefix}[${i}]`, v));
    else if (typeof value === "object") for (const [k, v] of Object.entries(value)) walk(`${prefix}[${k}]`, v);
    else parts.push(`${encodeURIComponent(prefix)}=${encodeURIComponent(String(value))}`);
  };
  for (const [k, v] of Object.entries(data)) walk(k, v);
  return parts.join("&");
}

function queryString(query: RequestOptions["query"]): string {
  if (!query) return "";
  const parts: string[] = [];
  for (const [k, v] of Object.entries(query)) {
    if (Array.isArray(v)) v.forEach((item) => parts.push(`${encodeURIComponent(k)}[]=${encodeURIComponent(String(item))}`));
    else parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  }
  return parts.length ? parts.join("&") : "";
}

/** Collects `login → {login, password}` for fixture users that carry an application password. */
function fixtureUsers(fixture: unknown): Record<string, Credentials> {
  const out: Record<string, Credentials> = {};
  const users = (fixture as { users?: Array<{ login: string; app_password?: string }> } | undefined)?.users ?? [];
  for (const u of users) if (u.app_password) out[u.login] = { login: u.login, password: u.app_password };
  return out;
}

/** A real calpress site on a real listening port, loaded from a fixture. */
export async function startTestSite(opts: StartOptions = {}): Promise<TestSite> {
  const { target = ":memory:", fixture, now, ...siteOptions } = opts;
  const site = await createSite({ ...siteOptions, db: target });
  const config: Knex.Config | undefined = typeof target === "string" ? undefined : "client" in target && typeof target.client === "object" ? (target as Knex).client.config : (target as Knex.Config);
  const targetName = config === undefined ? (target as string) : String((config.connection as { filename?: string } | undefined)?.filename ?? config.client);
  let users: Record<string, Credentials> = {};
  if (fixture !== undefined) {
    const data: Fixture =
      typeof fixture === "string"
        ? (JSON.parse((await import("node:fs")).readFileSync(resolveFixture(fixture), "utf8")) as Fixture)
        : fixture;
    await loadFixture(site.engine, data, { now, quiet: true } as Parameters<typeof loadFixture>[2]);
    users = fixtureUsers(data);
  }
  const app = express();
  app.use("/wp-json", site.router);
  app.use(site.rootMiddleware);
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  const home = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const root = `${home}/wp-json/`;
  const ns = `${root}calendar/events/v1`;

  const request = async <T>(method: string, path: string, ro: RequestOptions = {}): Promise<ApiResponse<T>> => {
    const headers: Record<string, string> = { ...(ro.headers ?? {}) };
    if (ro.as) {
      const creds = typeof ro.as === "string" ? users[ro.as] : ro.as;
      if (!creds) throw new Error(`no credentials for ${String(ro.as)}`);
      headers.authorization = `Basic ${Buffer.from(`${creds.login}:${creds.password}`).toString("base64")}`;
    }
    let body: string | undefined;
    if (ro.json !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(ro.json);
    } else if (ro.form !== undefined) {
      headers["content-type"] = "application/x-www-form-urlencoded";
      body = formEncode(ro.form);
    }
    const base = /^https?:/.test(path) ? path : path.startsWith("/wp-json") || path.startsWith("/?") ? `${home}${path}` : `${ns}${path}`;
    const qs = queryString(ro.query);
    const url = qs ? `${base}${base.includes("?") ? "&" : "?"}${qs}` : base;
    const res = await fetch(url, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text === "" ? null : JSON.parse(text);
    } catch {
      /* non-JSON bodies stay text */
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  };

  return {
    site,
    home,
    root,
    ns,
    users,
    target: targetName,
    request,
    get: (path, ro) => request("GET", path, ro),
    post: (path, ro) => request("POST", path, ro),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await site.close();
    },
  };
}
