import type { Term } from "../../taxonomy/types";
import { CATEGORY, taxonomies } from "../post-types";
import type { JsonObject, RecordContext } from "./context";
import { termUrl } from "./urls";

function collection(term: Term): string {
  return term.taxonomy === CATEGORY ? "categories" : "tags";
}

function urls(term: Term, ns: string): JsonObject {
  const base = `${ns}/${collection(term)}`;
  const out: JsonObject = { self: `${base}/${term.id}`, collection: base };
  if (term.parent !== 0) out.up = `${base}/${term.parent}`;
  return out;
}

/** The shape embedded in an event's `categories` / `tags` (calendar-api.md §1.2). */
export function embeddedTermRecord(term: Term, ctx: Pick<RecordContext, "ns">): JsonObject {
  return {
    id: term.id,
    name: term.name,
    slug: term.slug,
    term_group: term.termGroup,
    term_taxonomy_id: term.id,
    taxonomy: term.taxonomy,
    description: term.description,
    parent: term.parent,
    count: term.count,
    filter: "raw",
    urls: urls(term, ctx.ns),
  };
}

/** The shape of `/categories` and `/tags` responses. */
export function termRecord(term: Term, ancestors: Term[], ctx: Pick<RecordContext, "ns" | "home">): JsonObject {
  const record: JsonObject = {
    id: term.id,
    count: term.count,
    description: term.description,
    name: term.name,
    slug: term.slug,
    taxonomy: term.taxonomy,
  };
  if (term.taxonomy === CATEGORY) record.parent = term.parent;
  record.meta = [];
  record.url = termUrl(ctx.home, term, ancestors, taxonomies[term.taxonomy]?.rewriteSlug ?? term.taxonomy);
  record.urls = urls(term, ctx.ns);
  return record;
}
