/**
 * WordPress 6.1 text rendering (calendar-api.md §1 "Text rendering"): the
 * filters the original runs on `description`, `excerpt` and `title`, ported
 * from wp-includes/formatting.php for the en_US locale and checked against
 * test/vectors/text.json (PHP ground truth). The larger filters have modules of their own
 * (autop.ts, texturize.ts, shortcodes.ts); PHP behaviours are in php.ts.
 */
import { wpautop } from "./autop";
import { phpTrim, strReplaceAll } from "./php";
import { shortcodeUnautop } from "./shortcodes";
import { OPENING_QUOTE, wptexturize } from "./texturize";

/**
 * convert_chars(): a lone `&` becomes `&#038;`. PHP matches bytes, so when
 * the character after `&` is not ASCII the look-ahead starts inside it and
 * never sees an entity name; the second alternative reproduces that.
 */
export function convertChars(content: string): string {
  if (!content.includes("&")) return content;
  return content.replace(/&(?:([\x00-\x22\x24-\x7f])(?![a-z1-4]{1,8};)|([^\x00-\x7f]))/gi, (_m, ascii?: string, other?: string) => `&#038;${ascii ?? other ?? ""}`);
}

/**
 * capital_P_dangit() outside the `the_title` filter (the form the vectors
 * were made with, also for titles): "Wordpress" is corrected only after a
 * space, `>`, `(` or an opening curly quote.
 */
export function capitalPDangit(text: string): string {
  return strReplaceAll(
    text,
    [" Wordpress", "&#8216;Wordpress", `${OPENING_QUOTE}Wordpress`, ">Wordpress", "(Wordpress"],
    [" WordPress", "&#8216;WordPress", `${OPENING_QUOTE}WordPress`, ">WordPress", "(WordPress"],
  );
}

/** the_content: wptexturize, wpautop, shortcode_unautop, capital_P_dangit, trimmed. */
export function renderContent(raw: string): string {
  if (raw === "") return "";
  return phpTrim(capitalPDangit(shortcodeUnautop(wpautop(wptexturize(raw)))));
}

/** the_excerpt: wptexturize, convert_chars, wpautop, shortcode_unautop, trimmed. */
export function renderExcerpt(raw: string): string {
  if (raw === "") return "";
  return phpTrim(shortcodeUnautop(wpautop(convertChars(wptexturize(raw)))));
}

/** the_title: wptexturize, convert_chars, trim, capital_P_dangit. */
export function renderTitle(raw: string): string {
  if (raw === "") return "";
  return capitalPDangit(phpTrim(convertChars(wptexturize(raw))));
}
