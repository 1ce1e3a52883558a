/**
 * What the posts controller of one post type is generated from: the type's
 * config, capabilities, taxonomies and typed fields, and from them its item
 * schema (WordPress's `WP_REST_Posts_Controller::get_item_schema()` for the
 * type's `supports`). Built when the routes are registered, again whenever a
 * taxonomy of the type or an extension is added.
 */
import type { EngineApi } from "../engine-api";
import { postTypeCaps, type PostTypeCaps } from "../posts/registry";
import { POST_STATUSES, type FieldDef, type FieldValue, type LoadedPost, type PostTypeConfig, type RestLocation } from "../posts/types";
import { coerceValue, isWpObject } from "../routes/coerce";
import { RestError } from "../routes/errors";
import type { JsonValue } from "../routes/json";
import type { TaxonomyConfig } from "../taxonomy/types";
import { sanitizeTitle } from "../format/slug";
import { dateWithGmt } from "./dates";
import { extraFields, type PostControllerExtension, type RestField } from "./extensions";
import type { ItemSchema, PropertySchema } from "./schema";

export interface ShownTaxonomy {
  name: string;
  config: TaxonomyConfig;
  rest: RestLocation;
}

export interface PostTypeView {
  name: string;
  config: PostTypeConfig;
  rest: RestLocation;
  caps: PostTypeCaps;
  /** WordPress's `supports` (register_post_type's default: title and editor). */
  supports: ReadonlySet<string>;
  fields: Readonly<Record<string, FieldDef>>;
  /** The type's taxonomies shown in the REST API (WordPress's `show_in_rest`), in registration order. */
  taxonomies: ShownTaxonomy[];
  /** Statuses a client may write (the type's, less trash and auto-draft). */
  writableStatuses: string[];
  schema: ItemSchema;
  extensions: readonly PostControllerExtension[];
  /** `register_rest_field` members by name. */
  restFields: Readonly<Record<string, RestField<LoadedPost>>>;
}

/** The taxonomies of a type that have a REST location. */
export function shownTaxonomiesOf(engine: EngineApi, type: string): ShownTaxonomy[] {
  return engine.taxonomyNames().flatMap((name) => {
    const config = engine.taxonomy(name);
    return config?.rest && config.objectTypes.includes(type) ? [{ name, config, rest: config.rest }] : [];
  });
}

export function postTypeView(engine: EngineApi, name: string, extensions: readonly PostControllerExtension[]): PostTypeView | null {
  const config = engine.postType(name);
  if (!config?.rest) return null;
  const taxonomies = shownTaxonomiesOf(engine, name);
  const fields = config.fields ?? {};
  const writableStatuses = (config.statuses ?? POST_STATUSES).filter((s) => s !== "trash" && s !== "auto-draft");
  const restFields = extraFields(extensions);
  const view: Omit<PostTypeView, "schema"> = {
    name,
    config,
    rest: config.rest,
    caps: postTypeCaps(config.capabilityType ?? ["post", "posts"]),
    supports: new Set(config.supports ?? ["title", "editor"]),
    fields,
    taxonomies,
    writableStatuses,
    extensions,
    restFields,
  };
  return { ...view, schema: postItemSchema(view) };
}

const ALL: PropertySchema["context"] = ["view", "edit", "embed"];
const VIEW_EDIT: PropertySchema["context"] = ["view", "edit"];
const EDIT: PropertySchema["context"] = ["edit"];

/** A member WordPress shows as `{ raw, rendered }` and takes as a string or as `{ raw }` (title, content, excerpt). */
function rawTextArg(name: string, emptyRawCounts: boolean): PropertySchema["arg"] {
  return {
    // WordPress's arg_options drop the type rules: the controller reads either form itself.
    sanitize: (value) => {
      if (typeof value === "string") return value;
      if (isWpObject(value) && value !== "" && !Array.isArray(value)) {
        const raw = (value as Record<string, unknown>).raw;
        // WordPress: title needs a non-empty raw, content and excerpt take "" too; anything else changes nothing.
        if (typeof raw === "string" && (emptyRawCounts || raw !== "")) return raw;
        return undefined;
      }
      return new RestError("rest_invalid_type", `${name} is not of type string,object.`, 400, { param: name });
    },
  };
}

/**
 * The value a registered meta key shows when it has none: its default, else
 * WordPress's `get_empty_value_for_type()` (a date's empty string fails its
 * `date-time` format, which WordPress shows as null).
 */
