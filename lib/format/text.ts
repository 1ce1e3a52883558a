/**
 * WordPress 6.1 text rendering (calendar-api.md §1 "Text rendering"): the
 * filters the original runs on `description`, `excerpt` and `title`, ported
 * from wp-includes/formatting.php for the en_US locale and checked against
 * ../shared/vectors/text.json.
 *
 * Porting notes that apply to every regular expression below:
 * - PHP matches bytes without the `u` modifier, so `\s` is only ASCII
 *   whitespace. JavaScript's `\s` also matches U+00A0 and other Unicode
 *   spaces, which would change results, hence the explicit `WS` class.
 * - PCRE's `.` excludes only "\n"; JavaScript's also excludes "\r" and
 *   U+2028/9, hence `[^\n]` where PHP has `.`.
 * - PCRE's `$` (without the D modifier) and `\Z` also match before a final
 *   "\n"; `END` reproduces that.
 * - Possessive quantifiers and conditional groups do not exist in
 *   JavaScript; each rewrite below is equivalent for the strings involved.
 */

/** PCRE `\s` without the `u` modifier. */
const WS = "[\\t\\n\\v\\f\\r ]";
/** PCRE `$` / `\Z` without the D modifier, as a lookahead. */
const END = "(?=\\n?$)";
/** `wp_spaces_regexp()`: ASCII blanks, a UTF-8 no-break space or `&nbsp;`. */
const SPACES = "[\\r\\n\\t ]|\\u00a0|&nbsp;";

/** Characters PHP's trim() removes by default. */
const PHP_TRIM_CHARS = " \t\n\r\0\x0B";

/** PHP trim(): JavaScript's trim() would also strip U+00A0 and friends. */
export function phpTrim(s: string, chars: string = PHP_TRIM_CHARS): string {
  let start = 0;
  let end = s.length;
  while (start < end && chars.includes(s[start])) start++;
  while (end > start && chars.includes(s[end - 1])) end--;
  return s.slice(start, end);
}

/** PHP str_replace() with one search string. */
function strReplace(s: string, search: string, replace: string): string {
  return search === "" ? s : s.split(search).join(replace);
}

/** PHP str_replace() with parallel arrays, applied in order like PHP does. */
function strReplaceAll(s: string, search: readonly string[], replace: string | readonly string[]): string {
  let out = s;
  search.forEach((needle, i) => {
    out = strReplace(out, needle, typeof replace === "string" ? replace : replace[i]);
  });
  return out;
}

/** PHP substr() including its negative-length behaviour. */
function phpSubstr(s: string, start: number, length?: number): string {
  const from = start < 0 ? Math.max(0, s.length + start) : Math.min(start, s.length);
  if (length === undefined) return s.slice(from);
  const to = length < 0 ? s.length + length : from + length;
  return to <= from ? "" : s.slice(from, to);
}

/**
 * preg_split() with PREG_SPLIT_DELIM_CAPTURE for a pattern whose group 1 is
 * the whole delimiter; `noEmpty` adds PREG_SPLIT_NO_EMPTY.
 */
function pregSplitDelim(pattern: RegExp, text: string, noEmpty: boolean): string[] {
  const out: string[] = [];
  let last = 0;
  for (const m of text.matchAll(pattern)) {
    const index = m.index ?? 0;
    out.push(text.slice(last, index), m[1] ?? m[0]);
    last = index + m[0].length;
  }
  out.push(text.slice(last));
  return noEmpty ? out.filter((part) => part !== "") : out;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\\/-]/g, "\\$&");
}

/**
 * PHP strip_tags() without an allow-list: a port of php_strip_tags_ex()'s
 * state machine (PHP 8), so that stray `<`, quotes inside tags, comments,
 * `<?...?>` and `<!...>` are handled exactly as WordPress sees them.
 */
