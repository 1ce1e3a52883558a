/**
 * What exists in the database right now (ids and slugs by kind), read with
 * knex, so that `Ref` placeholders in generated requests resolve to records
 * that are really there: a fuzzer that only ever sends unknown ids never
 * reaches the update and delete handlers.
 */
import type { Knex } from "knex";
import type { Tables } from "../lib/db/tables";
import { DeepValue, IMAGE_HOST_PATHS, ListString, Ref, type FuzzValue, type PoolName } from "./values";

export type Pools = Record<PoolName, Array<number | string>>;

export function emptyPools(): Pools {
  return { event: [], venue: [], organizer: [], post: [], category: [], tag: [], term: [], user: [], eventSlug: [], venueSlug: [], organizerSlug: [], anySlug: [], imageUrl: [] };
}

/** Fallbacks when a pool is empty: an id that surely does not exist is still a useful request. */
const FALLBACK: Record<PoolName, number | string> = {
  event: 424242,
  venue: 424243,
  organizer: 424244,
  post: 424245,
  category: 424246,
  tag: 424247,
  term: 424248,
  user: 424249,
  eventSlug: "no-such-event",
  venueSlug: "no-such-venue",
  organizerSlug: "no-such-organizer",
  anySlug: "no-such-slug",
  imageUrl: "http://127.0.0.1:1/unreachable.png",
};

/** `imageBase`: the fuzz site's image host, whose URLs make the `imageUrl` pool. */
export async function readPools(knex: Knex, tables: Tables, imageBase?: string): Promise<Pools> {
  const pools = emptyPools();
  if (imageBase !== undefined) pools.imageUrl.push(...IMAGE_HOST_PATHS.map((path) => `${imageBase}${path}`));
  const posts = (await knex(tables.posts).select("id", "type", "slug").orderBy("id")) as { id: number; type: string; slug: string }[];
  for (const p of posts) {
    const id = Number(p.id);
    pools.post.push(id);
    if (p.slug) pools.anySlug.push(p.slug);
    if (p.type === "event") {
      pools.event.push(id);
      if (p.slug) pools.eventSlug.push(p.slug);
    } else if (p.type === "venue") {
      pools.venue.push(id);
      if (p.slug) pools.venueSlug.push(p.slug);
    } else if (p.type === "organizer") {
      pools.organizer.push(id);
      if (p.slug) pools.organizerSlug.push(p.slug);
    }
  }
  const terms = (await knex(tables.terms).select("id", "taxonomy", "slug").orderBy("id")) as { id: number; taxonomy: string; slug: string }[];
  for (const t of terms) {
    const id = Number(t.id);
    pools.term.push(id);
    pools.anySlug.push(t.slug);
    if (t.taxonomy === "post_tag") pools.tag.push(id);
    else pools.category.push(id);
  }
  const users = (await knex(tables.users).select("id").orderBy("id")) as { id: number }[];
  pools.user.push(...users.map((u) => Number(u.id)));
  return pools;
}

export function resolveRef(r: Ref, pools: Pools): number | string {
  const pool = pools[r.pool];
  return pool.length === 0 ? FALLBACK[r.pool] : (pool[r.pick % pool.length] as number | string);
}

/** The value with every Ref replaced by a real id or slug (ListStrings stay, their items resolved). */
export function resolveValue(value: FuzzValue, pools: Pools): FuzzValue {
  if (value instanceof Ref) return resolveRef(value, pools);
  if (value instanceof ListString) return new ListString(value.items.map((v) => resolveValue(v, pools)));
  if (value instanceof DeepValue) return value;
  if (Array.isArray(value)) {
    // Long lists are generated without Refs (10,000 ids); copying them is not worth it.
    if (value.length > 100) return value;
    return value.map((v) => resolveValue(v, pools));
  }
  if (value !== null && typeof value === "object") {
    const out: Record<string, FuzzValue> = {};
    for (const key of Object.keys(value)) {
      Object.defineProperty(out, key, { value: resolveValue(value[key] as FuzzValue, pools), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}
