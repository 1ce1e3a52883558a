/**
 * The engine's own discovery routes, in WordPress's `wp/v2` namespace and
 * shapes (a subset): the post types and taxonomies shown in the REST API
 * (`rest` in their config), the logged-in user and the possible authors.
 * A client generated from what is registered (an editor) starts here.
 * createSite registers them for every site, through the same route table
 * API plugins use.
 */
import { registerContentTypeRoutes } from "./content-types";
import { CORE_NAMESPACE, type CoreHost } from "./host";
import { registerUserRoutes } from "./users";

export { CORE_NAMESPACE, type CoreHost } from "./host";

export function registerCoreRoutes(host: CoreHost): void {
  host.rest.registerNamespace(CORE_NAMESPACE);
  registerContentTypeRoutes(host);
  registerUserRoutes(host);
}
