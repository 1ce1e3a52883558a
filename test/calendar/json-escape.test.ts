/**
 * Issue 19 item 4: JSON pasted into HTML cannot break out. No JSON answer
 * holds `</script` or `<!--` as written (single, list, error, batch, site
 * and namespace index, OpenAPI document, `_envelope`/`_pretty`, answers from
 * the response cache and the answer store); the escapes decode to the same
 * values; ETags are those of the escaped bytes. JSON-LD decodes entities
 * before it strips tags, so the README's snippet stays safe even when a host
 * re-encodes the object itself.
 */
import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Fixture } from "../../lib/fixtures";
import { entityTag } from "../../lib/routes/conditional";
import { startTestSite, type ApiResponse, type TestSite } from "../support/site";

const USERS = [
  { login: "admin", role: "administrator", app_password: "admin-pass" },
  { login: "contributor", role: "contributor", app_password: "contributor-pass" },
] as const;
const FIXTURE: Fixture = { version: 1, name: "json-escape", options: { default_language: "en" }, users: [...USERS] };

/** What an author could type to end the host's `<script>` element and start one of their own. */
const BREAKOUT = "</script><script>alert(1)</script><!-- x";
/** Within the events list's default date bounds. */
const day = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
const dates = { start_date: `${day} 18:00:00`, end_date: `${day} 20:00:00` };

/** The tag the layer gives a 200 JSON answer with these bytes (the route's only own header on reads is Allow). */
function tagOf(res: ApiResponse): string {
  const allow = res.headers.get("allow");
  return entityTag(200, "", allow === null ? {} : { Allow: allow }, Buffer.from(res.text));
}

/** The answer's bytes as sent: nothing in them ends a `<script>` element or opens a comment. */
function expectSafe(res: ApiResponse, what: string): void {
  expect(res.text, what).to.not.match(/<\/script/i);
  expect(res.text, what).to.not.include("<!--");
}

