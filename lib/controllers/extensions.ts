/**
 * How a plugin changes a generated route without writing it again: the
 * WordPress filters of its controllers, as typed options of one object per
 * post type or taxonomy (`site.controllers.extendPostType("job", {...})`).
 * Several extensions of one type apply in the order they were added.
 */
import type { LoadedPost, PostQuery } from "../posts/types";
import type { JsonObject, JsonValue } from "../routes/json";
import type { ArgsMap, PermissionResult, RestRequest } from "../routes/types";
import type { Term, TermQuery } from "../taxonomy/types";
import type { PropertySchema } from "./schema";

/** The endpoints of a generated collection (`list`, `create`) and item route (`read`, `update`, `delete`). */
export type EndpointName = "list" | "read" | "create" | "update" | "delete";

/**
 * An extra member of the records (WordPress's `register_rest_field()`).
 * `schema` says its contexts (absent: every context) and, unless it is
 * `readonly` (the default without `update`), makes it an argument of the
 * create and update routes, its type validated like any other; `update`
 * then writes the value sent, after the post or term itself was written.
 * A field without a schema is shown in every context and written when its
 * name is sent, as WordPress does.
 */
export interface RestField<O> {
  get?(object: O, req: RestRequest): JsonValue | Promise<JsonValue>;
  update?(value: unknown, object: O, req: RestRequest): void | Promise<void>;
  schema?: PropertySchema;
}

/** A permission of one endpoint, given the generated check (`original`) to call or not. */
export type PermissionOverride = (req: RestRequest, original: () => Promise<PermissionResult>) => PermissionResult | Promise<PermissionResult>;

export interface ControllerExtension<O, Q> {
  /** Extra arguments per endpoint (validated like the generated ones; read them in `query`, `prepare` or a field's `update`). */
  args?: Partial<Record<EndpointName, ArgsMap>>;
  /** A permission of one's own per endpoint. */
  permission?: Partial<Record<EndpointName, PermissionOverride>>;
  /** Changes the list's query before it runs (WordPress's `rest_{type}_query`). */
  query?: (query: Q, req: RestRequest) => Q | Promise<Q>;
  /** Changes a record, after its context filter and links (WordPress's `rest_prepare_{type}`). */
  prepare?: (record: JsonObject, object: O, req: RestRequest) => JsonObject | Promise<JsonObject>;
  /** Extra record members by name (WordPress's `register_rest_field()`). */
  fields?: Readonly<Record<string, RestField<O>>>;
}

export interface PostControllerExtension extends ControllerExtension<LoadedPost, PostQuery> {
  /** Whether DELETE without `force` may trash the post (WordPress's `rest_{type}_trashable`); default true. */
  trashable?: boolean | ((post: LoadedPost) => boolean);
}

export type TermControllerExtension = ControllerExtension<Term, TermQuery>;

/** The extensions of every post type and taxonomy, kept before the type exists too. */
export class Extensions {
  readonly posts = new Map<string, PostControllerExtension[]>();
  readonly terms = new Map<string, TermControllerExtension[]>();

  postsOf(type: string): readonly PostControllerExtension[] {
    return this.posts.get(type) ?? [];
  }

  termsOf(taxonomy: string): readonly TermControllerExtension[] {
    return this.terms.get(taxonomy) ?? [];
  }

  addPost(type: string, extension: PostControllerExtension): void {
    this.posts.set(type, [...this.postsOf(type), extension]);
  }

  addTerm(taxonomy: string, extension: TermControllerExtension): void {
    this.terms.set(taxonomy, [...this.termsOf(taxonomy), extension]);
  }
}

/** The extensions' extra args of one endpoint, merged in order. */
export function extraArgs<O, Q>(extensions: readonly ControllerExtension<O, Q>[], endpoint: EndpointName): ArgsMap {
  return Object.assign({}, ...extensions.map((e) => e.args?.[endpoint] ?? {})) as ArgsMap;
}

/** The extensions' fields, later ones replacing earlier ones of the same name. */
export function extraFields<O, Q>(extensions: readonly ControllerExtension<O, Q>[]): Record<string, RestField<O>> {
  return Object.assign({}, ...extensions.map((e) => e.fields ?? {})) as Record<string, RestField<O>>;
}

/** The generated permission check of an endpoint with the extensions' overrides around it (the last added outermost). */
export function withOverrides<O, Q>(
  extensions: readonly ControllerExtension<O, Q>[],
  endpoint: EndpointName,
  generated: (req: RestRequest) => Promise<PermissionResult>,
): (req: RestRequest) => Promise<PermissionResult> {
  let check = generated;
  for (const extension of extensions) {
    const override = extension.permission?.[endpoint];
    if (override === undefined) continue;
    const inner = check;
    check = async (req) => override(req, () => inner(req));
  }
  return check;
}

/** Runs the `query` hooks in order. */
export async function filterQuery<O, Q>(extensions: readonly ControllerExtension<O, Q>[], query: Q, req: RestRequest): Promise<Q> {
  let out = query;
  for (const extension of extensions) if (extension.query) out = await extension.query(out, req);
  return out;
}

/** Runs the `prepare` hooks in order. */
export async function prepareRecord<O, Q>(extensions: readonly ControllerExtension<O, Q>[], record: JsonObject, object: O, req: RestRequest): Promise<JsonObject> {
  let out = record;
  for (const extension of extensions) if (extension.prepare) out = await extension.prepare(out, object, req);
  return out;
}
