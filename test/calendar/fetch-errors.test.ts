import { expect } from "chai";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { startTestSite, type TestSite } from "../support/site";
import { expectInvalidParam } from "./events-support";

/**
 * What a client is told when a URL it gave cannot be fetched: a fixed
 * reason, never the connection error's own message, which names the
 * address and port behind the host and the TLS library
 * (`connect ECONNREFUSED 127.0.0.1:41234`, `…:ssl3_get_record:wrong version number`).
 */

const WHEN = { start_date: "2030-05-01 10:00:00", end_date: "2030-05-01 11:00:00" };

describe("fetch errors reach the client as fixed reasons (SQLite)", function () {
  this.timeout(60_000);
  let t: TestSite;
  let plain: http.Server;
  /** A port where nothing listens, and a plain HTTP server that `https:` URLs reach. */
  let closedBase: string;
  let plainBase: string;
  before(async () => {
    t = await startTestSite({ fixture: "minimal", fetch: { allowHosts: ["127.0.0.1"] } });
    const gone = http.createServer();
    await new Promise<void>((resolve) => gone.listen(0, "127.0.0.1", resolve));
    closedBase = `http://127.0.0.1:${(gone.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => gone.close(() => resolve()));
    plain = http.createServer((_req, res) => res.end("not TLS"));
    await new Promise<void>((resolve) => plain.listen(0, "127.0.0.1", resolve));
    plainBase = `https://127.0.0.1:${(plain.address() as AddressInfo).port}`;
  });
  after(async () => {
    plain.closeAllConnections();
    await new Promise<void>((resolve) => plain.close(() => resolve()));
    await t.close();
  });

  /** Neither the port nor an error code or OpenSSL text gets out. */
  function expectNoDetail(message: string, base: string): void {
    expect(message).to.not.contain(new URL(base).port);
    expect(message).to.not.match(/ECONNREFUSED|EPROTO|SSL|routines|version number/i);
  }

  it("an image URL of a venue, an organizer or an event: a 400 on image with the fixed reason", async () => {
    for (const [base, reason] of [
      [closedBase, "the connection was refused"],
      [plainBase, "the TLS handshake failed"],
    ] as const) {
      const image = `${base}/logo.png`;
      for (const [route, json] of [
        ["/venues", { venue: "Unreachable", image }],
        ["/organizers", { organizer: "Unreachable", image }],
        ["/events", { title: "Unreachable", ...WHEN, image }],
      ] as const) {
        const res = await t.post(route, { as: "admin", json });
        expectInvalidParam(res, "image");
        expect(res.body.data.params.image, `${route} ${base}`).to.equal(`The image URL cannot be fetched: ${reason}.`);
        expectNoDetail(JSON.stringify(res.body), base);
      }
    }
  });

  it("an iCalendar URL to import: a 400 on url with the fixed reason", async () => {
    for (const [base, reason] of [
      [closedBase, "the connection was refused"],
      [plainBase, "the TLS handshake failed"],
    ] as const) {
      const res = await t.post("/import", { as: "admin", json: { url: `${base}/feed.ics` } });
      expectInvalidParam(res, "url");
      expect(res.body.data.params.url).to.equal(`The URL cannot be fetched: ${reason}`);
      expectNoDetail(JSON.stringify(res.body), base);
    }
  });
});
