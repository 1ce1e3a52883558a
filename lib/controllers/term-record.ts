/**
 * A term as WordPress's terms controller shows it
 * (`WP_REST_Terms_Controller::prepare_item_for_response()`), narrowed to the
 * request's context, with `_links`, the extensions' fields and `prepare`
 * hooks.
 */
import type { JsonObject, JsonValue } from "../routes/json";
import type { RestRequest } from "../routes/types";
import type { Term } from "../taxonomy/types";
import { prepareRecord } from "./extensions";
import { Links } from "./links";
import { filterByContext, objectSchema, type Context } from "./schema";
import type { TaxonomyView } from "./term-schema";

/** `get_term_link()` with pretty permalinks: `<home>/<rewrite slug>/<slug>/` (WordPress's default rewrite is not hierarchical). */
export function termLink(home: string, view: TaxonomyView, term: Term): string {
  return `${home}/${view.config.rewriteSlug ?? view.name}/${term.slug}/`;
}

function links(term: Term, view: TaxonomyView, root: string): JsonObject {
  const base = `${root}${view.rest.namespace}/${view.rest.base}`;
  const out = new Links().add("self", `${base}/${term.id}`).add("collection", base).add("about", `${root}wp/v2/taxonomies/${view.name}`);
  if (term.parent !== 0) out.add("up", `${base}/${term.parent}`, { embeddable: true });
  for (const type of view.types) out.add("wp:post_type", `${root}${type.rest.namespace}/${type.rest.base}?${encodeURIComponent(view.rest.base)}=${term.id}`);
  return out.toJson();
}

export async function termRecord(term: Term, view: TaxonomyView, req: RestRequest, context: Context): Promise<JsonObject> {
  const data: JsonObject = {
    id: term.id,
    count: term.count,
    description: term.description,
    link: termLink(req.urls.home, view, term),
    name: term.name,
    slug: term.slug,
    taxonomy: term.taxonomy,
  };
  if (view.hierarchical) data.parent = term.parent;
  // WordPress encodes the empty PHP array of meta values as a JSON list.
  data.meta = [];
  for (const [name, field] of Object.entries(view.restFields)) {
    if (field.get !== undefined && req.wantsField(name)) data[name] = (await field.get(term, req)) as JsonValue;
  }
  const record = filterByContext(data, objectSchema(view.schema), context);
  if (req.wantsField("_links") || req.wantsField("_embedded")) record._links = links(term, view, req.urls.root);
  return prepareRecord(view.extensions, record, term, req);
}
