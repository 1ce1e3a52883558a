/**
 * Issue 19 item 6: a filter that names an event, venue or organizer by ID
 * answers for a post the user may not read exactly as for an ID that names
 * no post (status, code, message, body, headers), so hidden IDs can neither
 * leak their venue, organizers and terms nor be told from missing ones. On
 * every database.
 */
import { expect } from "chai";
import type { PostInput } from "../../lib/posts/types";
import type { Fixture } from "../../lib/fixtures";
import { forEachDatabase, type TestDatabase } from "../support/databases";
import { startTestSite, type ApiResponse, type TestSite } from "../support/site";

const USERS = [
  { login: "admin", role: "administrator", app_password: "admin-pass" },
  { login: "editor", role: "editor", app_password: "editor-pass" },
  { login: "author", role: "author", app_password: "author-pass" },
  { login: "author2", role: "author", app_password: "author2-pass" },
  { login: "contributor", role: "contributor", app_password: "contributor-pass" },
] as const;

const FIXTURE: Fixture = { version: 1, name: "filter-visibility", options: { default_language: "en", posts_per_page: 10 }, users: [...USERS] };

/** An ID no post has (same number of digits does not matter: the body is compared with the ID swapped). */
const MISSING = 987654;

/** The filters that take an event ID, and those that take a venue or organizer ID. */
const EVENT_FILTERS: Array<[string, string]> = [
  ["/venues", "event"],
  ["/organizers", "event"],
  ["/categories", "event"],
  ["/categories", "post"],
  ["/tags", "event"],
  ["/tags", "post"],
  ["/events", "post_parent"],
];
const VENUE_FILTERS: Array<[string, string]> = [["/events", "venue"]];
const ORGANIZER_FILTERS: Array<[string, string]> = [["/events", "organizer"]];