export function stripTags(input: string): string {
  const isSpace = (ch: string | undefined): boolean =>
    ch === " " || ch === "\t" || ch === "\n" || ch === "\v" || ch === "\f" || ch === "\r";
  let out = "";
  let state = 0;
  let depth = 0;
  let inQ = "";
  let lc = "";
  let br = 0;
  let isXml = false;
  const at = (i: number): string => (i >= 0 && i < input.length ? input[i] : "");

  for (let p = 0; p < input.length; p++) {
    const c = input[p];
    if (state === 0) {
      if (c === "\0") continue;
      if (c === "<") {
        if (inQ) continue;
        if (isSpace(input[p + 1])) {
          out += c;
          continue;
        }
        lc = "<";
        state = 1;
        continue;
      }
      if (c === ">") {
        if (depth) {
          depth--;
          continue;
        }
        if (inQ) continue;
        out += c;
        continue;
      }
      out += c;
    } else if (state === 1) {
      switch (c) {
        case "<":
          if (inQ) break;
          if (isSpace(input[p + 1])) break;
          depth++;
          break;
        case ">":
          if (depth) {
            depth--;
            break;
          }
          if (inQ) break;
          lc = ">";
          if (isXml && at(p - 1) === "-") break;
          inQ = "";
          state = 0;
          isXml = false;
          break;
        case '"':
        case "'":
          if (p !== 0 && (!inQ || c === inQ)) inQ = inQ ? "" : c;
          break;
        case "!":
          if (at(p - 1) === "<") {
            state = 3;
            lc = c;
          }
          break;
        case "?":
          if (at(p - 1) === "<") {
            br = 0;
            state = 2;
          }
          break;
        default:
          break;
      }
    } else if (state === 2) {
      switch (c) {
        case "(":
          if (lc !== '"' && lc !== "'") {
            lc = "(";
            br++;
          }
          break;
        case ")":
          if (lc !== '"' && lc !== "'") {
            lc = ")";
            br--;
          }
          break;
        case ">":
          if (depth) {
            depth--;
            break;
          }
          if (inQ) break;
          if (!br && lc !== '"' && at(p - 1) === "?") {
            inQ = "";
            state = 0;
          }
          break;
        case '"':
        case "'":
          if (p >= 1 && at(p - 1) !== "\\") {
            if (lc === c) lc = "";
            else if (lc !== "\\") lc = c;
          }
          if (p !== 0 && (!inQ || c === inQ)) inQ = inQ ? "" : c;
          break;
        case "l":
        case "L":
          // `<?xml` is markup, not PHP: back to the tag state.
          if (
            p > 4 &&
            (at(p - 1) === "m" || at(p - 1) === "M") &&
            (at(p - 2) === "x" || at(p - 2) === "X") &&
            at(p - 3) === "?" &&
            at(p - 4) === "<"
          ) {
            state = 1;
            isXml = true;
          }
          break;
        default:
          break;
      }
    } else if (state === 3) {
      switch (c) {
        case ">":
          if (depth) {
            depth--;
            break;
          }
          if (inQ) break;
          inQ = "";
          state = 0;
          break;
        case '"':
        case "'":
          if (p !== 0 && at(p - 1) !== "\\" && (!inQ || c === inQ)) inQ = inQ ? "" : c;
          break;
        case "-":
          if (at(p - 1) === "-" && at(p - 2) === "!") state = 4;
          break;
        case "E":
        case "e":
          // `<!DOCTYPE` is treated like an ordinary tag.
          if (p > 6 && input.slice(p - 6, p).toLowerCase() === "doctyp") state = 1;
          break;
        default:
          break;
      }
    } else {
      if (c === ">" && !inQ && at(p - 1) === "-" && at(p - 2) === "-") {
        inQ = "";
        state = 0;
      }
    }
  }
  return out;
}

/* ------------------------------------------------------------------ */
/* Shortcodes                                                          */
/* ------------------------------------------------------------------ */

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

