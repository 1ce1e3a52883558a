/**
 * A real site for the fuzzer: createSite on a database target, a fixture
 * loaded, mounted as `calpress serve` mounts it, on a free loopback port.
 * In-process, so the fuzzer can read the database between requests and see
 * the server's own log of unexpected exceptions.
 *
 * Beside it, an image host on another loopback port, which the site's fetch
 * policy allows (`fetch.allowHosts`), so that `image` URLs can really be
 * imported: the path from a URL to an attachment is fuzzed too.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import express from "express";
import { createSite, type Site } from "../lib/site";
import { loadFixture, resolveFixture } from "../lib/fixtures";
import type { Fixture } from "../lib/fixtures";
import type { RestLogger } from "../lib/routes";
import type { KnownUser } from "./secrets";

export interface LoggedError {
  message: string;
  error: string;
}

export interface FuzzSite {
  site: Site;
  host: string;
  port: number;
  users: KnownUser[];
  /** Unexpected exceptions the REST layer logged, oldest first. */
  logged: LoggedError[];
  /** `http://127.0.0.1:<port>` of the image host (see imageHostUrls). */
  imageBase: string;
  close(): Promise<void>;
}

/**
 * The image host: an image for any path under `/img/` (whatever escapes
 * the name has), an HTML page, a 404, and a redirect to a host the fetch
 * policy refuses (the paths the generators use: IMAGE_HOST_PATHS in values.ts).
 */
async function startImageHost(): Promise<Server> {
  const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=", "base64");
  const server = http.createServer((req, res) => {
    const url = req.url ?? "/";
    if (url.startsWith("/img/")) {
      res.writeHead(200, { "content-type": "image/png", "content-length": png.length });
      res.end(png);
    } else if (url === "/page.html") {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<p>not an image</p>");
    } else if (url === "/redirect-internal") {
      res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/x.png" });
      res.end();
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  return new Promise((resolve, reject) => {
    server.listen(0, "127.0.0.1", () => resolve(server));
    server.once("error", reject);
  });
}

/** Registers a host's own post types and routes on the site before it serves (they are fuzzed too). */
export type SiteSetup = (site: Site) => void | Promise<void>;

export async function startFuzzSite(target: string, fixtureName: string, setup?: SiteSetup): Promise<FuzzSite> {
  const logged: LoggedError[] = [];
  const logger: RestLogger = {
    error(message, error) {
      logged.push({ message, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    },
  };
  const images = await startImageHost();
  const imageBase = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
  const site = await createSite({ db: target, logger, fetch: { allowHosts: ["127.0.0.1"] } });
  if (setup) {
    await setup(site);
    await site.migrate();
  }
  const file = resolveFixture(fixtureName);
  const fixture = JSON.parse(fs.readFileSync(file, "utf8")) as Fixture;
  await loadFixture(site.engine, fixture, { quiet: true });
  const users: KnownUser[] = (fixture.users ?? []).map((u) => ({
    login: u.login,
    email: u.email,
    appPasswords: [...(u.app_password ? [u.app_password] : []), ...(u.app_passwords ?? [])],
  }));

  const app = express();
  app.disable("x-powered-by");
  app.use("/wp-json", site.router);
  app.use(site.rootMiddleware);
  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
    s.once("error", reject);
  });
  const port = (server.address() as AddressInfo).port;
  return {
    site,
    host: "127.0.0.1",
    port,
    users,
    logged,
    imageBase,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      images.closeAllConnections();
      await new Promise<void>((resolve) => images.close(() => resolve()));
      await site.close();
    },
  };
}