describe("JSON answers are safe inside <script> (sqlite)", () => {
  let ts: TestSite;
  let stored: TestSite;
  let storeDir: string;
  let eventId: number;

  before(async () => {
    storeDir = fs.mkdtempSync(path.join(os.tmpdir(), "calpress-json-escape-"));
    const file = path.join(storeDir, "site.sqlite");
    // The default site keeps anonymous list answers in its response cache.
    ts = await startTestSite({ target: file, fixture: FIXTURE, timezone: "UTC" });
    await ts.site.engine.options.set("blogname", `Site ${BREAKOUT}`);
    ts.site.rest.registerRoute("calendar/events/v1", "/probe", [
      {
        methods: "GET",
        permission: "public",
        args: { q: { type: "string", description: `A probe ${BREAKOUT}` } },
        handler: async () => ({ ok: true }),
      },
    ]);
    // An administrator keeps raw HTML in titles and content (unfiltered_html).
    const created = await ts.post("/events", {
      json: { title: `Gig ${BREAKOUT}`, description: `<p>Text ${BREAKOUT}</p>`, ...dates, venue: { venue: "Hall", address: "1 Main St" } },
      as: "admin",
    });
    expect(created.status).to.equal(201);
    eventId = created.body.id;
    // A second server on the same database, answering single reads from an answer store.
    stored = await startTestSite({ target: file, timezone: "UTC", responseCache: false, answerStore: { file: path.join(storeDir, "answers.sqlite") } });
  });
  after(async () => {
    await stored?.close();
    await ts?.close();
    fs.rmSync(storeDir, { recursive: true, force: true });
  });

  it("single reads: escaped, and decoding gives the values back", async () => {
    for (const res of [await ts.get(`/events/${eventId}`), await ts.get(`/events/${eventId}`, { as: "admin" })]) {
      expect(res.status).to.equal(200);
      expectSafe(res, "single");
      expect(res.text).to.include("<\\/script>");
      expect(res.text).to.include("\\u003c!-- x");
      expect(res.body.title).to.include(BREAKOUT);
    }
  });

  it("lists, from the response cache too", async () => {
    for (let i = 0; i < 2; i++) {
      const res = await ts.get("/events", { query: { json_ld: 1 } });
      expect(res.status).to.equal(200);
      expectSafe(res, `list ${i}`);
      expect(res.body.events[0].title).to.include(BREAKOUT);
    }
  });

  it("errors that echo the input", async () => {
    const res = await ts.get("/events", { query: { venue: BREAKOUT } });
    expect(res.status).to.equal(400);
    expectSafe(res, "error");
    expect(JSON.stringify(res.body)).to.include("</script>");
  });

  it("batch answers", async () => {
    const res = await ts.post("/wp-json/batch/v1", {
      json: { requests: [{ path: "/calendar/events/v1/venues", body: { venue: "Batch Hall", description: `<p>${BREAKOUT}</p>` } }, { path: "/calendar/events/v1/venues", body: {} }] },
      as: "admin",
    });
    expect(res.status).to.equal(207);
    expectSafe(res, "batch");
    expect(res.body.responses[0].body.description).to.include("</script>");
  });

  it("the site index, the namespace index and the OpenAPI document", async () => {
    for (const url of ["/wp-json/", "/wp-json/calendar/events/v1", "/doc"]) {
      const res = await ts.get(url);
      expect(res.status, url).to.equal(200);
      expectSafe(res, url);
      expect(res.text, url).to.include("<\\/script>");
    }
    expect((await ts.get("/wp-json/")).body.name).to.equal(`Site ${BREAKOUT}`);
  });

  it("_envelope and _pretty", async () => {
    const queries: Array<Record<string, string>> = [{ _envelope: "1" }, { _pretty: "1" }, { _envelope: "1", _pretty: "1" }];
    for (const query of queries) {
      const res = await ts.get(`/events/${eventId}`, { query });
      expectSafe(res, JSON.stringify(query));
    }
  });

  it("stored answers, and ETags computed from the escaped bytes", async () => {
    for (let i = 0; i < 3; i++) {
      const res = await stored.get(`/events/${eventId}`);
      expect(res.status).to.equal(200);
      expectSafe(res, `stored ${i}`);
      expect(res.headers.get("etag")).to.equal(tagOf(res));
      const again = await stored.get(`/events/${eventId}`, { headers: { "if-none-match": res.headers.get("etag")! } });
      expect(again.status).to.equal(304);
    }
    expect(stored.site.rest.answerStore).to.not.equal(undefined);
    const res = await ts.get(`/events/${eventId}`);
    expect(res.headers.get("etag")).to.equal(tagOf(res));
  });

  describe("JSON-LD", () => {
    it("decodes entities before stripping tags: an escaped tag does not come out live", async () => {
      const created = await ts.post("/events", {
        json: { title: "Gig &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt; night", ...dates, status: "publish" },
        as: "admin",
      });
      const res = await ts.get(`/events/${created.body.id}`);
      expect(res.body.json_ld.name).to.equal("Gig night");
      expect(res.body.json_ld.name).to.not.include("<");
    });

    it("venue address fields stored raw earlier are plain text in it", async () => {
      const venue = await ts.site.engine.posts.create({
        type: "venue",
        status: "publish",
        title: "Old Venue",
        fields: { address: `1 Main St ${BREAKOUT}`, city: "<b>Rome</b>", phone: "<img src=x onerror=alert(1)>555" },
      });
      const res = await ts.get(`/venues/${venue.id}`);
      expect(res.body.json_ld.address.streetAddress).to.equal("1 Main St");
      expect(res.body.json_ld.address.addressLocality).to.equal("Rome");
      expect(res.body.json_ld.telephone).to.equal("555");
    });

    it("keeps the README's snippet safe, whether the host pastes the bytes or re-encodes the object", async () => {
      // The example: a title whose entities spell a closing tag, from an administrator (kept as written).
      const created = await ts.post("/events", {
        json: { title: "Gig &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;", description: `<p>${BREAKOUT}</p>`, ...dates, status: "publish" },
        as: "admin",
      });
      const res = await ts.get(`/events/${created.body.id}`, { query: { _fields: "json_ld" } });
      const bytes = res.text.slice(res.text.indexOf(":") + 1, -1);
      for (const object of [bytes, JSON.stringify(res.body.json_ld)]) {
        // README "JSON-LD and `_fields`": `<script type="application/ld+json">` + the json_ld object + `</script>`.
        const page = `<script type="application/ld+json">${object}</script>`;
        expect(page.match(/<\/script/gi)).to.have.length(1);
        expect(page).to.not.include("<!--");
        expect(page.endsWith("</script>")).to.equal(true);
      }
      expect(JSON.parse(bytes)).to.deep.equal(res.body.json_ld);
      // Tags, script bodies and the comment are gone from the plain-text name.
      expect(res.body.json_ld.name).to.equal("Gig");
    });
  });
});
