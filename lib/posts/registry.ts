import { tableNames, type Tables } from "../db/tables";
import { EngineError } from "../engine-errors";
import { declaredFieldKind, declaredPostKinds, declaredTermKinds } from "./clean";
import type { TaxonomyConfig } from "../taxonomy/types";
import { FieldDef, POST_STATUSES, PostStatus, PostTypeConfig, RestLocation } from "./types";

/**
 * The primitive capabilities of one post type, as WordPress's
 * `get_post_type_capabilities()` builds them from `capability_type`.
 */
export interface PostTypeCaps {
  read: string;
  edit_posts: string;
  edit_others_posts: string;
  edit_published_posts: string;
  edit_private_posts: string;
  publish_posts: string;
  read_private_posts: string;
  delete_posts: string;
  delete_others_posts: string;
  delete_published_posts: string;
  delete_private_posts: string;
  create_posts: string;
}

export function postTypeCaps(capabilityType: [string, string]): PostTypeCaps {
  // WordPress uses the singular only for the meta caps (`edit_event`), which
  // calpress names generically (`edit_post` with an object) as map_meta_cap does.
  const plural = capabilityType[1];
  return {
    read: "read",
    edit_posts: `edit_${plural}`,
    edit_others_posts: `edit_others_${plural}`,
    edit_published_posts: `edit_published_${plural}`,
    edit_private_posts: `edit_private_${plural}`,
    publish_posts: `publish_${plural}`,
    read_private_posts: `read_private_${plural}`,
    delete_posts: `delete_${plural}`,
    delete_others_posts: `delete_others_${plural}`,
    delete_published_posts: `delete_published_${plural}`,
    delete_private_posts: `delete_private_${plural}`,
    create_posts: `edit_${plural}`,
  };
}

export interface TaxonomyCaps {
  manage_terms: string;
  edit_terms: string;
  delete_terms: string;
  assign_terms: string;
}

/** WordPress's defaults for a taxonomy without explicit capabilities: manage_categories, and edit_posts to assign. */
export function taxonomyCaps(config: TaxonomyConfig): TaxonomyCaps {
  return {
    manage_terms: config.capabilities?.manage ?? "manage_categories",
    edit_terms: config.capabilities?.edit ?? config.capabilities?.manage ?? "manage_categories",
    delete_terms: config.capabilities?.delete ?? config.capabilities?.manage ?? "manage_categories",
    assign_terms: config.capabilities?.assign ?? "edit_posts",
  };
}

/** A REST location names a namespace and a base a route can be registered at (`rest` of a type or taxonomy). */
function checkRestLocation(what: string, rest: RestLocation | undefined): RestLocation | undefined {
  if (rest === undefined) return undefined;
  const namespace = typeof rest.namespace === "string" ? rest.namespace.replace(/^\/+|\/+$/g, "") : "";
  const base = typeof rest.base === "string" ? rest.base.replace(/^\/+|\/+$/g, "") : "";
  if (namespace === "" || base === "") throw new EngineError("invalid_rest", `${what}: rest needs a namespace and a base`);
  return rest.controller === false ? { namespace, base, controller: false } : { namespace, base };
}

/** What was just registered (`Registry.onRegister`). */
export type Registration = { kind: "postType"; name: string } | { kind: "taxonomy"; name: string };

export interface RegisteredPostType {
  name: string;
  config: PostTypeConfig;
  caps: PostTypeCaps;
  statuses: ReadonlySet<PostStatus>;
  /** The declared fields; each `string` and `text` field with its `kind` (the default filled in). */
  fields: Readonly<Record<string, FieldDef>>;
  /** Name of the typed-field table (`tables.fields(name)`, for queries), or null when the type declares no fields. */
  fieldsTable: string | null;
}

export interface RegisteredTaxonomy {
  name: string;
  config: TaxonomyConfig;
  caps: TaxonomyCaps;
}

const TYPE_NAME = /^[a-z0-9_]{1,32}$/;
const FIELD_NAME = /^[a-z_][a-z0-9_]{0,59}$/;
/** Longest string column that MySQL/MariaDB (utf8mb4, 767-byte index prefix on older row formats) can index whole. */
export const MAX_INDEXED_STRING = 191;

/**
 * Post types and taxonomies of one engine. Kept per engine (no module
 * globals) so that two engines in one process stay independent.
 */
export class Registry {
  /** `tables` names the typed-field tables; the default names are those of a registry used without a database (tests of capabilities). */
  constructor(private readonly tables: Tables = tableNames()) {}

