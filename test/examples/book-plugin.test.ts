import { expect } from "chai";
import { registerBookPlugin } from "../../examples/book-plugin";
import { forEachDatabase } from "../support/databases";
import { startTestSite, TestSite } from "../support/site";

forEachDatabase("examples/book-plugin: a host's own post type, taxonomy and namespace", (db) => {
  let t: TestSite;
  let dropDb: () => Promise<void>;
  const admin = { login: "librarian", password: "shelve-it-1234" };
  const reader = { login: "reader", password: "read-only-1234" };

  before(async () => {
    const created = await db.create();
    dropDb = created.drop;
    t = await startTestSite({ target: created.target });
    registerBookPlugin(t.site);
    await t.site.migrate();
    for (const [u, role] of [[admin, "administrator"], [reader, "subscriber"]] as const) {
      const rec = await t.site.engine.users.ensure({ login: u.login, role });
      await t.site.engine.users.addAppPassword(rec.id, "test", u.password);
    }
  });
  after(async () => {
    await t?.close();
    await dropDb?.();
  });

  it("appears in the site index next to the calendar", async () => {
    const res = await t.get("/wp-json/");
    expect(res.body.namespaces).to.include.members(["calendar/events/v1", "library/v1"]);
    expect(res.body.routes).to.have.property("/library/v1/books/(?P<id>\\d+)");
  });

  it("creates, lists, reads, updates and trashes books with permissions and validation", async () => {
    const genre = await t.site.engine.terms.create({ taxonomy: "genre", name: "Science fiction" });
    const anon = await t.post("/wp-json/library/v1/books", { json: { title: "Dune" } });
    expect(anon.status).to.equal(401);
    const sub = await t.post("/wp-json/library/v1/books", { as: reader, json: { title: "Dune" } });
    expect(sub.status).to.equal(403);
    const bad = await t.post("/wp-json/library/v1/books", { as: admin, json: { title: "Dune", pages: "many" } });
    expect(bad.status).to.equal(400);
    expect(bad.body.code).to.equal("rest_invalid_param");

    const created = await t.post("/wp-json/library/v1/books", { as: admin, form: { title: "Dune", isbn: "978-0441013593", pages: "412", genres: `${genre.id}` } });
    expect(created.status).to.equal(201);
    expect(created.body).to.include({ title: "Dune", slug: "dune", isbn: "978-0441013593", pages: 412 });
    expect(created.body.genres).to.deep.equal([genre.id]);

    const list = await t.get("/wp-json/library/v1/books", { query: { genre: genre.id } });
    expect(list.status).to.equal(200);
    expect(list.headers.get("x-wp-total")).to.equal("1");
    expect(list.body.map((b: { id: number }) => b.id)).to.deep.equal([created.body.id]);

    const updated = await t.request("PATCH", `/wp-json/library/v1/books/${created.body.id}`, { as: admin, json: { pages: 500 } });
    expect(updated.status).to.equal(200);
    expect(updated.body.pages).to.equal(500);
    expect(updated.body.isbn).to.equal("978-0441013593");

    const trashed = await t.request("DELETE", `/wp-json/library/v1/books/${created.body.id}`, { as: admin });
    expect(trashed.body.status).to.equal("trash");
    const gone = await t.get(`/wp-json/library/v1/books/${created.body.id}`);
    expect(gone.status).to.equal(404);
  });
});