/** _get_wptexturize_shortcode_regex(), without the possessive quantifiers. */
function wptexturizeShortcodeRegex(tagnames: readonly string[]): string {
  const tagregexp = `(?:${tagnames.map(escapeRegExp).join("|")})(?=[\\t\\n\\v\\f\\r \\]\\/])`;
  return `\\[[\\/\\[]?${tagregexp}(?:[^\\[\\]<>]|<[^\\[\\]>]*>)*\\]\\]?`;
}

/** The element part of _get_wptexturize_split_regex(): comments or tags. */
const TEXTURIZE_HTML_REGEX = "<(?:(?=!--)!(?:-(?!->)[^\\-]*)*(?:-->)?|(?!!--)[^>]*>?)";

/* ------------------------------------------------------------------ */
/* wptexturize                                                         */
/* ------------------------------------------------------------------ */

const OPEN_Q_FLAG = "<!--oq-->";
const OPEN_SQ_FLAG = "<!--osq-->";
const APOS_FLAG = "<!--apos-->";

// en_US translations of the _x() strings wptexturize() looks up.
const OPENING_QUOTE = "&#8220;";
const CLOSING_QUOTE = "&#8221;";
const APOS = "&#8217;";
const PRIME = "&#8242;";
const DOUBLE_PRIME = "&#8243;";
const OPENING_SINGLE_QUOTE = "&#8216;";
const CLOSING_SINGLE_QUOTE = "&#8217;";
const EN_DASH = "&#8211;";
const EM_DASH = "&#8212;";

const NO_TEXTURIZE_TAGS: readonly string[] = ["pre", "code", "kbd", "style", "script", "tt"];
const NO_TEXTURIZE_SHORTCODES: readonly string[] = ["code"];

const COCKNEY = ["'tain't", "'twere", "'twas", "'tis", "'twill", "'til", "'bout", "'nuff", "'round", "'cause", "'em"];
const COCKNEY_REPLACE = [
  "&#8217;tain&#8217;t",
  "&#8217;twere",
  "&#8217;twas",
  "&#8217;tis",
  "&#8217;twill",
  "&#8217;til",
  "&#8217;bout",
  "&#8217;nuff",
  "&#8217;round",
  "&#8217;cause",
  "&#8217;em",
];
const STATIC_CHARACTERS = ["...", "``", "''", " (tm)", ...COCKNEY];
const STATIC_REPLACEMENTS = ["&#8230;", OPENING_QUOTE, CLOSING_QUOTE, " &#8482;", ...COCKNEY_REPLACE];

type Replacement = readonly [RegExp, string];

const QUOTE_FOLLOWER = `(?=${END}|[.,:;!?)}\\-\\]]|&gt;|${SPACES})`;

const DYNAMIC_APOS: readonly Replacement[] = [
  // '99' and '99" are ambiguous among other patterns; WordPress assumes an abbreviated year at the end of a quotation.
  [new RegExp(`'(\\d\\d)'${QUOTE_FOLLOWER}`, "g"), `${APOS_FLAG}$1${CLOSING_SINGLE_QUOTE}`],
  [new RegExp(`'(\\d\\d)"${QUOTE_FOLLOWER}`, "g"), `${APOS_FLAG}$1${CLOSING_QUOTE}`],
  [new RegExp(`'(?=\\d\\d(?:${END}|(?![%\\d]|[.,]\\d)))`, "g"), APOS_FLAG],
  [new RegExp(`(?<=^|${SPACES})'(\\d[.,\\d]*)'`, "g"), `${OPEN_SQ_FLAG}$1${CLOSING_SINGLE_QUOTE}`],
  [new RegExp(`(?<=^|[([{"\\-]|&lt;|${SPACES})'`, "g"), OPEN_SQ_FLAG],
  [new RegExp(`(?<!${SPACES})'(?!${END}|[.,:;!?"'(){}[\\]\\-]|&[lg]t;|${SPACES})`, "g"), APOS_FLAG],
];

const DYNAMIC_QUOTE: readonly Replacement[] = [
  [new RegExp(`(?<=^|${SPACES})"(\\d[.,\\d]*)"`, "g"), `${OPEN_Q_FLAG}$1${CLOSING_QUOTE}`],
  [new RegExp(`(?<=^|[([{\\-]|&lt;|${SPACES})"(?!${SPACES})`, "g"), OPEN_Q_FLAG],
];

