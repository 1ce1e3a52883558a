/**
 * The PHP string functions and PCRE behaviours that the WordPress text ports
 * (autop.ts, texturize.ts, shortcodes.ts, strip-tags.ts, text.ts) rely on.
 *
 * Porting notes that apply to every regular expression of those ports:
 * - PHP matches bytes without the `u` modifier, so `\s` is only ASCII
 *   whitespace. JavaScript's `\s` also matches U+00A0 and other Unicode
 *   spaces, which would change results, hence the explicit `WS` class.
 * - PCRE's `.` excludes only "\n"; JavaScript's also excludes "\r" and
 *   U+2028/9, hence `[^\n]` where PHP has `.`.
 * - PCRE's `$` (without the D modifier) and `\Z` also match before a final
 *   "\n"; `END` reproduces that.
 * - Possessive quantifiers and conditional groups do not exist in
 *   JavaScript; each rewrite is equivalent for the strings involved.
 */

/** PCRE `\s` without the `u` modifier. */
export const WS = "[\\t\\n\\v\\f\\r ]";
/** PCRE `$` / `\Z` without the D modifier, as a lookahead. */
export const END = "(?=\\n?$)";
/** `wp_spaces_regexp()`: ASCII blanks, a UTF-8 no-break space or `&nbsp;`. */
export const SPACES = "[\\r\\n\\t ]|\\u00a0|&nbsp;";

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
export function strReplace(s: string, search: string, replace: string): string {
  return search === "" ? s : s.split(search).join(replace);
}

/** PHP str_replace() with parallel arrays, applied in order like PHP does. */
export function strReplaceAll(s: string, search: readonly string[], replace: string | readonly string[]): string {
  let out = s;
  search.forEach((needle, i) => {
    out = strReplace(out, needle, typeof replace === "string" ? replace : replace[i]);
  });
  return out;
}

/** PHP substr() including its negative-length behaviour. */
export function phpSubstr(s: string, start: number, length?: number): string {
  const from = start < 0 ? Math.max(0, s.length + start) : Math.min(start, s.length);
  if (length === undefined) return s.slice(from);
  const to = length < 0 ? s.length + length : from + length;
  return to <= from ? "" : s.slice(from, to);
}

/**
 * preg_split() with PREG_SPLIT_DELIM_CAPTURE for a pattern whose group 1 is
 * the whole delimiter; `noEmpty` adds PREG_SPLIT_NO_EMPTY.
 */
export function pregSplitDelim(pattern: RegExp, text: string, noEmpty: boolean): string[] {
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

export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\\/-]/g, "\\$&");
}
