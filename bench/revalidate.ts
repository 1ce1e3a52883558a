import type { Catalog } from "./catalog";
import { REVALIDATE_KINDS, revalidationPaths } from "./workloads";

export type Etags = Partial<Record<(typeof REVALIDATE_KINDS)[number], string>>;

/**
 * Reads the current ETags of the revalidation workload's URLs into `etags`
 * (in place: the workload's kinds read it at each request). Run before the
 * capture and again right before the workload, since the mixed workload's
 * writes change the list and may change the event.
 */
export async function renewEtags(origin: string, restRoot: string, catalog: Catalog, etags: Etags): Promise<void> {
  const paths = revalidationPaths(restRoot, catalog);
  for (const name of REVALIDATE_KINDS) {
    const { route, query } = paths[name];
    const res = await fetch(`${origin}${route}?${query}`);
    await res.arrayBuffer();
    const etag = res.headers.get("etag");
    if (etag !== null) etags[name] = etag;
    else delete etags[name];
  }
}
