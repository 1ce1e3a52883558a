import http from "node:http";
import type { Catalog } from "./catalog";
import { REVALIDATE_KINDS, revalidationPaths } from "./workloads";

export type Etags = Partial<Record<(typeof REVALIDATE_KINDS)[number], string>>;

/**
 * Reads the current ETags of the revalidation workload's URLs into `etags`
 * (in place: the workload's kinds read it at each request). Run before the
 * capture and again right before the workload, since the mixed workload's
 * writes change the list and may change the event.
 */
export async function renewEtags(origin: string, restRoot: string, catalog: Catalog, etags: Etags, host?: string): Promise<void> {
  const paths = revalidationPaths(restRoot, catalog);
  for (const name of REVALIDATE_KINDS) {
    const { route, query } = paths[name];
    const etag = await etagOf(`${origin}${route}?${query}`, host);
    if (etag !== undefined) etags[name] = etag;
    else delete etags[name];
  }
}

/** The ETag of a GET; through node:http, since fetch() will not send a Host header of one's choosing. */
function etagOf(url: string, host: string | undefined): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: host !== undefined ? { host } : {} }, (res) => {
      res.resume();
      res.on("end", () => {
        const etag = res.headers.etag;
        resolve(typeof etag === "string" ? etag : undefined);
      });
      res.on("error", reject);
    });
    req.on("error", reject);
  });
}
