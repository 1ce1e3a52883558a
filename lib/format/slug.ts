/**
 * Post slugs as WordPress 6.1 makes them (calendar-api.md §4.7):
 * `sanitize_title($title, '', 'save')`, i.e. remove_accents() with en_US
 * rules followed by sanitize_title_with_dashes() in the 'save' context, and
 * the `-N` suffixing of wp_unique_post_slug(). Checked against
 * test/vectors/slugs.json (PHP ground truth).
 *
 * WordPress works on UTF-8 bytes; the byte-level steps (the 200-byte limit,
 * percent-encoding) are done on a UTF-8 encoding of the string here too.
 */
import { phpTrim } from "./php";
import { stripTags } from "./strip-tags";

const SLUG_MAX_BYTES = 200;

/* ------------------------------------------------------------------ */
/* remove_accents()                                                    */
/* ------------------------------------------------------------------ */

/** Pairs of (characters, replacement); every character in a group maps to the same replacement. */
const ACCENT_GROUPS: ReadonlyArray<readonly [string, string]> = [
  // Decompositions for Latin-1 Supplement.
  ["ª", "a"], ["º", "o"],
  ["ÀÁÂÃÄÅ", "A"], ["Æ", "AE"], ["Ç", "C"], ["ÈÉÊË", "E"], ["ÌÍÎÏ", "I"], ["Ð", "D"], ["Ñ", "N"],
  ["ÒÓÔÕÖØ", "O"], ["ÙÚÛÜ", "U"], ["Ý", "Y"], ["Þ", "TH"], ["ß", "s"],
  ["àáâãäå", "a"], ["æ", "ae"], ["ç", "c"], ["èéêë", "e"], ["ìíîï", "i"], ["ð", "d"], ["ñ", "n"],
  ["òóôõöø", "o"], ["ùúûü", "u"], ["ý", "y"], ["þ", "th"], ["ÿ", "y"],
  // Decompositions for Latin Extended-A.
  ["ĀĂĄ", "A"], ["āăą", "a"], ["ĆĈĊČ", "C"], ["ćĉċč", "c"], ["ĎĐ", "D"], ["ďđ", "d"],
  ["ĒĔĖĘĚ", "E"], ["ēĕėęě", "e"], ["ĜĞĠĢ", "G"], ["ĝğġģ", "g"], ["ĤĦ", "H"], ["ĥħ", "h"],
  ["ĨĪĬĮİ", "I"], ["ĩīĭįı", "i"], ["Ĳ", "IJ"], ["ĳ", "ij"], ["Ĵ", "J"], ["ĵ", "j"], ["Ķ", "K"], ["ķĸ", "k"],
  ["ĹĻĽĿŁ", "L"], ["ĺļľŀł", "l"], ["ŃŅŇŊ", "N"], ["ńņňŉŋ", "n"], ["ŌŎŐ", "O"], ["ōŏő", "o"],
  ["Œ", "OE"], ["œ", "oe"], ["ŔŖŘ", "R"], ["ŕŗř", "r"], ["ŚŜŞŠ", "S"], ["śŝşšſ", "s"],
  ["ŢŤŦ", "T"], ["ţťŧ", "t"], ["ŨŪŬŮŰŲ", "U"], ["ũūŭůűų", "u"], ["Ŵ", "W"], ["ŵ", "w"],
  ["ŶŸ", "Y"], ["ŷ", "y"], ["ŹŻŽ", "Z"], ["źżž", "z"],
  // Decompositions for Latin Extended-B (Ə/ə only arrived in WordPress 6.3).
  ["Ș", "S"], ["ș", "s"], ["Ț", "T"], ["ț", "t"],
  // Euro and pound signs.
  ["€", "E"], ["£", ""],
  // Vowels with diacritic (Vietnamese): unmarked, grave, hook, tilde, acute, dot below.
  ["Ơ", "O"], ["ơ", "o"], ["Ư", "U"], ["ư", "u"],
  ["ẦẰ", "A"], ["ầằ", "a"], ["Ề", "E"], ["ề", "e"], ["ỒỜ", "O"], ["ồờ", "o"], ["Ừ", "U"], ["ừ", "u"], ["Ỳ", "Y"], ["ỳ", "y"],
  ["ẢẨẲ", "A"], ["ảẩẳ", "a"], ["ẺỂ", "E"], ["ẻể", "e"], ["Ỉ", "I"], ["ỉ", "i"], ["ỎỔỞ", "O"], ["ỏổở", "o"],
  ["ỦỬ", "U"], ["ủử", "u"], ["Ỷ", "Y"], ["ỷ", "y"],
  ["ẪẴ", "A"], ["ẫẵ", "a"], ["ẼỄ", "E"], ["ẽễ", "e"], ["ỖỠ", "O"], ["ỗỡ", "o"], ["Ữ", "U"], ["ữ", "u"], ["Ỹ", "Y"], ["ỹ", "y"],
  ["ẤẮ", "A"], ["ấắ", "a"], ["Ế", "E"], ["ế", "e"], ["ỐỚ", "O"], ["ốớ", "o"], ["Ứ", "U"], ["ứ", "u"],
  ["ẠẬẶ", "A"], ["ạậặ", "a"], ["ẸỆ", "E"], ["ẹệ", "e"], ["Ị", "I"], ["ị", "i"], ["ỌỘỢ", "O"], ["ọộợ", "o"],
  ["ỤỰ", "U"], ["ụự", "u"], ["Ỵ", "Y"], ["ỵ", "y"],
  // Vowels with diacritic (Chinese, Hanyu Pinyin): alpha, macron, acute, caron, grave.
  ["ɑ", "a"], ["ǕǗǓǙǛ", "U"], ["ǖǘǔǚǜ", "u"], ["Ǎ", "A"], ["ǎ", "a"], ["Ǐ", "I"], ["ǐ", "i"], ["Ǒ", "O"], ["ǒ", "o"],
];

