/**
 * The tag audit (lib/cache/tag-audit.ts): a stored endpoint's handler that read
 * a post or term it did not name fails loudly where the audit is on, whether
 * it answered or threw a refusal.
 */
import { expect } from "chai";
import express from "express";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { RestError, RestServer, type RestEndpoint, type RestRequest } from "../../lib/routes";
import { postTag, termTag } from "../../lib/db/cache-tags";
import { noteTagsRead } from "../../lib/cache/tag-audit";

describe("routes: the tag audit of stored answers", () => {
  let http: Server;
  let base: string;
  const saved = process.env.CALPRESS_TAG_AUDIT;
  const errors: string[] = [];
  before(async () => {
    const server = new RestServer({ logger: { error: (message: string, err?: unknown) => errors.push(`${message} ${String(err)}`) } });
    /** As a handler that loads post 5 (with term 3) through the engine: the engine notes what it loads. */
    const load = (): void => noteTagsRead([postTag(5), termTag(3)]);
    const item = (handler: (req: RestRequest) => unknown, store = true): RestEndpoint => ({ methods: "GET", permission: "public", store, handler });
    server.registerRoute("audit/v1", "/refuses-unnamed", item(() => {
      load();
      return new RestError("locked", "Locked.", 403);
    }));
    server.registerRoute("audit/v1", "/throws-unnamed", item(() => {
      load();
      throw new RestError("locked", "Locked.", 403);
    }));
    server.registerRoute("audit/v1", "/throws-named", item((req) => {
      load();
      req.dependsOn(postTag(5), termTag(3));
      throw new RestError("locked", "Locked.", 403);
    }));
    server.registerRoute("audit/v1", "/answers-half-named", item((req) => {
      load();
      req.dependsOn(postTag(5));
      return { ok: true };
    }));
    server.registerRoute("audit/v1", "/not-stored", item(() => {
      load();
      return { ok: true };
    }, false));
    const app = express();
    app.use("/wp-json", server.router());
    http = await new Promise((resolve) => {
      const s = app.listen(0, "127.0.0.1", () => resolve(s));
    });
    base = `http://127.0.0.1:${(http.address() as AddressInfo).port}/wp-json/audit/v1`;
  });
  after(() => {
    if (saved === undefined) delete process.env.CALPRESS_TAG_AUDIT;
    else process.env.CALPRESS_TAG_AUDIT = saved;
    return new Promise<void>((resolve) => http.close(() => resolve()));
  });
  const status = async (path: string): Promise<number> => (await fetch(`${base}${path}`)).status;

  it("fails (500, logged) a handler that throws or answers after naming too few", async () => {
    process.env.CALPRESS_TAG_AUDIT = "1";
    errors.length = 0;
    expect(await status("/throws-unnamed")).to.equal(500);
    expect(await status("/refuses-unnamed")).to.equal(500);
    expect(await status("/answers-half-named")).to.equal(500);
    expect(errors.join("\n")).to.contain("TagAuditError").and.contain(String(termTag(3)));
    // Named all it read: its own answer.
    expect(await status("/throws-named")).to.equal(403);
    // Endpoints without stored answers are not audited.
    expect(await status("/not-stored")).to.equal(200);
  });

  it("is off unless CALPRESS_TAG_AUDIT=1", async () => {
    process.env.CALPRESS_TAG_AUDIT = "0";
    expect(await status("/throws-unnamed")).to.equal(403);
    expect(await status("/answers-half-named")).to.equal(200);
  });
});