forEachDatabase("filters by ID: hidden posts answer as missing ones", (target) => {
  let db: TestDatabase;
  let ts: TestSite;
  const users: Record<string, number> = {};
  const ids: Record<string, number> = {};

  const post = async (key: string, input: PostInput): Promise<number> => {
    ids[key] = (await ts.site.engine.posts.create(input)).id;
    return ids[key];
  };

  before(async () => {
    db = await target.create();
    ts = await startTestSite({ target: db.target, fixture: FIXTURE });
    for (const u of USERS) users[u.login] = (await ts.site.engine.users.byLogin(u.login))!.id;
    const cat = await ts.site.engine.terms.create({ taxonomy: "calendar_events_cat", name: "Secret Category" });
    const tag = await ts.site.engine.terms.create({ taxonomy: "post_tag", name: "secret-tag" });
    const venue = (key: string, status: PostInput["status"], author: number): Promise<number> =>
      post(key, { type: "venue", title: `Venue ${key}`, status, author });
    const organizer = (key: string, status: PostInput["status"], author: number): Promise<number> =>
      post(key, { type: "organizer", title: `Organizer ${key}`, status, author });
    await venue("v-pub", "publish", users.editor);
    await venue("v-draft", "draft", users.author2);
    await venue("v-private", "private", users.editor);
    await venue("v-trash", "trash", users.editor);
    await organizer("o-pub", "publish", users.editor);
    await organizer("o-draft", "draft", users.author2);
    await organizer("o-pending", "pending", users.author2);
    const start = "2031-05-05 18:00:00";
    const event = (key: string, status: PostInput["status"], author: number, extra: Partial<PostInput> = {}): Promise<number> =>
      post(key, {
        type: "event",
        title: `Event ${key}`,
        status,
        author,
        dateLocal: status === "future" ? "2030-01-01 00:00:00" : "2024-01-01 00:00:00",
        fields: { start_local: start, end_local: "2031-05-05 20:00:00", start_utc: start, end_utc: "2031-05-05 20:00:00", timezone: "UTC" },
        links: { venue: [ids["v-pub"]], organizer: [ids["o-pub"]] },
        terms: { calendar_events_cat: [cat.id], post_tag: [tag.id] },
        ...extra,
      });
    await event("e-pub", "publish", users.editor);
    await event("e-draft", "draft", users.author2);
    await event("e-pending", "pending", users.author2);
    await event("e-private", "private", users.editor);
    await event("e-future", "future", users.editor);
    await event("e-trash", "trash", users.editor);
    await event("e-protected", "publish", users.editor, { password: "pw" });
    // Events at the hidden venues and organizers, so that a leak would show them.
    await event("e-at-hidden", "publish", users.editor, { links: { venue: [ids["v-draft"]], organizer: [ids["o-draft"]] } });
  });

  after(async () => {
    await ts?.close();
    await db?.drop();
  });

  /** What a client can compare: status, headers (but Date) and the body, with the ID asked for written as MISSING. */
  const seen = (res: ApiResponse, asked: number): { status: number; headers: Record<string, string>; body: string } => {
    const headers: Record<string, string> = {};
    res.headers.forEach((value, name) => {
      // The length follows the body (whose ID is swapped); the date the clock.
      if (name !== "date" && name !== "content-length") headers[name] = value;
    });
    return { status: res.status, headers, body: res.text.replace(new RegExp(`\\b${asked}\\b`, "g"), String(MISSING)) };
  };

  /** A filtered list; the members read here. */
  type ListBody = { venues: Array<{ id: number }>; tags: Array<{ name: string }> };
  const ask = (path: string, name: string, id: number, as: string | undefined): Promise<ApiResponse<ListBody>> =>
    ts.get(path, { query: { [name]: id }, ...(as !== undefined ? { as } : {}) });

  /** Who may not read what: anonymous readers nothing unpublished; authors and contributors not others' unpublished posts. */
  const cases: Array<{ who: string; as?: string; events: string[]; venues: string[]; organizers: string[] }> = [
    {
      who: "anonymous",
      events: ["e-draft", "e-pending", "e-private", "e-future", "e-trash", "e-protected"],
      venues: ["v-draft", "v-private", "v-trash"],
      organizers: ["o-draft", "o-pending"],
    },
    {
      who: "an author (another author's drafts)",
      as: "author",
      events: ["e-draft", "e-pending", "e-private", "e-future", "e-trash", "e-protected"],
      venues: ["v-draft", "v-private", "v-trash"],
      organizers: ["o-draft", "o-pending"],
    },
    {
      who: "a contributor",
      as: "contributor",
      events: ["e-draft", "e-pending", "e-private", "e-future", "e-trash", "e-protected"],
      venues: ["v-draft", "v-private", "v-trash"],
      organizers: ["o-draft", "o-pending"],
    },
  ];

  for (const c of cases) {
    it(`answers ${c.who} for a hidden ID exactly as for a missing one`, async () => {
      const groups: Array<[Array<[string, string]>, string[]]> = [
        [EVENT_FILTERS, c.events],
        [VENUE_FILTERS, c.venues],
        [ORGANIZER_FILTERS, c.organizers],
      ];
      for (const [filters, hidden] of groups) {
        for (const [path, name] of filters) {
          const missing = seen(await ask(path, name, MISSING, c.as), MISSING);
          expect(missing.status, `${path}?${name}=${MISSING}`).to.equal(400);
          for (const key of hidden) {
            const res = await ask(path, name, ids[key], c.as);
            expect(seen(res, ids[key]), `${c.who}: ${path}?${name}=<${key}>`).to.deep.equal(missing);
          }
        }
      }
    });
  }

  it("still answers readers who may read the post (its author, editors)", async () => {
    // The hidden posts are real filters to those who may read them.
    const venues = await ask("/venues", "event", ids["e-draft"], "author2");
    expect(venues.status).to.equal(200);
    expect(venues.body.venues.map((v) => v.id)).to.deep.equal([ids["v-pub"]]);
    for (const [path, name] of EVENT_FILTERS) {
      for (const key of ["e-draft", "e-private", "e-future", "e-protected"]) {
        expect((await ask(path, name, ids[key], "editor")).status, `editor: ${path}?${name}=<${key}>`).to.equal(200);
      }
    }
    const tags = await ask("/tags", "event", ids["e-pending"], "author2");
    expect(tags.body.tags.map((t) => t.name)).to.deep.equal(["secret-tag"]);
    expect((await ask("/events", "venue", ids["v-draft"], "author2")).status).to.equal(200);
    expect((await ask("/events", "organizer", ids["o-pending"], "author2")).status).to.equal(200);
    expect((await ask("/events", "venue", ids["v-private"], "editor")).status).to.equal(200);
    // Published posts answer everyone.
    expect((await ask("/venues", "event", ids["e-pub"], undefined)).status).to.equal(200);
    expect((await ask("/events", "venue", ids["v-pub"], undefined)).status).to.equal(200);
  });

  it("names no hidden post in a list of IDs either", async () => {
    const res = await ts.get("/events", { query: { venue: `${ids["v-pub"]},${ids["v-draft"]}` } });
    const missing = await ts.get("/events", { query: { venue: `${ids["v-pub"]},${MISSING}` } });
    expect(seen(res, ids["v-draft"])).to.deep.equal(seen(missing, MISSING));
  });
});
