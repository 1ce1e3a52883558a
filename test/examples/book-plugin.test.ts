import { expect } from "chai";
import { registerBookPlugin } from "../../examples/book-plugin";
import { forEachDatabase } from "../support/databases";
import { startTestSite, TestSite } from "../support/site";

forEachDatabase("examples/book-plugin: a host's own post type, taxonomy and namespace, with generated routes", (db) => {
  let t: TestSite;
  let dropDb: () => Promise<void>;
  const admin = { login: "librarian", password: "shelve-it-1234" };
  const reader = { login: "reader", password: "read-only-1234" };
  const writer = { login: "writer", password: "write-it-1234" };

  before(async () => {
    const created = await db.create();
    dropDb = created.drop;
    t = await startTestSite({ target: created.target });
    registerBookPlugin(t.site);
    await t.site.migrate();
    for (const [u, role] of [[admin, "administrator"], [reader, "subscriber"], [writer, "author"]] as const) {
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
    expect(res.body.routes).to.have.property("/library/v1/books/(?P<id>[\\d]+)");
  });

  it("creates, lists, reads, updates and trashes books with permissions and validation", async () => {
    const genre = await t.site.engine.terms.create({ taxonomy: "genre", name: "Science fiction" });
    const anon = await t.post("/wp-json/library/v1/books", { json: { title: "Dune" } });
    expect(anon.status).to.equal(401);
    const sub = await t.post("/wp-json/library/v1/books", { as: reader, json: { title: "Dune" } });
    expect(sub.status).to.equal(403);
    // Typed fields are WordPress's registered meta: checked before anything is written.
    const bad = await t.post("/wp-json/library/v1/books", { as: admin, json: { title: "Dune", meta: { pages: "many" } } });
    expect(bad.status).to.equal(400);
    expect(bad.body).to.deep.include({ code: "rest_invalid_type", message: "meta.pages is not of type integer." });
    expect((await t.get("/wp-json/library/v1/books")).headers.get("x-wp-total")).to.equal("0");

    const created = await t.post("/wp-json/library/v1/books", {
      as: admin,
      form: { title: "Dune", status: "publish", meta: { isbn: "978-0441013593", pages: "412" }, genres: `${genre.id}` },
    });
    expect(created.status).to.equal(201);
    expect(created.body).to.include({ slug: "dune", status: "publish", type: "book" });
    expect(created.body.title).to.deep.equal({ raw: "Dune", rendered: "Dune" });
    expect(created.body.meta).to.deep.equal({ isbn: "978-0441013593", pages: 412 });
    expect(created.body.genres).to.deep.equal([genre.id]);

    const list = await t.get("/wp-json/library/v1/books", { query: { genres: genre.id } });
    expect(list.status).to.equal(200);
    expect(list.headers.get("x-wp-total")).to.equal("1");
    expect(list.body.map((b: { id: number }) => b.id)).to.deep.equal([created.body.id]);
    // A typed field filters the list (calpress addition).
    expect((await t.get("/wp-json/library/v1/books", { query: { isbn: "978-0441013593", _fields: "id" } })).body).to.deep.equal([{ id: created.body.id }]);

    const updated = await t.request("PATCH", `/wp-json/library/v1/books/${created.body.id}`, { as: admin, json: { meta: { pages: 500 } } });
    expect(updated.status).to.equal(200);
    expect(updated.body.meta).to.deep.equal({ isbn: "978-0441013593", pages: 500 });

    const trashed = await t.request("DELETE", `/wp-json/library/v1/books/${created.body.id}`, { as: admin });
    expect(trashed.body.status).to.equal("trash");
    const gone = await t.get(`/wp-json/library/v1/books/${created.body.id}`);
    expect(gone.status).to.equal(401);
    expect(gone.body.code).to.equal("rest_forbidden");
  });

  it("says where books and genres live: /wp/v2/types and /wp/v2/taxonomies show them", async () => {
    const book = await t.get("/wp-json/wp/v2/types/book", { as: admin, query: { context: "edit" } });
    expect(book.status).to.equal(200);
    expect(book.body).to.deep.include({ slug: "book", name: "Books", rest_namespace: "library/v1", rest_base: "books", taxonomies: ["genre"], labels: { name: "Books", singular_name: "Book" } });
    expect(book.body.capabilities).to.include({ edit_posts: "edit_books", publish_posts: "publish_books" });
    const genre = await t.get("/wp-json/wp/v2/taxonomies/genre");
    expect(genre.body).to.deep.equal({
      name: "Genres",
      slug: "genre",
      description: "",
      hierarchical: true,
      rest_base: "genres",
      rest_namespace: "library/v1",
      types: ["book"],
      labels: { name: "Genres", singular_name: "Genre" },
    });
    const index = await t.get("/wp-json/library/v1");
    expect(Object.keys(index.body.routes)).to.include.members(["/library/v1/books", "/library/v1/genres", "/library/v1/genres/(?P<id>[\\d]+)"]);
    expect(index.body.routes["/library/v1/genres"].endpoints[1].args.name).to.deep.include({ type: "string", required: true });
    // The extension's arguments replace the generated ones of the same name.
    expect(index.body.routes["/library/v1/books"].endpoints[0].args.orderby).to.deep.include({ type: "string", default: "title" });
    expect(index.body.routes["/library/v1/books"].endpoints[1].args.meta.properties).to.have.keys("isbn", "pages");
  });

  it("sorts the book list by title, date or id, either way", async () => {
    const ids: number[] = [];
    for (const title of ["Middlemarch", "Beloved", "Ulysses"]) {
      ids.push((await t.post("/wp-json/library/v1/books", { as: admin, json: { title, status: "publish" } })).body.id);
    }
    const titles = async (query: Record<string, string>) => (await t.get("/wp-json/library/v1/books", { query })).body.map((b: { title: { rendered: string } }) => b.title.rendered);
    expect(await titles({})).to.deep.equal(["Beloved", "Middlemarch", "Ulysses"]);
    expect(await titles({ order: "desc" })).to.deep.equal(["Ulysses", "Middlemarch", "Beloved"]);
    expect(await titles({ orderby: "id", order: "desc" })).to.deep.equal(["Ulysses", "Beloved", "Middlemarch"]);
    expect(await titles({ orderby: "date" })).to.deep.equal(["Middlemarch", "Beloved", "Ulysses"]);
    const bad = await t.get("/wp-json/library/v1/books", { query: { orderby: "isbn" } });
    expect(bad.status).to.equal(400);
    expect(bad.body.data.params).to.have.property("orderby");
    for (const id of ids) await t.site.engine.posts.delete(id);
  });

  it("creates, lists, reads, updates and deletes genres with the taxonomy's capabilities", async () => {
    const anon = await t.post("/wp-json/library/v1/genres", { json: { name: "Poetry" } });
    expect(anon.status).to.equal(401);
    // manage_categories by default: an author may assign genres, not make them.
    for (const who of [reader, writer]) {
      const refused = await t.post("/wp-json/library/v1/genres", { as: who, json: { name: "Poetry" } });
      expect(refused.status).to.equal(403);
      expect(refused.body.code).to.equal("rest_cannot_create");
    }
    const missing = await t.post("/wp-json/library/v1/genres", { as: admin, json: { description: "no name" } });
    expect(missing.status).to.equal(400);
    expect(missing.body.code).to.equal("rest_missing_callback_param");

    const fiction = await t.post("/wp-json/library/v1/genres", { as: admin, json: { name: "Fiction", description: "Made up." } });
    expect(fiction.status).to.equal(201);
    expect(fiction.headers.get("location")).to.equal(`${t.root}library/v1/genres/${fiction.body.id}`);
    expect(fiction.body).to.deep.include({ id: fiction.body.id, name: "Fiction", slug: "fiction", parent: 0, description: "Made up.", count: 0, taxonomy: "genre", meta: [] });
    expect(fiction.body.link).to.equal(`${t.home}/genre/fiction/`);
    const dup = await t.post("/wp-json/library/v1/genres", { as: admin, json: { name: "Fiction" } });
    expect(dup.status).to.equal(400);
    expect(dup.body).to.deep.include({ code: "term_exists" });
    expect(dup.body.data.term_id).to.equal(fiction.body.id);
    const orphan = await t.post("/wp-json/library/v1/genres", { as: admin, json: { name: "Noir", parent: 99999 } });
    expect(orphan.status).to.equal(400);
    expect(orphan.body).to.deep.include({ code: "rest_term_invalid", message: "Parent term does not exist." });
    const noir = await t.post("/wp-json/library/v1/genres", { as: admin, form: { name: "Noir", parent: String(fiction.body.id), slug: "roman-noir" } });
    expect(noir.body).to.include({ name: "Noir", slug: "roman-noir", parent: fiction.body.id });

    const children = await t.get("/wp-json/library/v1/genres", { query: { parent: fiction.body.id } });
    expect(children.body.map((g: { name: string }) => g.name)).to.deep.equal(["Noir"]);
    const found = await t.get("/wp-json/library/v1/genres", { query: { search: "fict" } });
    expect(found.body.map((g: { name: string }) => g.name)).to.deep.include("Fiction");
    const paged = await t.get("/wp-json/library/v1/genres", { query: { per_page: 1 } });
    expect(paged.body).to.have.length(1);
    expect(Number(paged.headers.get("x-wp-totalpages"))).to.be.greaterThan(1);
    expect(paged.headers.get("link")).to.contain('rel="next"');
    expect((await t.get(`/wp-json/library/v1/genres/${noir.body.id}`)).body).to.deep.equal(noir.body);
    const none = await t.get("/wp-json/library/v1/genres/99999");
    expect(none.status).to.equal(404);
    expect(none.body).to.deep.include({ code: "rest_term_invalid", message: "Term does not exist." });

    const renamed = await t.request("PATCH", `/wp-json/library/v1/genres/${noir.body.id}`, { as: admin, json: { name: "Crime" } });
    expect(renamed.status).to.equal(200);
    expect(renamed.body).to.include({ name: "Crime", slug: "roman-noir", parent: fiction.body.id });
    expect((await t.request("PUT", `/wp-json/library/v1/genres/${noir.body.id}`, { as: writer, json: { name: "Pulp" } })).status).to.equal(403);
    const loop = await t.request("PATCH", `/wp-json/library/v1/genres/${fiction.body.id}`, { as: admin, json: { parent: noir.body.id } });
    expect(loop.status).to.equal(400);
    expect(loop.body.data.params).to.have.property("parent");

    const trash = await t.request("DELETE", `/wp-json/library/v1/genres/${noir.body.id}`, { as: admin });
    expect(trash.status).to.equal(501);
    expect(trash.body.code).to.equal("rest_trash_not_supported");
    expect((await t.request("DELETE", `/wp-json/library/v1/genres/${noir.body.id}`, { as: writer, query: { force: "true" } })).status).to.equal(403);
    const deleted = await t.request("DELETE", `/wp-json/library/v1/genres/${noir.body.id}`, { as: admin, query: { force: "true" } });
    expect(deleted.status).to.equal(200);
    const { _links: _renamedLinks, ...previous } = renamed.body;
    expect(deleted.body).to.deep.equal({ deleted: true, previous });
    expect((await t.get(`/wp-json/library/v1/genres/${noir.body.id}`)).status).to.equal(404);
  });
});