const ACCENTS: ReadonlyMap<string, string> = (() => {
  const map = new Map<string, string>();
  for (const [chars, replacement] of ACCENT_GROUPS) {
    for (const ch of chars) map.set(ch, replacement);
  }
  return map;
})();

/** Replaces unpaired UTF-16 surrogates, which have no UTF-8 form, by U+FFFD. */
function wellFormed(s: string): string {
  return s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd");
}

/**
 * remove_accents() for en_US: NFC-normalises (WordPress 6.1 does when the
 * intl extension is present) and folds the Latin letters of WordPress's
 * table, e.g. ß → s, æ → ae, Ø → O. Other characters are kept.
 */
export function removeAccents(text: string): string {
  if (!/[^\x00-\x7f]/.test(text)) return text;
  let out = "";
  for (const ch of wellFormed(text).normalize("NFC")) out += ACCENTS.get(ch) ?? ch;
  return out;
}

/* ------------------------------------------------------------------ */
/* Byte helpers                                                        */
/* ------------------------------------------------------------------ */

function utf8Bytes(s: string): Uint8Array {
  return Buffer.from(s, "utf8");
}

function hex2(byte: number): string {
  return byte.toString(16).padStart(2, "0");
}

/** rawurlencode() of one ASCII byte. */
function rawUrlEncodeByte(byte: number): string {
  const ch = String.fromCharCode(byte);
  return /[A-Za-z0-9_.~-]/.test(ch) ? ch : `%${hex2(byte).toUpperCase()}`;
}

/**
 * utf8_uri_encode(): non-ASCII bytes become lower-case `%xx` octets; with
 * `length`, stops before the encoded string would exceed that many bytes,
 * never splitting a character's octets.
 */
function utf8UriEncode(bytes: Uint8Array, length = 0, encodeAscii = false): string {
  let unicode = "";
  let values: number[] = [];
  let numOctets = 1;
  let unicodeLength = 0;

  for (const value of bytes) {
    if (value < 128) {
      const encoded = encodeAscii ? rawUrlEncodeByte(value) : String.fromCharCode(value);
      if (length && unicodeLength + encoded.length > length) break;
      unicode += encoded;
      unicodeLength += encoded.length;
    } else {
      if (values.length === 0) {
        if (value < 224) numOctets = 2;
        else if (value < 240) numOctets = 3;
        else numOctets = 4;
      }
      values.push(value);
      if (length && unicodeLength + numOctets * 3 > length) break;
      if (values.length === numOctets) {
        unicode += values.map((v) => `%${v.toString(16)}`).join("");
        unicodeLength += numOctets * 3;
        values = [];
        numOctets = 1;
      }
    }
  }
  return unicode;
}

/**
 * mb_strtolower() as PHP 8.2 does it: full case mapping, one code point at a
 * time, so (unlike String#toLowerCase) a final Σ becomes σ, not ς.
 */
function mbStrtolower(s: string): string {
  let out = "";
  for (const ch of s) out += ch.toLowerCase();
  return out;
}

