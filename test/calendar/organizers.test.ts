/**
 * Organizers (calendar-api.md §5, §2.3): the venue pattern with the
 * organizer's own fields (phone, website, email; no map flags, no
 * coordinates), on every database. The shared machinery is covered in
 * depth by venues.test.ts; this file checks each route and filter for the
 * organizer kind and what differs.
 */
import { expect } from "chai";
import type { PostInput } from "../../lib/posts/types";
import { createOrReuseLinkedPost, validateLinkedPostData } from "../../lib/calendar/linked-posts";
import { forEachDatabase, type TestDatabase } from "../support/databases";
import { startTestSite, type TestSite } from "../support/site";
import type { Fixture } from "../../lib/fixtures";

const USERS = [
  { login: "admin", role: "administrator", app_password: "admin-pass" },
  { login: "editor", role: "editor", app_password: "editor-pass" },
  { login: "author", role: "author", app_password: "author-pass" },
  { login: "contributor", role: "contributor", app_password: "contributor-pass" },
  { login: "subscriber", role: "subscriber", app_password: "subscriber-pass" },
] as const;

const FIXTURE: Fixture = { version: 1, name: "organizers", options: { default_language: "en", posts_per_page: 10 }, users: [...USERS] };

function utc(offsetDays: number): string {
  const d = new Date(Date.now() + offsetDays * 86_400_000);
  d.setUTCHours(12, 0, 0, 0);
  return d.toISOString().slice(0, 19).replace("T", " ");
}

