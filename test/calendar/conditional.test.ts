/**
 * Conditional requests on the calendar namespace, on every database: ETags
 * follow everything an answer shows (the event, its linked venue, its
 * terms, what the reader may see), 304 for a current tag, 412 and nothing
 * written for a stale `If-Match`, and tags agreed on by two sites (two
 * processes) on one database.
 */
import { expect } from "chai";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { request as httpRequest } from "node:http";
import { forEachDatabase, type TestTarget } from "../support/databases";
import { startTestSite, type Credentials, type TestSite } from "../support/site";
import { makeEvent, useSite } from "./events-support";

let files = 0;
function storeFile(): string {
  files += 1;
  return path.join(os.tmpdir(), `calpress-conditional-${process.pid}-${files}.sqlite`);
}

function removeStore(file: string): void {
  for (const suffix of ["", "-wal", "-shm"]) fs.rmSync(file + suffix, { force: true });
}

/** A stored-answer file (every database has a revision token). */
function storeFor(_db: TestTarget): { file: string } | false {
  return { file: storeFile() };
}

function etagOf(res: { status: number; headers: Headers }): string {
  const etag = res.headers.get("etag");
  if (etag === null) throw new Error(`no ETag (status ${res.status})`);
  return etag;
}

async function postRow(t: TestSite, id: number): Promise<{ title: string; status: string } | undefined> {
  return t.site.engine.knex(t.site.engine.tables.posts).where({ id }).first("title", "status");
}

