import { randomBytes } from "node:crypto";
import fs from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import express from "express";
import { removeSqliteFile, scratchDatabases, scratchServer } from "../db/dialects/scratch";
import { loadFixture, readFixtureFile, resolveFixture } from "../fixtures";
import type { Fixture } from "../fixtures";
import { applyPlugins, type SitePlugin } from "../plugin";
import { createSite, type Site, type SiteOptions } from "../site";

/**
 * `calpress/testing`: sites made from a fixture for a host app's tests,
 * each on a real listening port with its own database.
 *
 *     const sites = testSites({ fixture: "minimal", plugins: [registerBookPlugin] });
 *     after(() => sites.close());
 *     const t = await sites.create(); // { site, url, fetch, reset, close }
 *
 * Speed: the database is migrated and the fixture loaded once, into a
 * template; every site is a copy of it (SQLite: a file copy; PostgreSQL:
 * CREATE DATABASE … TEMPLATE; MariaDB/MySQL: its tables copied), opened as
 * a site with the plugins registered, so a site costs about what opening
 * one costs. `reset()` swaps in a fresh copy behind the same URL. Sites
 * are independent (a database each), so they may run side by side.
 * Closing a site stops its server, closes the site and drops its database;
 * `sites.close()` closes whatever is still open and drops the template,
 * leaving nothing that keeps the process alive.
 */

export type { SitePlugin } from "../plugin";
export type { Fixture } from "../fixtures";

export interface TestSitesOptions {
  /** A fixture: a name under calpress's fixtures/ (`"minimal"`), a file path, or a fixture object. Default: none, an empty site. */
  fixture?: string | Fixture;
  /** The host's registrations (post types, taxonomies, routes), run on every site before the fixture loads. */
  plugins?: readonly SitePlugin[];
  /**
   * Where the databases live: `"sqlite"` (default; files in a temporary
   * directory), or the URL of a PostgreSQL or MariaDB/MySQL server
   * (`postgres://user@host/db`, `mysql://…`) whose user may create and drop
   * databases: each site gets a database of its own there, named
   * `calpress_t<pid>_…`.
   */
  db?: string;
  /** Other createSite options (`timezone`, `authenticate`, `calendar: false`, …); `restPrefix` is where the router is mounted. */
  site?: Omit<SiteOptions, "db">;
  /** The load moment relative fixture dates count from (default: when the template is made). */
  now?: Date;
}

/** `fetch` options of a test site: `as` logs in as a fixture user, `json` sends a JSON body. */
export interface TestRequestInit extends RequestInit {
  /** A login of the fixture whose application password (`app_password`) is sent with HTTP Basic. */
  as?: string;
  /** Sent as the body, as JSON (with its Content-Type). */
  json?: unknown;
}

export interface TestSite {
  /** The site now (a new one after `reset()`): its engine, hooks, REST server. */
  readonly site: Site;
  /** `http://127.0.0.1:<port>`: the server, which stays the same across `reset()`. */
  readonly url: string;
  /** The REST root: `<url>/wp-json` (or the `restPrefix` given). */
  readonly api: string;
  /** The fixture's users that have an application password, by login. */
  readonly users: Readonly<Record<string, { login: string; password: string }>>;
  /** `fetch` on the server: a path from its root (`/wp-json/…`) or a whole URL. */
  fetch(path: string, init?: TestRequestInit): Promise<Response>;
  /** Back to the fixture: a fresh copy of the template behind the same URL (the old site is closed, its database dropped). */
  reset(): Promise<void>;
  /** Stops the server, closes the site and drops its database. */
  close(): Promise<void>;
}

export interface TestSites {
  /** Makes the template now (the first `create()` does otherwise): call it in `before` to keep the cost out of the first test. */
  ready(): Promise<void>;
  create(): Promise<TestSite>;
  /** Closes every site still open and drops the template (and, for SQLite, its directory). */
  close(): Promise<void>;
}

