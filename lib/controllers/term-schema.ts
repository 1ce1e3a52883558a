/**
 * What the terms controller of one taxonomy is generated from: its config,
 * capabilities and the post types it classifies, and from them its item
 * schema (WordPress's `WP_REST_Terms_Controller::get_item_schema()`).
 */
import type { EngineApi } from "../engine-api";
import { taxonomyCaps, type TaxonomyCaps } from "../posts/registry";
import type { PostTypeConfig, RestLocation } from "../posts/types";
import { sanitizeTitle } from "../format/slug";
import { RestError } from "../routes/errors";
import type { Term, TaxonomyConfig } from "../taxonomy/types";
import { extraFields, type RestField, type TermControllerExtension } from "./extensions";
import type { ItemSchema, PropertySchema } from "./schema";

export interface TaxonomyView {
  name: string;
  config: TaxonomyConfig;
  rest: RestLocation;
  caps: TaxonomyCaps;
  hierarchical: boolean;
  /** The post types of the taxonomy shown in the REST API (their collections link to a term's posts). */
  types: Array<{ name: string; config: PostTypeConfig; rest: RestLocation }>;
  schema: ItemSchema;
  extensions: readonly TermControllerExtension[];
  restFields: Readonly<Record<string, RestField<Term>>>;
}

const ALL: PropertySchema["context"] = ["view", "embed", "edit"];
const VIEW_EDIT: PropertySchema["context"] = ["view", "edit"];

export function taxonomyView(engine: EngineApi, name: string, extensions: readonly TermControllerExtension[]): TaxonomyView | null {
  const config = engine.taxonomy(name);
  if (!config?.rest) return null;
  const types = config.objectTypes.flatMap((type) => {
    const typeConfig = engine.postType(type);
    return typeConfig?.rest ? [{ name: type, config: typeConfig, rest: typeConfig.rest }] : [];
  });
  const hierarchical = config.hierarchical === true;
  const restFields = extraFields(extensions);
  const p: Record<string, PropertySchema> = {
    id: { description: "Unique identifier for the term.", type: "integer", context: ALL, readonly: true },
    count: { description: "Number of published posts for the term.", type: "integer", context: VIEW_EDIT, readonly: true },
    description: { description: "HTML description of the term.", type: "string", context: VIEW_EDIT },
    link: { description: "URL of the term.", type: "string", format: "uri", context: ALL, readonly: true },
    name: { description: "HTML title for the term.", type: "string", context: ALL, required: true },
    slug: {
      description: "An alphanumeric identifier for the term unique to its type.",
      type: "string",
      context: ALL,
      arg: { sanitize: (value) => (typeof value === "string" ? sanitizeTitle(value) : new RestError("rest_invalid_type", "slug is not of type string.", 400, { param: "slug" })) },
    },
    taxonomy: { description: "Type attribution for the term.", type: "string", enum: [name], context: ALL, readonly: true },
  };
  if (hierarchical) p.parent = { description: "The parent term ID.", type: "integer", context: VIEW_EDIT };
  // calpress keeps no term meta: the member is always empty, and the argument (an object, as in WordPress) changes nothing.
  p.meta = {
    description: "Meta fields.",
    type: "object",
    context: VIEW_EDIT,
    properties: {},
    arg: { sanitize: (value) => (typeof value === "object" && value !== null ? value : new RestError("rest_invalid_param", "Invalid parameter.", 400)) },
  };
  for (const [field, spec] of Object.entries(restFields)) {
    if (spec.schema !== undefined) p[field] = { ...spec.schema, readonly: spec.schema.readonly ?? spec.update === undefined };
  }
  return {
    name,
    config,
    rest: config.rest,
    caps: taxonomyCaps(config),
    hierarchical,
    types,
    schema: { title: name, properties: p },
    extensions,
    restFields,
  };
}
