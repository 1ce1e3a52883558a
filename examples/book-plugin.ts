/**
 * A site builder's own content type, registered through the same public API
 * the calendar uses: a `book` post type with typed fields and a hierarchical
 * `genre` taxonomy, shown in the REST API under `library/v1`. The site
 * generates their routes (WordPress's posts and terms controllers,
 * lib/controllers: list, read, create, update, trash and delete, with
 * WordPress's arguments, records and errors) and the editor their screens;
 * one extension changes a generated route without writing it again. Every
 * write runs as its user: the engine cleans what it stores by the kinds the
 * type and taxonomy declare (FieldDef `kind`; titles and descriptions keep
 * HTML only for users with `unfiltered_html`). The README shows this file.
 */
import type { Site } from "calpress";

export function registerBookPlugin(site: Site): void {
  const { engine } = site;

  engine.registerPostType("book", {
    labels: { singular: "Book", plural: "Books" },
    rest: { namespace: "library/v1", base: "books" },
    capabilityType: ["book", "books"],
    supports: ["title", "editor", "excerpt"],
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

  // A library lists its books by title: the generated list's `orderby` and
  // `order` arguments, with other defaults (an extension's argument of the
  // same name replaces the generated one).
  site.controllers.extendPostType("book", {
    args: {
      list: {
        orderby: { description: "Sort books by this field (default: title).", type: "string", enum: ["title", "date", "id", "modified", "slug", "include", "pages"], default: "title" },
        order: { description: "Order sort attribute ascending or descending.", type: "string", enum: ["asc", "desc"], default: "asc" },
      },
    },
  });
}
