/**
 * Mass assignment: what a role may not set is refused or ignored, never
 * silently applied. Each case sends the field and then reads the database
 * itself, so a value that was stored but not shown in the record still
 * counts.
 */
import { expect } from "chai";
import { startTestSite, type TestSite } from "../support/site";

interface PostRow {
  id: number;
  type: string;
  status: string;
  author: number;
  password: string;
  slug: string;
  slug_lock: string | null;
  menu_order: number;
  parent: number;
  translation_group: number | null;
  previous_status: string | null;
  modified_utc: string;
  title: string;
}

const FUTURE = { start_date: "2031-03-01 10:00:00", end_date: "2031-03-01 12:00:00" };

/** Fields no route declares, that map onto columns or internals of a post. */
const INTERNALS = {
  type: "venue",
  post_type: "venue",
  password: "set-by-client",
  post_password: "set-by-client",
  slug_lock: "locked-by-client",
  previous_status: "publish",
  translation_group: 1,
  menu_order: 99,
  parent: 1,
  guid: "http://evil.example/?p=1",
  modified: "2001-01-01 00:00:00",
  modified_utc: "2001-01-01 00:00:00",
  global_id: "evil.example?id=1",
  user_id: 1,
  role: "administrator",
  capabilities: { administrator: true },
};

