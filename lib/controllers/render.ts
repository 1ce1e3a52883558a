/**
 * The `rendered` forms of a post's text as WordPress's REST records show
 * them: the `the_title`, `the_content` and `the_excerpt` filters of
 * WordPress 6.1 (lib/format holds the ports), untrimmed, since WordPress's
 * own controllers keep wpautop's final newline (the calendar's records, in
 * the original plugin's shape, trim it: lib/format/text.ts).
 */
import { wpautop } from "../format/autop";
import { phpTrim } from "../format/php";
import { shortcodeUnautop } from "../format/shortcodes";
import { stripTags } from "../format/strip-tags";
import { capitalPDangit, convertChars, renderTitle } from "../format/text";
import { wptexturize } from "../format/texturize";

/** `get_the_title()`: a private post's title says so (WordPress's `private_title_format`); a protected one's does not (the REST controller drops that prefix). */
export function theTitle(raw: string, status: string): string {
  return renderTitle(status === "private" ? `Private: ${raw}` : raw);
}

/** `the_content`: wptexturize, wpautop, shortcode_unautop, capital_P_dangit. */
export function theContent(raw: string): string {
  if (raw === "") return "";
  return capitalPDangit(shortcodeUnautop(wpautop(wptexturize(raw))));
}

/** `the_excerpt`: wptexturize, convert_chars, wpautop, shortcode_unautop. */
function theExcerpt(text: string): string {
  if (text === "") return "";
  return shortcodeUnautop(wpautop(convertChars(wptexturize(text))));
}

/** WordPress's excerpt length and "more" text (`excerpt_length`, `excerpt_more`). */
const EXCERPT_WORDS = 55;
const EXCERPT_MORE = " [&hellip;]";

/** `wp_trim_words()`: tags stripped, at most `count` words (split on whitespace), `more` when cut. */
function trimWords(text: string, count: number, more: string): string {
  const words = phpTrim(stripTags(text)).split(/[\n\r\t ]+/).filter((w) => w !== "");
  return words.length > count ? `${words.slice(0, count).join(" ")}${more}` : words.join(" ");
}

/** `get_the_excerpt()` then `the_excerpt`: the post's excerpt, or one made from its content (`wp_trim_excerpt()`). */
export function theExcerptOf(excerpt: string, content: string): string {
  if (excerpt !== "") return theExcerpt(excerpt);
  return theExcerpt(trimWords(theContent(content).replace(/\]\]>/g, "]]&gt;"), EXCERPT_WORDS, EXCERPT_MORE));
}

/** `block_version()`: 1 when the content holds blocks, else 0. */
export function blockVersion(content: string): number {
  return content.includes("<!-- wp:") ? 1 : 0;
}
