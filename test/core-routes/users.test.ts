/**
 * `GET /wp/v2/users/me` and `GET /wp/v2/users` (lib/core-routes): the
 * logged-in user as each role sees itself, WordPress's codes and messages
 * for anonymous and refused requests, `who=authors` with search, include
 * and paging.
 */
import { expect } from "chai";
import { forEachDatabase, type TestDatabase } from "../support/databases";
import { startTestSite, type TestSite } from "../support/site";

interface UserView {
  id: number;
  name: string;
  slug: string;
}

forEachDatabase("wp/v2 users", (target) => {
  let db: TestDatabase;
  let ts: TestSite;
  const ids: Record<string, number> = {};

  before(async () => {
    db = await target.create();
    ts = await startTestSite({ target: db.target, fixture: "minimal" });
    for (const login of ["admin", "editor", "author", "contributor", "subscriber"]) ids[login] = (await ts.site.engine.users.byLogin(login))!.id;
  });

  after(async () => {
    await ts?.close();
    await db?.drop();
  });

  const names = (body: UserView[]) => body.map((u) => u.name);

  it("/users/me answers the logged-in user in the view shape", async () => {
    const res = await ts.get("/wp-json/wp/v2/users/me", { as: "author" });
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({
      id: ids.author,
      name: "Aud Author",
      url: "",
      description: "",
      link: `${ts.home}/author/author/`,
      slug: "author",
      avatar_urls: {},
    });
  });

  it("/users/me is 401 rest_not_logged_in for an anonymous request, in both contexts", async () => {
    for (const query of [{}, { context: "edit" }] as Array<Record<string, string>>) {
      const res = await ts.get("/wp-json/wp/v2/users/me", { query });
      expect(res.status).to.equal(401);
      expect(res.body).to.deep.equal({ code: "rest_not_logged_in", message: "You are not currently logged in.", data: { status: 401 } });
    }
  });

  it("/users/me in the edit context adds the login, e-mail, role and every primitive capability, as each role has them", async () => {
    const expected: Record<string, { role: string; has: string[]; lacks: string[] }> = {
      admin: { role: "administrator", has: ["list_users", "manage_options", "edit_others_events", "manage_categories", "read"], lacks: [] },
      editor: { role: "editor", has: ["edit_others_events", "publish_venues", "manage_categories", "unfiltered_html", "read"], lacks: ["list_users", "manage_options"] },
      author: { role: "author", has: ["edit_events", "publish_events", "edit_published_events", "upload_files", "read"], lacks: ["edit_others_events", "manage_categories", "list_users"] },
      contributor: { role: "contributor", has: ["edit_events", "delete_events", "edit_posts", "read"], lacks: ["publish_events", "upload_files"] },
      subscriber: { role: "subscriber", has: ["read"], lacks: ["edit_events", "edit_posts"] },
    };
    for (const [login, { role, has, lacks }] of Object.entries(expected)) {
      const res = await ts.get("/wp-json/wp/v2/users/me", { as: login, query: { context: "edit" } });
      expect(res.status, login).to.equal(200);
      expect(Object.keys(res.body), login).to.deep.equal(["id", "username", "name", "email", "url", "description", "link", "slug", "roles", "capabilities", "avatar_urls"]);
      expect(res.body, login).to.include({ id: ids[login], username: login, email: `${login}@example.com`, slug: login });
      expect(res.body.roles, login).to.deep.equal([role]);
      const caps = res.body.capabilities as Record<string, unknown>;
      for (const cap of has) expect(caps[cap], `${login} ${cap}`).to.equal(true);
      for (const cap of lacks) expect(caps, `${login} ${cap}`).to.not.have.property(cap);
      expect(Object.values(caps).every((v) => v === true), login).to.equal(true);
    }
    const subscriber = await ts.get("/wp-json/wp/v2/users/me", { as: "subscriber", query: { context: "edit" } });
    expect(subscriber.body.capabilities).to.deep.equal({ read: true });
    expect((await ts.get("/wp-json/wp/v2/users/me", { as: "admin", query: { context: "nonsense" } })).body.code).to.equal("rest_invalid_param");
  });

  it("who=authors lists the users who may author (contributors and up) by name, with paging headers", async () => {
    for (const login of ["contributor", "author", "editor", "admin"]) {
      const res = await ts.get("/wp-json/wp/v2/users", { as: login, query: { who: "authors" } });
      expect(res.status, login).to.equal(200);
      expect(names(res.body), login).to.deep.equal(["Ada Admin", "Aud Author", "Cora Contributor", "Eddie Editor"]);
      expect(res.headers.get("x-wp-total")).to.equal("4");
      expect(res.headers.get("x-wp-totalpages")).to.equal("1");
    }
    const res = await ts.get("/wp-json/wp/v2/users", { as: "author", query: { who: "authors" } });
    expect(res.body[0]).to.deep.equal({ id: ids.admin, name: "Ada Admin", url: "", description: "", link: `${ts.home}/author/admin/`, slug: "admin", avatar_urls: {} });

    const page2 = await ts.get("/wp-json/wp/v2/users", { as: "author", query: { who: "authors", per_page: 3, page: 2 } });
    expect(names(page2.body)).to.deep.equal(["Eddie Editor"]);
    expect(page2.headers.get("x-wp-totalpages")).to.equal("2");
    expect(page2.headers.get("link")).to.include(`<${ts.root}wp/v2/users?who=authors&per_page=3>; rel="prev"`);
    const past = await ts.get("/wp-json/wp/v2/users", { as: "author", query: { who: "authors", per_page: 3, page: 3 } });
    expect(past.status).to.equal(400);
    expect(past.body.code).to.equal("rest_invalid_page_number");
    expect((await ts.get("/wp-json/wp/v2/users", { as: "author", query: { who: "authors", per_page: 101 } })).body.code).to.equal("rest_invalid_param");
  });

  it("who=authors takes search (case-insensitive, login and name) and include", async () => {
    expect(names((await ts.get("/wp-json/wp/v2/users", { as: "author", query: { who: "authors", search: "AUD" } })).body)).to.deep.equal(["Aud Author"]);
    expect(names((await ts.get("/wp-json/wp/v2/users", { as: "author", query: { who: "authors", search: "contrib" } })).body)).to.deep.equal(["Cora Contributor"]);
    // The subscriber matches the search but is no author.
    expect((await ts.get("/wp-json/wp/v2/users", { as: "author", query: { who: "authors", search: "sid" } })).body).to.deep.equal([]);
    // LIKE wildcards are taken literally.
    expect((await ts.get("/wp-json/wp/v2/users", { as: "author", query: { who: "authors", search: "%" } })).body).to.deep.equal([]);
    // E-mail addresses are searched only for users who may list users (as WordPress).
    expect((await ts.get("/wp-json/wp/v2/users", { as: "author", query: { who: "authors", search: "example.com" } })).body).to.deep.equal([]);
    expect((await ts.get("/wp-json/wp/v2/users", { as: "admin", query: { who: "authors", search: "example.com" } })).body).to.have.length(4);
    const included = await ts.get("/wp-json/wp/v2/users", { as: "author", query: { who: "authors", include: `${ids.editor},${ids.subscriber},${ids.author}` } });
    expect(names(included.body)).to.deep.equal(["Aud Author", "Eddie Editor"]);
    expect(included.headers.get("x-wp-total")).to.equal("2");
  });

  it("who=authors needs a user who may edit posts of a shown type: rest_forbidden_who", async () => {
    const message = "Sorry, you are not allowed to query users by this parameter.";
    const sub = await ts.get("/wp-json/wp/v2/users", { as: "subscriber", query: { who: "authors" } });
    expect(sub.status).to.equal(403);
    expect(sub.body).to.deep.equal({ code: "rest_forbidden_who", message, data: { status: 403 } });
    const anon = await ts.get("/wp-json/wp/v2/users", { query: { who: "authors" } });
    expect(anon.status).to.equal(401);
    expect(anon.body).to.deep.equal({ code: "rest_forbidden_who", message, data: { status: 401 } });
    expect((await ts.get("/wp-json/wp/v2/users", { as: "author", query: { who: "everyone" } })).body.code).to.equal("rest_invalid_param");
  });

  it("without who=authors, only users who may list users (administrators): rest_forbidden otherwise", async () => {
    const all = await ts.get("/wp-json/wp/v2/users", { as: "admin" });
    expect(all.status).to.equal(200);
    expect(names(all.body)).to.deep.equal(["Ada Admin", "Aud Author", "Cora Contributor", "Eddie Editor", "Sid Subscriber"]);
    const editor = await ts.get("/wp-json/wp/v2/users", { as: "editor" });
    expect(editor.status).to.equal(403);
    expect(editor.body).to.deep.equal({ code: "rest_forbidden", message: "Sorry, you are not allowed to do that.", data: { status: 403 } });
    const anon = await ts.get("/wp-json/wp/v2/users");
    expect(anon.status).to.equal(401);
    expect(anon.body.code).to.equal("rest_forbidden");
  });

  it("the edit context of the list is for users who may list users: rest_forbidden_context", async () => {
    const editor = await ts.get("/wp-json/wp/v2/users", { as: "editor", query: { who: "authors", context: "edit" } });
    expect(editor.status).to.equal(403);
    expect(editor.body).to.deep.equal({ code: "rest_forbidden_context", message: "Sorry, you are not allowed to list users.", data: { status: 403 } });
    const admin = await ts.get("/wp-json/wp/v2/users", { as: "admin", query: { context: "edit", search: "sid" } });
    expect(admin.status).to.equal(200);
    expect(admin.body).to.have.length(1);
    expect(admin.body[0]).to.deep.include({ id: ids.subscriber, username: "subscriber", email: "subscriber@example.com", roles: ["subscriber"], capabilities: { read: true } });
  });
});