export function emptyFieldValue(def: FieldDef): FieldValue {
  if (def.default !== undefined && def.default !== null) return def.default;
  switch (def.type) {
    case "datetime":
      return null;
    case "integer":
    case "number":
      return 0;
    case "boolean":
      return false;
    default:
      return "";
  }
}

/** A typed field as WordPress's registered meta schema (`register_post_meta` with `show_in_rest`). */
function fieldSchema(def: FieldDef): PropertySchema {
  // WordPress's registered meta schema: a type, an empty description and the default (the type's empty value); no contexts.
  const base = { description: "", default: (def.default ?? (def.type === "datetime" ? "" : emptyFieldValue(def))) as JsonValue };
  switch (def.type) {
    case "integer":
      return { type: "integer", ...base };
    case "number":
      return { type: "number", ...base };
    case "boolean":
      return { type: "boolean", ...base };
    case "datetime":
      return { type: "string", format: "date-time", ...base };
    default: {
      // A field of kind url or email says so as WordPress's registered meta schemas would (`format`).
      const format = def.kind === "url" ? { format: "uri" } : def.kind === "email" ? { format: "email" } : {};
      return def.type === "string" ? { type: "string", ...format, maxLength: def.length ?? 255, ...base } : { type: "string", ...format, ...base };
    }
  }
}

/**
 * The `meta` argument is an object (WordPress's `check_meta_is_array`);
 * its members are checked by `metaValues` in the handler, before anything
 * is written, with WordPress's error codes.
 */
const metaArg: PropertySchema["arg"] = {
  sanitize: (value) => (isWpObject(value) && typeof value !== "string" && !Array.isArray(value) ? value : new RestError("rest_invalid_param", "Invalid parameter.", 400)),
};

/**
 * The typed-field values of a `meta` object (WordPress's
 * `WP_REST_Meta_Fields::update_value()` checks): known members checked by
 * their field's type, `null` clearing one, others ignored (as WordPress
 * ignores unregistered keys). Throws WordPress's error for the first bad one.
 */
export async function metaValues(engine: EngineApi, fields: Readonly<Record<string, FieldDef>>, meta: Record<string, unknown>): Promise<Record<string, FieldValue>> {
  const out: Record<string, FieldValue> = {};
  for (const [name, raw] of Object.entries(meta)) {
    const def = fields[name];
    if (def === undefined) continue;
    if (raw === null) {
      out[name] = null;
      continue;
    }
    const param = `meta.${name}`;
    const coerced = coerceValue(raw, { type: fieldSchema(def).type }, param);
    if (!coerced.ok) throw new RestError(coerced.error.code, coerced.error.message, 400, { param });
    let v = coerced.value as FieldValue;
    if (def.type === "string" && typeof v === "string" && [...v].length > (def.length ?? 255)) {
      throw new RestError("rest_too_long", `${param} must be at most ${def.length ?? 255} characters long.`, 400, { param });
    }
    if (def.type === "datetime" && typeof v === "string") {
      const parsed = v === "" ? null : dateWithGmt(v, false, await engine.options.timezone());
      if (parsed === null) throw new RestError("rest_invalid_date", "Invalid date.", 400, { param });
      v = parsed.local;
    }
    out[name] = v;
  }
  return out;
}

