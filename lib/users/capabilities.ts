import type { PostTypeCaps, Registry, TaxonomyCaps } from "../posts/registry";
import { ROLE_NAMES, type CapabilityObject, type RoleName } from "./types";

/**
 * Roles and capabilities as WordPress's `populate_roles()` grants them, with
 * the post capabilities repeated for every registered post type's
 * `capabilityType`, and `map_meta_cap()` for the meta capabilities.
 */

type PostCapKey = keyof PostTypeCaps;

/** Which post capabilities each role gets, per post type (as WordPress grants the `posts` ones). */
const ROLE_POST_CAPS: Record<RoleName, readonly PostCapKey[]> = {
  administrator: [
    "read", "edit_posts", "edit_others_posts", "edit_published_posts", "edit_private_posts", "publish_posts",
    "read_private_posts", "delete_posts", "delete_others_posts", "delete_published_posts", "delete_private_posts",
  ],
  editor: [
    "read", "edit_posts", "edit_others_posts", "edit_published_posts", "edit_private_posts", "publish_posts",
    "read_private_posts", "delete_posts", "delete_others_posts", "delete_published_posts", "delete_private_posts",
  ],
  author: ["read", "edit_posts", "edit_published_posts", "publish_posts", "delete_posts", "delete_published_posts"],
  contributor: ["read", "edit_posts", "delete_posts"],
  subscriber: ["read"],
};

/** Capabilities that do not belong to a post type. */
const ROLE_SITE_CAPS: Record<RoleName, readonly string[]> = {
  administrator: [
    "read", "manage_categories", "upload_files", "unfiltered_html", "list_users", "edit_users",
    "create_users", "delete_users", "promote_users", "manage_options", "moderate_comments",
  ],
  editor: ["read", "manage_categories", "upload_files", "unfiltered_html", "moderate_comments"],
  author: ["read", "upload_files"],
  contributor: ["read"],
  subscriber: ["read"],
};

/** The core `post` type's capabilities exist even when no `post` type is registered (taxonomy defaults use edit_posts). */
const CORE_POST_CAPS: PostTypeCaps = {
  read: "read",
  edit_posts: "edit_posts",
  edit_others_posts: "edit_others_posts",
  edit_published_posts: "edit_published_posts",
  edit_private_posts: "edit_private_posts",
  publish_posts: "publish_posts",
  read_private_posts: "read_private_posts",
  delete_posts: "delete_posts",
  delete_others_posts: "delete_others_posts",
  delete_published_posts: "delete_published_posts",
  delete_private_posts: "delete_private_posts",
  create_posts: "edit_posts",
};

const memo = new WeakMap<Registry, { version: number; roles: Map<RoleName, ReadonlySet<string>> }>();

/** The primitive capabilities of a role given the registered post types (memoised per registry version). */
export function roleCapabilities(registry: Registry, role: RoleName): ReadonlySet<string> {
  let entry = memo.get(registry);
  if (!entry || entry.version !== registry.version) {
    entry = { version: registry.version, roles: new Map() };
    memo.set(registry, entry);
  }
  let caps = entry.roles.get(role);
  if (!caps) {
    const set = new Set<string>(ROLE_SITE_CAPS[role] ?? []);
    const typeCaps = [CORE_POST_CAPS, ...[...registry.postTypes.values()].map((t) => t.caps)];
    for (const tc of typeCaps) for (const key of ROLE_POST_CAPS[role] ?? []) set.add(tc[key]);
    caps = set;
    entry.roles.set(role, caps);
  }
  return caps;
}

/** Every primitive capability some role has, for the registered post types (what `allcaps` can hold), sorted. */
export function knownCapabilities(registry: Registry): string[] {
  const all = new Set<string>();
  for (const role of ROLE_NAMES) for (const cap of roleCapabilities(registry, role)) all.add(cap);
  return [...all].sort();
}

/** Generic post capability names that, given an object, mean that post type's own capability. */
const GENERIC_POST_CAPS: ReadonlySet<string> = new Set<PostCapKey>([
  "edit_posts", "edit_others_posts", "edit_published_posts", "edit_private_posts", "publish_posts",
  "read_private_posts", "delete_posts", "delete_others_posts", "delete_published_posts", "delete_private_posts",
  "create_posts",
]);

const TERM_CAPS: Record<string, keyof TaxonomyCaps> = {
  manage_terms: "manage_terms",
  edit_terms: "edit_terms",
  delete_terms: "delete_terms",
  assign_terms: "assign_terms",
  // Meta capabilities on one term (WordPress's edit_term, delete_term, assign_term).
  edit_term: "edit_terms",
  delete_term: "delete_terms",
  assign_term: "assign_terms",
};

/**
 * `map_meta_cap()`: the primitive capabilities a (meta) capability needs for
 * the user and object; `null` when the capability cannot be granted (unknown
 * post type or taxonomy).
 */
export function mapMetaCap(registry: Registry, userId: number, cap: string, object?: CapabilityObject): string[] | null {
  if (cap === "exist") return [];
  if (!object) {
    if (cap === "read_post" || cap === "edit_post" || cap === "delete_post" || cap === "publish_post") return null;
    return [cap];
  }
  if (cap in TERM_CAPS) {
    const tax = registry.taxonomies.get(object.type);
    if (!tax) return null;
    return [tax.caps[TERM_CAPS[cap]]];
  }
  const type = registry.postTypes.get(object.type);
  if (!type) return GENERIC_POST_CAPS.has(cap) ? null : [cap];
  const c = type.caps;
  if (GENERIC_POST_CAPS.has(cap)) return [c[cap as PostCapKey]];
  const own = object.author !== 0 && object.author === userId;
  // A trashed post is checked as the status it had (WordPress reads _wp_trash_meta_status).
  const status = object.status === "trash" && object.previousStatus ? object.previousStatus : object.status;
  const published = status === "publish" || status === "future";
  switch (cap) {
    case "read_post": {
      if (object.status === "publish") return [c.read];
      // WordPress: an author may always read their own post.
      if (own) return [c.read];
      if (object.status === "private") return [c.read_private_posts];
      return mapMetaCap(registry, userId, "edit_post", object);
    }
    case "edit_post": {
      if (own) {
        // WordPress asks only edit_posts of the author of a private post (no edit_private).
        return published ? [c.edit_posts, c.edit_published_posts] : [c.edit_posts];
      }
      if (published) return [c.edit_others_posts, c.edit_published_posts];
      if (status === "private") return [c.edit_others_posts, c.edit_private_posts];
      return [c.edit_others_posts];
    }
    case "delete_post": {
      if (own) return published ? [c.delete_posts, c.delete_published_posts] : [c.delete_posts];
      if (published) return [c.delete_others_posts, c.delete_published_posts];
      if (status === "private") return [c.delete_others_posts, c.delete_private_posts];
      return [c.delete_others_posts];
    }
    case "publish_post":
      return [c.publish_posts];
    default:
      return [cap];
  }
}

export function roleCan(registry: Registry, role: RoleName, userId: number, cap: string, object?: CapabilityObject): boolean {
  const needed = mapMetaCap(registry, userId, cap, object);
  if (needed === null) return false;
  const have = roleCapabilities(registry, role);
  return needed.every((p) => have.has(p));
}
