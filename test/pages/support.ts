/**
 * Helpers of the page tests: a real calpress site mounted exactly as
 * `calpress serve` mounts it (REST router at the prefix, `?rest_route=`
 * middleware, then `site.pages`), and Debian's Chromium driven by
 * playwright-core (never a downloaded browser).
 */
import fs from "node:fs";
import path from "node:path";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import express from "express";
import { chromium, Browser, ConsoleMessage, Page } from "playwright-core";
import { createSite, Site, SiteOptions } from "../../lib/site";
import { registerBookPlugin } from "../../examples/book-plugin";
import { registerJobBoard } from "../../examples/job-board";
import { loadFixture, resolveFixture } from "../../lib/fixtures";

export const CHROMIUM = "/usr/bin/chromium";

/** Screenshots go here (git-ignored). */
export const ARTIFACTS = path.resolve(__dirname, "../../test-artifacts");

export function artifact(name: string): string {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  return path.join(ARTIFACTS, name);
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

export interface PagesSite {
  site: Site;
  /** `http://127.0.0.1:<port>` */
  home: string;
  /** `<home><router mount>/` */
  restRoot: string;
  /** `<restRoot>calendar/events/v1` */
  ns: string;
  /** A JSON request to the namespace, as the fixture's editor when `auth` is set. */
  api<T>(method: string, route: string, body?: unknown, auth?: boolean): Promise<{ status: number; body: T }>;
  /**
   * A JSON request to any route below the REST root (`library/v1/books`), as
   * a user of the minimal fixture (`admin`, `editor`, `author`,
   * `contributor`, `subscriber`: application password `<login>-pass`) or one
   * made with `createUser`, or anonymous.
   */
  rest<T>(method: string, route: string, options?: { body?: unknown; as?: string; headers?: Record<string, string> }): Promise<{ status: number; body: T; headers: Headers }>;
  /** A user of a role with an application password; answers the password. */
  createUser(login: string, role: "administrator" | "editor" | "author" | "contributor" | "subscriber"): Promise<string>;
  close(): Promise<void>;
}

export interface PagesSiteOptions {
  restPrefix?: string;
  pages?: boolean;
  /** "Now" of the minimal fixture's relative dates. */
  now?: Date;
  /** `createSite`'s `siteUrl`. */
  siteUrl?: string;
  /** Where the pages are mounted (default: `/` and `/docs`; `/calendar` puts them at `/calendar` and `/calendar/docs`). */
  pagesAt?: string;
  /** Where the router is mounted (default: the REST prefix). */
  routerAt?: string;
  /** Register examples/book-plugin.ts (books and genres in `library/v1`) before the site serves. */
  books?: boolean;
  /** Register examples/job-board.ts (jobs, departments and skills in `wp/v2`) before the site serves. */
  jobs?: boolean;
  /** The fixture loaded (default `minimal`; `demo` is what `npm start` serves). */
  fixture?: string;
  /** `createSite`'s `authenticate` (a host login). */
  authenticate?: SiteOptions["authenticate"];
}

/** The minimal fixture's editor (fixtures/minimal.json). */
const EDITOR = `Basic ${Buffer.from("editor:editor-pass").toString("base64")}`;

export async function startPagesSite(opts: PagesSiteOptions = {}): Promise<PagesSite> {
  const prefix = opts.restPrefix ?? "/wp-json";
  const site = await createSite({ db: ":memory:", timezone: "UTC", restPrefix: prefix, pages: opts.pages, loginLimit: false, siteUrl: opts.siteUrl, authenticate: opts.authenticate });
  if (opts.books === true) registerBookPlugin(site);
  if (opts.jobs === true) registerJobBoard(site);
  if (opts.books === true || opts.jobs === true) await site.migrate();
  await loadFixture(site.engine, resolveFixture(opts.fixture ?? "minimal"), { now: opts.now, quiet: true });

  // The same mounting as lib/cli/main.ts (by default).
  const routerAt = opts.routerAt ?? prefix;
  const pagesAt = (opts.pagesAt ?? "").replace(/\/+$/, "");
  const app = express();
  app.disable("x-powered-by");
  app.use(routerAt, site.router);
  app.use(site.rootMiddleware);
  for (const [mount, router] of site.pages) app.use(pagesAt === "" ? mount : `${pagesAt}${mount === "/" ? "" : mount}`, router);

  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  const home = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const restRoot = `${home}${routerAt}/`;
  const ns = `${restRoot}calendar/events/v1`;
  /** Application passwords of the users `createUser` made (the fixture's are `<login>-pass`). */
  const passwords = new Map<string, string>();

  return {
    site,
    home,
    restRoot,
    ns,
    async api<T>(method: string, route: string, body?: unknown, auth = false) {
      const headers: Record<string, string> = { accept: "application/json" };
      if (body !== undefined) headers["content-type"] = "application/json";
      if (auth) headers.authorization = EDITOR;
      const res = await fetch(`${ns}${route}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as T };
    },
    async rest<T>(method: string, route: string, options: { body?: unknown; as?: string; headers?: Record<string, string> } = {}) {
      const headers: Record<string, string> = { accept: "application/json", ...(options.headers ?? {}) };
      if (options.body !== undefined) headers["content-type"] = "application/json";
      if (options.as !== undefined) headers.authorization = `Basic ${Buffer.from(`${options.as}:${passwords.get(options.as) ?? `${options.as}-pass`}`).toString("base64")}`;
      const res = await fetch(`${restRoot}${route.replace(/^\/+/, "")}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
      const text = await res.text();
      return { status: res.status, body: (text === "" ? null : JSON.parse(text)) as T, headers: res.headers };
    },
    async createUser(login, role) {
      const user = await site.engine.users.ensure({ login, role, displayName: login });
      const password = `${login}-pass-${role}`;
      await site.engine.users.addAppPassword(user.id, "page tests", password);
      passwords.set(login, password);
      return password;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await site.close();
    },
  };
}

/** Collects a page's console errors and uncaught exceptions, to assert there are none. */
export function watchConsole(page: Page): string[] {
  const problems: string[] = [];
  page.on("console", (msg: ConsoleMessage) => {
    if (msg.type() === "error") problems.push(`console: ${msg.text()} (${msg.location().url})`);
  });
  page.on("pageerror", (err: Error) => problems.push(`page error: ${err.message}`));
  return problems;
}

/** The record fields the page tests read. */
export interface ApiTerm {
  id: number;
  name: string;
}

export interface ApiEvent {
  id: number;
  title: string;
  start_date: string;
  end_date: string;
  utc_start_date: string;
  utc_end_date: string;
  timezone: string;
  timezone_abbr: string;
  cost: string;
}

export type ApiList<K extends string, T> = Record<K, T[]> & { total: number; total_pages: number };
