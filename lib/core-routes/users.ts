/**
 * `GET /wp/v2/users` and `GET /wp/v2/users/me` (WordPress's
 * WP_REST_Users_Controller, a subset): who is logged in and what they may
 * do, and who may be named author of a post, for an editor's author picker.
 */
import type { UserQuery } from "../engine-api";
import { sanitizeTitle } from "../format/slug";
import { RestError } from "../routes/errors";
import type { JsonObject } from "../routes/json";
import { paginate } from "../routes/pagination";
import { RestResponse } from "../routes/response";
import { READABLE, type RestRequest } from "../routes/types";
import type { QueryValue } from "../routes/urls";
import type { CurrentUser, RoleName } from "../users/types";
import { canEditType, shownPostTypes, typeCaps } from "./content-types";
import { contextArg, CORE_NAMESPACE, refused, type Context, type CoreHost } from "./host";

/** What a user record is built from: a stored user or the request's own. */
interface UserFacts {
  id: number;
  login: string;
  email: string;
  displayName: string;
  role: RoleName;
}

interface ListParams {
  context: Context;
  page: number;
  per_page: number;
  search?: string;
  include?: number[];
  who?: "authors";
}

export function registerUserRoutes(host: CoreHost): void {
  const { engine, rest } = host;

  /**
   * WordPress's user record. `url`, `description` and `avatar_urls` are
   * kept for its shape (calpress stores none of them); `link` is where
   * WordPress's author archive would be. The edit context adds the login,
   * e-mail, role and `capabilities`: every primitive capability the user
   * has, each `true` (WordPress's `allcaps`), as the user's own `can` answers.
   */
  const userRecord = (req: RestRequest, user: UserFacts, context: Context, asked: CurrentUser): JsonObject => {
    const slug = sanitizeTitle(user.login);
    const link = `${req.urls.home}/author/${slug}/`;
    if (context !== "edit") return { id: user.id, name: user.displayName, url: "", description: "", link, slug, avatar_urls: {} };
    const capabilities: JsonObject = {};
    for (const cap of engine.users.capabilitiesOf(asked)) capabilities[cap] = true;
    return { id: user.id, username: user.login, name: user.displayName, email: user.email, url: "", description: "", link, slug, roles: [user.role], capabilities, avatar_urls: {} };
  };

  /** WordPress's `who=authors`: users of a role that may edit posts of a type shown in the REST API (contributors and up). */
  const authorRoles = (): RoleName[] => {
    const roles = new Set(shownPostTypes(engine).flatMap((t) => engine.users.rolesWith(typeCaps(t.config).edit_posts)));
    return [...roles];
  };

  rest.registerRoute(CORE_NAMESPACE, "/users", {
    methods: READABLE,
    args: {
      context: contextArg,
      page: { type: "integer", minimum: 1, default: 1, description: "Current page of the collection." },
      per_page: { type: "integer", minimum: 1, maximum: 100, default: 10, description: "Maximum number of items to be returned in result set." },
      search: { type: "string", description: "Limit results to those matching a string." },
      include: { type: "array", items: { type: "integer" }, default: [], description: "Limit result set to specific IDs." },
      who: { type: "string", enum: ["authors"], description: "Limit result set to users who are considered authors." },
    },
    // WordPress's checks, in its order. calpress decision: without `who=authors` only users who may list users
    // are answered (WordPress lists the authors of published posts to anyone; calpress has no author pages).
    permission: (req) => {
      const user = req.user;
      if (req.params.context === "edit" && user?.can("list_users") !== true) return refused(user, "rest_forbidden_context", "Sorry, you are not allowed to list users.");
      if (req.params.who === "authors") {
        const mayAuthor = shownPostTypes(engine).some((t) => canEditType(user, t.config));
        return mayAuthor || refused(user, "rest_forbidden_who", "Sorry, you are not allowed to query users by this parameter.");
      }
      return user?.can("list_users") === true || refused(user, "rest_forbidden", "Sorry, you are not allowed to do that.");
    },
    summary: "List users",
    async handler(req: RestRequest<ListParams>) {
      const { context, page, per_page: perPage, search, include, who } = req.params;
      const listUsers = req.user?.can("list_users") === true;
      const query: UserQuery = {
        page,
        perPage,
        search,
        // WordPress searches e-mail addresses only for users who may list users.
        searchColumns: listUsers ? ["login", "email", "display_name"] : ["login", "display_name"],
      };
      if (include !== undefined && include.length > 0) query.include = include;
      if (who === "authors") query.roles = authorRoles();
      const { users, total } = await engine.users.find(query);
      const totalPages = Math.ceil(total / perPage);
      if (page > totalPages && total > 0) throw new RestError("rest_invalid_page_number", "The page number requested is larger than the number of pages available.", 400);
      const echoed: Record<string, QueryValue> = { context: req.isSent("context") ? context : undefined, who, search, include: query.include, per_page: req.isSent("per_page") ? perPage : undefined, page };
      const paging = paginate(req, { total, page, perPage, collectionUrl: `/${CORE_NAMESPACE}/users`, query: echoed });
      const records = users.map((u) => userRecord(req, u, context, engine.users.currentUser(u)));
      return new RestResponse(records, 200, paging.headers);
    },
  });

  /**
   * `GET /wp/v2/users/<id>` (what a post's `author` link embeds): anyone may
   * read a user who has published posts of a type shown in the REST API,
   * as WordPress's `get_item_permissions_check()` allows; others only their
   * own record or with list_users.
   */
  rest.registerRoute(
    CORE_NAMESPACE,
    "/users/(?P<id>[\\d]+)",
    {
      methods: READABLE,
      args: { context: { ...contextArg, enum: ["view", "embed", "edit"] } },
      permission: async (req) => {
        const record = await engine.users.get(Number(req.params.id));
        if (record === undefined) return new RestError("rest_user_invalid_id", "Invalid user ID.", 404);
        const user = req.user;
        if (user?.id === record.id) return true;
        const cannot = refused(user, "rest_user_cannot_view", "Sorry, you are not allowed to list users.");
        if (req.params.context === "edit" && user?.can("list_users") !== true) return cannot;
        if (user?.can("list_users") === true || user?.can("edit_users") === true) return true;
        const types = shownPostTypes(engine).map((t) => t.name);
        const published = types.length === 0 ? 0 : await engine.posts.count({ type: types, status: ["publish"], author: [record.id] });
        return published > 0 || cannot;
      },
      summary: "Read a user",
      async handler(req: RestRequest<{ id: number; context: Context | "embed" }>) {
        const record = await engine.users.get(req.params.id);
        if (record === undefined) throw new RestError("rest_user_invalid_id", "Invalid user ID.", 404);
        const context = req.params.context === "edit" ? "edit" : "view";
        const root = `${req.urls.root}${CORE_NAMESPACE}/users`;
        return { ...userRecord(req, record, context, engine.users.currentUser(record)), _links: { self: [{ href: `${root}/${record.id}` }], collection: [{ href: root }] } };
      },
    },
    { args: { id: { description: "Unique identifier for the user.", type: "integer" } } },
  );

  rest.registerRoute(CORE_NAMESPACE, "/users/me", {
    methods: READABLE,
    args: { context: contextArg },
    permission: (req) => req.user !== null || new RestError("rest_not_logged_in", "You are not currently logged in.", 401),
    summary: "Read the logged-in user",
    handler: (req: RestRequest<{ context: Context }>) => {
      const user = req.user;
      // The permission check above lets no anonymous request through.
      if (user === null) throw new RestError("rest_not_logged_in", "You are not currently logged in.", 401);
      return userRecord(req, user, req.params.context, user);
    },
  });
}
