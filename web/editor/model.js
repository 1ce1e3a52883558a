// What the editor knows about the site: the user (wp/v2/users/me), the post
// types and taxonomies it may edit (wp/v2/types, wp/v2/taxonomies, edit
// context) and, per namespace, the route descriptions of the namespace index
// (WordPress's `GET /<namespace>`), from which every screen is generated.
// Nothing here knows any particular post type.

import { api } from "./api.js";

export const site = {
  me: null,
  /** Post types the user can edit, in the API's order. */
  types: [],
  /** Taxonomies of those types. */
  taxonomies: [],
};

/** Thrown when a discovery request fails; carries the API answer. */
export class LoadError extends Error {
  constructor(res) {
    super((res.body && res.body.message) || `The server answered ${res.status}.`);
    this.status = res.status;
    this.code = res.body && res.body.code;
  }
}

const indexes = new Map();

/** The namespace index, fetched once per page load. */
async function namespaceIndex(ns) {
  if (!indexes.has(ns)) {
    indexes.set(
      ns,
      api("GET", ns).then((res) => {
        if (!res.ok || !res.body || typeof res.body.routes !== "object") {
          indexes.delete(ns);
          throw new LoadError(res);
        }
        return res.body;
      }),
    );
  }
  return indexes.get(ns);
}

function entries(obj) {
  if (Array.isArray(obj)) return obj.map((v) => [v.slug, v]);
  return Object.entries(obj || {});
}

/** Loads the user, then the types and taxonomies; throws LoadError (401 when the login is not accepted). */
export async function loadSite() {
  const me = await api("GET", "wp/v2/users/me", { query: { context: "edit" } });
  if (!me.ok) throw new LoadError(me);
  const [types, taxonomies] = await Promise.all([
    api("GET", "wp/v2/types", { query: { context: "edit" } }),
    api("GET", "wp/v2/taxonomies", { query: { context: "edit" } }),
  ]);
  // 403: the user may edit no type at all (a subscriber), which is an answer, not a failure.
  if (!types.ok && types.status !== 403) throw new LoadError(types);
  site.me = me.body;
  site.types = entries(types.ok ? types.body : {})
    .map(([slug, t]) => ({ ...t, slug: t.slug || slug }))
    .filter((t) => t.rest_base);
  const shown = new Set(site.types.map((t) => t.slug));
  site.taxonomies = taxonomies.ok
    ? entries(taxonomies.body)
        .map(([slug, t]) => ({ ...t, slug: t.slug || slug }))
        .filter((t) => t.rest_base && (t.types || []).some((type) => shown.has(type)))
    : [];
  return site;
}

/** Whether the user has a primitive capability. */
export function can(cap) {
  if (!cap || !site.me) return false;
  const caps = site.me.capabilities || {};
  return caps[cap] === true;
}

/** Whether the user has one of a type's (or taxonomy's) capabilities, by its generic name (`publish_posts`, `manage_terms`). */
export function typeCan(typeOrTax, generic) {
  const caps = typeOrTax.capabilities || {};
  return can(caps[generic] || generic);
}

export function typeBySlug(slug) {
  return site.types.find((t) => t.slug === slug);
}

export function taxonomyBySlug(slug) {
  return site.taxonomies.find((t) => t.slug === slug);
}

/** The taxonomies of a post type that the editor knows. */
export function taxonomiesOf(type) {
  const names = new Set(type.taxonomies || []);
  return site.taxonomies.filter((t) => names.has(t.slug) || (t.types || []).includes(type.slug));
}

/** Taxonomies whose terms the user may manage (a terms screen). */
export function manageableTaxonomies() {
  return site.taxonomies.filter((t) => typeCan(t, "manage_terms") || typeCan(t, "edit_terms"));
}

export function typeLabel(type, plural = true) {
  const labels = type.labels || {};
  return (plural ? labels.name : labels.singular_name) || type.name || type.slug;
}

function endpointFor(route, method) {
  if (!route) return null;
  return (route.endpoints || []).find((e) => (e.methods || []).includes(method)) || null;
}

/**
 * The routes of a collection (`<ns>/<base>`) and its items
 * (`<ns>/<base>/(?P<id>…)`), as the namespace index describes them:
 * `{ path, list, create, read, update, remove, itemPath(id) }`, each
 * endpoint `{ methods, args, allow_batch }` or null when the route does not
 * offer it (the screens hide what is not offered).
 */
