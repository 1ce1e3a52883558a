/**
 * WordPress's `WP_REST_Terms_Controller` for one taxonomy, generated from its
 * config: `/<namespace>/<base>` (list, create) and
 * `/<namespace>/<base>/(?P<id>[\d]+)` (read, update, delete), with
 * WordPress's arguments (one parameter table feeds the list's args and its
 * query), permission checks, error codes, records and headers.
 */
import { postTag, SITE_TAG, termTag } from "../db/cache-tags";
import { isEngineError } from "../engine-errors";
import type { Term, TermPatch, TermQuery } from "../taxonomy/types";
import { RestError } from "../routes/errors";
import { isAbsent, type JsonObject } from "../routes/json";
import { RestResponse } from "../routes/response";
import { CREATABLE, DELETABLE, EDITABLE, READABLE, type ArgSpec, type ArgsMap, type PermissionResult, type RestEndpoint, type RestRequest } from "../routes/types";
import { refused } from "../core-routes/host";
import { extraArgs, filterQuery, withOverrides, type EndpointName } from "./extensions";
import { pagingHeaders } from "./paging";
import type { ControllerHost } from "./posts";
import { contextArg, documentSchema, endpointArgs, type Context } from "./schema";
import { termRecord } from "./term-record";
import type { TaxonomyView } from "./term-schema";

const invalidTerm = (): RestError => new RestError("rest_term_invalid", "Term does not exist.", 404);

/**
 * The addressed term, looked up once per request, shared by the permission
 * checks and the handler (`req.memo`); a write puts what it left there
 * (`Allow` after it: as WordPress computes it).
 */
const ADDRESSED = Symbol("generated controller: the addressed term");
interface Addressed {
  current: Promise<Term | null>;
}

function contextOf(req: RestRequest): Context {
  const c = req.params.context;
  return c === "edit" || c === "embed" ? c : "view";
}

interface TermListParam {
  readonly name: string;
  readonly arg: ArgSpec;
  readonly apply?: (value: unknown, query: TermQuery) => void;
}

const ORDER_BY: Record<string, TermQuery["orderBy"]> = {
  id: "id",
  include: "include",
  name: "name",
  slug: "slug",
  include_slugs: "slug__in",
  term_group: "term_group",
  description: "description",
  count: "count",
};

const numbers = (value: unknown): number[] => (Array.isArray(value) ? value.filter((v): v is number => typeof v === "number") : []);

/** `get_collection_params()` of the taxonomy, in WordPress's order, with how each narrows the query. */
export function termListParams(view: TaxonomyView): TermListParam[] {
  const rows: TermListParam[] = [
    { name: "context", arg: contextArg(view.schema) },
    { name: "page", arg: { description: "Current page of the collection.", type: "integer", default: 1, minimum: 1 }, apply: (v, q) => void (q.page = Number(v)) },
    {
      name: "per_page",
      arg: { description: "Maximum number of items to be returned in result set.", type: "integer", default: 10, minimum: 1, maximum: 100 },
      apply: (v, q) => void (q.perPage = Number(v)),
    },
    { name: "search", arg: { description: "Limit results to those matching a string.", type: "string" }, apply: (v, q) => void (typeof v === "string" && v !== "" && (q.search = v)) },
    {
      name: "exclude",
      arg: { description: "Ensure result set excludes specific IDs.", type: "array", items: { type: "integer" }, default: [] },
      apply: (v, q) => void (numbers(v).length > 0 && (q.exclude = numbers(v))),
    },
    {
      name: "include",
      arg: { description: "Limit result set to specific IDs.", type: "array", items: { type: "integer" }, default: [] },
      apply: (v, q) => void (numbers(v).length > 0 && (q.include = numbers(v))),
    },
  ];
  if (!view.hierarchical) {
    rows.push({
      name: "offset",
      arg: { description: "Offset the result set by a specific number of items.", type: "integer" },
      // WordPress: an offset of 0 is no offset (the page decides).
      apply: (v, q) => void (Number(v) > 0 && (q.offset = Number(v))),
    });
  }
  rows.push(
    {
      name: "order",
      arg: { description: "Order sort attribute ascending or descending.", type: "string", default: "asc", enum: ["asc", "desc"] },
      apply: (v, q) => void (q.order = v === "desc" ? "desc" : "asc"),
    },
    {
      name: "orderby",
      arg: { description: "Sort collection by term attribute.", type: "string", default: "name", enum: Object.keys(ORDER_BY) },
      apply: (v, q) => void (q.orderBy = ORDER_BY[String(v)] ?? "name"),
    },
    {
      name: "hide_empty",
      arg: { description: "Whether to hide terms not assigned to any posts.", type: "boolean", default: false },
      apply: (v, q) => void (q.hideEmpty = v === true),
    },
  );
  if (view.hierarchical) {
    rows.push({ name: "parent", arg: { description: "Limit result set to terms assigned to a specific parent.", type: "integer" }, apply: (v, q) => void (q.parent = Number(v)) });
  }
  rows.push(
    {
      name: "post",
      arg: { description: "Limit result set to terms assigned to a specific post.", type: "integer", default: null },
      apply: (v, q) => void (Number(v) > 0 && (q.post = Number(v))),
    },
    {
      name: "slug",
      arg: { description: "Limit result set to terms with one or more specific slugs.", type: "array", items: { type: "string" } },
      apply: (v, q) => void (Array.isArray(v) && v.length > 0 && (q.slug = v.map(String))),
    },
  );
  return rows;
}

