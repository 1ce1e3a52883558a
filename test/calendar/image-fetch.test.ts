import { expect } from "chai";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { startTestSite, type TestSite } from "../support/site";
import { expectInvalidParam } from "./events-support";

/**
 * Issue 19 item 2: an `image` URL is fetched only when it leads to a public
 * host (or one the site allows). A refused URL is a 400 on `image`, and the
 * host it names receives nothing.
 */

const WHEN = { start_date: "2030-05-01 10:00:00", end_date: "2030-05-01 11:00:00" };

/** An image server on 127.0.0.1 that records every request it gets. */
async function imageServer(): Promise<{ base: string; hits: string[]; close(): Promise<void> }> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? "");
    if (req.url === "/redirect") {
      res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/iam.png" });
      res.end();
      return;
    }
    if (req.url === "/long-type.png") {
      res.writeHead(200, { "content-type": `image/${"x".repeat(200)}` });
      res.end("x");
      return;
    }
    res.writeHead(200, { "content-type": "image/png" });
    res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function rowCounts(t: TestSite): Promise<Record<string, number>> {
  const k = t.site.engine.knex;
  const out: Record<string, number> = {};
  for (const type of ["event", "venue", "organizer", "attachment"]) out[type] = Number((await k(t.site.engine.tables.posts).where({ type }).count({ n: "*" }).first())?.n ?? 0);
  return out;
}

describe("image URLs: the fetch policy (SQLite)", function () {
  this.timeout(60_000);
  let images: Awaited<ReturnType<typeof imageServer>>;
  before(async () => {
    images = await imageServer();
  });
  after(async () => images.close());

  describe("without allowed hosts", () => {
    let t: TestSite;
    before(async () => {
      t = await startTestSite({ fixture: "minimal" });
    });
    after(async () => t.close());

    it("refuses an internal image URL with a 400 on image; the host receives no request and nothing is stored", async () => {
      const before = await rowCounts(t);
      const urls = [`${images.base}/a.png`, images.base.replace("127.0.0.1", "[::ffff:127.0.0.1]") + "/b.png", images.base.replace("127.0.0.1", "2130706433") + "/c.png"];
      for (const url of urls) {
        const venue = await t.post("/venues", { as: "admin", json: { venue: "Internal", image: url } });
        expectInvalidParam(venue, "image");
        expect(venue.body.data.params.image).to.match(/^The image URL is not allowed: /);
        expectInvalidParam(await t.post("/organizers", { as: "admin", json: { organizer: "Internal", image: url } }), "image");
        expectInvalidParam(await t.post("/events", { as: "admin", json: { title: "Internal", ...WHEN, image: url } }), "image");
        // A venue created with the event is checked the same way.
        const nested = await t.post("/events", { as: "admin", json: { title: "Internal", ...WHEN, venue: { venue: "Nested", image: url } } });
        expect(nested.status, nested.text).to.equal(400);
      }
      const metadata = await t.post("/venues", { as: "admin", json: { venue: "Metadata", image: "http://169.254.169.254/latest/meta-data/x.png" } });
      expectInvalidParam(metadata, "image");
      expect(images.hits).to.deep.equal([]);
      expect(await rowCounts(t)).to.deep.equal(before);
    });
  });

  describe("with the test server's host allowed", () => {
    let t: TestSite;
    before(async () => {
      t = await startTestSite({ fixture: "minimal", fetch: { allowHosts: ["127.0.0.1"] } });
    });
    after(async () => t.close());

    it("imports an allowed host's image", async () => {
      const res = await t.post("/venues", { as: "admin", json: { venue: "Allowed", image: `${images.base}/allowed.png` } });
      expect(res.status, res.text).to.equal(201);
      expect(res.body.image).to.include({ url: `${images.base}/allowed.png`, extension: "png" });
    });

    it("does not follow a redirect to a refused host", async () => {
      const res = await t.post("/venues", { as: "admin", json: { venue: "Redirected", image: `${images.base}/redirect` } });
      expectInvalidParam(res, "image");
      expect(res.body.data.params.image).to.equal("The image URL is not allowed: a redirect goes where its host is not a public address.");
    });

    it("refuses a URL too long for the attachment (was a 500) and an answer whose media type it could not store", async () => {
      const long = await t.post("/venues", { as: "admin", json: { venue: "Long URL", image: `${images.base}/${"a".repeat(3000)}.png` } });
      expectInvalidParam(long, "image");
      expect(long.body.data.params.image).to.equal("The image URL must be at most 2048 characters long.");
      expectInvalidParam(await t.post("/events", { as: "admin", json: { title: "Long URL", ...WHEN, image: `${images.base}/${"a".repeat(3000)}.png` } }), "image");
      const type = await t.post("/venues", { as: "admin", json: { venue: "Long type", image: `${images.base}/long-type.png` } });
      expectInvalidParam(type, "image");
      expect(type.body.data.params.image).to.equal("The image URL does not answer with an image.");
    });

    // Issue 19 item 9: the attachment title came from decodeURIComponent of the file name, which threw → 500.
    it("imports a URL with a malformed percent-escape (the title keeps the name as written)", async () => {
      for (const [name, title] of [
        ["a%E0%A4%A.png", "a%E0%A4%A"],
        ["%zz.png", "%zz"],
        ["100%.png", "100%"],
        ["nul%00.png", "nul"],
      ]) {
        const res = await t.post("/venues", { as: "admin", json: { venue: `Escapes ${name}`, image: `${images.base}/${name}` } });
        expect(res.status, res.text).to.equal(201);
        const attachment = await t.site.engine.posts.get(res.body.image.id);
        expect(attachment?.title).to.equal(title);
      }
    });
  });
});
