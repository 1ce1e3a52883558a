import type { EngineApi } from "../engine-api";
import { EVENT, ORGANIZER, VENUE } from "./post-types";
import { NAMESPACE } from "./common/args";

const COLLECTIONS: Record<string, string> = { [EVENT]: "events", [VENUE]: "venues", [ORGANIZER]: "organizers" };

/** A stored slug as a path segment: as it is when it is already URL-safe (WordPress keeps non-ASCII slugs percent-encoded), else encoded. */
function segment(slug: string): string {
  return /^[A-Za-z0-9%._~-]+$/.test(slug) ? slug : encodeURIComponent(slug);
}

/** Posts whose single answers are stored: published, no password, of the three kinds. */
function storedPosts(engine: EngineApi) {
  return engine.knex(engine.tables.posts).whereIn("type", Object.keys(COLLECTIONS)).where({ status: "publish", password: "" });
}

/**
 * The paths (below the REST root) of every public single record whose
 * answer the answer store keeps: published events, venues and organizers
 * without a password, by ID and by slug. What `serve --warm` requests once
 * so that the store holds them before the first reader asks. `total` counts
 * them; `pages` gives them a page of posts at a time, in ID order (the
 * whole list at 100k events was ~30 MB of rows and strings at once, which
 * stayed in the serving process's RSS long after the warm-up).
 */
export function storedAnswerPaths(engine: EngineApi, pageSize = 1000): { total(): Promise<number>; pages(): AsyncGenerator<string[]> } {
  return {
    async total() {
      const rows = (await storedPosts(engine).select("type").count({ n: "*" }).sum({ slugs: engine.knex.raw("CASE WHEN slug <> '' THEN 1 ELSE 0 END") }).groupBy("type")) as Array<{
        n: number | string;
        slugs: number | string | null;
      }>;
      return rows.reduce((sum, row) => sum + Number(row.n) + Number(row.slugs ?? 0), 0);
    },
    async *pages() {
      let after = 0;
      for (;;) {
        const rows = (await storedPosts(engine).where("id", ">", after).orderBy("id").limit(pageSize).select("id", "type", "slug")) as Array<{
          id: number | string;
          type: string;
          slug: string;
        }>;
        if (rows.length === 0) return;
        const paths: string[] = [];
        for (const row of rows) {
          const base = `${NAMESPACE}/${COLLECTIONS[row.type]}`;
          paths.push(`${base}/${Number(row.id)}`);
          if (row.slug !== "") paths.push(`${base}/by-slug/${segment(row.slug)}`);
        }
        yield paths;
        after = Number(rows[rows.length - 1].id);
      }
    },
  };
}
