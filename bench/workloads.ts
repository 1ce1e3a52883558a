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
] as const;
export type WorkloadName = (typeof WORKLOAD_NAMES)[number];

export const READ_KINDS = ["default", "month_category", "by_id", "by_slug", "search", "venues_upcoming", "categories"] as const;
export type ReadKind = (typeof READ_KINDS)[number];
export type KindName = ReadKind | "create" | "update";

export interface BenchRequest {
  method: "GET" | "POST";
  /** Path and query string. */
  path: string;
  /** JSON body of a write. */
  body?: string;
  /** Writes carry the administrator's HTTP Basic credentials. */
  auth?: boolean;
}

export interface Kind {
  name: KindName;
  method: "GET" | "POST";
  /** Express route of this kind's URLs, e.g. /wp-json/calendar/events/v1/events/:id */
  route: string;
  /** The query string this kind always sends ("" for none), or null when its path varies instead. */
  query: string | null;
  next(rng: Rng): BenchRequest;
}

export interface Workload {
  name: WorkloadName;
  /** Kinds with their share of the requests (shares add up to 1). */
  mix: { kind: Kind; share: number }[];
  /** The read-only workloads are the ones a scale-out comparison runs. */
  readOnly: boolean;
}

export interface WorkloadContext {
  catalog: Catalog;
  /** REST root path, e.g. /wp-json/ */
  restRoot: string;
  /** "Now" for the month workload (injected so that tests are stable). */
  now?: Date;
}

const pad = (n: number): string => String(n).padStart(2, "0");

/** First and last day (YYYY-MM-DD) of the month after `now` (UTC): fully in the future, so it has upcoming events. */
export function nextMonth(now: Date): { start: string; end: string } {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth() + 1; // 0-based → the next month, 0-based
  const year = m === 12 ? y + 1 : y;
  const month = m % 12;
  const last = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return { start: `${year}-${pad(month + 1)}-01`, end: `${year}-${pad(month + 1)}-${pad(last)}` };
}

export function buildKinds(ctx: WorkloadContext): Record<KindName, Kind> {
  const ns = `${ctx.restRoot.replace(/\/$/, "")}/calendar/events/v1`;
  const { catalog } = ctx;
  if (catalog.events.length === 0) throw new Error("no published events to read");
  const month = nextMonth(ctx.now ?? new Date());
  const fixed = (name: ReadKind, route: string, query: string): Kind => {
    const path = `${ns}${route}${query ? `?${query}` : ""}`;
    return { name, method: "GET", route: `${ns}${route}`, query, next: () => ({ method: "GET", path }) };
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
  const mixed: Workload = {
    name: "mixed",
    readOnly: false,
    // 90% reads spread evenly over the seven read kinds, 10% writes (half creates, half updates).
    mix: [...READ_KINDS.map((k) => ({ kind: kinds[k], share: 0.9 / READ_KINDS.length })), { kind: kinds.create, share: 0.05 }, { kind: kinds.update, share: 0.05 }],
  };
  return [...READ_KINDS.map(single), mixed];
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
