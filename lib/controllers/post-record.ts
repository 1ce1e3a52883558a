/**
 * A post as WordPress's posts controller shows it
 * (`WP_REST_Posts_Controller::prepare_item_for_response()`): every member
 * the type supports, built once, then narrowed to the request's context by
 * the item schema, with `_links`, the extensions' fields and their
 * `prepare` hooks. Members appear in WordPress's order.
 */
import { timingSafeEqual } from "node:crypto";
import type { EngineApi } from "../engine-api";
import { sanitizeTitle } from "../format/slug";
import { localToUtc, siteZone, ZERO_DATE } from "../posts/dates";
import type { LoadedPost } from "../posts/types";
import type { JsonObject, JsonValue } from "../routes/json";
import type { RestRequest } from "../routes/types";
import type { Term } from "../taxonomy/types";
import type { CurrentUser } from "../users/types";
import { rfc3339 } from "./dates";
import { prepareRecord } from "./extensions";
import { Links } from "./links";
import { emptyFieldValue, type PostTypeView } from "./post-schema";
import { blockVersion, theContent, theExcerptOf, theTitle } from "./render";
import { filterByContext, objectSchema, type Context } from "./schema";

/** Statuses whose posts have a pretty permalink (`wp_force_plain_post_permalink()`: viewable ones, and private ones to who may read them, which are the only ones shown). */
const PRETTY_LINK_STATUSES = new Set(["publish", "private"]);

/** What the records of one answer share. */
export interface PostRecordContext {
  req: RestRequest;
  view: PostTypeView;
  context: Context;
  /** Site home and REST root (`req.urls`). */
  home: string;
  root: string;
  user: CurrentUser | null;
  /** The site time zone option. */
  timezone: string;
  /** The terms of the records (for WordPress's name order of each record's term ids). */
  terms: ReadonlyMap<number, Term>;
}

export async function recordContext(engine: EngineApi, req: RestRequest, view: PostTypeView, context: Context, posts: readonly LoadedPost[]): Promise<PostRecordContext> {
  const termIds = [...new Set(posts.flatMap((p) => Object.values(p.termIds ?? {}).flat()))];
  return {
    req,
    view,
    context,
    home: req.urls.home,
    root: req.urls.root,
    user: req.user,
    timezone: await engine.options.timezone(),
    terms: termIds.length > 0 ? await engine.terms.getMany(termIds) : new Map(),
  };
}

/** `get_permalink()` with pretty permalinks (`/%postname%/`): `<home>/<rewrite slug>/<slug>/`, or the plain link before publication. */
export function permalink(home: string, view: PostTypeView, post: LoadedPost): string {
  if (!PRETTY_LINK_STATUSES.has(post.status) || post.slug === "") return plainLink(home, view, post.id);
  return `${home}/${view.config.rewriteSlug ?? view.name}/${post.slug}/`;
}

function plainLink(home: string, view: PostTypeView, id: number): string {
  return `${home}/?post_type=${encodeURIComponent(view.config.publicName ?? view.name)}&p=${id}`;
}

/** WordPress's `hash_equals()`: a comparison that takes as long whatever the strings share. */
function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * `can_access_password_content()`: whether a protected post's content and
 * excerpt are shown: in the edit context to who may edit it, or with its
 * password in the request.
 */
export function unlocked(post: LoadedPost, rc: Pick<PostRecordContext, "req" | "context" | "user">): boolean {
  if (post.password === "") return false;
  if (rc.context === "edit" && rc.user?.can("edit_post", post) === true) return true;
  const given = rc.req.params.password;
  return typeof given === "string" && given !== "" && sameSecret(post.password, given);
}

/** The record's term ids of a taxonomy, in WordPress's order (`wp_get_object_terms()`: by name, then id). */
function termIdsOf(post: LoadedPost, taxonomy: string, terms: ReadonlyMap<number, Term>): number[] {
  const ids = [...(post.termIds?.[taxonomy] ?? [])];
  const name = (id: number): string => terms.get(id)?.name.toLowerCase() ?? "";
  return ids.sort((a, b) => (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : a - b));
}