forEachDatabase("calendar: conditional requests", (db) => {
  const store = storeFor(db);
  const site = useSite(db, { answerStore: store });
  after(() => {
    if (store !== false) removeStore(store.file);
  });

  it("a single event: strong ETag, 304 without a body (GET and HEAD), then 200 after an edit", async () => {
    const t = site();
    const event = await makeEvent(t, { title: "Tagged Night", status: "publish" });
    const url = `/events/${event.id}`;
    const first = await t.get(url);
    const etag = etagOf(first);
    expect(etag).to.match(/^"[A-Za-z0-9_-]+"$/);
    expect(first.headers.get("cache-control")).to.equal("no-cache");
    expect(first.headers.get("vary")).to.equal("Authorization, Origin");
    // Read again (kept or stored answers included): the same tag.
    for (let i = 0; i < 3; i++) expect(etagOf(await t.get(url))).to.equal(etag);
    const notModified = await t.get(url, { headers: { "If-None-Match": etag } });
    expect(notModified.status).to.equal(304);
    expect(notModified.text).to.equal("");
    expect(notModified.headers.get("etag")).to.equal(etag);
    expect(notModified.headers.get("cache-control")).to.equal("no-cache");
    const head = await t.request("HEAD", url, { headers: { "If-None-Match": etag } });
    expect(head.status).to.equal(304);
    const list = await t.get("/events");
    const listTag = etagOf(list);
    expect((await t.get("/events", { headers: { "If-None-Match": listTag } })).status).to.equal(304);

    await t.post(url, { as: "editor", json: { title: "Retitled Night" } });
    const after = await t.get(url, { headers: { "If-None-Match": etag } });
    expect(after.status).to.equal(200);
    expect(after.body.title).to.equal("Retitled Night");
    expect(etagOf(after)).to.not.equal(etag);
    expect((await t.get("/events", { headers: { "If-None-Match": listTag } })).status).to.equal(200);
  });

  it("changes when the linked venue is renamed, and when a term of the event is renamed", async () => {
    const t = site();
    const venue = await t.post("/venues", { as: "editor", json: { venue: "Old Hall", city: "Ghent", status: "publish" } });
    const category = await t.post("/categories", { as: "editor", json: { name: "Recitals" } });
    const event = await makeEvent(t, { title: "Linked Night", status: "publish", venue: venue.body.id, categories: [category.body.id] });
    const url = `/events/${event.id}`;
    const before = await t.get(url);
    expect(before.body.venue.venue).to.equal("Old Hall");
    const etag = etagOf(before);
    expect((await t.get(url, { headers: { "If-None-Match": etag } })).status).to.equal(304);

    const renamed = await t.post(`/venues/${venue.body.id}`, { as: "editor", json: { venue: "New Hall" } });
    expect(renamed.status).to.equal(200);
    const afterVenue = await t.get(url, { headers: { "If-None-Match": etag } });
    expect(afterVenue.status).to.equal(200);
    expect(afterVenue.body.venue.venue).to.equal("New Hall");
    const venueTag = etagOf(afterVenue);
    expect(venueTag).to.not.equal(etag);
    expect((await t.get(url, { headers: { "If-None-Match": venueTag } })).status).to.equal(304);

    const term = await t.post(`/categories/${category.body.id}`, { as: "editor", json: { name: "Song Recitals" } });
    expect(term.status).to.equal(200);
    const afterTerm = await t.get(url, { headers: { "If-None-Match": venueTag } });
    expect(afterTerm.status).to.equal(200);
    expect(afterTerm.body.categories.map((c: { name: string }) => c.name)).to.deep.equal(["Song Recitals"]);
    expect(etagOf(afterTerm)).to.not.equal(venueTag);
  });

  it("follows visibility: a draft has a tag for the editor only, and publishing changes it", async () => {
    const t = site();
    const event = await makeEvent(t, { title: "Hidden Night", status: "draft" });
    const url = `/events/${event.id}`;
    const anonymous = await t.get(url);
    expect(anonymous.status).to.equal(403);
    expect(anonymous.headers.get("etag")).to.equal(null);
    const editor = await t.get(url, { as: "editor" });
    expect(editor.status).to.equal(200);
    const draftTag = etagOf(editor);
    expect(editor.headers.get("cache-control")).to.contain("private");
    // The editor's tag does not make the anonymous reader's 403 a 304.
    expect((await t.get(url, { headers: { "If-None-Match": draftTag } })).status).to.equal(403);
    expect((await t.get(url, { as: "editor", headers: { "If-None-Match": draftTag } })).status).to.equal(304);

    await t.post(url, { as: "editor", json: { status: "publish" } });
    const published = await t.get(url, { as: "editor", headers: { "If-None-Match": draftTag } });
    expect(published.status).to.equal(200);
    expect(etagOf(published)).to.not.equal(draftTag);
    const publicRead = await t.get(url);
    expect(publicRead.status).to.equal(200);
    // The reader is shown other methods (Allow) than the editor: another tag.
    expect(etagOf(publicRead)).to.not.equal(etagOf(published));
  });

  it("If-Match: a stale tag is 412 and the row is unchanged; the current tag updates", async () => {
    const t = site();
    const event = await makeEvent(t, { title: "Guarded Night", status: "publish" });
    const url = `/events/${event.id}`;
    const read = await t.get(url, { as: "editor" });
    const etag = etagOf(read);
    await t.post(url, { as: "editor", json: { title: "Concurrent Edit" } });

    const stale = await t.post(url, { as: "editor", json: { title: "Lost Update" }, headers: { "If-Match": etag } });
    expect(stale.status).to.equal(412);
    expect(stale.body).to.deep.include({ code: "rest_precondition_failed", data: { status: 412 } });
    expect(await postRow(t, event.id)).to.include({ title: "Concurrent Edit" });
    const put = await t.request("PUT", url, { as: "editor", json: { title: "Lost Update" }, headers: { "If-Match": etag } });
    expect(put.status).to.equal(412);
    const del = await t.request("DELETE", url, { as: "editor", query: { force: "true" }, headers: { "If-Match": etag } });
    expect(del.status).to.equal(412);
    expect(await postRow(t, event.id)).to.deep.equal({ title: "Concurrent Edit", status: "publish" });

    const current = etagOf(await t.get(url, { as: "editor" }));
    const ok = await t.post(url, { as: "editor", json: { title: "Careful Edit" }, headers: { "If-Match": current } });
    expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
    expect(ok.body.title).to.equal("Careful Edit");
    expect(await postRow(t, event.id)).to.include({ title: "Careful Edit" });
    const star = await t.post(url, { as: "editor", json: { title: "Star Edit" }, headers: { "If-Match": "*" } });
    expect(star.status).to.equal(200);
    expect(await postRow(t, event.id)).to.include({ title: "Star Edit" });
  });

  it("If-Match guards venues too (generic to every route that can be read)", async () => {
    const t = site();
    const venue = await t.post("/venues", { as: "editor", json: { venue: "Guarded Hall", status: "publish" } });
    const url = `/venues/${venue.body.id}`;
    const etag = etagOf(await t.get(url, { as: "editor" }));
    await t.post(url, { as: "editor", json: { venue: "Renamed Hall" } });
    const stale = await t.post(url, { as: "editor", json: { venue: "Lost Hall" }, headers: { "If-Match": etag } });
    expect(stale.status).to.equal(412);
    expect(await postRow(t, venue.body.id)).to.include({ title: "Renamed Hall" });
  });
});

