/**
 * The one pagination helper of every list route: body members and headers
 * computed once, from the same numbers (rest-conventions §10,
 * calendar-api §3.1).
 */
import type { RestRequest } from "./types";
import { buildUrl, type QueryArgs, type QueryValue } from "./urls";

export interface PaginateOptions {
  /** Number of matching records, all pages. */
  readonly total: number;
  /** The requested page, from 1. */
  readonly page: number;
  readonly perPage: number;
  /** Absolute URL, or a route path resolved against the REST root (`/ns/items/`: collections use the trailing slash). */
  readonly collectionUrl: string;
  /** The effective query echoed in `rest_url`, in order; include `page` if it should appear there. */
  readonly query?: QueryArgs;
}

export interface Pagination {
  /** X-WP-Total, X-WP-TotalPages, X-CAL-Total, X-CAL-TotalPages, and Link (rel="prev"/"next") when there are such pages. */
  readonly headers: Record<string, string>;
  readonly total: number;
  /** ceil(total / perPage); 0 when total is 0. */
  readonly total_pages: number;
  readonly rest_url: string;
  /** Only when the next page has results. */
  readonly next_rest_url?: string;
  /** Only when page > 1 and the previous page has results; without `page` when that page is 1. */
  readonly previous_rest_url?: string;
}

/** `query` with `page` set in place (or appended), or removed when `page` is undefined. */
function withPage(query: QueryArgs, page: number | undefined): Record<string, QueryValue> {
  const out: Record<string, QueryValue> = {};
  let placed = false;
  for (const [key, value] of Object.entries(query)) {
    if (key !== "page") out[key] = value;
    else if (page !== undefined) {
      out.page = page;
      placed = true;
    }
  }
  if (!placed && page !== undefined) out.page = page;
  return out;
}

export function paginate(req: Pick<RestRequest, "urls">, options: PaginateOptions): Pagination {
  const { total, page, perPage } = options;
  if (!(perPage >= 1)) throw new RangeError(`paginate: perPage must be at least 1 (got ${perPage}).`);
  const totalPages = total > 0 ? Math.ceil(total / perPage) : 0;
  const base = /^[a-z][a-z0-9+.-]*:/i.test(options.collectionUrl) ? options.collectionUrl : req.urls.route(options.collectionUrl);
  const query = options.query ?? {};
  const restUrl = buildUrl(base, query);
  const hasNext = page + 1 <= totalPages;
  const hasPrevious = page > 1 && page - 1 <= totalPages;
  const next = hasNext ? buildUrl(base, withPage(query, page + 1)) : undefined;
  const previous = hasPrevious ? buildUrl(base, withPage(query, page - 1 === 1 ? undefined : page - 1)) : undefined;

  const headers: Record<string, string> = {
    "X-WP-Total": String(total),
    "X-WP-TotalPages": String(totalPages),
    "X-CAL-Total": String(total),
    "X-CAL-TotalPages": String(totalPages),
  };
  // Same order as WordPress core controllers: prev, then next.
  const links: string[] = [];
  if (previous !== undefined) links.push(`<${previous}>; rel="prev"`);
  if (next !== undefined) links.push(`<${next}>; rel="next"`);
  if (links.length > 0) headers.Link = links.join(", ");

  const result: { -readonly [K in keyof Pagination]: Pagination[K] } = { headers, total, total_pages: totalPages, rest_url: restUrl };
  if (next !== undefined) result.next_rest_url = next;
  if (previous !== undefined) result.previous_rest_url = previous;
  return result;
}
