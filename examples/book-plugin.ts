/**
 * A site builder's own content type and routes, registered through the same
 * public API the calendar uses: a `book` post type with typed fields, a
 * hierarchical `genre` taxonomy and a `library/v1` namespace with list, read,
 * create, update and delete routes for both. `rest` says where each lives,
 * so `/wp/v2/types` and `/wp/v2/taxonomies` (and an editor built on them)
 * find them. The README shows this file.
 */
import { isEngineError, paginate, RestError, RestResponse, type RestRequest, type Site, type Term } from "../lib";

/** What both collections (books, genres) take: a page and a search. */
const listArgs = {
  page: { type: "integer", minimum: 1, default: 1 },
  per_page: { type: "integer", minimum: 1, maximum: 100, default: 10 },
  search: { type: "string" },
} as const;

export function registerBookPlugin(site: Site): void {
  const { engine, rest } = site;

  engine.registerPostType("book", {
    labels: { singular: "Book", plural: "Books" },
    rest: { namespace: "library/v1", base: "books" },
    capabilityType: ["book", "books"],
    fields: {
      isbn: { type: "string", length: 20, index: true },
      pages: { type: "integer" },
    },
  });
  engine.registerTaxonomy("genre", {
    objectTypes: ["book"],
    hierarchical: true,
    labels: { singular: "Genre", plural: "Genres" },
    rest: { namespace: "library/v1", base: "genres" },
  });

  const toRecord = (p: { id: number; title: string; slug: string; status: string; fields: Record<string, unknown>; termIds?: Record<string, number[]> }) => ({
    id: p.id,
    title: p.title,
    slug: p.slug,
    status: p.status,
    isbn: p.fields.isbn,
    pages: p.fields.pages,
    genres: p.termIds?.genre ?? [],
  });

  const load = async (req: RestRequest<{ id: number }>) => {
    const book = await engine.posts.get(req.params.id, { terms: true });
    if (!book || book.type !== "book" || !engine.posts.canRead(book, req.user)) {
      throw new RestError("book_not_found", "No book with that ID.", 404);
    }
    return book;
  };

  const writable = {
    title: { type: "string", minLength: 1, description: "Title of the book." },
    isbn: { type: "string", pattern: "^[0-9Xx-]{10,17}$", description: "ISBN-10 or ISBN-13." },
    pages: { type: "integer", minimum: 1 },
    genres: { type: "array", items: { type: "integer" }, description: "Genre term IDs." },
  } as const;

  /** Genre IDs that are not genre terms are the client's mistake (a 400), not a failure of the engine (which refuses them). */
  const checkGenres = async (genres: number[] | undefined): Promise<void> => {
    if (genres === undefined || genres.length === 0) return;
    const found = await engine.terms.getMany(genres);
    const missing = genres.filter((id) => found.get(id)?.taxonomy !== "genre");
    if (missing.length > 0) {
      throw new RestError("rest_invalid_param", "Invalid parameter(s): genres", 400, { params: { genres: `No such genres: ${missing.join(", ")}.` } });
    }
  };

  rest.registerNamespace("library/v1");
  rest.registerRoute("library/v1", "/books", [
    {
      methods: "GET",
      permission: "public",
      args: {
        ...listArgs,
        genre: { type: "integer" },
        orderby: { type: "string", enum: ["title", "date", "id"], default: "title", description: "Sort books by this field." },
        order: { type: "string", enum: ["asc", "desc"], default: "asc" },
      },
      handler: async (req: RestRequest<{ page: number; per_page: number; search?: string; genre?: number; orderby: "title" | "date" | "id"; order: "asc" | "desc" }>) => {
        const { page, per_page: perPage, search, genre, orderby, order } = req.params;
        const { posts, total } = await engine.posts.find({
          type: "book",
          visibility: { user: req.user, mode: "read" },
          search,
          tax: genre ? [{ taxonomy: "genre", terms: [genre], includeChildren: true }] : undefined,
          orderBy: [{ field: orderby, dir: order }],
          page,
          perPage,
          with: { terms: true },
        });
        const paging = paginate(req, { total, page, perPage, collectionUrl: "/library/v1/books/", query: { orderby, order, page, per_page: perPage } });
        return new RestResponse(posts.map(toRecord), 200, paging.headers);
      },
    },
    {
      methods: "POST",
      permission: (req) => req.user?.can("edit_books") ?? false,
      args: { ...writable, title: { ...writable.title, required: true } },
      handler: async (req: RestRequest<{ title: string; isbn?: string; pages?: number; genres?: number[] }>) => {
        const { title, isbn, pages, genres } = req.params;
        await checkGenres(genres);
        const book = await engine.posts.create(
          { type: "book", title, status: "publish", author: req.user?.id, fields: { isbn: isbn ?? null, pages: pages ?? null }, terms: genres ? { genre: genres } : undefined },
          req.user,
        );
        return new RestResponse(toRecord(book), 201, { Location: req.urls.route(`/library/v1/books/${book.id}`) });
      },
    },
  ]);
  rest.registerRoute("library/v1", "/books/(?P<id>\\d+)", [
    { methods: "GET", permission: "public", handler: async (req: RestRequest<{ id: number }>) => toRecord(await load(req)) },
    {
      methods: ["POST", "PUT", "PATCH"],
      permission: "public", // checked against the loaded book below: the capability depends on its author
      args: writable,
      handler: async (req: RestRequest<{ id: number; title?: string; isbn?: string; pages?: number; genres?: number[] }>) => {
        const book = await load(req);
        if (!req.user?.can("edit_post", book)) throw new RestError("rest_forbidden", "Sorry, you are not allowed to do that.", req.user ? 403 : 401);
        const { title, isbn, pages, genres } = req.params;
        await checkGenres(genres);
        const fields: Record<string, string | number> = {};
        if (isbn !== undefined) fields.isbn = isbn;
        if (pages !== undefined) fields.pages = pages;
        const updated = await engine.posts.update(book.id, { title, fields, terms: genres ? { genre: genres } : undefined }, req.user);
        return toRecord(updated);
      },
    },
    {
      methods: "DELETE",
      permission: "public",
      handler: async (req: RestRequest<{ id: number }>) => {
        const book = await load(req);
        if (!req.user?.can("delete_post", book)) throw new RestError("rest_forbidden", "Sorry, you are not allowed to do that.", req.user ? 403 : 401);
        return toRecord(await engine.posts.trash(book.id));
      },
    },
  ], { args: { id: { type: "integer", required: true, description: "Book ID." } } });

  registerGenreRoutes(site);
}