interface HostResponse {
  status: number;
  headers: Headers;
  // `any` as in test/support/site.ts: the assertions check the JSON shapes.
  body: any;
}

/**
 * A request with a fixed Host: the two sites listen on different ports, but
 * behind one load balancer they answer one host name (their URLs, and so
 * their bytes and tags, then agree). fetch does not let a Host be set.
 */
function viaHost(t: TestSite, method: string, route: string, opts: { as?: Credentials; json?: unknown; headers?: Record<string, string> } = {}): Promise<HostResponse> {
  const target = new URL(`${t.ns}${route}`);
  const headers: Record<string, string> = { host: "calendar.example", ...opts.headers };
  if (opts.as) headers.authorization = `Basic ${Buffer.from(`${opts.as.login}:${opts.as.password}`).toString("base64")}`;
  const body = opts.json === undefined ? undefined : JSON.stringify(opts.json);
  if (body !== undefined) headers["content-type"] = "application/json";
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: target.hostname, port: target.port, path: target.pathname + target.search, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        const out = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (typeof value === "string") out.set(name, value);
        resolve({ status: res.statusCode ?? 0, headers: out, body: text === "" ? null : JSON.parse(text) });
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

forEachDatabase("calendar: conditional requests across two sites on one database", (db) => {
  it("a tag from site A is current at site B, and a change through A makes it stale at B", async function () {
    const database = await db.create();
    const store = storeFor(db);
    const a = await startTestSite({ target: database.target, fixture: "minimal", timezone: "UTC", answerStore: store });
    let b: TestSite | undefined;
    try {
      b = await startTestSite({ target: database.target, timezone: "UTC", answerStore: store });
      const editor = a.users.editor;
      const event = await makeEvent(a, { title: "Shared Night", status: "publish" });
      const url = `/events/${event.id}`;
      const atA = await viaHost(a, "GET", url);
      expect(JSON.stringify(atA.body)).to.contain("http://calendar.example/wp-json/");
      const etag = etagOf(atA);
      const atB = await viaHost(b, "GET", url);
      expect(etagOf(atB)).to.equal(etag);
      expect((await viaHost(b, "GET", url, { headers: { "If-None-Match": etag } })).status).to.equal(304);
      // The editor's tag from A passes If-Match at B.
      const editorTag = etagOf(await viaHost(a, "GET", url, { as: editor }));
      const written = await viaHost(b, "POST", url, { as: editor, json: { title: "Written at B" }, headers: { "If-Match": editorTag } });
      expect(written.status, JSON.stringify(written.body)).to.equal(200);
      // That write is seen at A: the old tags are stale there and at B.
      const staleAtA = await viaHost(a, "GET", url, { headers: { "If-None-Match": etag } });
      expect(staleAtA.status).to.equal(200);
      expect(staleAtA.body.title).to.equal("Written at B");
      const newTag = etagOf(staleAtA);
      expect((await viaHost(b, "GET", url, { headers: { "If-None-Match": newTag } })).status).to.equal(304);
      // A change through A makes B's tag stale: reads get the new answer, writes are refused.
      const bTag = etagOf(await viaHost(b, "GET", url, { as: editor }));
      await viaHost(a, "POST", url, { as: editor, json: { title: "Written at A" } });
      const read = await viaHost(b, "GET", url, { headers: { "If-None-Match": newTag } });
      expect(read.status).to.equal(200);
      expect(read.body.title).to.equal("Written at A");
      const refused = await viaHost(b, "POST", url, { as: editor, json: { title: "Lost at B" }, headers: { "If-Match": bTag } });
      expect(refused.status).to.equal(412);
      expect(await postRow(a, event.id)).to.include({ title: "Written at A" });
    } finally {
      await b?.close();
      await a.close();
      await database.drop();
      if (store !== false) removeStore(store.file);
    }
  });
});
