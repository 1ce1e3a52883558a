/**
 * A host app for test/host/express-versions.test.ts, run as a child process
 * (whichever express `require("express")` gives it: see resolve-hooks.cjs).
 * It has its own routes and mounts calpress under `/calendar`: the REST root
 * at `/calendar/wp-json`, the pages beside it. Prints
 * `listening on http://127.0.0.1:<port> express <version>` when ready.
 */
import type { AddressInfo } from "node:net";
import express from "express";
import { RestResponse } from "../../lib/routes";
import { createSite } from "../../lib/site";

export const ADMIN = { login: "admin", password: "host-test-app-password" };

async function main(): Promise<void> {
  const site = await createSite({ db: ":memory:" });
  const admin = await site.engine.users.ensure({ login: ADMIN.login, role: "administrator" });
  await site.engine.users.addAppPassword(admin.id, "test", ADMIN.password);

  // A host route whose answer cannot be written (a header value Node refuses): the failure must reach Express's error handling, not crash the host.
  site.rest.registerNamespace("host/v1");
  site.rest.registerRoute("host/v1", "/unwritable", [{ methods: "GET", permission: "public", handler: () => new RestResponse({}, 200, { "X-Note": "two\nlines" }) }]);

  const app = express();
  app.get("/", (_req, res) => {
    res.send("the host's own home page");
  });
  app.use("/calendar/wp-json", site.router);
  app.use("/calendar", site.rootMiddleware);
  for (const [mount, router] of site.pages) app.use(`/calendar${mount === "/" ? "" : mount}`, router);

  const server = app.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as AddressInfo;
    const version = (require("express/package.json") as { version: string }).version;
    console.log(`listening on http://127.0.0.1:${port} express ${version}`);
  });
  process.once("SIGTERM", () => {
    server.close();
    void site.close().then(() => process.exit(0));
  });
}

void main();
