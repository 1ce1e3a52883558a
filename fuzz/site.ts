/**
 * A real site for the fuzzer: createSite on a database target, a fixture
 * loaded, mounted as `calpress serve` mounts it, on a free loopback port.
 * In-process, so the fuzzer can read the database between requests and see
 * the server's own log of unexpected exceptions.
 */
import fs from "node:fs";
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
  close(): Promise<void>;
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
  const site = await createSite({ db: target, logger });
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
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await site.close();
    },
  };
}
