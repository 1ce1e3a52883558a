import { SITE_TAG, slugTag } from "../../db/cache-tags";
import { sanitizeTitle } from "../../format/slug";
import type { LoadedPost } from "../../posts/types";
import { RestError } from "../../routes/errors";
import { paginate } from "../../routes/pagination";
import type { RestRequest } from "../../routes/types";
import { RestResponse } from "../../routes/response";
import type { QueryValue } from "../../routes/urls";
import { CREATABLE, DELETABLE, EDITABLE, READABLE, type JsonObject as RouteJsonObject, type RestEndpoint } from "../../routes";
import type { CalendarHost } from "../host";
import type { EngineApi } from "../../engine-api";
import { samePage } from "../common/reuse";
import type { JsonObject, RecordContext } from "../records/context";
import { organizerRecord } from "../records/organizer";
import { venueRecord } from "../records/venue";
import { isTruthyFlag, MODIFIED_ARGS, modifiedCondition, NAMESPACE, perPage, requestLanguage } from "../common/args";
import type { FieldCondition } from "../../posts/types";
import { nameLoadedPost, recordContext } from "../common/context";
import { addressedPost, createArgs, itemArgs, listArgs, updateArgs } from "../linked-posts/args";
import { errorCode, linkedKind, type LinkedPostKind } from "../linked-posts/kinds";
import { findLinkedPosts, linkedListQuery, type LinkedListOptions } from "../linked-posts/list";
import { createLinkedPost, kindCaps, trashLinkedPost, updateLinkedPost } from "../linked-posts/operations";

/** The reuse check of a venue or organizer list page: its ids and total asked again. */
function linkedPageCheck(engine: EngineApi, kind: LinkedPostKind, options: LinkedListOptions, page: { ids: readonly number[]; total: number }): () => Promise<boolean> {
  return samePage(() => engine.posts.findIds(linkedListQuery(engine, kind, options)), page);
}

/**
 * The venue and organizer routes (calendar-api.md §5), one parameterised
 * table: `/venues`, `/venues/{id}`, `/venues/by-slug/{slug}` and the same
 * for organizers. Handlers are thin: arguments are checked by the route
 * table, the work is done by the linked-post operations.
 */