const DYNAMIC_DASH: readonly Replacement[] = [
  [/---/g, EM_DASH],
  [new RegExp(`(?<=^|${SPACES})--(?=${END}|${SPACES})`, "g"), EM_DASH],
  [/(?<!xn)--/g, EN_DASH],
  [new RegExp(`(?<=^|${SPACES})-(?=${END}|${SPACES})`, "g"), EN_DASH],
];

/** Bare `&` that does not already start an entity. */
const LONE_AMPERSAND = /&(?!#(?:\d+|x[a-f0-9]+);|[a-z1-4]{1,8};)/gi;

function applyAll(text: string, replacements: readonly Replacement[]): string {
  return replacements.reduce((s, [re, to]) => s.replace(re, to), text);
}

function countMatches(text: string, re: RegExp): number {
  return (text.match(re) ?? []).length;
}

/**
 * wptexturize_primes(): decides, per quotation opened by `openQuote`,
 * whether a `'`/`"` after a digit is a prime or a closing quote.
 */
function wptexturizePrimes(haystack: string, needle: string, prime: string, openQuote: string, closeQuote: string): string {
  const flag = "<!--wp-prime-or-quote-->";
  const quotePattern = new RegExp(`${needle}${QUOTE_FOLLOWER}`, "g");
  const primePattern = new RegExp(`(?<=\\d)${needle}`, "g");
  const flagAfterDigit = new RegExp(`(?<=\\d)${flag}`, "g");
  const flagNoDigit = new RegExp(`(?<!\\d)${flag}`, "g");

  const sentences = haystack.split(openQuote).map((original, key) => {
    let sentence = original;
    if (!sentence.includes(needle)) return sentence;
    if (key !== 0 && !sentence.includes(closeQuote)) {
      const count = countMatches(sentence, quotePattern);
      sentence = sentence.replace(quotePattern, flag);
      if (count > 1) {
        // Several closing-quote candidates: the first one not after a digit wins.
        const count2 = countMatches(sentence, flagNoDigit);
        sentence = sentence.replace(flagNoDigit, closeQuote);
        if (count2 === 0) {
          const pos = sentence.includes(`${flag}.`) ? sentence.lastIndexOf(`${flag}.`) : sentence.lastIndexOf(flag);
          sentence = sentence.slice(0, pos) + closeQuote + sentence.slice(pos + flag.length);
        }
        sentence = sentence.replace(primePattern, prime);
        sentence = sentence.replace(flagAfterDigit, prime);
        sentence = strReplace(sentence, flag, closeQuote);
      } else if (count === 1) {
        sentence = strReplace(sentence, flag, closeQuote);
        sentence = sentence.replace(primePattern, prime);
      } else {
        sentence = sentence.replace(primePattern, prime);
      }
    } else {
      sentence = sentence.replace(primePattern, prime);
      sentence = sentence.replace(quotePattern, closeQuote);
    }
    if (needle === '"' && sentence.includes('"')) sentence = strReplace(sentence, '"', closeQuote);
    return sentence;
  });
  return sentences.join(openQuote);
}

/** _wptexturize_pushpop_element(): tracks open no-texturize elements. */
function pushpopElement(text: string, stack: string[], disabled: readonly string[]): void {
  let opening: boolean;
  let nameOffset: number;
  if (text.length > 1 && text[1] !== "/") {
    opening = true;
    nameOffset = 1;
  } else if (stack.length === 0) {
    return;
  } else {
    opening = false;
    nameOffset = 2;
  }
  const spaceAt = text.indexOf(" ");
  const length = spaceAt === -1 ? -1 : spaceAt - nameOffset;
  const tag = phpSubstr(text, nameOffset, length);
  if (!disabled.includes(tag)) return;
  if (opening) stack.push(tag);
  else if (stack[stack.length - 1] === tag) stack.pop();
}

function texturizeChunk(input: string): string {
  let curl = strReplaceAll(input, STATIC_CHARACTERS, STATIC_REPLACEMENTS);

  if (curl.includes("'")) {
    curl = applyAll(curl, DYNAMIC_APOS);
    curl = wptexturizePrimes(curl, "'", PRIME, OPEN_SQ_FLAG, CLOSING_SINGLE_QUOTE);
    curl = strReplace(curl, APOS_FLAG, APOS);
    curl = strReplace(curl, OPEN_SQ_FLAG, OPENING_SINGLE_QUOTE);
  }
  if (curl.includes('"')) {
    curl = applyAll(curl, DYNAMIC_QUOTE);
    curl = wptexturizePrimes(curl, '"', DOUBLE_PRIME, OPEN_Q_FLAG, CLOSING_QUOTE);
    curl = strReplace(curl, OPEN_Q_FLAG, OPENING_QUOTE);
  }
  if (curl.includes("-")) curl = applyAll(curl, DYNAMIC_DASH);

  // 9x9 (times), but never 0x9999. The PCRE conditional `(?(?<=0)...)` becomes an alternation.
  if (/(?<=\d)x\d/.test(curl)) {
    curl = curl.replace(/\b(\d(?:(?<=0)[\d.,]+|(?<!0)[\d.,]*))x(\d[\d.,]*)\b/g, "$1&#215;$2");
  }
  return curl.replace(LONE_AMPERSAND, "&#038;");
}

/**
 * wptexturize() for en_US: curly quotes, apostrophes and primes, dashes,
 * ellipsis, trademark, multiplication sign and `&` → `&#038;`, emitted as
 * numeric entities (as WordPress does). Text inside pre/code/kbd/style/
 * script/tt, HTML tags and comments, and registered shortcodes is left alone.
 */
export function wptexturize(text: string, shortcodeTags: readonly string[] = DEFAULT_SHORTCODE_TAGS): string {
  // PHP's empty() also treats "0" as nothing to do.
  if (text === "" || text === "0") return text;

  const names = new Set<string>();
  for (const m of text.matchAll(/\[\/?([^<>&/\[\]\x00-\x20=]+)/g)) names.add(m[1]);
  const tagnames = shortcodeTags.filter((tag) => names.has(tag));
  const foundShortcodes = tagnames.length > 0;
  const shortcodeRegex = foundShortcodes ? wptexturizeShortcodeRegex(tagnames) : "";
  const split = new RegExp(`(${TEXTURIZE_HTML_REGEX}${foundShortcodes ? `|${shortcodeRegex}` : ""})`, "g");
  const wholeShortcode = foundShortcodes ? new RegExp(`^(?:${shortcodeRegex})$`) : null;

  const tagsStack: string[] = [];
  const shortcodesStack: string[] = [];
  const parts = pregSplitDelim(split, text, true);

  return parts
    .map((curl) => {
      const first = curl[0];
      if (first === "<") {
        if (curl.startsWith("<!--")) return curl;
        const element = curl.replace(LONE_AMPERSAND, "&#038;");
        pushpopElement(element, tagsStack, NO_TEXTURIZE_TAGS);
        return element;
      }
      if (phpTrim(curl) === "") return curl;
      if (first === "[" && wholeShortcode !== null && wholeShortcode.test(curl)) {
        if (!curl.startsWith("[[") && !curl.endsWith("]]")) {
          pushpopElement(curl, shortcodesStack, NO_TEXTURIZE_SHORTCODES);
        }
        return curl;
      }
      if (shortcodesStack.length === 0 && tagsStack.length === 0) return texturizeChunk(curl);
      return curl;
    })
    .join("");
}

/* ------------------------------------------------------------------ */
/* wpautop                                                             */
/* ------------------------------------------------------------------ */

/** get_html_split_regex(): comments, CDATA sections or tags. */
const HTML_SPLIT_REGEX = new RegExp(
  "(<(?:" +
    "(?=!--|!\\[CDATA\\[)(?:" +
    "(?=!-)!(?:-(?!->)[^\\-]*)*(?:-->)?" +
    "|" +
    "(?!!-)!\\[CDATA\\[[^\\]]*(?:\\](?!\\]>)[^\\]]*)*(?:\\]\\]>)?" +
    ")" +
    "|" +
    "(?!!--|!\\[CDATA\\[)[^>]*>?" +
    "))",
  "g",
);

/** wp_replace_in_html_tags() for a single pair: replaces inside tags only. */
function replaceInHtmlTags(haystack: string, needle: string, replace: string): string {
  const parts = pregSplitDelim(HTML_SPLIT_REGEX, haystack, false);
  let changed = false;
  for (let i = 1; i < parts.length; i += 2) {
    if (parts[i].includes(needle)) {
      parts[i] = strReplace(parts[i], needle, replace);
      changed = true;
    }
  }
  return changed ? parts.join("") : haystack;
}

const ALLBLOCKS =
  "(?:table|thead|tfoot|caption|col|colgroup|tbody|tr|td|th|div|dl|dd|dt|ul|ol|li|pre|form|map|area|blockquote|address|math|style|p|h[1-6]|hr|fieldset|legend|section|article|aside|hgroup|header|footer|nav|figure|figcaption|details|menu|summary)";

/**
 * wpautop() as in WordPress 6.1: blank-line separated blocks become `<p>`
 * paragraphs, remaining newlines become `<br />`, block-level elements are
 * not wrapped and `<pre>` content is left untouched. Like PHP, the result
 * ends with a newline; the rendering pipelines trim it.
 */
export function wpautop(input: string, br = true): string {
  if (phpTrim(input) === "") return "";

  const preTags = new Map<string, string>();
  let text = input + "\n";

  if (text.includes("<pre")) {
    const textParts = text.split("</pre>");
    const lastPart = textParts.pop() ?? "";
    text = "";
    let i = 0;
    for (const textPart of textParts) {
      const start = textPart.indexOf("<pre");
      if (start === -1) {
        text += textPart;
        continue;
      }
      const name = `<pre wp-pre-tag-${i}></pre>`;
      preTags.set(name, textPart.slice(start) + "</pre>");
      text += textPart.slice(0, start) + name;
      i++;
    }
    text += lastPart;
  }

  text = text.replace(new RegExp(`<br${WS}*\\/?>${WS}*<br${WS}*\\/?>`, "g"), "\n\n");
  text = text.replace(new RegExp(`(<${ALLBLOCKS}[\\t\\n\\v\\f\\r \\/>])`, "g"), "\n\n$1");
  text = text.replace(new RegExp(`(<\\/${ALLBLOCKS}>)`, "g"), "$1\n\n");
  text = text.replace(new RegExp(`(<hr${WS}*?\\/?>)`, "g"), "$1\n\n");
  text = strReplaceAll(text, ["\r\n", "\r"], "\n");
  text = replaceInHtmlTags(text, "\n", " <!-- wpnl --> ");

  if (text.includes("<option")) {
    text = text.replace(new RegExp(`${WS}*<option`, "g"), "<option");
    text = text.replace(new RegExp(`<\\/option>${WS}*`, "g"), "</option>");
  }
  if (text.includes("</object>")) {
    text = text.replace(new RegExp(`(<object[^>]*>)${WS}*`, "g"), "$1");
    text = text.replace(new RegExp(`${WS}*<\\/object>`, "g"), "</object>");
    text = text.replace(new RegExp(`${WS}*(<\\/?(?:param|embed)[^>]*>)${WS}*`, "g"), "$1");
  }
  if (text.includes("<source") || text.includes("<track")) {
    text = text.replace(new RegExp(`([<\\[](?:audio|video)[^>\\]]*[>\\]])${WS}*`, "g"), "$1");
    text = text.replace(new RegExp(`${WS}*([<\\[]\\/(?:audio|video)[>\\]])`, "g"), "$1");
    text = text.replace(new RegExp(`${WS}*(<(?:source|track)[^>]*>)${WS}*`, "g"), "$1");
  }
  if (text.includes("<figcaption")) {
    text = text.replace(new RegExp(`${WS}*(<figcaption[^>]*>)`, "g"), "$1");
    text = text.replace(new RegExp(`<\\/figcaption>${WS}*`, "g"), "</figcaption>");
  }

  text = text.replace(/\n\n+/g, "\n\n");
  const paragraphs = text.split(new RegExp(`\\n${WS}*\\n`)).filter((p) => p !== "");
  text = paragraphs.map((p) => `<p>${phpTrim(p, "\n")}</p>\n`).join("");

  text = text.replace(new RegExp(`<p>${WS}*<\\/p>`, "g"), "");
  text = text.replace(/<p>([^<]+)<\/(div|address|form)>/g, "<p>$1</p></$2>");
  text = text.replace(new RegExp(`<p>${WS}*(<\\/?${ALLBLOCKS}[^>]*>)${WS}*<\\/p>`, "g"), "$1");
  text = text.replace(/<p>(<li[^\n]+?)<\/p>/g, "$1");
  text = text.replace(/<p><blockquote([^>]*)>/gi, "<blockquote$1><p>");
  text = strReplace(text, "</blockquote></p>", "</p></blockquote>");
  text = text.replace(new RegExp(`<p>${WS}*(<\\/?${ALLBLOCKS}[^>]*>)`, "g"), "$1");
  text = text.replace(new RegExp(`(<\\/?${ALLBLOCKS}[^>]*>)${WS}*<\\/p>`, "g"), "$1");

  if (br) {
    text = text.replace(/<(script|style|svg)[\s\S]*?<\/\1>/g, (m) => strReplace(m, "\n", "<WPPreserveNewline />"));
    text = strReplaceAll(text, ["<br>", "<br/>"], "<br />");
    text = text.replace(new RegExp(`(?<!<br \\/>)${WS}*\\n`, "g"), "<br />\n");
    text = strReplace(text, "<WPPreserveNewline />", "\n");
  }

  text = text.replace(new RegExp(`(<\\/?${ALLBLOCKS}[^>]*>)${WS}*<br \\/>`, "g"), "$1");
  text = text.replace(new RegExp(`<br \\/>(${WS}*<\\/?(?:p|li|div|dl|dd|dt|th|pre|td|ul|ol)[^>]*>)`, "g"), "$1");
  text = text.replace(new RegExp(`\\n<\\/p>${END}`), "</p>");

  for (const [name, original] of preTags) text = strReplace(text, name, original);

  if (text.includes("<!-- wpnl -->")) text = strReplaceAll(text, [" <!-- wpnl --> ", "<!-- wpnl -->"], "\n");
  return text;
}

/* ------------------------------------------------------------------ */
/* Small filters and pipelines                                         */
/* ------------------------------------------------------------------ */

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

/* ------------------------------------------------------------------ */
/* Plain text                                                          */
/* ------------------------------------------------------------------ */

// HTML 4.01 entity names (what PHP's html_entity_decode() knows by default) plus &apos;.
const LATIN1_NAMES =
  "nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn sup2 sup3 acute micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest " +
  "Agrave Aacute Acirc Atilde Auml Aring AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN szlig " +
  "agrave aacute acirc atilde auml aring aelig ccedil egrave eacute ecirc euml igrave iacute icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide oslash ugrave uacute ucirc uuml yacute thorn yuml";
const GREEK_UPPER = "Alpha Beta Gamma Delta Epsilon Zeta Eta Theta Iota Kappa Lambda Mu Nu Xi Omicron Pi Rho _ Sigma Tau Upsilon Phi Chi Psi Omega";
const GREEK_LOWER =
  "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigmaf sigma tau upsilon phi chi psi omega";
const OTHER_ENTITIES: Readonly<Record<string, number>> = {
  quot: 34, amp: 38, apos: 39, lt: 60, gt: 62, OElig: 338, oelig: 339, Scaron: 352, scaron: 353, Yuml: 376,
  fnof: 402, circ: 710, tilde: 732, thetasym: 977, upsih: 978, piv: 982, ensp: 8194, emsp: 8195, thinsp: 8201,
  zwnj: 8204, zwj: 8205, lrm: 8206, rlm: 8207, ndash: 8211, mdash: 8212, lsquo: 8216, rsquo: 8217, sbquo: 8218,
  ldquo: 8220, rdquo: 8221, bdquo: 8222, dagger: 8224, Dagger: 8225, bull: 8226, hellip: 8230, permil: 8240,
  prime: 8242, Prime: 8243, lsaquo: 8249, rsaquo: 8250, oline: 8254, frasl: 8260, euro: 8364, image: 8465,
  weierp: 8472, real: 8476, trade: 8482, alefsym: 8501, larr: 8592, uarr: 8593, rarr: 8594, darr: 8595,
  harr: 8596, crarr: 8629, lArr: 8656, uArr: 8657, rArr: 8658, dArr: 8659, hArr: 8660, forall: 8704, part: 8706,
  exist: 8707, empty: 8709, nabla: 8711, isin: 8712, notin: 8713, ni: 8715, prod: 8719, sum: 8721, minus: 8722,
  lowast: 8727, radic: 8730, prop: 8733, infin: 8734, ang: 8736, and: 8743, or: 8744, cap: 8745, cup: 8746,
  int: 8747, there4: 8756, sim: 8764, cong: 8773, asymp: 8776, ne: 8800, equiv: 8801, le: 8804, ge: 8805,
  sub: 8834, sup: 8835, nsub: 8836, sube: 8838, supe: 8839, oplus: 8853, otimes: 8855, perp: 8869, sdot: 8901,
  lceil: 8968, rceil: 8969, lfloor: 8970, rfloor: 8971, lang: 9001, rang: 9002, loz: 9674, spades: 9824,
  clubs: 9827, hearts: 9829, diams: 9830,
};

const NAMED_ENTITIES: ReadonlyMap<string, number> = (() => {
  const map = new Map<string, number>(Object.entries(OTHER_ENTITIES));
  const addRun = (names: string, first: number): void => {
    names.split(" ").forEach((name, i) => {
      if (name !== "_") map.set(name, first + i);
    });
  };
  addRun(LATIN1_NAMES, 160);
  addRun(GREEK_UPPER, 913);
  addRun(GREEK_LOWER, 945);
  return map;
})();

function validCodePoint(cp: number): boolean {
  return cp > 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff);
}

/** Decodes named (HTML 4) and numeric character references; unknown ones stay as written. */
export function decodeEntities(text: string): string {
  return text.replace(/&(?:#(\d+)|#[xX]([0-9a-fA-F]+)|([A-Za-z][A-Za-z0-9]*));/g, (whole, dec?: string, hex?: string, name?: string) => {
    let cp: number | undefined;
    if (dec !== undefined) cp = parseInt(dec, 10);
    else if (hex !== undefined) cp = parseInt(hex, 16);
    else if (name !== undefined) cp = NAMED_ENTITIES.get(name);
    return cp !== undefined && validCodePoint(cp) ? String.fromCodePoint(cp) : whole;
  });
}

/**
 * Rendered HTML to plain text (JSON-LD names and descriptions): entities
 * decoded first, then script/style bodies and tags removed as
 * wp_strip_all_tags() does, runs of whitespace (including decoded no-break
 * spaces) collapsed to one space. Decoding comes first so that an escaped
 * tag (`&lt;/script&gt;`) cannot come out of it as a live one.
 */
export function plainText(html: string): string {
  const decoded = decodeEntities(html);
  const withoutCode = decoded.replace(/<(script|style)[^>]*?>[\s\S]*?<\/\1>/gi, "");
  return stripTags(withoutCode).replace(/\s+/g, " ").trim();
}
