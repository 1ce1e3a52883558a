/** wptexturize() of WordPress 6.1 for the en_US locale (wp-includes/formatting.php). */
import { DEFAULT_SHORTCODE_TAGS } from "./shortcodes";
import { END, escapeRegExp, phpSubstr, phpTrim, pregSplitDelim, SPACES, strReplace, strReplaceAll } from "./php";

/** _get_wptexturize_shortcode_regex(), without the possessive quantifiers. */
function wptexturizeShortcodeRegex(tagnames: readonly string[]): string {
  const tagregexp = `(?:${tagnames.map(escapeRegExp).join("|")})(?=[\\t\\n\\v\\f\\r \\]\\/])`;
  return `\\[[\\/\\[]?${tagregexp}(?:[^\\[\\]<>]|<[^\\[\\]>]*>)*\\]\\]?`;
}

/** The element part of _get_wptexturize_split_regex(): comments or tags. */
const TEXTURIZE_HTML_REGEX = "<(?:(?=!--)!(?:-(?!->)[^\\-]*)*(?:-->)?|(?!!--)[^>]*>?)";

const OPEN_Q_FLAG = "<!--oq-->";
const OPEN_SQ_FLAG = "<!--osq-->";
const APOS_FLAG = "<!--apos-->";

// en_US translations of the _x() strings wptexturize() looks up.
export const OPENING_QUOTE = "&#8220;";
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
