import type { Catalog } from "./catalog";
import { Rng } from "./rng";

/**
 * The benchmark's workloads, as streams of requests. A workload is a
 * weighted mix of request kinds; each kind knows its URL route (which the
 * ceiling server answers with the captured bytes) and how to make its next
 * request. Same seed → same sequence, for calpress and for the ceiling.
 */

export const WORKLOAD_NAMES = [
  "default",
  "month_category",
  "by_id",
  "by_slug",
  "search",
  "venues_upcoming",
  "categories",
  "mixed",
  "revalidation",
  // Issue 21: streams of thousands of distinct URLs. Appended: seeds follow the index (run.ts seedOf).
  "month_category_varied",
  "pages_varied",
  "venue_varied",
  "search_varied",
  "by_id_built",
  "mixed_1pct",
] as const;
export type WorkloadName = (typeof WORKLOAD_NAMES)[number];

/**
 * What `--workers` runs against each `calpress serve --workers N` (issue
 * 24): the reads whose answers are mostly built, so that the comparison
 * measures work spread over processes rather than caches. by_id_built
 * keeps its own server without stored answers, as in the main run.
 */
export const SCALE_OUT_WORKLOADS: readonly WorkloadName[] = ["month_category_varied", "pages_varied", "venue_varied", "search_varied", "by_id_built"];

export const READ_KINDS = ["default", "month_category", "by_id", "by_slug", "search", "venues_upcoming", "categories"] as const;
export type ReadKind = (typeof READ_KINDS)[number];
/** Conditional GETs (If-None-Match with the answer's current ETag): the list and one event. */
export const REVALIDATE_KINDS = ["revalidate_list", "revalidate_event"] as const;
/** Kinds whose URLs vary over thousands of values, so that no cache holds more than a small share (issue 21). */
export const VARIED_KINDS = ["month_category_varied", "pages_varied", "venue_varied", "search_varied", "by_id_built"] as const;
export type VariedKind = (typeof VARIED_KINDS)[number];
export type KindName = ReadKind | VariedKind | "create" | "update" | (typeof REVALIDATE_KINDS)[number];

export interface BenchRequest {
  method: "GET" | "POST";
  /** Path and query string. */
  path: string;
  /** JSON body of a write. */
  body?: string;
  /** Writes carry the administrator's HTTP Basic credentials. */
  auth?: boolean;
  /** Extra request headers (If-None-Match). */
  headers?: Record<string, string>;
}

export interface Kind {
  name: KindName;
  method: "GET" | "POST";
  /** Express route of this kind's URLs, e.g. /wp-json/calendar/events/v1/events/:id */
  route: string;
  /** The query string this kind always sends ("" for none), or null when its path or query varies instead. */
  query: string | null;
  /**
   * For a kind whose query varies (query null): the names of its query
   * parameters. The ceiling answers a query with these names (in any order)
   * with this kind's captured bytes, so that kinds sharing a route keep apart.
   */
  queryKeys?: readonly string[];
  /** A 2xx with an empty list is a right answer here (a search miss, a month without events); the capture keeps a non-empty one for the ceiling. */
  emptyOk?: boolean;
  next(rng: Rng): BenchRequest;
}

export interface Workload {
  name: WorkloadName;
  /** Kinds with their share of the requests (shares add up to 1). */
  mix: { kind: Kind; share: number }[];
  /** Reads only: the workload changes nothing in the database. */
  readOnly: boolean;
  /** The status that counts as answered (default: any 2xx); 304 for revalidation. */
  okStatus?: number;
  /** false: measured against a calpress process without stored answers (run.ts starts one for it), so every answer is built. */
  answerStore?: false;
}

export interface WorkloadContext {
  catalog: Catalog;
  /** REST root path, e.g. /wp-json/ */
  restRoot: string;
  /** "Now" for the month workload (injected so that tests are stable). */
  now?: Date;
  /** The current ETags of the revalidation workload's two URLs, renewed in place by bench/revalidate.ts; absent: sent without If-None-Match. */
  etags?: Partial<Record<(typeof REVALIDATE_KINDS)[number], string>>;
  /** Pages of the plain event list (its total_pages), which pages_varied stays within: a page past the end is a 404. Absent: 200. */
  listPages?: number;
}

/** The varied streams' ranges (issue 21's baseline shapes). */
const VARIED_MONTHS = 24;
const VARIED_MAX_PAGE = 200;

/** Pages pages_varied asks for: 1..200, fewer when the list is shorter (small fixtures), one short of its end so that an event passing into the past during the run cannot make the last page a 404. */
export function variedPageCount(listPages: number | undefined): number {
  if (listPages === undefined) return VARIED_MAX_PAGE;
  return Math.max(1, Math.min(VARIED_MAX_PAGE, listPages - 1));
}

