import { BoundedMemo } from "../../format/memo";
import type { Occurrence, Post } from "../../posts/types";
import type { Term } from "../../taxonomy/types";
import { postTypes } from "../post-types";

const PLAIN_LINK_STATUSES = new Set(["draft", "pending", "future", "auto-draft"]);

/** Public page URL as WordPress's get_permalink gives it with pretty permalinks. */
export function postUrl(home: string, post: Pick<Post, "id" | "type" | "status" | "slug"> & { occurrence?: Occurrence }): string {
  const config = postTypes[post.type];
  const publicName = config?.publicName ?? post.type;
  // An occurrence of a series: the original's convention, the series' URL with the occurrence's local
  // date as one more segment (`/event/<slug>/<YYYY-MM-DD>/`), or its `eventDate` query variable.
  const day = post.occurrence?.start_local.slice(0, 10);
  if (PLAIN_LINK_STATUSES.has(post.status) || post.slug === "") {
    return `${home}/?post_type=${encodeURIComponent(publicName)}&p=${post.id}${day === undefined ? "" : `&eventDate=${day}`}`;
  }
  return `${home}/${config?.rewriteSlug ?? post.type}/${post.slug}/${day === undefined ? "" : `${day}/`}`;
}

/** Host and path of each home seen (a URL parse per record adds up on a page of events with venues). */
const homeBases = new BoundedMemo<string>(100);

/** `example.com?id=42`: home without scheme and port (calendar-api.md §1). */
export function globalId(home: string, id: number): string {
  const base = homeBases.get(home, () => {
    const url = new URL(home);
    return `${url.hostname}${url.pathname.replace(/\/+$/, "")}`;
  });
  return `${base}?id=${id}`;
}

export function termUrl(home: string, term: Term, ancestors: Term[], rewriteSlug: string): string {
  const chain = [...ancestors.map((t) => t.slug), term.slug].join("/");
  return `${home}/${rewriteSlug}/${chain}/`;
}
