/**
 * WordPress's `WP_REST_Posts_Controller` for one post type, generated from
 * its config: `/<namespace>/<base>` (list, create) and
 * `/<namespace>/<base>/(?P<id>[\d]+)` (read, update, delete), with
 * WordPress's arguments, permission checks, error codes, records and
 * headers. Handlers are thin: the engine does the writing (with the acting
 * user, who its sanitising and hooks see), the parameter table the query,
 * post-record.ts the records.
 */
import { postTag, SITE_TAG, termTag } from "../db/cache-tags";
import type { EngineApi } from "../engine-api";
import type { LoadedPost, PostInput, PostPatch, PostStatus } from "../posts/types";
import { RestError } from "../routes/errors";
import { isAbsent, type JsonObject } from "../routes/json";
import { RestResponse } from "../routes/response";
import type { RestServer } from "../routes/server";
import { CREATABLE, DELETABLE, EDITABLE, READABLE, type ArgsMap, type PermissionResult, type RestEndpoint, type RestRequest } from "../routes/types";
import { refused } from "../core-routes/host";
import type { CurrentUser } from "../users/types";
import { dateWithGmt } from "./dates";
import { extraArgs, filterQuery, withOverrides, type EndpointName } from "./extensions";
import { pagingHeaders } from "./paging";
import { orderOf, postListParams, type PostListDraft, type PostParamContext } from "./post-params";
import { permalink, postRecord, recordContext, THUMBNAIL_META, unlocked } from "./post-record";
import { metaValues, type PostTypeView } from "./post-schema";
import { contextArg, documentSchema, endpointArgs, type Context } from "./schema";

export interface ControllerHost {
  engine: EngineApi;
  rest: RestServer;
}


const invalidId = (): RestError => new RestError("rest_post_invalid_id", "Invalid post ID.", 404);

/**
 * The addressed post, looked up once per request: the permission checks
 * (also those `Allow` runs) and the handler share it (`req.memo`). A write
 * puts what it left there, so that `Allow` is computed for the post as it is
 * after the write (none after a delete), as WordPress computes it.
 */
const ADDRESSED = Symbol("generated controller: the addressed post");
interface Addressed {
  current: Promise<LoadedPost | null>;
}

function contextOf(req: RestRequest): Context {
  const c = req.params.context;
  return c === "edit" || c === "embed" ? c : "view";
}

/** `check_read_permission()`: published, or what the user's `read_post` allows. */
function canRead(post: LoadedPost, user: CurrentUser | null): boolean {
  return post.status === "publish" || user?.can("read_post", post) === true;
}