/** Every member the type supports, in WordPress's order, before the context filter. */
function members(post: LoadedPost, rc: PostRecordContext): JsonObject {
  const { view, home } = rc;
  const zone = siteZone(rc.timezone);
  const supports = view.supports;
  const open = post.password === "" || unlocked(post, rc);
  const guid = plainLink(home, view, post.id);
  const data: JsonObject = {
    id: post.id,
    date: rfc3339(post.dateLocal),
    // For a draft without a date of its own WordPress shows its local date taken as site time.
    date_gmt: rfc3339(post.dateUtc === ZERO_DATE ? localToUtc(post.dateLocal, zone) : post.dateUtc),
    guid: { rendered: guid, raw: guid },
    modified: rfc3339(post.modifiedLocal),
    modified_gmt: rfc3339(post.modifiedUtc === ZERO_DATE ? localToUtc(post.modifiedLocal, zone) : post.modifiedUtc),
    password: post.password,
    slug: post.slug,
    status: post.status,
    type: post.type,
    link: permalink(home, view, post),
  };
  if (supports.has("title")) data.title = { raw: post.title, rendered: theTitle(post.title, post.status) };
  if (supports.has("editor")) {
    data.content = { raw: post.content, rendered: open ? theContent(post.content) : "", protected: post.password !== "", block_version: blockVersion(post.content) };
  }
  if (supports.has("excerpt")) data.excerpt = { raw: post.excerpt, rendered: open ? theExcerptOf(post.excerpt, post.content) : "", protected: post.password !== "" };
  if (supports.has("author")) data.author = post.author;
  if (supports.has("thumbnail")) data.featured_media = Number(post.meta?.[THUMBNAIL_META] ?? 0) || 0;
  if (view.config.hierarchical) data.parent = post.parent;
  if (supports.has("page-attributes")) data.menu_order = post.menuOrder;
  data.template = "";
  if (Object.keys(view.fields).length > 0) {
    const meta: JsonObject = {};
    for (const [name, def] of Object.entries(view.fields)) {
      const value = post.fields[name];
      meta[name] = (value === null || value === undefined ? emptyFieldValue(def) : value) as JsonValue;
    }
    data.meta = meta;
  }
  for (const tax of view.taxonomies) data[tax.rest.base] = termIdsOf(post, tax.name, rc.terms);
  data.permalink_template = `${home}/${view.config.rewriteSlug ?? view.name}/%pagename%/`;
  data.generated_slug = generatedSlug(post);
  return data;
}

/**
 * `get_sample_permalink()`'s slug: the title's, made unique. WordPress asks
 * the database for a free one; calpress takes the post's own slug when it
 * is that slug or a numbered one of it (`sales-lead-2` for "Sales Lead"),
 * else the title's as it is.
 */
function generatedSlug(post: LoadedPost): string {
  const base = sanitizeTitle(post.title);
  const own = post.slug.replace(/__trashed$/, "");
  const numbered = base !== "" && own.startsWith(`${base}-`) && /^\d+$/.test(own.slice(base.length + 1));
  return own === base || numbered ? own : base;
}

/** The post meta key of the featured image (WordPress's `_thumbnail_id`). */
export const THUMBNAIL_META = "_thumbnail_id";

/** `prepare_links()` and, in the edit context, `get_available_actions()`. */
function links(post: LoadedPost, rc: PostRecordContext): JsonObject {
  const { view, root, user } = rc;
  const base = `${root}${view.rest.namespace}/${view.rest.base}`;
  const self = `${base}/${post.id}`;
  const out = new Links().add("self", self).add("collection", base).add("about", `${root}wp/v2/types/${view.name}`);
  if (view.supports.has("author") && post.author !== 0) out.add("author", `${root}wp/v2/users/${post.author}`, { embeddable: true });
  if (view.config.hierarchical && post.parent !== 0) out.add("up", `${base}/${post.parent}`, { embeddable: true });
  for (const tax of view.taxonomies) {
    out.add("wp:term", `${root}${tax.rest.namespace}/${tax.rest.base}?post=${post.id}`, { taxonomy: tax.name, embeddable: true });
  }
  if (rc.context === "edit" && user !== null) {
    const caps = view.caps;
    if (user.can(caps.publish_posts)) out.add("wp:action-publish", self);
    if (user.can("unfiltered_html")) out.add("wp:action-unfiltered-html", self);
    if (view.supports.has("author") && user.can(caps.edit_others_posts)) out.add("wp:action-assign-author", self);
    for (const tax of view.taxonomies) {
      const object = { type: tax.name, status: "", author: 0 };
      if (user.can(tax.config.hierarchical ? "edit_terms" : "assign_terms", object)) out.add(`wp:action-create-${tax.rest.base}`, self);
      if (user.can("assign_terms", object)) out.add(`wp:action-assign-${tax.rest.base}`, self);
    }
  }
  return out.toJson();
}

/** The record of one post in the answer's context. */
export async function postRecord(post: LoadedPost, rc: PostRecordContext): Promise<JsonObject> {
  const data = members(post, rc);
  for (const [name, field] of Object.entries(rc.view.restFields)) {
    if (field.get !== undefined && rc.req.wantsField(name)) data[name] = await field.get(post, rc.req);
  }
  const record = filterByContext(data, objectSchema(rc.view.schema), rc.context);
  if (rc.req.wantsField("_links") || rc.req.wantsField("_embedded")) record._links = links(post, rc);
  return prepareRecord(rc.view.extensions, record, post, rc.req);
}