  readonly postTypes = new Map<string, RegisteredPostType>();
  readonly taxonomies = new Map<string, RegisteredTaxonomy>();
  /** Bumped on every registration; capability tables are memoised per version. */
  version = 0;
  private readonly listeners: Array<(registration: Registration) => void> = [];

  /**
   * Calls `listener` after every registration from now on (the site's
   * generated REST routes follow what is registered, lib/controllers).
   * Returns a function that stops it.
   */
  onRegister(listener: (registration: Registration) => void): () => void {
    this.listeners.push(listener);
    return () => {
      const at = this.listeners.indexOf(listener);
      if (at >= 0) this.listeners.splice(at, 1);
    };
  }

  private registered(registration: Registration): void {
    for (const listener of [...this.listeners]) listener(registration);
  }

  registerPostType(name: string, config: PostTypeConfig): void {
    // Letters, digits and `_` only: the name becomes part of a table name.
    if (!TYPE_NAME.test(name)) throw new EngineError("invalid_type", `invalid post type name: ${name}`);
    const statuses = config.statuses ?? POST_STATUSES.filter((s) => s !== "auto-draft");
    for (const s of statuses) {
      if (!POST_STATUSES.includes(s)) throw new EngineError("invalid_status", `unknown status ${s} for post type ${name}`);
    }
    const fields: Record<string, FieldDef> = {};
    for (const [field, def] of Object.entries(config.fields ?? {})) {
      if (!FIELD_NAME.test(field) || field === "post_id") throw new EngineError("invalid_field", `invalid field name: ${name}.${field}`);
      const d: FieldDef = { ...def };
      if (d.type === "string") {
        // An indexed string must be indexable whole on MySQL/MariaDB (utf8mb4):
        // default it to 191 characters and refuse longer ones.
        if (d.length === undefined) d.length = d.index ? MAX_INDEXED_STRING : 255;
        if (!Number.isInteger(d.length) || d.length < 1 || d.length > 65535) throw new EngineError("invalid_field", `bad length for ${name}.${field}`);
        if (d.index && d.length > MAX_INDEXED_STRING) {
          throw new EngineError("invalid_field", `${name}.${field}: indexed string fields are limited to ${MAX_INDEXED_STRING} characters (MySQL utf8mb4 index limit)`);
        }
      }
      if (d.type === "text" && d.index) throw new EngineError("invalid_field", `${name}.${field}: text fields cannot be indexed; use a string field`);
      const kind = declaredFieldKind(`${name}.${field}`, d);
      if (kind !== undefined) d.kind = kind;
      fields[field] = d;
    }
    for (const field of Object.values(config.occurrenceFields ?? {})) {
      if (fields[field]?.type !== "datetime") throw new EngineError("invalid_field", `${name}: occurrenceFields names ${field}, which is not a datetime field`);
    }
    const rest = checkRestLocation(`post type ${name}`, config.rest);
    // The stored config holds every kind, defaults filled in (clean.ts reads them there).
    const stored: PostTypeConfig = { ...config, statuses: [...statuses], fields, ...declaredPostKinds(name, config), ...(rest ? { rest } : {}) };
    this.postTypes.set(name, {
      name,
      config: stored,
      caps: postTypeCaps(config.capabilityType ?? ["post", "posts"]),
      statuses: new Set(statuses),
      fields,
      fieldsTable: Object.keys(fields).length > 0 ? this.tables.fields(name) : null,
    });
    this.version++;
    this.registered({ kind: "postType", name });
  }

  registerTaxonomy(name: string, config: TaxonomyConfig): void {
    if (!TYPE_NAME.test(name)) throw new EngineError("invalid_type", `invalid taxonomy name: ${name}`, { taxonomy: name, object: "taxonomy" });
    const rest = checkRestLocation(`taxonomy ${name}`, config.rest);
    const stored: TaxonomyConfig = { ...config, objectTypes: [...config.objectTypes], textKinds: declaredTermKinds(name, config), ...(rest ? { rest } : {}) };
    this.taxonomies.set(name, { name, config: stored, caps: taxonomyCaps(config) });
    this.version++;
    this.registered({ kind: "taxonomy", name });
  }

  postType(name: string): RegisteredPostType {
    const t = this.postTypes.get(name);
    if (!t) throw new EngineError("invalid_type", `unknown post type: ${name}`);
    return t;
  }

  taxonomy(name: string): RegisteredTaxonomy {
    const t = this.taxonomies.get(name);
    if (!t) throw new EngineError("invalid_type", `unknown taxonomy: ${name}`, { taxonomy: name, object: "taxonomy" });
    return t;
  }
}