export function registerTermController(host: ControllerHost, view: TaxonomyView): void {
  const { engine, rest } = host;
  const { namespace } = view.rest;
  const base = `/${view.rest.base}`;
  const collectionUrl = (req: RestRequest): string => `${req.urls.root}${namespace}${base}`;
  const params = termListParams(view);
  const ext = view.extensions;
  const object = { type: view.name, status: "", author: 0 };
  /** A term capability by its generic name (`edit_terms`, `assign_terms`, `edit_term`…), which the taxonomy's object maps to its own. */
  const can = (req: RestRequest, cap: "edit_terms" | "assign_terms" | "edit_term" | "delete_term"): boolean => req.user?.can(cap, object) === true;
  const schema = documentSchema(view.schema);

  const addressed = (req: RestRequest): Addressed =>
    req.memo(ADDRESSED, () => ({
      current: (async () => {
        const id = Number(req.params.id);
        if (!Number.isSafeInteger(id) || id <= 0) return null;
        req.dependsOn(termTag(id));
        const term = await engine.terms.get(id);
        return term !== undefined && term.taxonomy === view.name ? term : null;
      })(),
    }));
  const load = (req: RestRequest): Promise<Term | null> => addressed(req).current;

  const guarded = (endpoint: EndpointName, check: (req: RestRequest) => Promise<PermissionResult>) => withOverrides(ext, endpoint, check);

  // ------------------------------------------------------------------ permissions

  const listPermission = guarded("list", async (req) => {
    if (contextOf(req) === "edit" && !can(req, "edit_terms")) return refused(req.user, "rest_forbidden_context", "Sorry, you are not allowed to edit terms in this taxonomy.");
    const postId = req.params.post;
    if (typeof postId === "number" && postId > 0) {
      req.dependsOn(postTag(postId));
      const post = await engine.posts.get(postId);
      if (post === undefined) return new RestError("rest_post_invalid_id", "Invalid post ID.", 400);
      // `check_read_terms_permission_for_post()`: a post of the taxonomy's types that is published or the user may read.
      const readable = view.config.objectTypes.includes(post.type) && (post.status === "publish" || req.user?.can("read_post", post) === true);
      if (!readable) return refused(req.user, "rest_forbidden_context", "Sorry, you are not allowed to view terms for this post.");
    }
    return true;
  });

  const readPermission = guarded("read", async (req) => {
    const term = await load(req);
    if (term === null) return invalidTerm();
    if (contextOf(req) === "edit" && !can(req, "edit_term")) return refused(req.user, "rest_forbidden_context", "Sorry, you are not allowed to edit this term.");
    return true;
  });

  const createPermission = guarded("create", async (req) =>
    can(req, view.hierarchical ? "edit_terms" : "assign_terms") || refused(req.user, "rest_cannot_create", "Sorry, you are not allowed to create terms in this taxonomy."),
  );

  const updatePermission = guarded("update", async (req) => {
    if ((await load(req)) === null) return invalidTerm();
    return can(req, "edit_term") || refused(req.user, "rest_cannot_update", "Sorry, you are not allowed to edit this term.");
  });

  const deletePermission = guarded("delete", async (req) => {
    if ((await load(req)) === null) return invalidTerm();
    return can(req, "delete_term") || refused(req.user, "rest_cannot_delete", "Sorry, you are not allowed to delete this term.");
  });

  // ------------------------------------------------------------------ handlers

  const record = (req: RestRequest, term: Term, context: Context): Promise<JsonObject> => {
    req.dependsOn(termTag(term.id));
    return termRecord(term, view, req, context);
  };

  async function list(req: RestRequest): Promise<RestResponse> {
    const draft: TermQuery = { taxonomy: view.name, orderBy: "name", order: "asc" };
    for (const row of params) {
      const value = req.params[row.name];
      if (row.apply !== undefined && !isAbsent(value)) row.apply(value, draft);
    }
    // get_terms(): ordering by a list that was not given orders by name.
    if ((draft.orderBy === "include" && draft.include === undefined) || (draft.orderBy === "slug__in" && draft.slug === undefined)) draft.orderBy = "name";
    const query = await filterQuery(ext, draft, req);
    const perPage = query.perPage ?? 10;
    const { terms, total } = await engine.terms.find(query);
    const context = contextOf(req);
    const shown = context === "edit" ? terms.filter(() => can(req, "edit_term")) : terms;
    req.dependsOn(SITE_TAG);
    const records = await Promise.all(shown.map((term) => record(req, term, context)));
    // WordPress derives the page from the offset: `ceil(offset / per_page + 1)`.
    const skipped = query.offset ?? ((query.page ?? 1) - 1) * perPage;
    return new RestResponse(records, 200, pagingHeaders(req, collectionUrl(req), total, Math.ceil(skipped / perPage + 1), perPage));
  }

  async function read(req: RestRequest): Promise<JsonObject> {
    const term = await load(req);
    if (term === null) throw invalidTerm();
    req.dependsOn(SITE_TAG);
    return record(req, term, contextOf(req));
  }

  /** The parent checks of create and update: only for a hierarchical taxonomy, and an existing term of it. */
  async function checkParent(req: RestRequest): Promise<void> {
    const parent = req.params.parent;
    if (isAbsent(parent)) return;
    if (!view.hierarchical) throw new RestError("rest_taxonomy_not_hierarchical", "Cannot set parent term, taxonomy is not hierarchical.", 400);
    if (typeof parent === "number" && parent !== 0 && (await engine.terms.get(parent))?.taxonomy !== view.name) {
      throw new RestError("rest_term_invalid", "Parent term does not exist.", 400);
    }
  }

  /** The engine's refusals as WordPress answers them (`wp_insert_term()` / `wp_update_term()` errors with status 400). */
  async function written(write: () => Promise<Term>): Promise<Term> {
    try {
      return await write();
    } catch (err) {
      if (isEngineError(err, "term_exists")) throw new RestError("term_exists", err.message, 400, { term_id: Number(err.data?.term_id) });
      if (isEngineError(err, "duplicate_term_slug")) throw new RestError("duplicate_term_slug", err.message, 400);
      if (isEngineError(err, "invalid_input") && err.data?.field === "name") {
        if (err.message === "A name is required for this term.") throw new RestError("empty_term_name", err.message, 400);
        throw new RestError("rest_invalid_param", "Invalid parameter(s): name", 400, { params: { name: err.message }, details: [] });
      }
      // A loop WordPress would quietly break is refused (a documented difference).
      if (isEngineError(err, "invalid_parent")) throw new RestError("rest_invalid_param", "Invalid parameter(s): parent", 400, { params: { parent: err.message }, details: [] });
      throw err;
    }
  }

  const patchOf = (req: RestRequest): TermPatch => {
    const p = req.params;
    const patch: TermPatch = {};
    if (typeof p.name === "string") patch.name = p.name;
    if (typeof p.slug === "string") patch.slug = p.slug;
    if (typeof p.description === "string") patch.description = p.description;
    if (view.hierarchical && typeof p.parent === "number") patch.parent = p.parent;
    return patch;
  };

  async function writeFields(req: RestRequest, term: Term): Promise<Term> {
    let wrote = false;
    for (const [name, field] of Object.entries(view.restFields)) {
      if (field.update === undefined || isAbsent(req.params[name])) continue;
      await field.update(req.params[name], term, req);
      wrote = true;
    }
    return wrote ? ((await engine.terms.get(term.id)) ?? term) : term;
  }

  async function create(req: RestRequest): Promise<RestResponse> {
    await checkParent(req);
    const patch = patchOf(req);
    const term = await writeFields(req, await written(() => engine.terms.create({ taxonomy: view.name, name: patch.name ?? "", ...patch }, req.user)));
    return new RestResponse(await record(req, term, "edit"), 201, { Location: `${collectionUrl(req)}/${term.id}` });
  }

  async function update(req: RestRequest): Promise<JsonObject> {
    const term = await load(req);
    if (term === null) throw invalidTerm();
    await checkParent(req);
    const patch = patchOf(req);
    const updated = Object.keys(patch).length > 0 ? await written(() => engine.terms.update(term.id, patch, req.user)) : term;
    return record(req, await writeFields(req, updated), "edit");
  }

  async function remove(req: RestRequest): Promise<JsonObject> {
    const term = await load(req);
    if (term === null) throw invalidTerm();
    if (req.params.force !== true) throw new RestError("rest_trash_not_supported", "Terms do not support trashing. Set 'force=true' to delete.", 501);
    // WordPress answers the record's data: its links are not part of it.
    const { _links: _dropped, ...previous } = await record(req, term, "view");
    await engine.terms.delete(term.id);
    addressed(req).current = Promise.resolve(null);
    return { deleted: true, previous };
  }

  // ------------------------------------------------------------------ routes

  const label = view.config.labels?.singular ?? view.name;
  const withExtra = (args: ArgsMap, endpoint: EndpointName): ArgsMap => ({ ...args, ...extraArgs(ext, endpoint) });
  const one = { description: `The ${label}.`, schema };
  const errors = {
    "400": { description: "Invalid parameter(s)." },
    "401": { description: "Not logged in (rest_authorization_required_code)." },
    "403": { description: "Not allowed." },
  };
  const missing = { "404": { description: "No such term (rest_term_invalid)." } };
  const collection: RestEndpoint[] = [
    {
      methods: READABLE,
      args: withExtra(Object.fromEntries(params.map((row) => [row.name, row.arg])), "list"),
      permission: listPermission,
      handler: list,
      cache: true,
      allowBatch: true,
      summary: `Lists ${view.config.labels?.plural ?? view.name}.`,
      responses: { "200": { description: "A page of terms (X-WP-Total and X-WP-TotalPages say how many in all).", schema: { type: "array", items: schema } }, ...errors },
    },
    {
      methods: CREATABLE,
      args: withExtra(endpointArgs(view.schema, "create"), "create"),
      permission: createPermission,
      handler: create,
      allowBatch: true,
      summary: `Creates a ${label}.`,
      responses: { "201": one, ...errors },
    },
  ];
  const item: RestEndpoint[] = [
    {
      methods: READABLE,
      args: withExtra({ context: contextArg(view.schema) }, "read"),
      permission: readPermission,
      handler: read,
      cache: true,
      allowBatch: true,
      summary: `Reads a ${label}.`,
      responses: { "200": one, ...errors, ...missing },
    },
    {
      methods: EDITABLE,
      args: withExtra(endpointArgs(view.schema, "update"), "update"),
      permission: updatePermission,
      handler: update,
      allowBatch: true,
      summary: `Updates a ${label}.`,
      responses: { "200": one, ...errors, ...missing },
    },
    {
      methods: DELETABLE,
      args: withExtra({ force: { type: "boolean", default: false, description: "Required to be true, as terms do not support trashing." } }, "delete"),
      permission: deletePermission,
      handler: remove,
      allowBatch: true,
      summary: `Deletes a ${label} (force=true).`,
      responses: {
        "200": { description: "`{ deleted: true, previous }`.", schema: { type: "object", properties: { deleted: { type: "boolean" }, previous: schema } } },
        ...errors,
        ...missing,
        "501": { description: "Without force=true (rest_trash_not_supported)." },
      },
    },
  ];
  rest.registerRoute(namespace, base, collection, { override: true });
  rest.registerRoute(namespace, `${base}/(?P<id>[\\d]+)`, item, { override: true, args: { id: { description: "Unique identifier for the term.", type: "integer" } } });
}
