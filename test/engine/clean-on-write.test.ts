/**
 * Safe by default: every text of every registered post type and taxonomy —
 * the calendar's, the book plugin's (examples/book-plugin.ts) and a type
 * generated here with a field of every kind — is cleaned by the engine on
 * write by its declared kind, whoever writes. The same hostile inputs
 * (test/vectors/sanitize/wordpress.json: `<script>`, `onerror=`,
 * `javascript:` and `data:` URLs, `onclick=`, `%0a`, a lone `<`, NUL, a very
 * long text…) go to every title, content, excerpt, typed string and text
 * field, meta value, slug, and term name, description and slug, through
 * `engine.posts.create/update` and `engine.terms.create/update` as a
 * contributor (no `unfiltered_html`) and as an administrator, and through
 * the book plugin's HTTP routes. What is stored is what WordPress stores:
 * byte for byte for plain text, textarea, URL, e-mail and slug kinds (its
 * own output, recorded from WordPress 6.1's PHP); for HTML kinds nothing
 * WordPress would drop, kept as written for the administrator; `raw` fields
 * (the opt-out) keep the input.
 */
import { expect } from "chai";
import { registerBookPlugin } from "../../examples/book-plugin";
import { isEngineError, OPERATOR, type CurrentUser, type FieldDef, type PostInput, type PostTypeConfig, type TaxonomyConfig, type TextKind } from "../../lib";
import { sanitizeField } from "../../lib/format/sanitize";
import { Registry } from "../../lib/posts/registry";
import { forEachDatabase } from "../support/databases";
import { startTestSite, type TestSite } from "../support/site";
import { expectNoMoreThanWordPress, isExactKind, WORDPRESS_SANITIZE, type SanitizeCase } from "../support/wordpress-sanitize";

/** A type of the test's own, with a field of every kind (and no kind: the defaults). */
const GADGET: PostTypeConfig = {
  capabilityType: ["gadget", "gadgets"],
  fields: {
    plain: { type: "string" },
    notes: { type: "text" },
    body: { type: "text", kind: "html" },
    teaser: { type: "string", length: 2000, kind: "basic-html" },
    label: { type: "string", kind: "text" },
    lines: { type: "text", kind: "textarea" },
    link: { type: "string", length: 2048, kind: "url" },
    contact: { type: "string", kind: "email" },
    handle: { type: "string", kind: "slug" },
    payload: { type: "text", kind: "raw" },
    count: { type: "integer" },
  },
  metaKinds: { source: "url", blob: "raw" },
};
const GADGET_TAGS: TaxonomyConfig = { objectTypes: ["gadget"], textKinds: { description: "html" } };

/** The kinds a type's texts have: what it declares, else the engine's defaults (WordPress's). */
function postKinds(config: PostTypeConfig): { columns: Record<"title" | "content" | "excerpt", TextKind>; fields: Record<string, TextKind>; meta: (key: string) => TextKind } {
  const fieldKind = (def: FieldDef): TextKind | undefined => def.kind ?? (def.type === "string" ? "text" : def.type === "text" ? "textarea" : undefined);
  const fields: Record<string, TextKind> = {};
  for (const [name, def] of Object.entries(config.fields ?? {})) {
    const kind = fieldKind(def);
    if (kind !== undefined) fields[name] = kind;
  }
  return {
    columns: { title: config.textKinds?.title ?? "basic-html", content: config.textKinds?.content ?? "html", excerpt: config.textKinds?.excerpt ?? "html" },
    fields,
    meta: (key) => config.metaKinds?.[key] ?? "text",
  };
}

function termKinds(config: TaxonomyConfig): Record<"name" | "description", TextKind> {
  return { name: config.textKinds?.name ?? "text", description: config.textKinds?.description ?? "basic-html" };
}

/** What WordPress would store for `c`'s input in a text of `kind`, written by a user who has (`keepsHtml`) or lacks `unfiltered_html`. */
function expected(kind: TextKind, c: SanitizeCase, keepsHtml: boolean): string {
  if (kind === "raw") return c.input;
  if (isExactKind(kind)) return c[kind];
  // HTML: kept as written, or calpress's kses (checked against WordPress's by `check`).
  return keepsHtml ? c.input : sanitizeField(kind, c.input, false);
}