export async function routesOf(entity) {
  const ns = (entity.rest_namespace || "wp/v2").replace(/^\/+|\/+$/g, "");
  const index = await namespaceIndex(ns);
  const base = `/${ns}/${entity.rest_base}`;
  const collection = index.routes[base];
  const itemKey = Object.keys(index.routes).find((key) => key.startsWith(`${base}/(?P<id>`));
  const item = itemKey ? index.routes[itemKey] : null;
  // Arguments every route of the namespace takes (language, context): request modifiers, not fields.
  const common = new Set(Object.keys((endpointFor(index.routes[`/${ns}`], "GET") || {}).args || {}));
  return {
    namespace: ns,
    path: `${ns}/${entity.rest_base}`,
    itemPath: (id) => `${ns}/${entity.rest_base}/${id}`,
    list: endpointFor(collection, "GET"),
    create: endpointFor(collection, "POST"),
    read: endpointFor(item, "GET"),
    update: endpointFor(item, "POST") || endpointFor(item, "PUT"),
    remove: endpointFor(item, "DELETE"),
    common,
  };
}

/** The records of a list answer: the body if an array, else its first array-valued member (`{ events: [...] }`). */
export function listOf(body) {
  if (Array.isArray(body)) return body;
  if (body && typeof body === "object") {
    for (const value of Object.values(body)) if (Array.isArray(value)) return value;
  }
  return [];
}

/** Total and page count of a list answer: the WordPress headers, else the body's `total`/`total_pages`. */
export function pagingOf(res, perPage) {
  const total = Number(res.headers.get("X-WP-Total") ?? (res.body && res.body.total));
  const pages = Number(res.headers.get("X-WP-TotalPages") ?? (res.body && res.body.total_pages));
  const count = listOf(res.body).length;
  return {
    total: Number.isFinite(total) ? total : count,
    pages: Number.isFinite(pages) ? pages : Math.max(1, Math.ceil(count / perPage)),
  };
}

/** A string field of a record, whether plain or WordPress's `{ raw, rendered }`. */
export function textOf(value) {
  if (value === null || value === undefined) return "";
  if (typeof value === "object" && !Array.isArray(value)) {
    if (typeof value.raw === "string") return value.raw;
    if (typeof value.rendered === "string") return value.rendered;
    return "";
  }
  if (Array.isArray(value)) return "";
  return String(value);
}

/**
 * Which argument names a record: `title`, else `name`, else the first
 * required string argument of the create route (a type whose name field
 * is named after the type).
 */
export function titleField(routes) {
  const args = (routes.create || routes.update || {}).args || {};
  if ("title" in args) return "title";
  if ("name" in args) return "name";
  const required = Object.entries(args).find(([, s]) => s.required && (s.type === "string" || s.type === undefined));
  return required ? required[0] : "title";
}

/** Per-page size for list requests: the route's maximum when it declares one below 50. */
export function perPageFor(endpoint, wanted = 20) {
  const arg = endpoint && endpoint.args && endpoint.args.per_page;
  if (!arg) return null;
  return Math.min(wanted, typeof arg.maximum === "number" ? arg.maximum : wanted);
}

/** The statuses a type's posts may take, from the type or the write route's enum. */
export function statusesOf(type, routes) {
  const fromType = Array.isArray(type.statuses) ? type.statuses : type.statuses && typeof type.statuses === "object" ? Object.keys(type.statuses) : null;
  const arg = ((routes.update || routes.create || {}).args || {}).status;
  const list = fromType || (arg && arg.enum) || ["publish", "future", "draft", "pending", "private", "trash"];
  return list.filter((s) => s !== "auto-draft" && s !== "inherit");
}

export const STATUS_LABELS = {
  publish: "Published",
  future: "Scheduled",
  draft: "Draft",
  pending: "Pending review",
  private: "Private",
  trash: "Trash",
};

export function statusLabel(status) {
  return STATUS_LABELS[status] || status;
}

/** Whether the user may edit this record (the list hides edit controls otherwise; the API still decides). */
export function canEditRecord(type, record) {
  const mine = site.me && String(record.author) === String(site.me.id);
  if (record.author !== undefined && !mine && !typeCan(type, "edit_others_posts")) return false;
  if ((record.status === "publish" || record.status === "future") && !typeCan(type, "edit_published_posts") && !typeCan(type, "edit_others_posts")) return false;
  return typeCan(type, "edit_posts");
}

export function canDeleteRecord(type, record) {
  const mine = site.me && String(record.author) === String(site.me.id);
  if (record.author !== undefined && !mine && !typeCan(type, "delete_others_posts")) return false;
  if (record.status === "publish" && !typeCan(type, "delete_published_posts")) return false;
  return typeCan(type, "delete_posts");
}