forEachDatabase("organizers routes", (target) => {
  let db: TestDatabase;
  let ts: TestSite;
  const ids: Record<string, number> = {};
  const users: Record<string, number> = {};

  const makeOrganizer = async (key: string, input: Partial<PostInput> & { title: string }): Promise<number> => {
    const post = await ts.site.engine.posts.create({ type: "organizer", status: "publish", author: users.editor, ...input });
    ids[key] = post.id;
    return post.id;
  };
  const makeEvent = async (key: string, start: string, organizers: number[], status: PostInput["status"] = "publish"): Promise<number> => {
    const post = await ts.site.engine.posts.create({
      type: "event",
      title: key,
      status,
      author: users.editor,
      dateLocal: "2024-01-01 00:00:00",
      fields: { start_local: start, end_local: start, start_utc: start, end_utc: start, timezone: "UTC" },
      links: { organizer: organizers },
    });
    ids[key] = post.id;
    return post.id;
  };
  const names = (body: { organizers: Array<{ id: number }> }): string[] =>
    body.organizers.map((o) => Object.keys(ids).find((k) => ids[k] === o.id) ?? String(o.id));

  before(async () => {
    db = await target.create();
    ts = await startTestSite({ target: db.target, fixture: FIXTURE });
    for (const u of USERS) users[u.login] = (await ts.site.engine.users.byLogin(u.login))!.id;
    await makeOrganizer("jazz", {
      title: "Jazz Club",
      content: "Friends of jazz.",
      dateLocal: "2024-01-01 10:00:00",
      fields: { email: "info@jazzclub.common.com", phone: "+31 20 555 0123", website: "https://jazzclub.example.org" },
    });
    await makeOrganizer("friends", { title: "Friends of Music", dateLocal: "2024-01-02 10:00:00", author: users.author, fields: { email: "friends@music.common.com" } });
    await makeOrganizer("quiet", { title: "Quiet Society", dateLocal: "2024-01-03 10:00:00", fields: { phone: "42" } });
    await makeOrganizer("drafty", { title: "Drafty Org", status: "draft", author: users.author, dateLocal: "2024-01-04 10:00:00" });
    await makeOrganizer("club-fr", { title: "Club de Jazz", language: "fr", dateLocal: "2024-01-05 10:00:00" });
    await makeEvent("e-up", utc(7), [ids.jazz, ids.friends]);
    await makeEvent("e-past", "2020-01-01 10:00:00", [ids.quiet]);
    await makeEvent("e-draft", utc(9), [ids.drafty], "draft");
  });

  after(async () => {
    await ts?.close();
    await db?.drop();
  });

  it("lists organizers with the organizers envelope and the omission rule (no show_map)", async () => {
    const res = await ts.get("/organizers");
    expect(res.status).to.equal(200);
    expect(Object.keys(res.body)).to.deep.equal(["organizers", "rest_url", "total", "total_pages"]);
    expect(names(res.body)).to.deep.equal(["quiet", "friends", "jazz"]);
    expect(res.headers.get("x-cal-total")).to.equal("3");
    const jazz = res.body.organizers.find((o: { id: number }) => o.id === ids.jazz);
    expect(jazz).to.deep.equal({
      id: ids.jazz,
      author: String(users.editor),
      status: "publish",
      date: "2024-01-01 10:00:00",
      date_utc: "2024-01-01 10:00:00",
      modified: jazz.modified,
      modified_utc: jazz.modified_utc,
      url: `${ts.home}/organizer/jazz-club/`,
      organizer: "Jazz Club",
      description: "<p>Friends of jazz.</p>",
      slug: "jazz-club",
      phone: "+31 20 555 0123",
      website: "https://jazzclub.example.org",
      email: "info@jazzclub.common.com",
      global_id: `127.0.0.1?id=${ids.jazz}`,
      global_id_lineage: [`127.0.0.1?id=${ids.jazz}`],
    });
    const quiet = res.body.organizers.find((o: { id: number }) => o.id === ids.quiet);
    expect(quiet).to.not.have.any.keys("show_map", "show_map_link", "description", "email", "website", "image");
    expect(new URL(res.body.rest_url).pathname).to.equal("/wp-json/calendar/events/v1/organizers/");
  });

  it("pages and 404s past the end with organizer-archive-page-not-found", async () => {
    const p2 = await ts.get("/organizers", { query: { per_page: 2, page: 2 } });
    expect(names(p2.body)).to.deep.equal(["jazz"]);
    expect(p2.body.total_pages).to.equal(2);
    const p3 = await ts.get("/organizers", { query: { per_page: 2, page: 3 } });
    expect(p3.status).to.equal(404);
    expect(p3.body.code).to.equal("organizer-archive-page-not-found");
  });

  it("search: e-mail, phone and website fields, all words in one field", async () => {
    expect(names((await ts.get("/organizers", { query: { search: "@common.com" } })).body)).to.deep.equal(["friends", "jazz"]);
    expect(names((await ts.get("/organizers", { query: { search: "jazzclub example" } })).body)).to.deep.equal(["jazz"]);
    expect(names((await ts.get("/organizers", { query: { search: "555 0123" } })).body)).to.deep.equal(["jazz"]);
    expect((await ts.get("/organizers", { query: { search: "music jazz" } })).body.total).to.equal(0);
  });

  it("event, has_events, only_with_upcoming, status and language filters", async () => {
    expect(names((await ts.get("/organizers", { query: { event: ids["e-up"] } })).body)).to.deep.equal(["friends", "jazz"]);
    expect((await ts.get("/organizers", { query: { event: ids.jazz } })).status).to.equal(400);
    expect(names((await ts.get("/organizers", { query: { has_events: "yes" } })).body)).to.deep.equal(["quiet", "friends", "jazz"]);
    expect(names((await ts.get("/organizers", { as: "editor", query: { has_events: "nope" } })).body)).to.deep.equal(["drafty"]);
    expect(names((await ts.get("/organizers", { query: { only_with_upcoming: "1" } })).body)).to.deep.equal(["friends", "jazz"]);
    expect(names((await ts.get("/organizers", { as: "author", query: { only_with_upcoming: "1" } })).body)).to.deep.equal(["drafty", "friends", "jazz"]);
    expect(names((await ts.get("/organizers", { as: "editor", query: { status: "draft" } })).body)).to.deep.equal(["drafty"]);
    expect((await ts.get("/organizers", { query: { status: "draft" } })).status).to.equal(400);
    expect(names((await ts.get("/organizers", { query: { i18n_language: "fr" } })).body)).to.deep.equal(["club-fr"]);
  });

  it("single reads: json_ld Person, 400 for non-organizers, 403 for drafts", async () => {
    const res = await ts.get(`/organizers/${ids.jazz}`);
    expect(res.status).to.equal(200);
    expect(res.body.json_ld).to.deep.include({
      "@type": "Person",
      name: "Jazz Club",
      telephone: "+31 20 555 0123",
      email: "info@jazzclub.common.com",
      url: "https://jazzclub.example.org",
      sameAs: "https://jazzclub.example.org",
    });
    expect((await ts.get("/organizers/by-slug/jazz-club")).body.id).to.equal(ids.jazz);
    expect((await ts.get(`/organizers/${ids["e-up"]}`)).status).to.equal(400);
    expect((await ts.get("/organizers/by-slug/nobody")).status).to.equal(400);
    const draft = await ts.get(`/organizers/${ids.drafty}`);
    expect(draft.status).to.equal(403);
    expect(draft.body.code).to.equal("organizer-not-accessible");
    expect((await ts.get(`/organizers/${ids.drafty}`, { as: "author" })).status).to.equal(200);
  });

  it("create: permission, required name, fields, e-mail check (calpress decision)", async () => {
    expect((await ts.post("/organizers", { json: { organizer: "Anon" } })).status).to.equal(401);
    expect((await ts.post("/organizers", { as: "subscriber", json: { organizer: "Sub" } })).status).to.equal(403);
    expect((await ts.post("/organizers", { as: "admin", json: {} })).body.code).to.equal("rest_missing_callback_param");
    expect((await ts.post("/organizers", { as: "admin", json: { organizer: "" } })).status).to.equal(400);
    const res = await ts.post("/organizers", {
      as: "author",
      json: { organizer: "New Org", description: "We organise.", phone: "1", website: "https://org.example.com", email: " team@org.example.com " },
    });
    expect(res.status).to.equal(201);
    expect(res.headers.get("location")).to.equal(`${ts.ns}/organizers/${res.body.id}`);
    expect(res.body).to.include({ organizer: "New Org", description: "<p>We organise.</p>", phone: "1", website: "https://org.example.com", email: "team@org.example.com", status: "publish" });
    expect(res.body).to.not.have.property("json_ld");
    for (const [field, value] of [["email", "not-an-address"], ["email", "a@b"], ["website", "foo"], ["author", 999999], ["date", "foo"], ["status", "kinda_thinking_about_it"]] as const) {
      const bad = await ts.post("/organizers", { as: "admin", json: { organizer: `Bad ${field}`, [field]: value } });
      expect(bad.status, `${field}=${value}`).to.equal(400);
      expect(bad.body.data.params).to.have.property(field);
    }
    // Venue-only fields are not arguments here and are ignored.
    const ignored = await ts.post("/organizers", { as: "admin", json: { organizer: "Ignores Venue Fields", show_map: true, city: "Rome" } });
    expect(ignored.status).to.equal(201);
    expect(ignored.body).to.not.have.any.keys("show_map", "city");
    const contributor = await ts.post("/organizers", { as: "contributor", json: { organizer: "Contrib Org", status: "publish" } });
    expect(contributor.body.status).to.equal("pending");
  });

  it("the duplicate rule", async () => {
    const first = await ts.post("/organizers", { as: "admin", json: { organizer: "Dup Org", description: "An organizer description" } });
    const same = await ts.post("/organizers", { as: "admin", json: { organizer: "DUP org", description: "an ORGANIZER description", email: "dup@example.com" } });
    expect(same.status).to.equal(201);
    expect(same.body.id).to.equal(first.body.id);
    expect(same.body.email).to.equal("dup@example.com");
    const other = await ts.post("/organizers", { as: "admin", json: { organizer: "Dup Org", description: "Different" } });
    expect(other.body.id).to.not.equal(first.body.id);
  });

  it("update and delete", async () => {
    const org = await ts.post("/organizers", { as: "author", json: { organizer: "Changing Org", phone: "1", email: "x@example.com" } });
    const upd = await ts.request("PATCH", `/organizers/${org.body.id}`, { as: "author", json: { phone: "", website: "https://changed.example.com" } });
    expect(upd.status).to.equal(200);
    expect(upd.body).to.include({ website: "https://changed.example.com", email: "x@example.com" });
    expect(upd.body).to.not.have.property("phone");
    expect((await ts.post(`/organizers/${org.body.id}`, { as: "contributor", json: { phone: "2" } })).status).to.equal(403);
    expect((await ts.post(`/organizers/${org.body.id}`, { as: "author", json: { organizer: "" } })).status).to.equal(400);
    expect((await ts.post(`/organizers/by-slug/changing-org`, { as: "author", json: { phone: "3" } })).body.phone).to.equal("3");

    const eventId = await makeEvent("e-with-org", utc(3), [ids.jazz, org.body.id]);
    const del = await ts.request("DELETE", `/organizers/${org.body.id}`, { as: "author" });
    expect(del.status).to.equal(200);
    expect(del.body.status).to.equal("trash");
    const event = await ts.site.engine.posts.get(eventId, { links: true });
    expect(event?.links?.organizer).to.deep.equal([ids.jazz]);
    const again = await ts.request("DELETE", `/organizers/${org.body.id}`, { as: "author" });
    expect(again.status).to.equal(410);
    expect(again.body.code).to.equal("organizer-is-in-trash");
    expect((await ts.request("DELETE", "/organizers/999999", { as: "admin" })).status).to.equal(400);
    expect((await ts.request("DELETE", `/organizers/${ids.jazz}`)).status).to.equal(401);
  });

  it("in-process: validation and inline creation of organizers", async () => {
    const engine = ts.site.engine;
    expect(await validateLinkedPostData("organizer", { organizer: "Fine", email: "" }, engine)).to.equal(null);
    expect(await validateLinkedPostData("organizer", { email: "a@example.com" }, engine)).to.match(/^organizer: /);
    expect(await validateLinkedPostData("organizer", { organizer: "X", email: "nope" }, engine)).to.match(/^email: /);
    const editor = engine.users.currentUser((await engine.users.byLogin("editor"))!);
    const made = await engine.transaction((tx) => createOrReuseLinkedPost(tx, "organizer", { organizer: "Inline Org", phone: "7" }, { user: editor, language: "de" }));
    expect(made.language).to.equal("de");
    expect(made.fields.phone).to.equal("7");
    expect((await ts.get("/organizers", { query: { i18n_language: "de" } })).body.organizers[0].id).to.equal(made.id);
  });
});
