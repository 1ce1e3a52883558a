/**
 * The calendar's writes through `POST /batch/v1` on every database: the
 * create/update/delete endpoints of events, venues, organizers, categories
 * and tags opt in; each slot is checked for its own user; `normal` keeps the
 * other slots' writes when one fails, `require-all-validate` writes nothing.
 * What was written is read back from the database, not from the answer.
 */
import { expect } from "chai";
import { forEachDatabase } from "../support/databases";
import type { TestSite } from "../support/site";
import { dayAt, makeEvent, useSite } from "./events-support";

type Slot = { body: any; status: number; headers: Record<string, string> } | null;

const EV = "/calendar/events/v1";

/** Rows per post type and taxonomy, to show that a refused batch stored nothing. */
async function counts(t: TestSite): Promise<Record<string, number>> {
  const k = t.site.engine.knex;
  const out: Record<string, number> = {};
  for (const type of ["event", "venue", "organizer"]) {
    out[type] = Number((await k(t.site.engine.tables.posts).where({ type }).count({ n: "*" }).first())?.n ?? 0);
  }
  for (const taxonomy of ["calendar_events_cat", "post_tag"]) {
    out[taxonomy] = Number((await k(t.site.engine.tables.terms).where({ taxonomy }).count({ n: "*" }).first())?.n ?? 0);
  }
  return out;
}

async function postRow(t: TestSite, id: number): Promise<{ title: string; status: string; author: number }> {
  const row = await t.site.engine.knex(t.site.engine.tables.posts).where({ id }).first("title", "status", "author");
  if (!row) throw new Error(`no post ${id}`);
  return { title: String(row.title), status: String(row.status), author: Number(row.author) };
}

async function titled(t: TestSite, type: string, title: string): Promise<number> {
  return Number((await t.site.engine.knex(t.site.engine.tables.posts).where({ type, title }).count({ n: "*" }).first())?.n ?? 0);
}

function dates(): { start_date: string; end_date: string } {
  return { start_date: dayAt(3, "18:00:00"), end_date: dayAt(3, "20:00:00") };
}

