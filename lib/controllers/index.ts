/**
 * The generated controllers (README.md here): every post type and taxonomy
 * with `rest: { namespace, base }` gets WordPress's posts or terms routes in
 * its namespace, unless its `rest` says `controller: false` (the plugin
 * writes its own, as the calendar does). Routes follow the registry: a type
 * registered after the site started gets its routes then, and a type's
 * routes are made again when a taxonomy of it (its filters and members) or
 * an extension is added.
 */
import type { Engine } from "../engine";
import type { Registration } from "../posts/registry";
import type { RestServer } from "../routes/server";
import { Extensions, type PostControllerExtension, type TermControllerExtension } from "./extensions";
import { postTypeView } from "./post-schema";
import { registerPostController } from "./posts";
import { taxonomyView } from "./term-schema";
import { registerTermController } from "./terms";

export type { ControllerExtension, EndpointName, PermissionOverride, PostControllerExtension, RestField, TermControllerExtension } from "./extensions";
export type { Context, ItemSchema, PropertySchema } from "./schema";

/** What a site's `controllers` lets a plugin do with the generated routes. */
export interface Controllers {
  /** Changes the generated routes of a post type (WordPress's `rest_{type}_*` filters, `register_rest_field`); may come before the type is registered. */
  extendPostType(type: string, extension: PostControllerExtension): void;
  /** Changes the generated routes of a taxonomy. */
  extendTaxonomy(taxonomy: string, extension: TermControllerExtension): void;
  /** Whether the post type or taxonomy has generated routes (it has `rest` without `controller: false`). */
  generates(kind: "postType" | "taxonomy", name: string): boolean;
}

/** Wires the generated controllers to an engine's registry and a route table; returns the site's `controllers`. */
export function attachControllers(engine: Engine, rest: RestServer): Controllers {
  const extensions = new Extensions();
  const host = { engine, rest };
  const generatesType = (name: string): boolean => {
    const rest = engine.postType(name)?.rest;
    return rest !== undefined && rest.controller !== false;
  };
  const generatesTaxonomy = (name: string): boolean => {
    const rest = engine.taxonomy(name)?.rest;
    return rest !== undefined && rest.controller !== false;
  };

  const refreshType = (name: string): void => {
    if (!generatesType(name)) return;
    const view = postTypeView(engine, name, extensions.postsOf(name));
    if (view !== null) registerPostController(host, view);
  };
  const termRoutes = (name: string): void => {
    if (!generatesTaxonomy(name)) return;
    const view = taxonomyView(engine, name, extensions.termsOf(name));
    if (view !== null) registerTermController(host, view);
  };

  const registered = (r: Registration): void => {
    if (r.kind === "postType") {
      refreshType(r.name);
      // A term's links name the collections of its types.
      for (const tax of engine.taxonomyNames()) if (engine.taxonomy(tax)?.objectTypes.includes(r.name)) termRoutes(tax);
      return;
    }
    termRoutes(r.name);
    // Its types' records and filters name it by rest_base, whoever writes its own routes.
    const tax = engine.taxonomy(r.name);
    if (tax?.rest !== undefined) for (const type of tax.objectTypes) refreshType(type);
  };
  for (const name of engine.postTypeNames()) refreshType(name);
  for (const name of engine.taxonomyNames()) termRoutes(name);
  engine.registry.onRegister(registered);

  return {
    extendPostType(type, extension) {
      extensions.addPost(type, extension);
      refreshType(type);
    },
    extendTaxonomy(taxonomy, extension) {
      extensions.addTerm(taxonomy, extension);
      termRoutes(taxonomy);
    },
    generates: (kind, name) => (kind === "postType" ? generatesType(name) : generatesTaxonomy(name)),
  };
}
