/**
 * Record links in WordPress's wire form (`WP_REST_Server::get_compact_response_links()`):
 * `_links` maps a relation to a list of `{ …attributes, href }`; relations
 * under `https://api.w.org/` are written `wp:<name>` after the others, and
 * a `curies` entry then says how to expand them. `embeddable` links are
 * what `_embed` follows (lib/routes/embed.ts).
 */
import type { JsonObject, JsonValue } from "../routes/json";

export type LinkAttributes = Record<string, JsonValue>;

/** WordPress's one CURIE. */
const CURIES: JsonValue = [{ name: "wp", href: "https://api.w.org/{rel}", templated: true }];

/** Collects links in the order they are added; `toJson()` gives WordPress's `_links`. */
export class Links {
  private readonly plain: Array<[string, JsonObject]> = [];
  private readonly compact: Array<[string, JsonObject]> = [];

  /** `rel` a plain relation (`self`, `author`) or `wp:<name>` for one of `https://api.w.org/`. */
  add(rel: string, href: string, attributes: LinkAttributes = {}): this {
    // The attributes first, then href: WordPress's order.
    (rel.startsWith("wp:") ? this.compact : this.plain).push([rel, { ...attributes, href }]);
    return this;
  }

  toJson(): JsonObject {
    const out: JsonObject = {};
    for (const [rel, item] of [...this.plain, ...this.compact]) {
      const list = out[rel];
      if (Array.isArray(list)) list.push(item);
      else out[rel] = [item];
    }
    if (this.compact.length > 0) out.curies = CURIES;
    return out;
  }
}