/** WordPress's term record, as its terms controller shows it. */
const genreRecord = (t: Term) => ({ id: t.id, name: t.name, slug: t.slug, parent: t.parent, description: t.description, count: t.count });

/** `/library/v1/genres`: the `genre` terms, in the shape and with the error codes of WordPress's terms routes. */
function registerGenreRoutes({ engine, rest }: Site): void {
  const forbidden = (req: RestRequest) => new RestError("rest_forbidden", "Sorry, you are not allowed to do that.", req.user ? 403 : 401);
  // The taxonomy's own capabilities (WordPress's `manage_terms`, `edit_terms`, `delete_terms`: manage_categories by default).
  const may = (action: "manage_terms" | "edit_terms" | "delete_terms") => (req: RestRequest) =>
    req.user?.can(action, { type: "genre", status: "", author: 0 }) === true || forbidden(req);

  const load = async (req: RestRequest<{ id: number }>): Promise<Term> => {
    const term = await engine.terms.get(req.params.id);
    if (!term || term.taxonomy !== "genre") throw new RestError("rest_term_invalid", "Term does not exist.", 404);
    return term;
  };
  const checkParent = async (parent: number | undefined): Promise<void> => {
    if (parent && (await engine.terms.get(parent))?.taxonomy !== "genre") throw new RestError("rest_term_invalid", "Parent term does not exist.", 400);
  };
  /** The engine refuses a clash or a loop; that is the client's mistake (a 400), as in WordPress. */
  const written = async (write: () => Promise<Term>) => {
    try {
      return genreRecord(await write());
    } catch (err) {
      if (isEngineError(err, "term_exists")) throw new RestError("term_exists", err.message, 400, { term_id: Number(err.data?.term_id) });
      if (isEngineError(err, "duplicate_term_slug")) throw new RestError("duplicate_term_slug", err.message, 400);
      if (isEngineError(err, "invalid_parent") || isEngineError(err, "invalid_input")) {
        const param = String(err.data?.field ?? "parent");
        throw new RestError("rest_invalid_param", `Invalid parameter(s): ${param}`, 400, { params: { [param]: err.message } });
      }
      throw err;
    }
  };

  const writable = {
    name: { type: "string", minLength: 1, description: "HTML title for the term." },
    slug: { type: "string", description: "An alphanumeric identifier for the term unique to its type." },
    parent: { type: "integer", minimum: 0, description: "The parent term ID." },
    description: { type: "string", description: "HTML description of the term." },
  } as const;
  type Writable = { name?: string; slug?: string; parent?: number; description?: string };

  rest.registerRoute("library/v1", "/genres", [
    {
      methods: "GET",
      permission: "public",
      args: {
        ...listArgs,
        parent: { type: "integer", minimum: 0, description: "Only the children of this genre (0: top-level genres)." },
      },
      handler: async (req: RestRequest<{ page: number; per_page: number; search?: string; parent?: number }>) => {
        const { page, per_page: perPage, search, parent } = req.params;
        const { terms, total } = await engine.terms.find({ taxonomy: "genre", search, parent, orderBy: "name", page, perPage });
        const paging = paginate(req, { total, page, perPage, collectionUrl: "/library/v1/genres/", query: { search, parent, page, per_page: perPage } });
        return new RestResponse(terms.map(genreRecord), 200, paging.headers);
      },
    },
    {
      methods: "POST",
      permission: may("manage_terms"),
      args: { ...writable, name: { ...writable.name, required: true } },
      handler: async (req: RestRequest<Writable & { name: string }>) => {
        const { name, slug, parent, description } = req.params;
        await checkParent(parent);
        const record = await written(() => engine.terms.create({ taxonomy: "genre", name, slug, parent, description }));
        return new RestResponse(record, 201, { Location: req.urls.route(`/library/v1/genres/${record.id}`) });
      },
    },
  ]);
  rest.registerRoute("library/v1", "/genres/(?P<id>\\d+)", [
    { methods: "GET", permission: "public", handler: async (req: RestRequest<{ id: number }>) => genreRecord(await load(req)) },
    {
      methods: ["POST", "PUT", "PATCH"],
      permission: may("edit_terms"),
      args: writable,
      handler: async (req: RestRequest<Writable & { id: number }>) => {
        const genre = await load(req);
        const { name, slug, parent, description } = req.params;
        await checkParent(parent);
        return written(() => engine.terms.update(genre.id, { name, slug, parent, description }));
      },
    },
    {
      methods: "DELETE",
      permission: may("delete_terms"),
      args: { force: { type: "boolean", default: false, description: "Required to be true, as terms do not support trashing." } },
      handler: async (req: RestRequest<{ id: number; force: boolean }>) => {
        const genre = await load(req);
        // WordPress's answer: terms have no trash.
        if (!req.params.force) throw new RestError("rest_trash_not_supported", "Terms do not support trashing. Set 'force' to true to delete.", 501);
        await engine.terms.delete(genre.id);
        return { deleted: true, previous: genreRecord(genre) };
      },
    },
  ], { args: { id: { type: "integer", required: true, description: "Genre ID." } } });
}