/**
 * The revalidation workload's URLs. Each has a query string of its own so
 * that the ceiling, which answers by route and exact query, keeps their
 * captured 304s apart from the plain list's and single event's 200s (the
 * answers are the same ones: per_page=10 is the default, context=view too).
 */
export function revalidationPaths(restRoot: string, catalog: Catalog): Record<(typeof REVALIDATE_KINDS)[number], { route: string; query: string }> {
  const ns = `${restRoot.replace(/\/$/, "")}/calendar/events/v1`;
  return {
    revalidate_list: { route: `${ns}/events`, query: "per_page=10" },
    revalidate_event: { route: `${ns}/events/${catalog.events[0].id}`, query: "context=view" },
  };
}

const pad = (n: number): string => String(n).padStart(2, "0");

/** First and last day (YYYY-MM-DD) of the month after `now` (UTC): fully in the future, so it has upcoming events. */
export function nextMonth(now: Date): { start: string; end: string } {
  return monthAhead(now, 1);
}

/** First and last day (YYYY-MM-DD) of the month `ahead` months after `now`'s (UTC). */
export function monthAhead(now: Date, ahead: number): { start: string; end: string } {
  const index = now.getUTCFullYear() * 12 + now.getUTCMonth() + ahead;
  const year = Math.floor(index / 12);
  const month = index % 12; // 0-based
  const last = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return { start: `${year}-${pad(month + 1)}-01`, end: `${year}-${pad(month + 1)}-${pad(last)}` };
}

export function buildKinds(ctx: WorkloadContext): Record<KindName, Kind> {
  const ns = `${ctx.restRoot.replace(/\/$/, "")}/calendar/events/v1`;
  const { catalog } = ctx;
  if (catalog.events.length === 0) throw new Error("no published events to read");
  const now = ctx.now ?? new Date();
  const month = nextMonth(now);
  const months = Array.from({ length: VARIED_MONTHS }, (_, i) => monthAhead(now, i + 1));
  const searchTerms = [...catalog.searchTerms.hits, ...catalog.searchTerms.misses];
  const pages = variedPageCount(ctx.listPages);
  const varied = (name: VariedKind, queryKeys: readonly string[], query: (rng: Rng) => string): Kind => ({
    name,
    method: "GET",
    route: `${ns}/events`,
    query: null,
    queryKeys,
    emptyOk: true,
    next: (rng) => ({ method: "GET", path: `${ns}/events?${query(rng)}` }),
  });
  const fixed = (name: ReadKind, route: string, query: string): Kind => {
    const path = `${ns}${route}${query ? `?${query}` : ""}`;
    return { name, method: "GET", route: `${ns}${route}`, query, next: () => ({ method: "GET", path }) };
  };
  const revalidation = revalidationPaths(ctx.restRoot, catalog);
  const conditional = (name: (typeof REVALIDATE_KINDS)[number]): Kind => {
    const { route, query } = revalidation[name];
    const path = `${route}?${query}`;
    // Read at each request: the harness renews the tags right before the workload runs (bench/revalidate.ts).
    return {
      name,
      method: "GET",
      route,
      query,
      next: () => {
        const etag = ctx.etags?.[name];
        return etag !== undefined ? { method: "GET", path, headers: { "if-none-match": etag } } : { method: "GET", path };
      },
    };
  };
  // Each write gets a distinct title: calpress makes slugs unique, which is part of the cost of a create.
  let writeCounter = 0;
  return {
    default: fixed("default", "/events", ""),
    month_category: fixed(
      "month_category",
      "/events",
      `start_date=${month.start}&end_date=${month.end}&categories=${catalog.categoryId}&per_page=50`,
    ),
    search: fixed("search", "/events", `search=${encodeURIComponent(catalog.searchWord)}`),
    venues_upcoming: fixed("venues_upcoming", "/venues", "only_with_upcoming=1"),
    categories: fixed("categories", "/categories", "hide_empty=1"),
    by_id: {
      name: "by_id",
      method: "GET",
      route: `${ns}/events/:id`,
      query: null,
      next: (rng) => ({ method: "GET", path: `${ns}/events/${rng.pick(catalog.events).id}` }),
    },
    by_slug: {
      name: "by_slug",
      method: "GET",
      route: `${ns}/events/by-slug/:slug`,
      query: null,
      next: (rng) => ({ method: "GET", path: `${ns}/events/by-slug/${encodeURIComponent(rng.pick(catalog.events).slug)}` }),
    },
    // The issue-21 baseline shapes (bench/README.md). A month ahead may have no event of the category, a search term may be a miss: empty lists are right answers.
    month_category_varied: varied("month_category_varied", ["start_date", "end_date", "categories", "per_page"], (rng) => {
      const m = rng.pick(months);
      return `start_date=${m.start}&end_date=${m.end}&categories=${rng.pick(catalog.categoryIds)}&per_page=50`;
    }),
    pages_varied: { ...varied("pages_varied", ["page"], (rng) => `page=${1 + rng.below(pages)}`), emptyOk: false },
    venue_varied: varied("venue_varied", ["venue", "per_page"], (rng) => `venue=${rng.pick(catalog.venueIds)}&per_page=20`),
    search_varied: varied("search_varied", ["search"], (rng) => `search=${encodeURIComponent(rng.pick(searchTerms))}`),
    // The by_id stream's shape; the workload runs against a process without stored answers.
    by_id_built: {
      name: "by_id_built",
      method: "GET",
      route: `${ns}/events/:id`,
      query: null,
      next: (rng) => ({ method: "GET", path: `${ns}/events/${rng.pick(catalog.events).id}` }),
    },
    // Before the writes: the capture asks the kinds in this order, and a create changes the list.
    revalidate_list: conditional("revalidate_list"),
    revalidate_event: conditional("revalidate_event"),
    create: {
      name: "create",
      method: "POST",
      route: `${ns}/events`,
      query: "",
      next: (rng) => {
        const n = ++writeCounter;
        const day = 1 + rng.below(28);
        const date = `${month.start.slice(0, 8)}${pad(day)}`;
        const body: Record<string, unknown> = {
          title: `Benchmark Session ${n}-${rng.below(1e9)}`,
          description: "Created by the calpress benchmark.",
          start_date: `${date} 19:00:00`,
          end_date: `${date} 21:00:00`,
          status: "publish",
          categories: [catalog.categoryId],
        };
        if (catalog.venueId !== undefined) body.venue = catalog.venueId;
        return { method: "POST", path: `${ns}/events`, body: JSON.stringify(body), auth: true };
      },
    },
    update: {
      name: "update",
      method: "POST",
      route: `${ns}/events/:id`,
      query: null,
      next: (rng) => {
        const n = ++writeCounter;
        // Only the excerpt changes: titles (and so the search workload's hits) stay as loaded.
        return {
          method: "POST",
          path: `${ns}/events/${rng.pick(catalog.events).id}`,
          body: JSON.stringify({ excerpt: `Updated by the calpress benchmark (${n}).` }),
          auth: true,
        };
      },
    },
  };
}