/** PHP strtolower() (8.2 and later: ASCII only). */
function asciiLower(s: string): string {
  return s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

function replaceEach(s: string, needles: readonly string[], replacement: string): string {
  return needles.reduce((out, needle) => out.split(needle).join(replacement), s);
}

/* ------------------------------------------------------------------ */
/* sanitize_title_with_dashes()                                        */
/* ------------------------------------------------------------------ */

const SAVE_TO_HYPHEN_OCTETS = ["%c2%a0", "%e2%80%93", "%e2%80%94"];
const SAVE_TO_HYPHEN_ENTITIES = ["&nbsp;", "&#160;", "&ndash;", "&#8211;", "&mdash;", "&#8212;"];
const SAVE_STRIPPED = [
  // Soft hyphen; inverted ! and ?.
  "%c2%ad", "%c2%a1", "%c2%bf",
  // Angle quotes.
  "%c2%ab", "%c2%bb", "%e2%80%b9", "%e2%80%ba",
  // Curly quotes.
  "%e2%80%98", "%e2%80%99", "%e2%80%9c", "%e2%80%9d", "%e2%80%9a", "%e2%80%9b", "%e2%80%9e", "%e2%80%9f",
  // Bullet.
  "%e2%80%a2",
  // Copyright, registered, degree, ellipsis, trademark.
  "%c2%a9", "%c2%ae", "%c2%b0", "%e2%80%a6", "%e2%84%a2",
  // Acute accents.
  "%c2%b4", "%cb%8a", "%cc%81", "%cd%81",
  // Grave accent, macron, caron.
  "%cc%80", "%cc%84", "%cc%8c",
  // Zero-width characters, direction marks/embeddings/overrides, byte order mark, object replacement.
  "%e2%80%8b", "%e2%80%8c", "%e2%80%8d", "%e2%80%8e", "%e2%80%8f",
  "%e2%80%aa", "%e2%80%ab", "%e2%80%ac", "%e2%80%ad", "%e2%80%ae",
  "%ef%bb%bf", "%ef%bf%bc",
];
const SAVE_WIDE_SPACES_TO_HYPHEN = [
  "%e2%80%80", "%e2%80%81", "%e2%80%82", "%e2%80%83", "%e2%80%84", "%e2%80%85", "%e2%80%86",
  "%e2%80%87", "%e2%80%88", "%e2%80%89", "%e2%80%8a", "%e2%80%a8", "%e2%80%a9", "%e2%80%af",
];

/** sanitize_title_with_dashes($title, '', 'save'). */
function sanitizeTitleWithDashes(input: string): string {
  let title = stripTags(input);
  // Keep existing percent-encoded octets, drop every other `%`.
  title = title.replace(/%([a-fA-F0-9][a-fA-F0-9])/g, "---$1---");
  title = title.split("%").join("");
  title = title.replace(/---([a-fA-F0-9][a-fA-F0-9])---/g, "%$1");

  title = utf8UriEncode(utf8Bytes(mbStrtolower(wellFormed(title))), SLUG_MAX_BYTES);
  title = asciiLower(title);

  title = replaceEach(title, SAVE_TO_HYPHEN_OCTETS, "-");
  title = replaceEach(title, SAVE_TO_HYPHEN_ENTITIES, "-");
  title = title.split("/").join("-");
  title = replaceEach(title, SAVE_STRIPPED, "");
  title = replaceEach(title, SAVE_WIDE_SPACES_TO_HYPHEN, "-");
  title = title.split("%c3%97").join("x");

  // Entities (PCRE's `.` stops only at "\n").
  title = title.replace(/&[^\n]+?;/g, "");
  title = title.split(".").join("-");
  title = title.replace(/[^%a-z0-9 _-]/g, "");
  title = title.replace(/[\t\n\v\f\r ]+/g, "-");
  title = title.replace(/-+/g, "-");
  return phpTrim(title, "-");
}

/**
 * WordPress `sanitize_title($title, '', 'save')`: the slug WordPress derives
 * from a post title. Lower-case ASCII letters, digits, `_` and `-`, with
 * letters that have no Latin fold kept as lower-case percent-encoded UTF-8,
 * at most 200 bytes.
 */
export function sanitizeTitle(title: string): string {
  return sanitizeTitleWithDashes(removeAccents(title));
}

/* ------------------------------------------------------------------ */
/* Unique slugs                                                        */
/* ------------------------------------------------------------------ */

/** PHP urldecode(): `+` is a space and `%xx` any octet, on bytes. */
function urlDecodeBytes(s: string): Uint8Array {
  const src = utf8Bytes(s);
  const out: number[] = [];
  const isHex = (b: number | undefined): boolean =>
    b !== undefined && ((b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66));
  for (let i = 0; i < src.length; i++) {
    const b = src[i];
    if (b === 0x2b) {
      out.push(0x20);
    } else if (b === 0x25 && isHex(src[i + 1]) && isHex(src[i + 2])) {
      out.push(parseInt(String.fromCharCode(src[i + 1], src[i + 2]), 16));
      i += 2;
    } else {
      out.push(b);
    }
  }
  return Uint8Array.from(out);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/**
 * _truncate_post_slug(): shortens a slug to `length` bytes; a slug with
 * percent-encoded octets is decoded and re-encoded so that no octet is cut.
 * Trailing hyphens are always removed.
 */
function truncatePostSlug(slug: string, length: number): string {
  let out = slug;
  const bytes = utf8Bytes(slug);
  if (bytes.length > length) {
    const decoded = urlDecodeBytes(slug);
    out = sameBytes(decoded, bytes)
      ? Buffer.from(bytes.subarray(0, length)).toString("utf8")
      : utf8UriEncode(decoded, length, true);
  }
  return out.replace(/-+$/, "");
}

/**
 * The slug wp_unique_post_slug() tries for the n-th record sharing `base`:
 * `base` itself for n <= 1, otherwise `base-n`, with `base` truncated as
 * WordPress does so the whole candidate stays within 200 bytes.
 */
export function uniqueSlugCandidate(base: string, n: number): string {
  if (n <= 1) return base;
  const suffix = String(Math.trunc(n));
  return `${truncatePostSlug(base, SLUG_MAX_BYTES - (suffix.length + 1))}-${suffix}`;
}
