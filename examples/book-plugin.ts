/**
 * A site builder's own content type and routes, registered through the same
 * public API the calendar uses: a `book` post type with typed fields, a
 * hierarchical `genre` taxonomy and a `library/v1` namespace with list, read,
 * create, update and delete routes. The README shows this file.
 */
import { paginate, RestError, RestResponse, type RestRequest, type Site } from "../lib";

export function registerBookPlugin(site: Site): void {
  const { engine, rest } = site;

  engine.registerPostType("book", {
    labels: { singular: "Book", plural: "Books" },
    capabilityType: ["book", "books"],
    fields: {
      isbn: { type: "string", length: 20, index: true },
      pages: { type: "integer" },
    },
  });
  engine.registerTaxonomy("genre", { objectTypes: ["book"], hierarchical: true });

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
        page: { type: "integer", minimum: 1, default: 1 },
        per_page: { type: "integer", minimum: 1, maximum: 100, default: 10 },
        search: { type: "string" },
        genre: { type: "integer" },
      },
      handler: async (req: RestRequest<{ page: number; per_page: number; search?: string; genre?: number }>) => {
        const { page, per_page: perPage, search, genre } = req.params;
        const { posts, total } = await engine.posts.find({
          type: "book",
          visibility: { user: req.user, mode: "read" },
          search,
          tax: genre ? [{ taxonomy: "genre", terms: [genre], includeChildren: true }] : undefined,
          orderBy: [{ field: "title", dir: "asc" }],
          page,
          perPage,
          with: { terms: true },
        });
        const paging = paginate(req, { total, page, perPage, collectionUrl: "/library/v1/books/", query: { page, per_page: perPage } });
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
}
