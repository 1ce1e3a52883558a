import type { Site } from "./site";

/**
 * A host's registrations as one function of the site: post types,
 * taxonomies, routes (`examples/book-plugin.ts`'s `registerBookPlugin`).
 * The command line takes one with `--plugin <file>[#export]`, the testing
 * entry with `plugins: […]`; both run it on a new site before a fixture is
 * loaded into it.
 */
export type SitePlugin = (site: Site) => void | Promise<void>;

/** Runs the plugins in order, then migrates (their typed-field tables). */
export async function applyPlugins(site: Site, plugins: readonly SitePlugin[]): Promise<void> {
  if (plugins.length === 0) return;
  for (const plugin of plugins) await plugin(site);
  await site.migrate();
}
