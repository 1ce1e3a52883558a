/** Two RestServers in one process share nothing: routes, namespaces, global args, settings. */
import express from "express";
import type { AddressInfo } from "node:net";
import { expect } from "chai";
import { RestError, RestServer } from "../../lib/routes";

describe("routes: independent servers", () => {
  it("two servers in one process do not see each other's routes, args or authenticators", async () => {
    const a = new RestServer({ siteInfo: () => ({ name: "A" }), authenticate: () => null });
    const b = new RestServer({ siteInfo: () => ({ name: "B" }), authenticate: () => new RestError("invalid_username", "Nobody.", 401), restPrefix: "/api" });
    a.registerRoute("shared/v1", "/thing", { methods: "GET", args: { n: { type: "integer" } }, permission: "public", handler: (req) => ({ server: "a", n: req.params.n }) });
    b.registerRoute("shared/v1", "/thing", { methods: "GET", args: { n: { type: "string" } }, permission: "public", handler: (req) => ({ server: "b", n: req.params.n }) });
    b.registerRoute("only-b/v1", "/x", { methods: "GET", permission: "public", handler: () => null });
    a.addGlobalArgs({ lang: { type: "string", enum: ["en"] } });

    expect(a.getNamespaces()).to.deep.equal(["shared/v1"]);
    expect(b.getNamespaces()).to.deep.equal(["shared/v1", "only-b/v1"]);

    const app = express();
    app.use("/wp-json", a.router());
    app.use("/api", b.router());
    const http = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => http.once("listening", resolve));
    const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    try {
      const fromA = await fetch(`${base}/wp-json/shared/v1/thing?n=5`);
      expect(await fromA.json()).to.deep.equal({ server: "a", n: 5 });
      expect((await fetch(`${base}/wp-json/shared/v1/thing?lang=fr`)).status).to.equal(400);
      const fromB = await fetch(`${base}/api/shared/v1/thing?n=5`);
      expect(fromB.status).to.equal(401);
      const indexA = (await (await fetch(`${base}/wp-json/`)).json()) as { name: string; namespaces: string[] };
      expect(indexA.name).to.equal("A");
      expect(indexA.namespaces).to.deep.equal(["shared/v1"]);
    } finally {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    }
    // B's argument types were compiled by B: "abc" is valid there, invalid in A.
    const routeB = b.getRoutes().find((r) => r.pattern.source === "/shared/v1/thing");
    expect(routeB?.endpoints[0]?.validator.validate({ n: "abc" }).size).to.equal(0);
    expect(routeB?.endpoints[0]?.args.map(([name]) => name)).to.deep.equal(["n"]);
  });
});