/** The stored value is `expected`, and for cleaned HTML no more than WordPress keeps. */
function check(stored: unknown, kind: TextKind, c: SanitizeCase, keepsHtml: boolean, what: string): void {
  expect(stored, what).to.equal(expected(kind, c, keepsHtml));
  if ((kind === "html" || kind === "basic-html") && !keepsHtml) expectNoMoreThanWordPress(String(stored), c[kind], what);
}

const hasNul = (s: string): boolean => s.includes("\u0000");
/** The meta keys every write sets: one the type does not name (plain text), and each one it names. */
const metaKeys = (config: PostTypeConfig): string[] => ["note", ...Object.keys(config.metaKinds ?? {})];

forEachDatabase("the engine cleans every text of every type on write", (db) => {
  let t: TestSite;
  let drop: () => Promise<void>;
  let contributor: CurrentUser;
  let admin: CurrentUser;
  const adminLogin = { login: "cleaner-admin", password: "admin-pass-1234" };
  const authorLogin = { login: "cleaner-author", password: "author-pass-1234" };

  before(async () => {
    const made = await db.create();
    drop = made.drop;
    t = await startTestSite({ target: made.target, timezone: "UTC" });
    registerBookPlugin(t.site);
    t.site.engine.registerPostType("gadget", GADGET);
    t.site.engine.registerTaxonomy("gadget_tag", GADGET_TAGS);
    await t.site.migrate();
    const users = t.site.engine.users;
    const make = async (login: string, role: "administrator" | "author" | "contributor", password?: string): Promise<CurrentUser> => {
      const record = await users.ensure({ login, role });
      if (password) await users.addAppPassword(record.id, "test", password);
      return users.currentUser(record);
    };
    admin = await make(adminLogin.login, "administrator", adminLogin.password);
    await make(authorLogin.login, "author", authorLogin.password);
    contributor = await make("cleaner-contributor", "contributor");
  });
  after(async () => {
    await t?.close();
    await drop?.();
  });

  it("covers the calendar's types, the book plugin's and the generated one, each text with a kind", () => {
    const engine = t.site.engine;
    expect(engine.postTypeNames()).to.include.members(["event", "venue", "organizer", "attachment", "book", "gadget"]);
    expect(engine.taxonomyNames()).to.include.members(["calendar_events_cat", "post_tag", "genre", "gadget_tag"]);
    // The registry fills in each text field's kind; the book's ISBN is plain text, its title WordPress's title HTML.
    expect(engine.postType("book")?.fields?.isbn.kind).to.equal("text");
    expect(engine.postType("book")?.textKinds).to.deep.equal({ title: "basic-html", content: "html", excerpt: "html" });
    expect(engine.postType("gadget")?.fields?.notes.kind).to.equal("textarea");
    expect(engine.postType("gadget")?.fields?.count.kind).to.equal(undefined);
    expect(engine.taxonomy("genre")?.textKinds).to.deep.equal({ name: "text", description: "basic-html" });
    expect(engine.postType("event")?.textKinds?.title).to.equal("html");
  });

  for (const role of ["contributor", "administrator"] as const) {
    it(`stores what WordPress stores, written by ${role === "contributor" ? "a contributor" : "an administrator"}: every post type, create and update`, async () => {
      const engine = t.site.engine;
      const actor = role === "contributor" ? contributor : admin;
      const keeps = role === "administrator";
      for (const type of engine.postTypeNames()) {
        const config = engine.postType(type)!;
        const kinds = postKinds(config);
        const fieldLength = (name: string): number => (config.fields?.[name].type === "string" ? (config.fields[name].length ?? 255) : Infinity);
        for (const [i, c] of WORDPRESS_SANITIZE.cases.entries()) {
          const what = (text: string): string => `${type} ${text}, case ${i} ${JSON.stringify(c.input.slice(0, 60))}, ${role}`;
          if (hasNul(c.input)) continue; // refused, below
          // A field whose cleaned value is longer than its column is refused (and makes the whole write nothing): written alone below.
          const tooLong = Object.keys(kinds.fields).filter((f) => [...expected(kinds.fields[f], c, keeps)].length > fieldLength(f));
          const fields = Object.fromEntries(Object.keys(kinds.fields).filter((f) => !tooLong.includes(f)).map((f) => [f, c.input]));
          const meta = Object.fromEntries(metaKeys(config).map((k) => [k, c.input]));
          const texts = { title: c.input, content: c.input, excerpt: c.input, slug: c.input };
          const post = await engine.posts.create({ type, status: "draft", ...texts, fields, meta }, actor);
          for (const how of ["create", "update"] as const) {
            // The update sends the hostile input again: what it stores is cleaned as the create's was.
            if (how === "update") await engine.posts.update(post.id, { ...texts, fields, meta }, actor);
            const stored = (await engine.posts.get(post.id, { meta: true }))!;
            for (const column of ["title", "content", "excerpt"] as const) check(stored[column], kinds.columns[column], c, keeps, what(`${column} (${how})`));
            for (const f of Object.keys(fields)) check(stored.fields[f], kinds.fields[f], c, keeps, what(`${f} (${how})`));
            for (const k of metaKeys(config)) check(stored.meta?.[k], kinds.meta(k), c, keeps, what(`meta ${k} (${how})`));
            // Slugs are sanitize_title() for everyone (a draft keeps the one asked for; none asked: from the title, or none).
            if (c.slug !== "") expect(stored.slug, what(`slug (${how})`)).to.equal(c.slug);
          }
          for (const f of tooLong) {
            const before = await engine.posts.count({ type });
            const refused = await engine.posts.create({ type, status: "draft", title: "too long", fields: { [f]: c.input } }, actor).then(
              () => null,
              (err: unknown) => err,
            );
            expect(isEngineError(refused, "invalid_field"), what(`${f}: longer than its column once cleaned`)).to.equal(true);
            expect(await engine.posts.count({ type }), what(`${f}: nothing stored`)).to.equal(before);
          }
        }
      }
    });

    it(`stores what WordPress stores, written by ${role === "contributor" ? "a contributor" : "an administrator"}: every taxonomy, create and update`, async () => {
      const engine = t.site.engine;
      const actor = role === "contributor" ? contributor : admin;
      const keeps = role === "administrator";
      for (const taxonomy of engine.taxonomyNames()) {
        const kinds = termKinds(engine.taxonomy(taxonomy)!);
        for (const [i, c] of WORDPRESS_SANITIZE.cases.entries()) {
          const what = (text: string): string => `${taxonomy} ${text}, case ${i} ${JSON.stringify(c.input.slice(0, 60))}, ${role}`;
          if (hasNul(c.input)) continue;
          const name = expected(kinds.name, c, keeps);
          // A name that cleans to nothing, or past the name column, is refused (WordPress: empty_term_name).
          if (name === "" || [...name].length > 200) {
            const refused = await engine.terms.create({ taxonomy, name: c.input }, actor).then(() => null, (err: unknown) => err);
            expect(isEngineError(refused, "invalid_input"), what("name refused")).to.equal(true);
            continue;
          }
          const created = await engine.terms.create({ taxonomy, name: c.input, description: c.input, slug: c.input }, actor);
          check(created.name, kinds.name, c, keeps, what("name (create)"));
          check(created.description, kinds.description, c, keeps, what("description (create)"));
          if (c.slug !== "") expect(created.slug, what("slug (create)")).to.equal(c.slug);
          const stored = (await engine.terms.get(created.id))!;
          expect([stored.name, stored.description], what("as read back")).to.deep.equal([created.name, created.description]);
          await engine.terms.delete(created.id);

          const other = await engine.terms.create({ taxonomy, name: `before ${i}` }, actor);
          const updated = await engine.terms.update(other.id, { name: c.input, description: c.input }, actor);
          check(updated.name, kinds.name, c, keeps, what("name (update)"));
          check(updated.description, kinds.description, c, keeps, what("description (update)"));
          await engine.terms.delete(other.id);
        }
      }
    });
  }

  it("refuses a text holding NUL in every type and taxonomy, and stores nothing", async () => {
    const engine = t.site.engine;
    const nul = WORDPRESS_SANITIZE.cases.find((c) => hasNul(c.input))!.input;
    for (const type of engine.postTypeNames()) {
      const before = await engine.posts.count({ type });
      for (const input of [{ title: nul }, { content: nul }, { meta: { note: nul } }] as Array<Partial<PostInput>>) {
        const refused = await engine.posts.create({ type, status: "draft", ...input }, contributor).then(() => null, (err: unknown) => err);
        expect(isEngineError(refused, "invalid_input"), `${type} ${JSON.stringify(input)}`).to.equal(true);
      }
      expect(await engine.posts.count({ type }), type).to.equal(before);
    }
    for (const taxonomy of engine.taxonomyNames()) {
      const refused = await engine.terms.create({ taxonomy, name: "n", description: nul }, contributor).then(() => null, (err: unknown) => err);
      expect(isEngineError(refused, "invalid_input"), taxonomy).to.equal(true);
    }
  });

  it("cleans HTML for a write that names no user, and keeps it for the operator", async () => {
    const engine = t.site.engine;
    const hostile = '<a href="javascript:alert(1)" onclick="x()">x</a><script>alert(1)</script>';
    const anonymous = await engine.posts.create({ type: "gadget", title: hostile, content: hostile, fields: { body: hostile, plain: hostile } });
    expect([anonymous.title, anonymous.content, anonymous.fields.body, anonymous.fields.plain]).to.deep.equal(["<a>x</a>", "<a>x</a>", "<a>x</a>", "x"]);
    const operator = await engine.posts.create({ type: "gadget", title: hostile, content: hostile, fields: { body: hostile, plain: hostile } }, OPERATOR);
    // The operator's HTML is its own; plain text is plain text for everyone.
    expect([operator.title, operator.content, operator.fields.body, operator.fields.plain]).to.deep.equal([hostile, hostile, hostile, "x"]);
    const term = await engine.terms.create({ taxonomy: "genre", name: "Anonymous genre", description: hostile });
    expect(term.description).to.equal("<a>x</a>");
  });

  it("cleans what the book plugin's routes write, for the user who sends it", async () => {
    const engine = t.site.engine;
    for (const [i, c] of WORDPRESS_SANITIZE.cases.entries()) {
      if (hasNul(c.input) || c.input.trim() === "") continue;
      for (const [who, keeps] of [[authorLogin, false], [adminLogin, true]] as const) {
        const what = `book title, case ${i} ${JSON.stringify(c.input.slice(0, 60))}, ${who.login}`;
        const res = await t.post("/wp-json/library/v1/books", { as: who, json: { title: c.input } });
        expect(res.status, what).to.equal(201);
        const book = (await engine.posts.get((res.body as { id: number }).id))!;
        check(book.title, "basic-html", c, keeps, what);
      }
      // Genres are managed by editors and administrators, who keep their HTML; names are plain text for everyone.
      const what = `genre, case ${i} ${JSON.stringify(c.input.slice(0, 60))}`;
      if (c.text === "" || [...c.text].length > 200) continue;
      const res = await t.post("/wp-json/library/v1/genres", { as: adminLogin, json: { name: c.input, description: c.input } });
      expect(res.status, what).to.equal(201);
      const genre = (await engine.terms.get((res.body as { id: number }).id))!;
      check(genre.name, "text", c, true, what);
      check(genre.description, "basic-html", c, true, what);
      await engine.terms.delete(genre.id);
    }
  });

  it("cleans already-clean values to themselves: a second write of what was stored changes nothing", async () => {
    const engine = t.site.engine;
    for (const c of WORDPRESS_SANITIZE.cases) {
      if (hasNul(c.input)) continue;
      const fields = { plain: c.text.slice(0, 255), notes: c.input, body: c.input, teaser: c.input.slice(0, 2000), link: c.input.slice(0, 2048), contact: c.input, handle: c.input, payload: c.input };
      const first = await engine.posts.create({ type: "gadget", status: "draft", title: c.input, content: c.input, excerpt: c.input, fields }, contributor);
      const again = await engine.posts.update(first.id, { title: first.title, content: first.content, excerpt: first.excerpt, fields: first.fields }, contributor);
      expect([again.title, again.content, again.excerpt, again.fields], JSON.stringify(c.input.slice(0, 60))).to.deep.equal([first.title, first.content, first.excerpt, first.fields]);
    }
  });
});

describe("text kinds are checked when a type or taxonomy is registered", () => {
  it("refuses an unknown kind, and a kind on a field that holds no text", () => {
    const registry = new Registry();
    const unknown = "markdown" as TextKind;
    expect(() => registry.registerPostType("a", { fields: { n: { type: "integer", kind: "text" } } })).to.throw(/only string and text fields have a kind/);
    expect(() => registry.registerPostType("b", { fields: { s: { type: "string", kind: unknown } } })).to.throw(/unknown text kind markdown/);
    expect(() => registry.registerPostType("c", { textKinds: { title: unknown } })).to.throw(/unknown text kind/);
    expect(() => registry.registerPostType("d", { metaKinds: { k: unknown } })).to.throw(/unknown text kind/);
    expect(() => registry.registerTaxonomy("e", { objectTypes: [], textKinds: { description: unknown } })).to.throw(/unknown text kind/);
    expect(registry.postTypes.size + registry.taxonomies.size).to.equal(0);
  });
});
