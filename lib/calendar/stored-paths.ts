import type { EngineApi } from "../engine-api";
import { EVENT, ORGANIZER, VENUE } from "./post-types";
import { NAMESPACE } from "./shared/args";

const COLLECTIONS: Record<string, string> = { [EVENT]: "events", [VENUE]: "venues", [ORGANIZER]: "organizers" };

/** A stored slug as a path segment: as it is when it is already URL-safe (WordPress keeps non-ASCII slugs percent-encoded), else encoded. */
function segment(slug: string): string {
  return /^[A-Za-z0-9%._~-]+$/.test(slug) ? slug : encodeURIComponent(slug);
}

/**
 * The paths (below the REST root) of every public single record whose
 * answer the answer store keeps: published events, venues and organizers
 * without a password, by ID and by slug. What `serve --warm` requests once
 * so that the store holds them before the first reader asks.
 */
export async function storedAnswerPaths(engine: EngineApi): Promise<string[]> {
  const rows = (await engine.knex("posts")
    .whereIn("type", Object.keys(COLLECTIONS))
    .where({ status: "publish", password: "" })
    .orderBy("id")
    .select("id", "type", "slug")) as Array<{ id: number | string; type: string; slug: string }>;
  const paths: string[] = [];
  for (const row of rows) {
    const base = `${NAMESPACE}/${COLLECTIONS[row.type]}`;
    paths.push(`${base}/${Number(row.id)}`);
    if (row.slug !== "") paths.push(`${base}/by-slug/${segment(row.slug)}`);
  }
  return paths;
}