function postItemSchema(view: Omit<PostTypeView, "schema">): ItemSchema {
  const p: Record<string, PropertySchema> = {
    date: { description: "The date the post was published, in the site's timezone.", type: ["string", "null"], format: "date-time", context: ALL },
    date_gmt: { description: "The date the post was published, as GMT.", type: ["string", "null"], format: "date-time", context: VIEW_EDIT },
    guid: {
      description: "The globally unique identifier for the post.",
      type: "object",
      context: VIEW_EDIT,
      readonly: true,
      properties: {
        raw: { description: "GUID for the post, as it exists in the database.", type: "string", context: EDIT, readonly: true },
        rendered: { description: "GUID for the post, transformed for display.", type: "string", context: VIEW_EDIT, readonly: true },
      },
    },
    id: { description: "Unique identifier for the post.", type: "integer", context: ALL, readonly: true },
    link: { description: "URL to the post.", type: "string", format: "uri", context: ALL, readonly: true },
    modified: { description: "The date the post was last modified, in the site's timezone.", type: "string", format: "date-time", context: VIEW_EDIT, readonly: true },
    modified_gmt: { description: "The date the post was last modified, as GMT.", type: "string", format: "date-time", context: VIEW_EDIT, readonly: true },
    slug: {
      description: "An alphanumeric identifier for the post unique to its type.",
      type: "string",
      context: ALL,
      arg: { sanitize: (value) => (typeof value === "string" ? sanitizeTitle(value) : new RestError("rest_invalid_type", "slug is not of type string.", 400, { param: "slug" })) },
    },
    status: { description: "A named status for the post.", type: "string", enum: view.writableStatuses, context: VIEW_EDIT },
    type: { description: "Type of post.", type: "string", context: ALL, readonly: true },
    password: { description: "A password to protect access to the content and excerpt.", type: "string", context: EDIT },
    permalink_template: { description: "Permalink template for the post.", type: "string", context: EDIT, readonly: true },
    generated_slug: { description: "Slug automatically generated from the post title.", type: "string", context: EDIT, readonly: true },
  };
  if (view.config.hierarchical) p.parent = { description: "The ID for the parent of the post.", type: "integer", context: VIEW_EDIT };
  const supports = view.supports;
  if (supports.has("title")) {
    p.title = {
      description: "The title for the post.",
      type: "object",
      context: ALL,
      arg: rawTextArg("title", false),
      properties: {
        raw: { description: "Title for the post, as it exists in the database.", type: "string", context: EDIT },
        rendered: { description: "HTML title for the post, transformed for display.", type: "string", context: ALL, readonly: true },
      },
    };
  }
  if (supports.has("editor")) {
    p.content = {
      description: "The content for the post.",
      type: "object",
      context: VIEW_EDIT,
      arg: rawTextArg("content", true),
      properties: {
        raw: { description: "Content for the post, as it exists in the database.", type: "string", context: EDIT },
        rendered: { description: "HTML content for the post, transformed for display.", type: "string", context: VIEW_EDIT, readonly: true },
        block_version: { description: "Version of the content block format used by the post.", type: "integer", context: EDIT, readonly: true },
        protected: { description: "Whether the content is protected with a password.", type: "boolean", context: ALL, readonly: true },
      },
    };
  }
  if (supports.has("author")) p.author = { description: "The ID for the author of the post.", type: "integer", context: ALL };
  if (supports.has("excerpt")) {
    p.excerpt = {
      description: "The excerpt for the post.",
      type: "object",
      context: ALL,
      arg: rawTextArg("excerpt", true),
      properties: {
        raw: { description: "Excerpt for the post, as it exists in the database.", type: "string", context: EDIT },
        rendered: { description: "HTML excerpt for the post, transformed for display.", type: "string", context: ALL, readonly: true },
        protected: { description: "Whether the excerpt is protected with a password.", type: "boolean", context: ALL, readonly: true },
      },
    };
  }
  if (supports.has("thumbnail")) p.featured_media = { description: "The ID of the featured media for the post.", type: "integer", context: ALL };
  if (supports.has("page-attributes")) p.menu_order = { description: "The order of the post in relation to other posts.", type: "integer", context: VIEW_EDIT };
  // calpress decision: typed fields are registered meta shown in REST, whatever `supports` says.
  if (Object.keys(view.fields).length > 0) {
    p.meta = {
      description: "Meta fields.",
      type: "object",
      context: VIEW_EDIT,
      properties: Object.fromEntries(Object.entries(view.fields).map(([name, def]) => [name, fieldSchema(def)])),
      arg: metaArg,
    };
  }
  p.template = {
    description: "The theme file to use to display the post.",
    type: "string",
    context: VIEW_EDIT,
    // calpress has no themes: WordPress's answer for a site without page templates.
    arg: { validate: (value) => value === "" || "template is not one of ." },
  };
  for (const tax of view.taxonomies) {
    p[tax.rest.base] = { description: `The terms assigned to the post in the ${tax.name} taxonomy.`, type: "array", items: { type: "integer" }, context: VIEW_EDIT };
  }
  // WordPress's additional fields: only those with a schema are in it (the others show in every context and are no argument).
  for (const [name, field] of Object.entries(view.restFields)) {
    if (field.schema !== undefined) p[name] = { ...field.schema, readonly: field.schema.readonly ?? field.update === undefined };
  }
  return { title: view.name, properties: p };
}
