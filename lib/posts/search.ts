/**
 * WordPress's search-string parsing (WP_Query::parse_search and
 * parse_search_terms): words split on spaces, tabs, commas, `+` and quotes;
 * a double-quoted phrase stays one word; single letters and dashes and the
 * en_US stop words are dropped; a search made only of those, or of more than
 * nine words, is matched as one sentence; a word starting with `-` excludes.
 */

/** en_US `wp_search_stopwords`. */
const STOPWORDS: ReadonlySet<string> = new Set(
  "about,an,are,as,at,be,by,com,for,from,how,in,is,it,of,on,or,that,the,this,to,was,what,when,where,who,will,with,www".split(","),
);

export interface SearchTerm {
  text: string;
  /** `-word`: posts containing it are excluded. */
  exclude: boolean;
}

const TERM_RE = /".*?("|$)|((?<=[\t ",+])|^)[^\t ",+]+/g;

function phpTrim(s: string, chars: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && chars.includes(s[start])) start++;
  while (end > start && chars.includes(s[end - 1])) end--;
  return s.slice(start, end);
}

export function parseSearch(search: string): SearchTerm[] {
  const s = search.replace(/[\r\n]/g, "");
  const matches = s.match(TERM_RE) ?? [];
  const checked: string[] = [];
  for (const raw of matches) {
    // An exact phrase keeps its inner spaces.
    const term = /^".+"$/.test(raw) ? phpTrim(raw, "\"'") : phpTrim(raw, "\"' ");
    if (term === "" || (term.length === 1 && /^[a-z-]$/i.test(term))) continue;
    if (STOPWORDS.has(term.toLowerCase())) continue;
    checked.push(term);
  }
  const words = checked.length === 0 || checked.length > 9 ? [s] : checked;
  const out: SearchTerm[] = [];
  for (const w of words) {
    if (w.startsWith("-") && w.length > 1) out.push({ text: w.slice(1), exclude: true });
    else if (w !== "") out.push({ text: w, exclude: false });
  }
  return out;
}