describe("reliability: mass assignment", function () {
  this.timeout(60_000);
  let t: TestSite;
  const users: Record<string, number> = {};

  const row = async (id: number): Promise<PostRow> => {
    const r = (await t.site.engine.knex(t.site.engine.tables.posts).where({ id }).first()) as PostRow | undefined;
    if (!r) throw new Error(`no post ${id}`);
    return { ...r, id: Number(r.id), author: Number(r.author), menu_order: Number(r.menu_order), parent: Number(r.parent) };
  };

  /** Creates an event as `as` and returns its id (the create must succeed). */
  const createEvent = async (as: string, body: Record<string, unknown>): Promise<number> => {
    const res = await t.post("/events", { as, json: { title: "Mass assignment", ...FUTURE, ...body } });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return (res.body as { id: number }).id;
  };

  before(async () => {
    t = await startTestSite({ fixture: "minimal" });
    for (const login of ["admin", "editor", "author", "contributor", "subscriber"]) {
      const u = await t.site.engine.users.byLogin(login);
      if (!u) throw new Error(`fixture user ${login} missing`);
      users[login] = u.id;
    }
  });
  after(async () => {
    await t?.close();
  });

  it("a contributor's publish or future becomes pending, on create and update, for events, venues and organizers", async () => {
    for (const status of ["publish", "future"]) {
      const id = await createEvent("contributor", { status, date: "2020-01-01 00:00:00" });
      expect((await row(id)).status, status).to.equal("pending");
    }
    const draft = await createEvent("contributor", { status: "draft" });
    const upd = await t.post(`/events/${draft}`, { as: "contributor", json: { status: "publish" } });
    expect(upd.status, JSON.stringify(upd.body)).to.be.oneOf([200, 403]);
    expect((await row(draft)).status).to.not.equal("publish");

    for (const [kind, name] of [["venues", "venue"], ["organizers", "organizer"]]) {
      const res = await t.post(`/${kind}`, { as: "contributor", json: { [name]: `Contributor ${kind}`, status: "publish" } });
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      expect((await row((res.body as { id: number }).id)).status, kind).to.equal("pending");
    }
  });

  // BUG-4 (fixed in lib/calendar/common/author.ts, called by
  // lib/calendar/events/operations.ts and lib/calendar/linked-posts/operations.ts):
  // `author` was only checked to be an existing user, so a contributor or an
  // author could create or update events, venues and organizers in someone
  // else's name. As WordPress, without `edit_others_<type>` that is a 403
  // rest_cannot_edit_others.
  it("BUG-4: a contributor or author cannot make someone else the author: refused, or ignored", async () => {
    for (const as of ["contributor", "author"]) {
      const attempts: Array<[string, () => Promise<{ status: number; body: unknown }>]> = [
        ["create event", () => t.post("/events", { as, json: { title: `Author of others (${as})`, ...FUTURE, author: users.admin } })],
        ["create venue", () => t.post("/venues", { as, json: { venue: `Venue in another's name (${as})`, author: users.admin } })],
        ["create organizer", () => t.post("/organizers", { as, json: { organizer: `Organizer in another's name (${as})`, author: users.admin } })],
        [
          "update own event",
          async () => {
            const own = await createEvent(as, { status: "draft" });
            const res = await t.post(`/events/${own}`, { as, json: { author: users.admin } });
            return { status: res.status === 200 ? 200 : res.status, body: { id: own } };
          },
        ],
      ];
      for (const [what, attempt] of attempts) {
        const res = await attempt();
        if (res.status === 200 || res.status === 201) expect((await row((res.body as { id: number }).id)).author, `${as}: ${what}`).to.equal(users[as]);
        else expect(res.status, `${as}: ${what}`).to.be.oneOf([400, 403]);
      }
    }
  });

  it("BUG-4: the refusal is WordPress's 403 rest_cannot_edit_others, also for venue updates and inline venues; naming oneself is fine", async () => {
    const expectRefused = (res: { status: number; body: unknown }, action: string, what: string): void => {
      expect(res.status, what).to.equal(403);
      expect(res.body, what).to.include({ code: "rest_cannot_edit_others", message: `Sorry, you are not allowed to ${action} posts as this user.` });
    };
    const venue = await t.post("/venues", { as: "author", json: { venue: "Author's own hall" } });
    expect(venue.status).to.equal(201);
    const venueId = (venue.body as { id: number }).id;
    expectRefused(await t.post(`/venues/${venueId}`, { as: "author", json: { author: users.admin } }), "update", "venue update");
    expect((await row(venueId)).author).to.equal(users.author);
    expectRefused(
      await t.post("/events", { as: "contributor", json: { title: "Inline venue of another", ...FUTURE, venue: { venue: "Inline hall of another", author: users.admin } } }),
      "create",
      "inline venue",
    );
    expectRefused(await t.post("/organizers", { as: "contributor", json: { organizer: "Org of another", author: String(users.editor) } }), "create", "organizer");
    // Naming oneself needs no capability.
    const own = await createEvent("contributor", { author: users.contributor });
    expect((await row(own)).author).to.equal(users.contributor);
  });

  it("an editor may set the author (the capability exists, so the field is applied)", async () => {
    const id = await createEvent("editor", { author: users.contributor });
    expect((await row(id)).author).to.equal(users.contributor);
  });

  it("`id` in a create body does not overwrite another record", async () => {
    const victim = await createEvent("admin", { title: "Victim" });
    const res = await t.post("/events", { as: "author", json: { id: victim, title: "Overwrite attempt", ...FUTURE } });
    expect(res.status).to.be.oneOf([201, 400, 403]);
    if (res.status === 201) expect((res.body as { id: number }).id).to.not.equal(victim);
    expect((await row(victim)).title).to.equal("Victim");
    expect((await row(victim)).author).to.equal(users.admin);
  });

  it("`id` in an update body, which wins over the path (rest-conventions §2), is checked against that record's permissions", async () => {
    const victim = await createEvent("admin", { title: "Admin's event" });
    const own = await createEvent("contributor", { title: "Contributor's draft", status: "draft" });
    for (const where of ["json", "query"] as const) {
      const opts = where === "json" ? { json: { id: victim, title: "Hijacked" } } : { query: { id: victim, title: "Hijacked" } };
      const res = await t.post(`/events/${own}`, { as: "contributor", ...opts });
      expect(res.status, `${where}: ${JSON.stringify(res.body)}`).to.be.oneOf([200, 403]);
      expect((await row(victim)).title, where).to.equal("Admin's event");
      const del = await t.request("DELETE", `/events/${own}`, { as: "contributor", ...(where === "json" ? { json: { id: victim } } : { query: { id: victim } }) });
      expect(del.status).to.be.oneOf([200, 403, 410]);
      expect((await row(victim)).status, where).to.equal("publish");
    }
    const venueVictim = (await t.post("/venues", { as: "admin", json: { venue: "Admin venue" } })).body as { id: number };
    const ownVenue = (await t.post("/venues", { as: "contributor", json: { venue: "Contributor venue" } })).body as { id: number };
    const res = await t.post(`/venues/${ownVenue.id}`, { as: "contributor", json: { id: venueVictim.id, venue: "Hijacked" } });
    expect(res.status).to.be.oneOf([200, 400, 403]);
    expect((await row(venueVictim.id)).title).to.equal("Admin venue");
  });

  it("internal columns (type, password, slug lock, trash status, order, parent, modified time) cannot be set through the API", async () => {
    const id = await createEvent("admin", { ...INTERNALS, title: "Internals on create" });
    const check = async (when: string): Promise<void> => {
      const r = await row(id);
      expect(r.type, when).to.equal("event");
      expect(r.password, when).to.equal("");
      expect(r.slug_lock, when).to.not.equal("locked-by-client");
      expect(r.previous_status, when).to.equal(null);
      expect(r.menu_order, when).to.equal(0);
      expect(r.parent, when).to.equal(0);
      expect(r.modified_utc, when).to.not.equal("2001-01-01 00:00:00");
      // Still readable without a password: no post password was set.
      expect((await t.get(`/events/${id}`)).status, when).to.equal(200);
    };
    await check("create");
    const upd = await t.post(`/events/${id}`, { as: "admin", json: { ...INTERNALS, title: "Internals on update" } });
    expect(upd.status, JSON.stringify(upd.body)).to.equal(200);
    await check("update (json)");
    const form = await t.post(`/events/${id}`, { as: "admin", form: { ...INTERNALS, title: "Internals on form update" } });
    expect(form.status, JSON.stringify(form.body)).to.equal(200);
    await check("update (form)");
    // Users are untouched by all of it.
    const contributor = await t.site.engine.users.byLogin("contributor");
    expect(contributor?.role).to.equal("contributor");
  });

  it("`password` on an event update is accepted but never sets a post password (calendar-api.md §1.3, §4.8)", async () => {
    const id = await createEvent("editor", {});
    for (const as of ["editor", "admin"]) {
      const res = await t.post(`/events/${id}`, { as, json: { password: "sneaky-pass" } });
      expect(res.status).to.be.oneOf([200, 400]);
      expect((await row(id)).password).to.equal("");
    }
    for (const kind of ["venues", "organizers"]) {
      const name = kind === "venues" ? "venue" : "organizer";
      const created = await t.post(`/${kind}`, { as: "editor", json: { [name]: `Password ${kind}`, password: "sneaky-pass" } });
      expect(created.status).to.equal(201);
      const vid = (created.body as { id: number }).id;
      await t.post(`/${kind}/${vid}`, { as: "editor", json: { password: "sneaky-pass" } });
      expect((await row(vid)).password, kind).to.equal("");
    }
  });

  it("term counts and taxonomy cannot be set by a client", async () => {
    const cat = await t.post("/categories", { as: "author", json: { name: "Counted", count: 999, taxonomy: "post_tag", term_id: 1, term_group: 7 } });
    expect(cat.status, JSON.stringify(cat.body)).to.equal(201);
    const catId = (cat.body as { id: number }).id;
    const stored = (await t.site.engine.knex(t.site.engine.tables.terms).where({ id: catId }).first()) as { taxonomy: string; count: number; term_group: number };
    expect(stored.taxonomy).to.equal("calendar_events_cat");
    expect(Number(stored.count)).to.equal(0);
    expect(Number(stored.term_group)).to.equal(0);
    const upd = await t.post(`/categories/${catId}`, { as: "editor", json: { count: 500, taxonomy: "post_tag" } });
    expect(upd.status).to.equal(200);
    const after = (await t.site.engine.knex(t.site.engine.tables.terms).where({ id: catId }).first()) as { taxonomy: string; count: number };
    expect(Number(after.count)).to.equal(0);
    expect(after.taxonomy).to.equal("calendar_events_cat");
    // A category id sent to the tag routes is not a tag (no crossing taxonomies through a body field).
    const asTag = await t.post(`/tags/${catId}`, { as: "editor", json: { name: "Renamed via tags" } });
    expect(asTag.status).to.equal(400);
    expect(((await t.site.engine.knex(t.site.engine.tables.terms).where({ id: catId }).first()) as { name: string }).name).to.equal("Counted");
  });

  it("prototype keys in JSON and form bodies change nothing: no status, no author, no polluted prototype", async () => {
    const bodies: Array<{ json?: unknown; form?: Record<string, unknown> }> = [
      { json: JSON.parse(`{"title":"Proto 1","start_date":"2031-03-01 10:00:00","end_date":"2031-03-01 12:00:00","__proto__":{"status":"publish","author":${users.admin}}}`) },
      { json: { title: "Proto 2", ...FUTURE, constructor: { prototype: { status: "publish", author: users.admin } } } },
      // JSON.parse makes `__proto__` an own key (an object literal would set the prototype instead).
      { form: JSON.parse(`{"title":"Proto 3","start_date":"2031-03-01 10:00:00","end_date":"2031-03-01 12:00:00","__proto__":{"status":"publish"},"constructor":{"prototype":{"status":"publish"}}}`) as Record<string, unknown> },
    ];
    for (const body of bodies) {
      const res = await t.post("/events", { as: "contributor", ...body });
      expect(res.status, JSON.stringify(res.body)).to.be.oneOf([201, 400]);
      if (res.status === 201) {
        const r = await row((res.body as { id: number }).id);
        expect(r.status).to.equal("draft");
        expect(r.author).to.equal(users.contributor);
      }
    }
    // The site runs in this process: a polluted Object.prototype would show here.
    const probe: Record<string, unknown> = {};
    expect(probe.status).to.equal(undefined);
    expect(probe.author).to.equal(undefined);
    expect(Object.getOwnPropertyNames(Object.prototype)).to.not.include("status");
  });

  it("a subscriber's write attempts change nothing, whatever fields they carry", async () => {
    const before = (await t.site.engine.knex(t.site.engine.tables.posts).count({ n: "*" })) as Array<{ n: number | string }>;
    const target = await createEvent("admin", { title: "Subscriber target" });
    const attempts = [
      t.post("/events", { as: "subscriber", json: { title: "x", ...FUTURE, status: "publish", author: users.subscriber } }),
      t.post(`/events/${target}`, { as: "subscriber", json: { title: "x", id: target } }),
      t.request("DELETE", `/events/${target}`, { as: "subscriber" }),
      t.post("/venues", { as: "subscriber", json: { venue: "x" } }),
      t.post("/categories", { as: "subscriber", json: { name: "x" } }),
      t.post("/tags", { as: "contributor", json: { name: "x" } }),
    ];
    for (const res of await Promise.all(attempts)) expect(res.status).to.equal(403);
    const after = (await t.site.engine.knex(t.site.engine.tables.posts).count({ n: "*" })) as Array<{ n: number | string }>;
    expect(Number(after[0]?.n)).to.equal(Number(before[0]?.n) + 1);
    expect((await row(target)).title).to.equal("Subscriber target");
    expect((await row(target)).status).to.equal("publish");
  });
});