forEachDatabase("POST /batch/v1 with the calendar's routes", (db) => {
  const site = useSite(db);

  async function batch(t: TestSite, json: unknown, as?: string): Promise<{ status: number; body: any; slots: Slot[] }> {
    const res = await t.post("/wp-json/batch/v1", { json, as });
    expect(res.status, JSON.stringify(res.body)).to.equal(207);
    return { status: res.status, body: res.body, slots: res.body.responses as Slot[] };
  }

  it("the create, update and delete endpoints of every kind opt in; reads do not", async () => {
    const t = site();
    const routes = (await t.get("")).body.routes as Record<string, { endpoints: Array<{ methods: string[]; allow_batch?: unknown }> }>;
    const batchable = (route: string): string[][] => routes[`${EV}${route}`]!.endpoints.filter((e) => e.allow_batch !== undefined).map((e) => e.methods);
    expect(batchable("/events")).to.deep.equal([["POST"]]);
    expect(batchable("/events/(?P<id>\\d+)")).to.deep.equal([["DELETE"], ["POST", "PUT", "PATCH"]]);
    expect(batchable("/events/by-slug/(?P<slug>[^/]+)")).to.deep.equal([["DELETE"], ["POST", "PUT", "PATCH"]]);
    for (const kind of ["venues", "organizers"]) {
      expect(batchable(`/${kind}`), kind).to.deep.equal([["POST"]]);
      expect(batchable(`/${kind}/(?P<id>\\d+)`), kind).to.deep.equal([["DELETE"], ["POST", "PUT", "PATCH"]]);
    }
    for (const kind of ["categories", "tags"]) {
      expect(batchable(`/${kind}`), kind).to.deep.equal([["POST"]]);
      expect(batchable(`/${kind}/(?P<id>\\d+)`), kind).to.deep.equal([["DELETE"], ["POST", "PUT", "PATCH"]]);
    }
    expect(routes[`${EV}/events`]!.endpoints[0]).to.not.have.property("allow_batch");
  });

  it("an editor writes every kind in one batch: each slot as its own request answers it", async () => {
    const t = site();
    const updated = await makeEvent(t, { title: "Before Batch" });
    const trashed = await makeEvent(t, { title: "To Trash" });
    const { slots } = await batch(
      t,
      {
        requests: [
          { path: `${EV}/events`, body: { title: "Batch Party", ...dates() } },
          { path: `${EV}/venues`, body: { venue: "Batch Hall", city: "Delft", status: "publish" } },
          { path: `${EV}/organizers`, body: { organizer: "Batch Crew", status: "publish" } },
          { path: `${EV}/categories`, body: { name: "Batch Category" } },
          { path: `${EV}/tags`, body: { name: "batch-tag" } },
          { method: "PATCH", path: `${EV}/events/${updated.id}`, body: { title: "After Batch" } },
          { method: "DELETE", path: `${EV}/events/${trashed.id}` },
        ],
      },
      "editor",
    );
    expect(slots.map((s) => s!.status), JSON.stringify(slots)).to.deep.equal([201, 201, 201, 201, 201, 200, 200]);
    const [event, venue, organizer, category, tag] = slots;
    expect(event!.headers.Location).to.equal(`${t.ns}/events/${event!.body.id}`);
    expect(event!.body).to.include({ title: "Batch Party", status: "publish" });
    expect(venue!.body.venue).to.equal("Batch Hall");
    expect(organizer!.body.organizer).to.equal("Batch Crew");
    expect(category!.body.name).to.equal("Batch Category");
    expect(tag!.body.name).to.equal("batch-tag");

    expect(await titled(t, "event", "Batch Party")).to.equal(1);
    expect(await titled(t, "venue", "Batch Hall")).to.equal(1);
    expect(await titled(t, "organizer", "Batch Crew")).to.equal(1);
    expect((await postRow(t, updated.id)).title).to.equal("After Batch");
    expect((await postRow(t, trashed.id)).status).to.equal("trash");
    const terms = await t.site.engine.knex(t.site.engine.tables.terms).whereIn("name", ["Batch Category", "batch-tag"]).orderBy("name").select("name", "taxonomy");
    expect(terms.map((r: { name: string; taxonomy: string }) => [r.name, r.taxonomy])).to.deep.equal([
      ["Batch Category", "calendar_events_cat"],
      ["batch-tag", "post_tag"],
    ]);
    // Writes through a batch reach readers at once (no stale cached list).
    const list = await t.get("/events", { query: { search: "Batch Party" } });
    expect(list.body.events.map((e: { id: number }) => e.id)).to.deep.equal([event!.body.id]);
  });

  it("normal mode: a failing slot leaves the other slots' writes in the database", async () => {
    const t = site();
    const before = await counts(t);
    const { slots } = await batch(
      t,
      {
        requests: [
          { path: `${EV}/events`, body: { title: "Kept One", ...dates() } },
          { path: `${EV}/events`, body: { title: "Broken", start_date: "before my birthday", end_date: dayAt(3, "20:00:00") } },
          { path: `${EV}/events/999999`, method: "PUT", body: { title: "Nobody" } },
          { path: `${EV}/categories`, body: { name: "Kept Category" } },
        ],
      },
      "editor",
    );
    expect(slots.map((s) => s!.status)).to.deep.equal([201, 400, 404, 201]);
    expect(slots[1]!.body.code).to.equal("rest_invalid_param");
    expect(slots[1]!.body.data.params).to.have.property("start_date");
    expect(await titled(t, "event", "Kept One")).to.equal(1);
    expect(await titled(t, "event", "Broken")).to.equal(0);
    const after = await counts(t);
    expect(after).to.deep.equal({ ...before, event: before.event! + 1, calendar_events_cat: before.calendar_events_cat! + 1 });
  });

  it("require-all-validate: one invalid slot and nothing is written", async () => {
    const t = site();
    const before = await counts(t);
    const { body, slots } = await batch(
      t,
      {
        validation: "require-all-validate",
        requests: [
          { path: `${EV}/events`, body: { title: "Never Written", ...dates() } },
          { path: `${EV}/venues`, body: { venue: "Never Built", status: "publish" } },
          { path: `${EV}/events`, body: { title: "Invalid", ...dates(), status: "kinda_thinking_about_it" } },
        ],
      },
      "editor",
    );
    expect(body.failed).to.equal("validation");
    expect(slots[0]).to.equal(null);
    expect(slots[1]).to.equal(null);
    expect(slots[2]!.status).to.equal(400);
    expect(slots[2]!.body.data.params).to.have.property("status");
    expect(await counts(t)).to.deep.equal(before);
    expect(await titled(t, "event", "Never Written")).to.equal(0);
  });

  it("checks each slot for the batch's user: an author edits their own event, not another's", async () => {
    const t = site();
    const editors = await makeEvent(t, { title: "Editor Owned" }, "editor");
    const authors = await makeEvent(t, { title: "Author Owned" }, "author");
    const { slots } = await batch(
      t,
      {
        requests: [
          { method: "PUT", path: `${EV}/events/${editors.id}`, body: { title: "Hijacked" } },
          { method: "PUT", path: `${EV}/events/${authors.id}`, body: { title: "Author Renamed" } },
          { method: "DELETE", path: `${EV}/events/${editors.id}` },
          { path: `${EV}/events`, body: { title: "Author New", ...dates() } },
        ],
      },
      "author",
    );
    expect(slots.map((s) => s!.status)).to.deep.equal([403, 200, 403, 201]);
    expect(slots[0]!.body.code).to.equal("rest_forbidden");
    expect(await postRow(t, editors.id)).to.include({ title: "Editor Owned", status: "publish" });
    expect((await postRow(t, authors.id)).title).to.equal("Author Renamed");
    const authorId = (await t.site.engine.users.byLogin("author"))!.id;
    expect((await postRow(t, slots[3]!.body.id)).author).to.equal(Number(authorId));

    // The same batch refused up front: the author's own update is not written either.
    const refused = await batch(
      t,
      {
        validation: "require-all-validate",
        requests: [
          { method: "PUT", path: `${EV}/events/${authors.id}`, body: { title: "Not This Time" } },
          { method: "PUT", path: `${EV}/events/${editors.id}`, body: { title: "Hijacked" } },
        ],
      },
      "author",
    );
    expect(refused.body.failed).to.equal("validation");
    expect(refused.slots[0]).to.equal(null);
    expect(refused.slots[1]!.status).to.equal(403);
    expect((await postRow(t, authors.id)).title).to.equal("Author Renamed");
  });

  it("anonymous sub-requests to write routes get 401 in their slot; an editor may change anyone's event", async () => {
    const t = site();
    const authors = await makeEvent(t, { title: "Authored" }, "author");
    const before = await counts(t);
    const requests = [
      { path: `${EV}/events`, body: { title: "Anonymous", ...dates() } },
      { method: "PUT", path: `${EV}/events/${authors.id}`, body: { title: "Edited" } },
      { path: `${EV}/tags`, body: { name: "anonymous-tag" } },
    ];
    const anonymous = await batch(t, { requests });
    expect(anonymous.slots.map((s) => [s!.status, s!.body.code])).to.deep.equal([
      [401, "rest_forbidden"],
      [401, "rest_forbidden"],
      [401, "rest_forbidden"],
    ]);
    expect(await counts(t)).to.deep.equal(before);
    expect((await postRow(t, authors.id)).title).to.equal("Authored");

    const editor = await batch(t, { requests }, "editor");
    expect(editor.slots.map((s) => s!.status)).to.deep.equal([201, 200, 201]);
    expect((await postRow(t, authors.id)).title).to.equal("Edited");
  });

  it("a sub-request's If-Match is honoured: current tag written, stale tag 412 in its slot, the other slots still run", async () => {
    const t = site();
    const kept = await makeEvent(t, { title: "Kept Tag", status: "publish" });
    const moved = await makeEvent(t, { title: "Moved Tag", status: "publish" });
    const keptTag = (await t.get(`/events/${kept.id}`, { as: "editor" })).headers.get("etag")!;
    const movedTag = (await t.get(`/events/${moved.id}`, { as: "editor" })).headers.get("etag")!;
    expect(keptTag).to.match(/^"/);
    // Someone else edits `moved` after its tag was read.
    await t.post(`/events/${moved.id}`, { as: "editor", json: { title: "Edited Elsewhere" } });
    const { slots } = await batch(
      t,
      {
        requests: [
          { method: "PUT", path: `${EV}/events/${moved.id}`, body: { title: "Lost Update" }, headers: { "If-Match": movedTag } },
          { method: "PUT", path: `${EV}/events/${kept.id}`, body: { title: "Careful Update" }, headers: { "If-Match": keptTag } },
          { method: "DELETE", path: `${EV}/events/${moved.id}?force=true`, headers: { "If-Match": [movedTag] } },
        ],
      },
      "editor",
    );
    expect(slots.map((s) => s!.status)).to.deep.equal([412, 200, 412]);
    expect(slots[0]!.body).to.deep.include({ code: "rest_precondition_failed", data: { status: 412 } });
    expect(await postRow(t, moved.id)).to.include({ title: "Edited Elsewhere", status: "publish" });
    expect(await postRow(t, kept.id)).to.include({ title: "Careful Update" });
  });

  it("require-all-validate: one stale If-Match and nothing is written", async () => {
    const t = site();
    const event = await makeEvent(t, { title: "Watched", status: "publish" });
    const stale = (await t.get(`/events/${event.id}`, { as: "editor" })).headers.get("etag")!;
    await t.post(`/events/${event.id}`, { as: "editor", json: { title: "Changed Meanwhile" } });
    const current = (await t.get(`/events/${event.id}`, { as: "editor" })).headers.get("etag")!;
    const before = await counts(t);
    const refused = await batch(
      t,
      {
        validation: "require-all-validate",
        requests: [
          { path: `${EV}/events`, body: { title: "Never Written", ...dates() } },
          { method: "PUT", path: `${EV}/events/${event.id}`, body: { title: "Lost Update" }, headers: { "if-match": stale } },
        ],
      },
      "editor",
    );
    expect(refused.body.failed).to.equal("validation");
    expect(refused.slots[0]).to.equal(null);
    expect(refused.slots[1]!.status).to.equal(412);
    expect(await counts(t)).to.deep.equal(before);
    expect(await postRow(t, event.id)).to.include({ title: "Changed Meanwhile" });

    const accepted = await batch(
      t,
      {
        validation: "require-all-validate",
        requests: [{ method: "PUT", path: `${EV}/events/${event.id}`, body: { title: "Agreed Update" }, headers: { "if-match": current } }],
      },
      "editor",
    );
    expect(accepted.slots[0]!.status).to.equal(200);
    expect(await postRow(t, event.id)).to.include({ title: "Agreed Update" });
  });
});