/** The template every site copies: its database, and the fixture's users. */
interface Template {
  name: string;
  users: Record<string, { login: string; password: string }>;
}

/** Temporary directories of SQLite sites, removed when the process exits if `close()` was never called. */
const leftDirectories = new Set<string>();
let exitHook = false;

function removeOnExit(dir: string): void {
  leftDirectories.add(dir);
  if (exitHook) return;
  exitHook = true;
  process.once("exit", () => {
    for (const d of leftDirectories) fs.rmSync(d, { recursive: true, force: true });
  });
}

function fixtureUsers(fixture: Fixture | undefined): Record<string, { login: string; password: string }> {
  const out: Record<string, { login: string; password: string }> = {};
  for (const u of fixture?.users ?? []) {
    const password = u.app_password ?? u.app_passwords?.[0];
    if (password !== undefined) out[u.login] = { login: u.login, password };
  }
  return out;
}

export function testSites(options: TestSitesOptions = {}): TestSites {
  const plugins = options.plugins ?? [];
  const siteOptions = options.site ?? {};
  const mount = siteOptions.restPrefix ?? "/wp-json";
  const server = scratchServer(options.db);
  let base: string | undefined;
  const prefix = `calpress_t${process.pid}_${randomBytes(3).toString("hex")}`;
  let counter = 0;
  const nextName = (): string => `${prefix}_${++counter}`;
  let template: Promise<Template> | undefined;
  /** Copies wait for each other: PostgreSQL refuses a template while another copy of it is made. */
  let copying: Promise<unknown> = Promise.resolve();
  const open = new Set<TestSite>();
  let closed = false;

  const where = (): string => {
    if (base === undefined) {
      if (server !== undefined) base = server;
      else {
        base = fs.mkdtempSync(path.join(os.tmpdir(), "calpress-test-"));
        removeOnExit(base);
      }
    }
    return base;
  };

  const fixture = (): Fixture | undefined => {
    const given = options.fixture;
    if (given === undefined || typeof given === "object") return given;
    return readFixtureFile(resolveFixture(given)) as Fixture;
  };

  /**
   * Where a site on a server database keeps its records: a file of this
   * suite's own, removed with the database (`dropDatabase`). By default a
   * site keeps them in a file of the machine named after the database
   * (lib/cache/index.ts), which would outlive every scratch database. SQLite
   * keeps them beside the database file, which the drop removes.
   */
  let recordsDir: string | undefined;
  /** The record file of each database that has one of this suite's own, by name. */
  const recordFiles = new Map<string, string>();
  const recordsFile = (name: string): string | undefined => {
    if (server === undefined || siteOptions.records !== undefined) return undefined;
    if (recordsDir === undefined) {
      recordsDir = fs.mkdtempSync(path.join(os.tmpdir(), "calpress-records-"));
      removeOnExit(recordsDir);
    }
    const file = path.join(recordsDir, `${name}.records`);
    recordFiles.set(name, file);
    return file;
  };
  const dropDatabase = async (name: string): Promise<void> => {
    await scratchDatabases(where()).drop(where(), name);
    const file = recordFiles.get(name);
    if (file === undefined) return;
    removeSqliteFile(file);
    recordFiles.delete(name);
  };

  /** A site on a database (`name`, in `where()`), with the plugins' registrations (and their tables). */
  const openSite = async (target: string, name: string): Promise<Site> => {
    const file = recordsFile(name);
    const site = await createSite({ pages: false, webhooks: false, ...siteOptions, ...(file !== undefined ? { records: { file } } : {}), db: target });
    try {
      await applyPlugins(site, plugins);
    } catch (err) {
      await site.close();
      throw err;
    }
    return site;
  };

  const makeTemplate = async (): Promise<Template> => {
    const data = fixture();
    const scratch = scratchDatabases(where());
    const name = nextName();
    const target = await scratch.create(where(), name);
    try {
      const site = await openSite(target, name);
      try {
        if (data !== undefined) await loadFixture(site.engine, data, { quiet: true, ...(options.now ? { now: options.now } : {}) });
      } finally {
        // Closed before it is copied: no connection may hold the template.
        await site.close();
      }
    } catch (err) {
      await dropDatabase(name);
      throw err;
    }
    return { name, users: fixtureUsers(data) };
  };

  const ready = (): Promise<Template> => {
    if (closed) return Promise.reject(new Error("testSites: closed"));
    template ??= makeTemplate();
    return template;
  };

  /** A new database copied from the template, opened as a site. */
  const copySite = async (): Promise<{ site: Site; name: string }> => {
    const t = await ready();
    const scratch = scratchDatabases(where());
    const name = nextName();
    const copied = copying.then(() => scratch.copy(where(), t.name, name));
    copying = copied.catch(() => undefined);
    const target = await copied;
    try {
      return { site: await openSite(target, name), name };
    } catch (err) {
      await dropDatabase(name);
      throw err;
    }
  };

  const create = async (): Promise<TestSite> => {
    const t = await ready();
    let current = await copySite();
    const app = express();
    app.disable("x-powered-by");
    // Through `current`: reset() swaps the site behind the same URL.
    app.use(mount, (req, res, next) => current.site.router(req, res, next));
    app.use((req, res, next) => current.site.rootMiddleware(req, res, next));
    let listener: Server;
    try {
      listener = await new Promise<Server>((resolve, reject) => {
        const s = app.listen(0, "127.0.0.1", () => resolve(s));
        s.once("error", reject);
      });
    } catch (err) {
      await current.site.close();
      await dropDatabase(current.name);
      throw err;
    }
    const url = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
    const dropCurrent = async (): Promise<void> => {
      await current.site.close();
      await dropDatabase(current.name);
    };
    let done: Promise<void> | undefined;
    const testSite: TestSite = {
      get site() {
        return current.site;
      },
      url,
      api: `${url}${mount}`,
      users: t.users,
      fetch: (target, init = {}) => {
        const { as, json, ...rest } = init;
        const headers = new Headers(rest.headers);
        if (as !== undefined) {
          const user = t.users[as];
          if (!user) throw new Error(`no application password for "${as}" in the fixture (logins with one: ${Object.keys(t.users).join(", ") || "none"})`);
          headers.set("authorization", `Basic ${Buffer.from(`${user.login}:${user.password}`).toString("base64")}`);
        }
        let body = rest.body;
        if (json !== undefined) {
          headers.set("content-type", "application/json");
          body = JSON.stringify(json);
        }
        const whole = /^https?:\/\//i.test(target) ? target : `${url}${target.startsWith("/") ? "" : "/"}${target}`;
        return fetch(whole, { ...rest, headers, body });
      },
      reset: async () => {
        const fresh = await copySite();
        const old = current;
        current = fresh;
        await old.site.close();
        await dropDatabase(old.name);
      },
      close: () => {
        done ??= (async () => {
          open.delete(testSite);
          // Keep-alive connections of earlier requests would hold the server open.
          listener.closeAllConnections();
          await new Promise<void>((resolve) => listener.close(() => resolve()));
          await dropCurrent();
        })();
        return done;
      },
    };
    open.add(testSite);
    return testSite;
  };

  return {
    ready: async () => {
      await ready();
    },
    create: () => {
      if (closed) return Promise.reject(new Error("testSites: closed"));
      return create();
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await Promise.all([...open].map((s) => s.close()));
      const made = await template?.catch(() => undefined);
      if (made && base !== undefined) await dropDatabase(made.name);
      if (base !== undefined && server === undefined) {
        fs.rmSync(base, { recursive: true, force: true });
        leftDirectories.delete(base);
      }
      if (recordsDir !== undefined) {
        fs.rmSync(recordsDir, { recursive: true, force: true });
        leftDirectories.delete(recordsDir);
      }
    },
  };
}
