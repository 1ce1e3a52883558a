/**
 * `GET /wp/v2/types` and `GET /wp/v2/taxonomies` (WordPress's
 * WP_REST_Post_Types_Controller and WP_REST_Taxonomies_Controller, a
 * subset): what is registered with a `rest` location, read from the engine
 * at request time, so types a host registers after the site starts show too.
 */
import type { EngineApi } from "../engine-api";
import { postTypeCaps, taxonomyCaps, type PostTypeCaps } from "../posts/registry";
import type { PostTypeConfig, RestLocation } from "../posts/types";
import { RestError } from "../routes/errors";
import type { JsonObject } from "../routes/json";
import { READABLE, type RestRequest } from "../routes/types";
import type { TaxonomyConfig } from "../taxonomy/types";
import type { CurrentUser } from "../users/types";
import { contextArg, CORE_NAMESPACE, refused, type Context, type CoreHost } from "./host";

interface Shown<C> {
  name: string;
  config: C;
  rest: RestLocation;
}

/** The post types with a `rest` location, in registration order. */
export function shownPostTypes(engine: EngineApi): Shown<PostTypeConfig>[] {
  return engine.postTypeNames().flatMap((name) => {
    const config = engine.postType(name);
    return config?.rest ? [{ name, config, rest: config.rest }] : [];
  });
}

/** The taxonomies with a `rest` location, in registration order. */
export function shownTaxonomies(engine: EngineApi): Shown<TaxonomyConfig>[] {
  return engine.taxonomyNames().flatMap((name) => {
    const config = engine.taxonomy(name);
    return config?.rest ? [{ name, config, rest: config.rest }] : [];
  });
}

export function typeCaps(config: PostTypeConfig): PostTypeCaps {
  return postTypeCaps(config.capabilityType ?? ["post", "posts"]);
}

/** Whether the user may edit posts of the type: what the edit context of a type asks (WordPress `$type->cap->edit_posts`). */
export function canEditType(user: CurrentUser | null, config: PostTypeConfig): boolean {
  return user?.can(typeCaps(config).edit_posts) === true;
}

/** Whether the user may assign terms of the taxonomy: what its edit context asks (WordPress `$taxonomy->cap->assign_terms`). */
function canAssignTerms(user: CurrentUser | null, config: TaxonomyConfig): boolean {
  return user?.can(taxonomyCaps(config).assign_terms) === true;
}

/** WordPress's `labels.name` and `labels.singular_name`; without labels, the registry name. */
function labelsOf(labels: { singular?: string; plural?: string } | undefined, name: string): { name: string; singular_name: string } {
  return { name: labels?.plural ?? labels?.singular ?? name, singular_name: labels?.singular ?? labels?.plural ?? name };
}

const TYPE_EDIT_MESSAGE = "Sorry, you are not allowed to edit posts in this post type.";
const TAXONOMY_EDIT_MESSAGE = "Sorry, you are not allowed to manage terms in this taxonomy.";

function typeRecord(engine: EngineApi, type: Shown<PostTypeConfig>, context: Context): JsonObject {
  const { name, config, rest } = type;
  const labels = labelsOf(config.labels, name);
  const record: JsonObject = {
    name: labels.name,
    slug: name,
    description: "",
    hierarchical: config.hierarchical === true,
    rest_base: rest.base,
    rest_namespace: rest.namespace,
    // Only taxonomies a client can reach (WordPress filters on show_in_rest too).
    taxonomies: shownTaxonomies(engine)
      .filter((t) => t.config.objectTypes.includes(name))
      .map((t) => t.name),
    labels,
  };
  if (context !== "edit") return record;
  const caps = typeCaps(config);
  record.capabilities = {
    edit_posts: caps.edit_posts,
    edit_others_posts: caps.edit_others_posts,
    publish_posts: caps.publish_posts,
    read_private_posts: caps.read_private_posts,
    delete_posts: caps.delete_posts,
    delete_others_posts: caps.delete_others_posts,
    delete_published_posts: caps.delete_published_posts,
    edit_published_posts: caps.edit_published_posts,
  };
  // WordPress's shape, `{ feature: true }`; register_post_type()'s default is title and editor.
  record.supports = Object.fromEntries((config.supports ?? ["title", "editor"]).map((feature) => [feature, true]));
  // calpress addition: the statuses a post of the type may take (the registry's default when none were given).
  record.statuses = [...(config.statuses ?? [])];
  return record;
}

