import type { Post } from "../../posts/types";
import type { Term } from "../../taxonomy/types";
import { postTypes } from "../post-types";

const PLAIN_LINK_STATUSES = new Set(["draft", "pending", "future", "auto-draft"]);

/** Public page URL as WordPress's get_permalink gives it with pretty permalinks. */
export function postUrl(home: string, post: Post): string {
  const config = postTypes[post.type];
  const publicName = config?.publicName ?? post.type;
  if (PLAIN_LINK_STATUSES.has(post.status) || post.slug === "") {
    return `${home}/?post_type=${encodeURIComponent(publicName)}&p=${post.id}`;
  }
  return `${home}/${config?.rewriteSlug ?? post.type}/${post.slug}/`;
}

/** `example.com?id=42`: home without scheme and port (calendar-api.md §1). */
export function globalId(home: string, id: number): string {
  const url = new URL(home);
  const path = url.pathname.replace(/\/+$/, "");
  return `${url.hostname}${path}?id=${id}`;
}

export function termUrl(home: string, term: Term, ancestors: Term[], rewriteSlug: string): string {
  const chain = [...ancestors.map((t) => t.slug), term.slug].join("/");
  return `${home}/${rewriteSlug}/${chain}/`;
}