export function buildWorkloads(ctx: WorkloadContext): Workload[] {
  const kinds = buildKinds(ctx);
  const single = (name: ReadKind): Workload => ({ name, mix: [{ kind: kinds[name], share: 1 }], readOnly: true });
  // The reads spread evenly over the seven read kinds, the writes half creates, half updates.
  const withWrites = (name: "mixed" | "mixed_1pct", writes: number): Workload => ({
    name,
    readOnly: false,
    mix: [
      ...READ_KINDS.map((k) => ({ kind: kinds[k], share: (1 - writes) / READ_KINDS.length })),
      { kind: kinds.create, share: writes / 2 },
      { kind: kinds.update, share: writes / 2 },
    ],
  });
  // A client (or a shared cache) checking whether what it holds is still
  // current: every request carries the ETag it got, and nothing changed, so
  // every answer is a 304 without a body.
  const revalidation: Workload = {
    name: "revalidation",
    readOnly: true,
    okStatus: 304,
    mix: REVALIDATE_KINDS.map((k) => ({ kind: kinds[k], share: 1 / REVALIDATE_KINDS.length })),
  };
  const variedReads = (["month_category_varied", "pages_varied", "venue_varied", "search_varied"] as const).map(
    (name): Workload => ({ name, mix: [{ kind: kinds[name], share: 1 }], readOnly: true }),
  );
  const byIdBuilt: Workload = { name: "by_id_built", mix: [{ kind: kinds.by_id_built, share: 1 }], readOnly: true, answerStore: false };
  return [...READ_KINDS.map(single), withWrites("mixed", 0.1), revalidation, ...variedReads, byIdBuilt, withWrites("mixed_1pct", 0.01)];
}

/** A request stream for one run of a workload. */
export function requestStream(workload: Workload, seed: number): () => BenchRequest {
  const rng = new Rng(seed);
  const mix = workload.mix;
  if (mix.length === 1) {
    const kind = mix[0].kind;
    return () => kind.next(rng);
  }
  const cumulative: number[] = [];
  let sum = 0;
  for (const { share } of mix) cumulative.push((sum += share));
  return () => {
    const r = rng.next() * sum;
    let i = 0;
    while (i < cumulative.length - 1 && r >= cumulative[i]) i++;
    return mix[i].kind.next(rng);
  };
}

/** True when every request of the workload is the same GET (autocannon can then reuse one prebuilt request). */
export function isConstant(workload: Workload): boolean {
  return workload.mix.length === 1 && workload.mix[0].kind.query !== null && workload.mix[0].kind.method === "GET";
}
