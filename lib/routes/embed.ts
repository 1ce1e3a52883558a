/**
 * `?_embed` for every namespace, as `WP_REST_Server::embed_links()` does it:
 * in a successful answer (a record, or each record of a list), every link
 * of `_links` marked `embeddable: true` is requested inside the server (a
 * GET, as the same user, with `context=embed` unless the link names a
 * context) and its answer — data or error envelope — is put under
 * `_embedded[<rel>]`, one entry per link in order (`{}` for a link that is
 * not embeddable). `_embed=author,wp:term` embeds only those relations.
 * Embedded answers are not embedded in turn; each link is requested once
 * per answer. Only the query string's `_embed` counts, as WordPress reads it
 * from `$_GET`.
 */
import { wpParseList } from "./coerce";
import { fieldWanted, parseFields } from "./fields";
import { isPlainObject } from "./json";
import { own, parseBracketString, type ParamMap } from "./params";
import { normalizeRoutePath } from "./patterns";

/** What embedding needs of an answer: its status and data, and the tags its request named. */
export interface EmbeddableOutcome {
  status: number;
  data: unknown;
  request?: { readonly dependencies: Set<number>; readonly params: Readonly<Record<string, unknown>> };
  raw?: unknown;
}

/** Runs one internal GET of a route path with its query. */
export type EmbedRequest = (path: string, query: ParamMap) => Promise<EmbeddableOutcome>;

/** At most this many links are requested for one answer (a page of 100 records with a few embeddable links each). */
const MAX_EMBEDS = 1000;

/** `rest_parse_embed_param()`: `true` (every relation) or the relations named; undefined without `_embed`. */
export function embedParam(query: Readonly<ParamMap>): true | string[] | undefined {
  const value = own(query, "_embed");
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") return true;
  // PHP's `! $embed`: "" and "0" are empty too.
  if (value === "" || value === "0" || value === "1" || value === "true") return true;
  const rels = wpParseList(value);
  return rels.length > 0 ? rels : true;
}

/** Adds `_embedded` to the answer's records, when the request asks for it and `_fields` keeps it. */
export async function withEmbeds(outcome: EmbeddableOutcome, query: Readonly<ParamMap>, root: string, run: EmbedRequest): Promise<void> {
  const embed = embedParam(query);
  if (embed === undefined || outcome.raw !== undefined || outcome.status >= 300) return;
  const params = outcome.request?.params ?? query;
  const fields = parseFields(own(params as ParamMap, "_fields"));
  if (!fieldWanted(fields, "_embedded")) return;
  const cache = new Map<string, Promise<unknown>>();
  let budget = MAX_EMBEDS;
  const fetch = (href: string): Promise<unknown> => {
    let found = cache.get(href);
    if (found === undefined) {
      found = (async () => {
        if (!href.startsWith(root) || budget <= 0) return {};
        budget--;
        const rest = href.slice(root.length);
        const q = rest.indexOf("?");
        const path = normalizeRoutePath(q === -1 ? rest : rest.slice(0, q));
        const linkQuery = q === -1 ? {} : parseBracketString(rest.slice(q + 1));
        if (own(linkQuery, "context") === undefined) linkQuery.context = "embed";
        const answer = await run(path, linkQuery);
        for (const tag of answer.request?.dependencies ?? []) outcome.request?.dependencies.add(tag);
        return answer.data;
      })();
      cache.set(href, found);
    }
    return found;
  };
  const embedInto = async (record: unknown): Promise<unknown> => {
    if (!isPlainObject(record) || !isPlainObject(record._links)) return record;
    const embedded: Record<string, unknown[]> = {};
    for (const [rel, links] of Object.entries(record._links)) {
      if (embed !== true && !embed.includes(rel)) continue;
      // WordPress embeds what is left of `_links` once `_fields` filtered it.
      if (!fieldWanted(fields, `_links.${rel}`)) continue;
      if (!Array.isArray(links)) continue;
      const items: unknown[] = [];
      for (const link of links) {
        const href = isPlainObject(link) && link.embeddable === true && typeof link.href === "string" ? link.href : undefined;
        // The same position for a link that is not embeddable, as WordPress keeps the order.
        items.push(href === undefined ? {} : await fetch(href));
      }
      if (items.some((item) => !(isPlainObject(item) && Object.keys(item).length === 0))) embedded[rel] = items;
    }
    return Object.keys(embedded).length > 0 ? { ...record, _embedded: embedded } : record;
  };
  if (Array.isArray(outcome.data)) {
    const out: unknown[] = [];
    for (const record of outcome.data) out.push(await embedInto(record));
    outcome.data = out;
  } else outcome.data = await embedInto(outcome.data);
}
