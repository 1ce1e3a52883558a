/** The shortcode names WordPress 6.1 registers, and shortcode_unautop() (wp-includes/shortcodes.php, formatting.php). */
import { escapeRegExp, SPACES } from "./php";

/**
 * Shortcodes a stock WordPress 6.1 registers (WP_Embed and media.php).
 * calpress never runs them, but wptexturize() and shortcode_unautop() treat
 * registered shortcode tags specially, so the same names are recognised to
 * render text the way the original does.
 */
export const DEFAULT_SHORTCODE_TAGS: readonly string[] = [
  "embed",
  "wp_caption",
  "caption",
  "gallery",
  "playlist",
  "audio",
  "video",
];

/**
 * shortcode_unautop(): unwraps a `<p>` around a paragraph that is only a
 * registered shortcode.
 */
export function shortcodeUnautop(text: string, tags: readonly string[] = DEFAULT_SHORTCODE_TAGS): string {
  if (tags.length === 0) return text;
  const tagregexp = tags.map(escapeRegExp).join("|");
  const pattern = new RegExp(
    "<p>" +
      `(?:${SPACES})*` +
      "(" +
      "\\[" +
      `(${tagregexp})` +
      "(?![\\w-])" +
      "[^\\]\\/]*" +
      "(?:\\/(?!\\])[^\\]\\/]*)*?" +
      "(?:" +
      "\\/\\]" +
      "|" +
      "\\](?:[^\\[]*(?:\\[(?!\\/\\2\\])[^\\[]*)*\\[\\/\\2\\])?" +
      ")" +
      ")" +
      `(?:${SPACES})*` +
      "<\\/p>",
    "g",
  );
  return text.replace(pattern, "$1");
}