export function registerPostController(host: ControllerHost, view: PostTypeView): void {
  const { engine, rest } = host;
  const { namespace } = view.rest;
  const base = `/${view.rest.base}`;
  const collectionUrl = (req: RestRequest): string => `${req.urls.root}${namespace}${base}`;
  const params = postListParams(view);
  const ext = view.extensions;
  const caps = view.caps;
  const schema = documentSchema(view.schema);
  // Post meta shows only as the featured image (`_thumbnail_id`): read only for a type that has one.
  const POST_WITH = { meta: view.supports.has("thumbnail"), terms: true };

  const addressed = (req: RestRequest): Addressed =>
    req.memo(ADDRESSED, () => ({
      current: (async () => {
        const id = Number(req.params.id);
        if (!Number.isSafeInteger(id) || id <= 0) return null;
        // Named before the look-up: an answer that found nothing depends on the post too.
        req.dependsOn(postTag(id));
        const post = await engine.posts.get(id, POST_WITH, [view.name]);
        return post !== undefined && post.type === view.name && post.occurrence === undefined ? post : null;
      })(),
    }));
  const load = (req: RestRequest): Promise<LoadedPost | null> => addressed(req).current;
  /** After a write: what the post is now (null: deleted). */
  const wrote = (req: RestRequest, post: LoadedPost | null): void => {
    addressed(req).current = Promise.resolve(post);
  };

  const guarded = (endpoint: EndpointName, check: (req: RestRequest) => Promise<PermissionResult>) => withOverrides(ext, endpoint, check);

  // ------------------------------------------------------------------ permissions

  const listPermission = guarded("list", async (req) => {
    if (contextOf(req) === "edit" && req.user?.can(caps.edit_posts) !== true) {
      return refused(req.user, "rest_forbidden_context", "Sorry, you are not allowed to edit posts in this post type.");
    }
    return true;
  });

  const readPermission = guarded("read", async (req) => {
    const post = await load(req);
    if (post === null) return invalidId();
    if (contextOf(req) === "edit" && req.user?.can("edit_post", post) !== true) {
      return refused(req.user, "rest_forbidden_context", "Sorry, you are not allowed to edit this post.");
    }
    const password = req.params.password;
    if (typeof password === "string" && password !== "" && !unlocked(post, { req, context: "view", user: null })) {
      return new RestError("rest_post_incorrect_password", "Incorrect post password.", 403);
    }
    return canRead(post, req.user);
  });

  /** `check_assign_terms_permission()`: every existing term sent must be assignable (unknown ones are refused by the handler). */
  const mayAssignTerms = async (req: RestRequest): Promise<boolean> => {
    for (const tax of view.taxonomies) {
      const sent = req.params[tax.rest.base];
      if (!Array.isArray(sent) || sent.length === 0) continue;
      const found = await engine.terms.getMany(sent.filter((id): id is number => typeof id === "number"));
      for (const term of found.values()) {
        if (term.taxonomy === tax.name && req.user?.can("assign_term", { type: tax.name, status: "", author: 0 }) !== true) return false;
      }
    }
    return true;
  };

  const othersAuthor = (req: RestRequest): boolean => {
    const author = req.params.author;
    return view.supports.has("author") && typeof author === "number" && author !== 0 && author !== req.user?.id && req.user?.can(caps.edit_others_posts) !== true;
  };

  const createPermission = guarded("create", async (req) => {
    if (!isAbsent(req.params.id)) return new RestError("rest_post_exists", "Cannot create existing post.", 400);
    if (othersAuthor(req)) return refused(req.user, "rest_cannot_edit_others", "Sorry, you are not allowed to create posts as this user.");
    if (req.user?.can(caps.create_posts) !== true) return refused(req.user, "rest_cannot_create", "Sorry, you are not allowed to create posts as this user.");
    if (!(await mayAssignTerms(req))) return refused(req.user, "rest_cannot_assign_term", "Sorry, you are not allowed to assign the provided terms.");
    return true;
  });

  const updatePermission = guarded("update", async (req) => {
    const post = await load(req);
    if (post === null) return invalidId();
    if (req.user?.can("edit_post", post) !== true) return refused(req.user, "rest_cannot_edit", "Sorry, you are not allowed to edit this post.");
    if (othersAuthor(req)) return refused(req.user, "rest_cannot_edit_others", "Sorry, you are not allowed to update posts as this user.");
    if (!(await mayAssignTerms(req))) return refused(req.user, "rest_cannot_assign_term", "Sorry, you are not allowed to assign the provided terms.");
    return true;
  });

  const deletePermission = guarded("delete", async (req) => {
    const post = await load(req);
    if (post === null) return invalidId();
    if (req.user?.can("delete_post", post) !== true) return refused(req.user, "rest_cannot_delete", "Sorry, you are not allowed to delete this post.");
    return true;
  });

  // ------------------------------------------------------------------ records

  const records = async (req: RestRequest, posts: LoadedPost[], context: Context): Promise<JsonObject[]> => {
    const rc = await recordContext(engine, req, view, context, posts);
    for (const post of posts) {
      req.dependsOn(postTag(post.id));
      // Term ids are shown in the order of the terms' names.
      for (const ids of Object.values(post.termIds ?? {})) for (const id of ids) req.dependsOn(termTag(id));
    }
    return Promise.all(posts.map((post) => postRecord(post, rc)));
  };

  // ------------------------------------------------------------------ handlers

  async function list(req: RestRequest): Promise<RestResponse> {
    const p = req.params;
    const search = typeof p.search === "string" && p.search !== "" ? p.search : undefined;
    if (p.orderby === "relevance" && search === undefined) {
      throw new RestError("rest_no_search_term_defined", "You need to define a search term to order by relevance.", 400);
    }
    if (p.orderby === "include" && !(Array.isArray(p.include) && p.include.length > 0)) {
      throw new RestError("rest_orderby_include_missing_include", "You need to define an include parameter to order by include.", 400);
    }
    const context = contextOf(req);
    const draft: PostListDraft = {
      query: { type: view.name, where: [], tax: [], with: POST_WITH, visibility: { user: req.user, mode: context === "edit" ? "edit" : "read-trash" } },
      orderby: "date",
      order: "desc",
    };
    const ctx: PostParamContext = { engine, req, view, timezone: await engine.options.timezone() };
    for (const row of params) {
      const value = p[row.name];
      if (row.apply !== undefined && !isAbsent(value)) row.apply(value, draft, ctx);
    }
    if (draft.orderby === "include_slugs" && draft.slugs !== undefined) {
      // WordPress orders by the position of each post's slug in the list: the matching ids, in that order.
      const found = await engine.posts.find({ type: view.name, where: [{ field: "slug", op: "in", value: draft.slugs }], perPage: 0, noTotal: true });
      const rank = new Map(draft.slugs.map((slug, i) => [slug, i]));
      const ordered = [...found.posts].sort((a, b) => (rank.get(a.slug) ?? 0) - (rank.get(b.slug) ?? 0) || a.id - b.id).map((post) => post.id);
      draft.query.ids = draft.query.ids === undefined ? ordered : ordered.filter((id) => draft.query.ids?.includes(id));
    }
    draft.query.orderBy = orderOf(draft, view);
    const query = await filterQuery(ext, draft.query, req);
    const page = query.page ?? 1;
    const perPage = query.perPage ?? 10;
    const found = await engine.posts.find(query);
    const { posts } = found;
    // WordPress counts nothing when the page is empty (WP_Query leaves found_posts at 0), and counts again without the page only past the first one.
    const total = posts.length === 0 && page <= 1 ? 0 : found.total;
    const maxPages = Math.ceil(total / perPage);
    if (page > maxPages && total > 0) {
      throw new RestError("rest_post_invalid_page_number", "The page number requested is larger than the number of pages available.", 400);
    }
    // The query already holds the visibility rules; each post is checked as WordPress checks it too.
    const shown = posts.filter((post) => (context === "edit" ? req.user?.can("edit_post", post) === true : canRead(post, req.user)));
    req.dependsOn(SITE_TAG);
    return new RestResponse(await records(req, shown, context), 200, pagingHeaders(req, collectionUrl(req), total, page, perPage));
  }

  async function read(req: RestRequest): Promise<RestResponse> {
    const post = await load(req);
    if (post === null) throw invalidId();
    req.dependsOn(SITE_TAG);
    const [record] = await records(req, [post], contextOf(req));
    return new RestResponse(record, 200, { Link: `<${permalink(req.urls.home, view, post)}>; rel="alternate"; type="text/html"` });
  }

  /** `handle_status_param()`: publishing (and private) needs publish_posts. */
  const status = (req: RestRequest, value: string): PostStatus => {
    if ((value === "publish" || value === "future" || value === "private") && req.user?.can(caps.publish_posts) !== true) {
      const what = value === "private" ? "create private posts" : "publish posts";
      throw refused(req.user, "rest_cannot_publish", `Sorry, you are not allowed to ${what} in this post type.`);
    }
    return value as PostStatus;
  };

  /** `prepare_item_for_database()`: the request as an engine write, checked the way WordPress checks it. */
  async function prepare(req: RestRequest, existing: LoadedPost | null): Promise<PostPatch> {
    const p = req.params;
    const patch: PostPatch = {};
    const supports = view.supports;
    if (supports.has("title") && typeof p.title === "string") patch.title = p.title;
    if (supports.has("editor") && typeof p.content === "string") patch.content = p.content;
    if (supports.has("excerpt") && typeof p.excerpt === "string") patch.excerpt = p.excerpt;
    if (typeof p.status === "string" && (existing === null || existing.status !== p.status)) patch.status = status(req, p.status);
    const timezone = await engine.options.timezone();
    if (typeof p.date === "string" && p.date !== "") {
      const d = dateWithGmt(p.date, false, timezone);
      if (d !== null && d.local !== existing?.dateLocal) Object.assign(patch, { dateLocal: d.local, dateUtc: d.utc });
    } else if (typeof p.date_gmt === "string" && p.date_gmt !== "") {
      const d = dateWithGmt(p.date_gmt, true, timezone);
      if (d !== null && d.utc !== existing?.dateUtc) Object.assign(patch, { dateLocal: d.local, dateUtc: d.utc });
    }
    if (typeof p.slug === "string") patch.slug = p.slug;
    if (supports.has("author") && typeof p.author === "number" && p.author !== 0) {
      if (p.author !== req.user?.id && (await engine.users.get(p.author)) === undefined) throw new RestError("rest_invalid_author", "Invalid author ID.", 400);
      patch.author = p.author;
    }
    if (typeof p.password === "string") patch.password = p.password;
    if (view.config.hierarchical && typeof p.parent === "number") {
      if (p.parent !== 0 && (await engine.posts.get(p.parent)) === undefined) throw new RestError("rest_post_invalid_id", "Invalid post parent ID.", 400);
      patch.parent = p.parent;
    }
    if (supports.has("page-attributes") && typeof p.menu_order === "number") patch.menuOrder = p.menu_order;
    if (supports.has("thumbnail") && typeof p.featured_media === "number") {
      const media = p.featured_media === 0 ? undefined : await engine.posts.get(p.featured_media);
      if (p.featured_media !== 0 && media?.type !== "attachment") throw new RestError("rest_invalid_featured_media", "Invalid featured media ID.", 400);
      patch.meta = { [THUMBNAIL_META]: p.featured_media === 0 ? null : String(p.featured_media) };
    }
    if (Object.keys(view.fields).length > 0 && typeof p.meta === "object" && p.meta !== null) patch.fields = await metaValues(engine, view.fields, p.meta as Record<string, unknown>);
    const terms: Record<string, number[]> = {};
    for (const tax of view.taxonomies) {
      const sent = p[tax.rest.base];
      if (!Array.isArray(sent)) continue;
      const ids = [...new Set(sent.filter((id): id is number => typeof id === "number"))];
      const found = ids.length > 0 ? await engine.terms.getMany(ids) : new Map();
      const missing = ids.filter((id) => found.get(id)?.taxonomy !== tax.name);
      if (missing.length > 0) {
        // calpress decision: WordPress skips term ids that do not exist; calpress refuses the write.
        throw new RestError("rest_invalid_param", `Invalid parameter(s): ${tax.rest.base}`, 400, {
          params: { [tax.rest.base]: `${missing.join(", ")} ${missing.length === 1 ? "is not the ID" : "are not IDs"} of ${tax.name} terms.` },
          details: [],
        });
      }
      terms[tax.name] = ids;
    }
    if (Object.keys(terms).length > 0) patch.terms = terms;
    return patch;
  }

  /** `update_additional_fields_for_object()`: the extensions' fields sent, after the post itself was written. */
  async function writeFields(req: RestRequest, post: LoadedPost): Promise<LoadedPost> {
    let wrote = false;
    for (const [name, field] of Object.entries(view.restFields)) {
      if (field.update === undefined || isAbsent(req.params[name])) continue;
      await field.update(req.params[name], post, req);
      wrote = true;
    }
    return wrote ? ((await engine.posts.get(post.id, POST_WITH)) ?? post) : post;
  }

  async function create(req: RestRequest): Promise<RestResponse> {
    const patch = await prepare(req, null);
    // wp_insert_post(): a post of a type with a title, content or excerpt needs one of them.
    const texts = (["title", "editor", "excerpt"] as const).filter((feature) => view.supports.has(feature));
    if (texts.length > 0 && !patch.title && !patch.content && !patch.excerpt) throw new RestError("empty_content", "Content, title, and excerpt are empty.", 400);
    const input: PostInput = { ...patch, type: view.name };
    const post = await writeFields(req, await engine.posts.create(input, req.user));
    const [record] = await records(req, [post], "edit");
    return new RestResponse(record, 201, { Location: `${collectionUrl(req)}/${post.id}` });
  }

  async function update(req: RestRequest): Promise<JsonObject> {
    const existing = await load(req);
    if (existing === null) throw invalidId();
    const patch = await prepare(req, existing);
    const post = await writeFields(req, await engine.posts.update(existing.id, patch, req.user));
    wrote(req, post);
    const [record] = await records(req, [post], "edit");
    return record;
  }

  const trashable = (post: LoadedPost): boolean => {
    let allowed = true;
    for (const e of ext) if (e.trashable !== undefined) allowed = typeof e.trashable === "function" ? e.trashable(post) : e.trashable;
    return allowed;
  };

  async function remove(req: RestRequest): Promise<JsonObject> {
    const post = await load(req);
    if (post === null) throw invalidId();
    if (req.params.force === true) {
      // WordPress answers the record's data: its links are not part of it.
      const { _links: _dropped, ...previous } = (await records(req, [post], "edit"))[0];
      await engine.posts.delete(post.id);
      wrote(req, null);
      return { deleted: true, previous };
    }
    if (!trashable(post)) throw new RestError("rest_trash_not_supported", "The post does not support trashing. Set 'force=true' to delete.", 501);
    if (post.status === "trash") throw new RestError("rest_already_trashed", "The post has already been deleted.", 410);
    await engine.posts.trash(post.id);
    const trashed = (await engine.posts.get(post.id, POST_WITH)) ?? post;
    wrote(req, trashed);
    const [record] = await records(req, [trashed], "edit");
    return record;
  }

  // ------------------------------------------------------------------ routes

  const label = view.config.labels?.singular ?? view.name;
  const withExtra = (args: ArgsMap, endpoint: EndpointName): ArgsMap => ({ ...args, ...extraArgs(ext, endpoint) });
  const listArgs: ArgsMap = Object.fromEntries(params.map((row) => [row.name, row.arg]));
  const record = { description: `The ${label}.`, schema };
  const errors = {
    "400": { description: "Invalid parameter(s)." },
    "401": { description: "Not logged in (rest_authorization_required_code)." },
    "403": { description: "Not allowed." },
  };
  const collection: RestEndpoint[] = [
    {
      methods: READABLE,
      args: withExtra(listArgs, "list"),
      permission: listPermission,
      handler: list,
      cache: true,
      allowBatch: true,
      summary: `Lists ${view.config.labels?.plural ?? view.name}.`,
      responses: { "200": { description: "A page of records (X-WP-Total and X-WP-TotalPages say how many in all).", schema: { type: "array", items: schema } }, ...errors },
    },
    {
      methods: CREATABLE,
      args: withExtra(endpointArgs(view.schema, "create"), "create"),
      permission: createPermission,
      handler: create,
      allowBatch: true,
      summary: `Creates a ${label}.`,
      responses: { "201": record, ...errors },
    },
  ];
  const item: RestEndpoint[] = [
    {
      methods: READABLE,
      args: withExtra(
        {
          context: contextArg(view.schema),
          password: { description: "The password for the post if it is password protected.", type: "string" },
        },
        "read",
      ),
      permission: readPermission,
      handler: read,
      cache: true,
      allowBatch: true,
      summary: `Reads a ${label}.`,
      responses: { "200": record, ...errors, "404": { description: "No such post (rest_post_invalid_id)." } },
    },
    {
      methods: EDITABLE,
      args: withExtra(endpointArgs(view.schema, "update"), "update"),
      permission: updatePermission,
      handler: update,
      allowBatch: true,
      summary: `Updates a ${label}.`,
      responses: { "200": record, ...errors, "404": { description: "No such post (rest_post_invalid_id)." } },
    },
    {
      methods: DELETABLE,
      args: withExtra({ force: { type: "boolean", default: false, description: "Whether to bypass Trash and force deletion." } }, "delete"),
      permission: deletePermission,
      handler: remove,
      allowBatch: true,
      summary: `Trashes a ${label}, or deletes it for good with force=true.`,
      responses: {
        "200": { description: "The trashed record, or `{ deleted: true, previous }`.", schema: { oneOf: [schema, { type: "object", properties: { deleted: { type: "boolean" }, previous: schema } }] } },
        ...errors,
        "404": { description: "No such post (rest_post_invalid_id)." },
        "410": { description: "Already in the trash (rest_already_trashed)." },
        "501": { description: "The type cannot be trashed (rest_trash_not_supported)." },
      },
    },
  ];
  rest.registerRoute(namespace, base, collection, { override: true });
  rest.registerRoute(namespace, `${base}/(?P<id>[\\d]+)`, item, { override: true, args: { id: { description: "Unique identifier for the post.", type: "integer" } } });
}