function taxonomyRecord(taxonomy: Shown<TaxonomyConfig>, context: Context): JsonObject {
  const { name, config, rest } = taxonomy;
  const record: JsonObject = {
    name: labelsOf(config.labels, name).name,
    slug: name,
    description: "",
    hierarchical: config.hierarchical === true,
    rest_base: rest.base,
    rest_namespace: rest.namespace,
    // All of them, as WordPress's `object_type`.
    types: [...config.objectTypes],
    labels: labelsOf(config.labels, name),
  };
  if (context !== "edit") return record;
  const caps = taxonomyCaps(config);
  record.capabilities = { manage_terms: caps.manage_terms, edit_terms: caps.edit_terms, delete_terms: caps.delete_terms, assign_terms: caps.assign_terms };
  return record;
}

export function registerContentTypeRoutes(host: CoreHost): void {
  const { engine, rest } = host;

  rest.registerRoute(CORE_NAMESPACE, "/types", {
    methods: READABLE,
    args: { context: contextArg },
    // WordPress: the edit context needs a type the user may edit; the list then leaves out the others.
    permission: (req) =>
      req.params.context !== "edit" || shownPostTypes(engine).some((t) => canEditType(req.user, t.config)) || refused(req.user, "rest_cannot_view", TYPE_EDIT_MESSAGE),
    summary: "List the post types shown in the REST API",
    handler: (req: RestRequest<{ context: Context }>) => {
      const out: JsonObject = {};
      for (const type of shownPostTypes(engine)) {
        if (req.params.context === "edit" && !canEditType(req.user, type.config)) continue;
        out[type.name] = typeRecord(engine, type, req.params.context);
      }
      return out;
    },
  });

  rest.registerRoute(CORE_NAMESPACE, "/types/(?P<type>[\\w-]+)", {
    methods: READABLE,
    args: { type: { type: "string", description: "An alphanumeric identifier for the post type." }, context: contextArg },
    permission: "public", // the edit context is checked against the type, once it is known to exist (404 first)
    summary: "Read a post type shown in the REST API",
    handler: (req: RestRequest<{ type: string; context: Context }>) => {
      const type = shownPostTypes(engine).find((t) => t.name === req.params.type);
      if (!type) throw new RestError("rest_type_invalid", "Invalid post type.", 404);
      if (req.params.context === "edit" && !canEditType(req.user, type.config)) throw refused(req.user, "rest_cannot_view", TYPE_EDIT_MESSAGE);
      return typeRecord(engine, type, req.params.context);
    },
  });

  rest.registerRoute(CORE_NAMESPACE, "/taxonomies", {
    methods: READABLE,
    args: { context: contextArg, type: { type: "string", description: "Limit results to taxonomies associated with a specific post type." } },
    permission: (req) =>
      req.params.context !== "edit" || shownTaxonomies(engine).some((t) => canAssignTerms(req.user, t.config)) || refused(req.user, "rest_cannot_view", TAXONOMY_EDIT_MESSAGE),
    summary: "List the taxonomies shown in the REST API",
    handler: (req: RestRequest<{ context: Context; type?: string }>) => {
      const out: JsonObject = {};
      for (const taxonomy of shownTaxonomies(engine)) {
        if (req.params.type !== undefined && !taxonomy.config.objectTypes.includes(req.params.type)) continue;
        if (req.params.context === "edit" && !canAssignTerms(req.user, taxonomy.config)) continue;
        out[taxonomy.name] = taxonomyRecord(taxonomy, req.params.context);
      }
      return out;
    },
  });

  rest.registerRoute(CORE_NAMESPACE, "/taxonomies/(?P<taxonomy>[\\w-]+)", {
    methods: READABLE,
    args: { taxonomy: { type: "string", description: "An alphanumeric identifier for the taxonomy." }, context: contextArg },
    permission: "public", // as for types: 404 before the edit-context check
    summary: "Read a taxonomy shown in the REST API",
    handler: (req: RestRequest<{ taxonomy: string; context: Context }>) => {
      const taxonomy = shownTaxonomies(engine).find((t) => t.name === req.params.taxonomy);
      if (!taxonomy) throw new RestError("rest_taxonomy_invalid", "Invalid taxonomy.", 404);
      if (req.params.context === "edit" && !canAssignTerms(req.user, taxonomy.config)) throw refused(req.user, "rest_cannot_view", TAXONOMY_EDIT_MESSAGE);
      return taxonomyRecord(taxonomy, req.params.context);
    },
  });
}
