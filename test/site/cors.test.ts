/**
 * The `cors` setting over real HTTP: WordPress's default (any Origin, with
 * credentials), a list of origins, `"*"` (no credentials) and `false` (no
 * CORS headers), for answers and preflight requests alike.
 */
import { expect } from "chai";
import { createSite, type SiteOptions } from "../../lib/site";
import { startTestSite, type TestSite } from "../support/site";

const CORS_HEADER = /^access-control-/;

function corsHeaderNames(res: Response): string[] {
  const names: string[] = [];
  res.headers.forEach((_value, name) => {
    if (CORS_HEADER.test(name)) names.push(name);
  });
  return names.sort();
}

/** A browser's preflight for a cross-origin DELETE with credentials. */
function preflight(t: TestSite, origin: string): Promise<Response> {
  return fetch(`${t.ns}/events`, {
    method: "OPTIONS",
    headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "x-wp-nonce, content-type" },
  });
}

async function withSite(cors: SiteOptions["cors"], work: (t: TestSite) => Promise<void>): Promise<void> {
  const t = await startTestSite({ fixture: "minimal", timezone: "UTC", ...(cors === undefined ? {} : { cors }) });
  try {
    await work(t);
  } finally {
    await t.close();
  }
}

describe("site: CORS settings", function () {
  this.timeout(60_000);

  it("default (WordPress's): any Origin is echoed with credentials, preflight too", async () => {
    await withSite(undefined, async (t) => {
      for (const res of [await fetch(`${t.ns}/events`, { headers: { origin: "https://anywhere.example" } }), await preflight(t, "https://anywhere.example")]) {
        expect(res.headers.get("access-control-allow-origin")).to.equal("https://anywhere.example");
        expect(res.headers.get("access-control-allow-credentials")).to.equal("true");
        expect(res.headers.get("access-control-allow-headers")).to.contain("X-WP-Nonce");
        expect(res.headers.get("vary")).to.contain("Origin");
      }
    });
  });

  it("a list: only those origins (compared as origins), with credentials; others get no Allow-Origin", async () => {
    await withSite({ origins: ["https://app.example", "http://localhost:5173/"] }, async (t) => {
      for (const origin of ["https://app.example", "http://localhost:5173", "https://APP.example:443"]) {
        for (const res of [await fetch(`${t.ns}/events`, { headers: { origin } }), await preflight(t, origin)]) {
          expect(res.headers.get("access-control-allow-origin"), origin).to.equal(origin);
          expect(res.headers.get("access-control-allow-credentials")).to.equal("true");
        }
      }
      for (const origin of ["https://evil.example", "https://app.example.evil.example", "http://app.example", "null"]) {
        for (const res of [await fetch(`${t.ns}/events`, { headers: { origin } }), await preflight(t, origin)]) {
          expect(res.headers.get("access-control-allow-origin"), origin).to.equal(null);
          expect(res.headers.get("access-control-allow-credentials")).to.equal(null);
        }
      }
      expect((await fetch(`${t.ns}/events`)).headers.get("vary")).to.contain("Origin");
    });
  });

  it('"*": every answer allows any origin, never with credentials, and does not vary by Origin', async () => {
    await withSite({ origins: "*" }, async (t) => {
      for (const res of [await fetch(`${t.ns}/events`, { headers: { origin: "https://x.example" } }), await fetch(`${t.ns}/events`), await preflight(t, "https://x.example")]) {
        expect(res.headers.get("access-control-allow-origin")).to.equal("*");
        expect(res.headers.get("access-control-allow-credentials")).to.equal(null);
      }
      expect((await fetch(`${t.ns}/events`, { headers: { origin: "https://x.example" } })).headers.get("vary")).to.not.contain("Origin");
    });
  });

  it("false (or origins: false): no CORS headers at all", async () => {
    for (const setting of [false, { origins: false }] as const) {
      await withSite(setting, async (t) => {
        const res = await fetch(`${t.ns}/events`, { headers: { origin: "https://x.example" } });
        expect(res.status).to.equal(200);
        expect(corsHeaderNames(res)).to.deep.equal([]);
        expect(res.headers.get("vary")).to.not.contain("Origin");
        const pre = await preflight(t, "https://x.example");
        expect(pre.status).to.equal(200);
        expect(corsHeaderNames(pre)).to.deep.equal([]);
        const write = await fetch(`${t.ns}/events`, { method: "POST", headers: { origin: "https://x.example", "content-type": "application/json" }, body: "{}" });
        expect(corsHeaderNames(write)).to.deep.equal([]);
        expect(write.headers.get("vary")).to.equal(null);
      });
    }
  });

  it("refuses an entry that is not an origin", async () => {
    for (const origins of [["app.example"], ["https://app.example/path"], ["*"]]) {
      let error: unknown;
      try {
        const site = await createSite({ db: ":memory:", cors: { origins } });
        await site.close();
      } catch (err) {
        error = err;
      }
      expect(String(error), JSON.stringify(origins)).to.contain("cors.origins");
    }
  });
});