export function registerLinkedPostRoutes(host: CalendarHost, kind: LinkedPostKind): void {
  const { engine, rest } = host;
  const k = linkedKind(kind);
  const caps = kindCaps(engine, kind);
  const schemaName = k.label;
  const toRecord = (post: LoadedPost, ctx: RecordContext): JsonObject => (kind === "venue" ? venueRecord(post, ctx) : organizerRecord(post, ctx));

  const notAddressed = (by: "id" | "slug"): RestError =>
    // Unreachable after argument validation, kept for a record deleted in between.
    new RestError("rest_invalid_param", `Invalid parameter(s): ${by}`, 400, { params: { [by]: `No ${kind} has this ${by === "id" ? "ID" : "slug"}.` }, details: [] });

  async function list(req: RestRequest): Promise<RestResponse> {
    const language = await requestLanguage(req, engine);
    const page = Number(req.params.page);
    const per = perPage(req);
    const hasEventsSent = req.isSent("has_events");
    const status = Array.isArray(req.params.status) ? (req.params.status as LoadedPost["status"][]) : undefined;
    const modified: FieldCondition[] = [];
    for (const name of MODIFIED_ARGS) {
      const value = req.params[name];
      if (!req.isSent(name) || (typeof value !== "string" && typeof value !== "number")) continue;
      // Checked by the argument's validation: a sent value parses.
      const condition = modifiedCondition(name, value, await engine.options.timezone());
      if (condition !== null) modified.push(condition);
    }
    const options: LinkedListOptions = {
      user: req.user,
      language,
      page,
      perPage: per,
      search: typeof req.params.search === "string" ? req.params.search : undefined,
      event: req.isSent("event") ? Number(req.params.event) : undefined,
      hasEvents: hasEventsSent ? isTruthyFlag(req.params.has_events) : undefined,
      onlyWithUpcoming: isTruthyFlag(req.params.only_with_upcoming),
      status,
      modified,
    };
    const result = await findLinkedPosts(engine, kind, options);
    if (page > 1 && result.posts.length === 0) {
      throw new RestError(errorCode(kind, "archive-page-not-found"), `The requested ${kind} archive page does not exist.`, 404);
    }
    const query: Record<string, QueryValue> = { page, per_page: per };
    if (req.isSent("event")) query.event = Number(req.params.event);
    if (hasEventsSent) query.has_events = String(req.params.has_events);
    if (status) query.status = status;
    for (const name of MODIFIED_ARGS) if (req.isSent(name)) query[name] = String(req.params[name]);
    // languages.md §2.4: generated list URLs keep an explicit language.
    if (req.isSent("i18n_language")) query.i18n_language = String(req.params.i18n_language);
    const pages = paginate(req, { total: result.total, page, perPage: per, collectionUrl: `/${NAMESPACE}/${k.plural}/`, query });
    // Names every record's tags (and the site's): with the ids and total checked again as of then (the clock
    // included: `only_with_upcoming`), the in-memory answer outlives writes that change neither.
    const ctx = await recordContext(engine, req, result.posts, { single: false, fieldsAt: k.plural });
    req.dependsOn(SITE_TAG);
    req.reuseWhile(linkedPageCheck(engine, kind, options, { ids: result.posts.map((p) => p.id), total: result.total }));
    const body: JsonObject = { [k.plural]: result.posts.map((p) => toRecord(p, ctx)), rest_url: pages.rest_url };
    if (pages.next_rest_url !== undefined) body.next_rest_url = pages.next_rest_url;
    if (pages.previous_rest_url !== undefined) body.previous_rest_url = pages.previous_rest_url;
    body.total = pages.total;
    body.total_pages = pages.total_pages;
    return new RestResponse(body, 200, pages.headers);
  }

  async function create(req: RestRequest): Promise<RestResponse> {
    const language = await requestLanguage(req, engine);
    const { post } = await createLinkedPost(engine, kind, { ...req.params }, { user: req.user, language, fetch: host.fetch }, { reportUnder: "field" });
    const ctx = await recordContext(engine, req, [post], { single: false });
    // The duplicate rule answers 201 too, with the existing record (§5.3).
    return new RestResponse(toRecord(post, ctx), 201, { Location: req.urls.route(`/${NAMESPACE}/${k.plural}/${post.id}`) });
  }

  const read = (by: "id" | "slug") =>
    async function read(req: RestRequest): Promise<JsonObject> {
      // Which post a slug finds changes only with posts of that slug (its bucket's tag).
      if (by === "slug" && typeof req.params.slug === "string") req.dependsOn(slugTag(sanitizeTitle(req.params.slug)));
      const post = await addressedPost(engine, kind, req, by);
      if (!post) throw notAddressed(by);
      // The post decides a refusal too (its status): named before anything can refuse.
      nameLoadedPost(req, post);
      // read_post: publish for everyone; drafts, private and trashed records
      // for those who may read them (their author, editors).
      if (post.status !== "publish" && !req.user?.can("read_post", post)) {
        throw new RestError(errorCode(kind, "not-accessible"), `The requested ${kind} is not accessible.`, 403);
      }
      return toRecord(post, await recordContext(engine, req, [post], { single: true, fieldsAt: "" }));
    };

  const update = (by: "id" | "slug") =>
    async function update(req: RestRequest): Promise<JsonObject> {
      const post = await addressedPost(engine, kind, req, by);
      if (!post) throw notAddressed(by);
      const language = await requestLanguage(req, engine);
      const updated = await updateLinkedPost(engine, kind, post.id, { ...req.params }, { user: req.user, language, fetch: host.fetch });
      return toRecord(updated, await recordContext(engine, req, [updated], { single: false }));
    };

  const remove = (by: "id" | "slug") =>
    async function remove(req: RestRequest): Promise<JsonObject> {
      const post = await addressedPost(engine, kind, req, by);
      if (!post) throw notAddressed(by);
      if (post.status === "trash") {
        throw new RestError(errorCode(kind, "is-in-trash"), `The ${kind} with the specified ID is in the trash.`, 410);
      }
      // No permanent delete: `force` is ignored (§5.5).
      const trashed = await trashLinkedPost(engine, kind, post.id);
      return toRecord(trashed, await recordContext(engine, req, [trashed], { single: false }));
    };

  /** Edit or delete **this** record; without one (cannot happen after validation) the general capability. */
  const mayChange = (by: "id" | "slug", cap: "edit_post" | "delete_post") => async (req: RestRequest) => {
    const post = await addressedPost(engine, kind, req, by);
    if (!req.user) return false;
    return post ? req.user.can(cap, post) : req.user.can(caps.edit_posts);
  };

  const one: RouteJsonObject = { $ref: `#/components/schemas/${schemaName}` };
  const listSchema: RouteJsonObject = {
    type: "object",
    properties: {
      [k.plural]: { type: "array", items: one },
      rest_url: { type: "string" },
      next_rest_url: { type: "string" },
      previous_rest_url: { type: "string" },
      total: { type: "integer" },
      total_pages: { type: "integer" },
    },
  };
  const invalid = { description: "Invalid parameter(s)." };

  const collection: RestEndpoint[] = [
    {
      methods: READABLE,
      args: listArgs(engine, kind),
      permission: "public",
      cache: true,
      handler: list,
      summary: `Lists ${k.plural}.`,
      responses: {
        "200": { description: `A page of ${k.plural}.`, schema: listSchema },
        "400": invalid,
        "404": { description: "The page is past the last one." },
      },
    },
    {
      methods: CREATABLE,
      args: createArgs(engine, kind),
      permission: (req) => req.user?.can(caps.create_posts) === true,
      allowBatch: true,
      handler: create,
      summary: `Creates a ${kind} (or answers with the existing one of the same name).`,
      responses: {
        "201": { description: `The ${kind}.`, schema: schemaName },
        "400": invalid,
        "401": { description: "Authentication required." },
        "403": { description: "Not allowed." },
      },
    },
  ];
  rest.registerRoute(NAMESPACE, `/${k.plural}`, collection);

  for (const by of ["id", "slug"] as const) {
    const path = by === "id" ? `/${k.plural}/(?P<id>\\d+)` : `/${k.plural}/by-slug/(?P<slug>[^/]+)`;
    const item: RestEndpoint[] = [
      {
        methods: READABLE,
        args: itemArgs(engine, kind, by),
        permission: "public",
        cache: true,
        store: true,
        handler: read(by),
        summary: `Reads one ${kind}.`,
        responses: {
          "200": { description: `The ${kind}.`, schema: schemaName },
          "400": { description: `Not a ${kind}.` },
          "403": { description: `The ${kind} is not accessible.` },
        },
      },
      {
        methods: DELETABLE,
        args: itemArgs(engine, kind, by),
        permission: mayChange(by, "delete_post"),
        allowBatch: true,
        handler: remove(by),
        summary: `Moves a ${kind} to the trash.`,
        responses: {
          "200": { description: `The trashed ${kind}.`, schema: schemaName },
          "400": { description: `Not a ${kind}.` },
          "410": { description: "Already in the trash." },
        },
      },
      {
        methods: EDITABLE,
        args: updateArgs(engine, kind, by),
        permission: mayChange(by, "edit_post"),
        allowBatch: true,
        handler: update(by),
        summary: `Updates a ${kind}.`,
        responses: {
          "200": { description: `The updated ${kind}.`, schema: schemaName },
          "201": { description: `A created ${kind} (POST on the collection).`, schema: schemaName },
          "400": invalid,
        },
      },
    ];
    rest.registerRoute(NAMESPACE, path, item);
  }
}
