/**
 * The paging headers of WordPress's posts and terms controllers:
 * `X-WP-Total`, `X-WP-TotalPages`, and `Link` with `prev`/`next` built from
 * the request's own query string (`add_query_arg( $request->get_query_params(), $collection_url )`
 * with `page` set). Not `paginate()` (lib/routes/pagination.ts), whose links
 * carry the calendar's echoed query and which adds the calendar's own
 * headers.
 */
import type { RestRequest } from "../routes/types";

/** PHP's `http_build_query()` of a parsed query (nested lists and objects as `a[0]=…`, `a[k]=…`). */
export function buildQuery(params: Readonly<Record<string, unknown>>): string {
  const parts: string[] = [];
  const add = (key: string, value: unknown, depth: number): void => {
    if (value === null || value === undefined || depth > 8) return;
    if (Array.isArray(value)) value.forEach((item, i) => add(`${key}[${i}]`, item, depth + 1));
    else if (typeof value === "object") for (const [k, v] of Object.entries(value)) add(`${key}[${k}]`, v, depth + 1);
    else parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(typeof value === "boolean" ? (value ? "1" : "0") : String(value))}`);
  };
  for (const [key, value] of Object.entries(params)) add(key, value, 0);
  return parts.join("&");
}

/** The headers of one page: `total` matches, `perPage` a page, `page` the page asked (from 1). */
export function pagingHeaders(req: RestRequest, collectionUrl: string, total: number, page: number, perPage: number): Record<string, string> {
  const maxPages = Math.ceil(total / perPage);
  const headers: Record<string, string> = { "X-WP-Total": String(total), "X-WP-TotalPages": String(maxPages) };
  const link = (to: number): string => {
    // The request's own query, each declared argument as validated (WordPress sanitises its parameters in place: `status=publish` is written `status[0]=publish`).
    const params: Record<string, unknown> = {};
    for (const name of Object.keys(req.sources.query)) params[name] = req.params[name] ?? req.sources.query[name];
    // add_query_arg() writes an empty value without `=` (`?_embed&page=2`).
    return `${collectionUrl}?${buildQuery({ ...params, page: to }).replace(/=(&|$)/g, "$1")}`;
  };
  const links: string[] = [];
  // WordPress's order: prev (never past the last page: page 0 when there is none, as WordPress writes it), then next.
  if (page > 1) links.push(`<${link(Math.min(page - 1, maxPages))}>; rel="prev"`);
  if (maxPages > page) links.push(`<${link(page + 1)}>; rel="next"`);
  if (links.length > 0) headers.Link = links.join(", ");
  return headers;
}
