/**
 * Input sanitising as WordPress does it on save: kses for the HTML of users
 * without the `unfiltered_html` capability (post content and excerpts:
 * wp_filter_post_kses; titles and term descriptions: wp_filter_kses), and
 * ports of sanitize_text_field(), sanitize_textarea_field(), esc_url_raw()
 * and sanitize_email(), which WordPress applies whoever writes. `TextKind`
 * names them; the engine cleans every text a write stores by its declared
 * kind (lib/posts/clean.ts).
 *
 * HTML is sanitised with sanitize-html, i.e. parsed rather than pattern
 * matched: regular expressions cannot safely decide what a browser will
 * treat as markup.
 */
import sanitizeHtml from "sanitize-html";
import { phpTrim } from "./php";
import { sanitizeTitle } from "./slug";
import { stripTags } from "./strip-tags";

/** Attributes WordPress's _wp_add_global_attributes() allows on every post tag. */
const GLOBAL_ATTRIBUTES = [
  "aria-describedby",
  "aria-details",
  "aria-label",
  "aria-labelledby",
  "aria-hidden",
  "class",
  "data-*",
  "dir",
  "id",
  "lang",
  "style",
  "title",
  "role",
  "xml:lang",
];

const CELL_ATTRIBUTES = ["abbr", "align", "axis", "bgcolor", "char", "charoff", "colspan", "headers", "height", "nowrap", "rowspan", "scope", "valign", "width"];
const ALIGN = ["align"];

/**
 * Roughly WordPress 6.1's `$allowedposttags` (wp_kses_post). Form controls,
 * `<object>`, `<font>` and `<title>` are left out: nothing in a calendar
 * entry needs them and they widen the attack surface.
 */
const ALLOWED_ATTRIBUTES: Readonly<Record<string, readonly string[]>> = {
  address: [],
  a: ["href", "rel", "rev", "name", "target", "download", "hreflang"],
  abbr: [],
  acronym: [],
  area: ["alt", "coords", "href", "nohref", "shape", "target"],
  article: ALIGN,
  aside: ALIGN,
  audio: ["autoplay", "controls", "loop", "muted", "preload", "src"],
  b: [],
  bdo: [],
  big: [],
  blockquote: ["cite"],
  br: [],
  caption: ALIGN,
  cite: [],
  code: [],
  col: ["align", "char", "charoff", "span", "valign", "width"],
  colgroup: ["align", "char", "charoff", "span", "valign", "width"],
  del: ["datetime"],
  dd: [],
  dfn: [],
  details: ["align", "open"],
  div: ALIGN,
  dl: [],
  dt: [],
  em: [],
  fieldset: [],
  figure: ALIGN,
  figcaption: ALIGN,
  footer: ALIGN,
  h1: ALIGN,
  h2: ALIGN,
  h3: ALIGN,
  h4: ALIGN,
  h5: ALIGN,
  h6: ALIGN,
  header: ALIGN,
  hgroup: ALIGN,
  hr: ["align", "noshade", "size", "width"],
  i: [],
  img: ["alt", "align", "border", "height", "hspace", "loading", "longdesc", "vspace", "src", "srcset", "sizes", "usemap", "width"],
  ins: ["datetime", "cite"],
  kbd: [],
  label: ["for"],
  legend: ALIGN,
  li: ["align", "value"],
  main: ALIGN,
  map: ["name"],
  mark: [],
  menu: ["type"],
  nav: ALIGN,
  ol: ["start", "type", "reversed"],
  p: ALIGN,
  pre: ["width"],
  q: ["cite"],
  rb: [],
  rp: [],
  rt: [],
  rtc: [],
  ruby: [],
  s: [],
  samp: [],
  section: ALIGN,
  small: [],
  span: ALIGN,
  strike: [],
  strong: [],
  sub: [],
  summary: ALIGN,
  sup: [],
  table: ["align", "bgcolor", "border", "cellpadding", "cellspacing", "rules", "summary", "width"],
  tbody: ["align", "char", "charoff", "valign"],
  td: CELL_ATTRIBUTES,
  tfoot: ["align", "char", "charoff", "valign"],
  th: CELL_ATTRIBUTES,
  thead: ["align", "char", "charoff", "valign"],
  tr: ["align", "bgcolor", "char", "charoff", "valign"],
  track: ["default", "kind", "label", "src", "srclang"],
  tt: [],
  u: [],
  ul: ["type"],
  var: [],
  video: ["autoplay", "controls", "height", "loop", "muted", "playsinline", "poster", "preload", "src", "width"],
};

/**
 * CSS values may not load anything (`url()`, `image-set()`) or run anything
 * (`expression()`), and are limited to the characters plain values need.
 */
const SAFE_CSS_VALUE = /^(?![\s\S]*(?:url|expression|image-set|-moz-binding)\s*\()[-#%.,!()\w\s'"/+]*$/i;

/** A subset of safecss_filter_attr()'s list: presentation only, no positioning. */
const ALLOWED_CSS_PROPERTIES = [
  "background-color",
  "border",
  "border-bottom",
  "border-collapse",
  "border-color",
  "border-left",
  "border-radius",
  "border-right",
  "border-spacing",
  "border-style",
  "border-top",
  "border-width",
  "caption-side",
  "clear",
  "color",
  "direction",
  "float",
  "font",
  "font-family",
  "font-size",
  "font-style",
  "font-variant",
  "font-weight",
  "height",
  "letter-spacing",
  "line-height",
  "list-style-position",
  "list-style-type",
  "margin",
  "margin-bottom",
  "margin-left",
  "margin-right",
  "margin-top",
  "max-height",
  "max-width",
  "min-height",
  "min-width",
  "padding",
  "padding-bottom",
  "padding-left",
  "padding-right",
  "padding-top",
  "text-align",
  "text-decoration",
  "text-indent",
  "text-transform",
  "vertical-align",
  "white-space",
  "width",
  "word-spacing",
];

const SANITIZE_OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: Object.keys(ALLOWED_ATTRIBUTES),
  allowedAttributes: {
    ...Object.fromEntries(Object.entries(ALLOWED_ATTRIBUTES).map(([tag, attrs]) => [tag, [...attrs]])),
    "*": GLOBAL_ATTRIBUTES,
  },
  allowedStyles: {
    "*": Object.fromEntries(ALLOWED_CSS_PROPERTIES.map((property) => [property, [SAFE_CSS_VALUE]])),
  },
  // http(s), mail and phone links; relative URLs have no scheme and pass.
  allowedSchemes: ["http", "https", "mailto", "tel"],
  allowedSchemesByTag: {},
  allowedSchemesAppliedToAttributes: ["href", "src", "cite", "longdesc", "poster", "usemap"],
  allowProtocolRelative: true,
  // Text of removed tags is kept, except inside these, whose content is code or form state.
  nonTextTags: ["script", "style", "textarea", "option", "noscript", "template", "iframe", "object", "embed", "svg", "math"],
  disallowedTagsMode: "discard",
};

/**
 * HTML written by a user without `unfiltered_html`, reduced to an allow-list
 * close to WordPress's wp_kses_post(): formatting, links, images, lists,
 * tables, headings, blockquote, figure and the like stay; `<script>`,
 * `<style>`, event-handler attributes and `javascript:`/`data:` URLs go.
 */
export function sanitizePostHtml(html: string): string {
  return settledHtml(html, SANITIZE_OPTIONS);
}

/** Text only (every tag removed, `<` and `&` escaped): what a pass of sanitize-html leaves stable for sure. */
const TEXT_ONLY_OPTIONS: sanitizeHtml.IOptions = { ...SANITIZE_OPTIONS, allowedTags: [], allowedAttributes: {}, allowedStyles: {} };
/** Passes after which HTML that still changes is kept as its text (never seen: one extra pass settles everything tried). */
const MAX_HTML_PASSES = 4;

/**
 * sanitize-html until its output settles, so that cleaning stored HTML
 * again leaves it as it is (the engine cleans what the calendar has cleaned
 * already): a single pass can leave markup a second parse reads otherwise
 * (`<p><x:y><p>` gives `<p><p></p></p>`, which parses as two paragraphs).
 */
function settledHtml(html: string, options: sanitizeHtml.IOptions): string {
  if (html === "") return "";
  let current = sanitizeHtml(html, options);
  for (let pass = 1; pass < MAX_HTML_PASSES; pass++) {
    const next = sanitizeHtml(current, options);
    if (next === current) return current;
    current = next;
  }
  return sanitizeHtml(current, TEXT_ONLY_OPTIONS);
}

/**
 * WordPress's `$allowedtags`, what wp_filter_kses() keeps (post titles,
 * term descriptions, comments): inline emphasis, links, quotations and code,
 * with none of the global attributes `$allowedposttags` adds.
 */
const BASIC_ALLOWED_ATTRIBUTES: Readonly<Record<string, readonly string[]>> = {
  a: ["href", "title"],
  abbr: ["title"],
  acronym: ["title"],
  b: [],
  blockquote: ["cite"],
  cite: [],
  code: [],
  del: ["datetime"],
  em: [],
  i: [],
  q: ["cite"],
  s: [],
  strike: [],
  strong: [],
};

const BASIC_OPTIONS: sanitizeHtml.IOptions = {
  ...SANITIZE_OPTIONS,
  allowedTags: Object.keys(BASIC_ALLOWED_ATTRIBUTES),
  allowedAttributes: Object.fromEntries(Object.entries(BASIC_ALLOWED_ATTRIBUTES).map(([tag, attrs]) => [tag, [...attrs]])),
  allowedStyles: {},
};

/**
 * HTML reduced to WordPress's `$allowedtags` (wp_filter_kses(), which
 * WordPress runs on the titles of users without `unfiltered_html` and on
 * term descriptions): `<a href title>`, `<b>`, `<strong>`, `<em>`, `<i>`,
 * `<code>`, `<q>`, `<blockquote>`, `<abbr>`, `<del>`… stay; other tags go
 * with their attributes (their text stays, except that of script-like
 * elements), as do `javascript:`/`data:` URLs.
 */
export function sanitizeBasicHtml(html: string): string {
  return settledHtml(html, BASIC_OPTIONS);
}

/** esc_html() for the text wp_pre_kses_less_than() escapes. */
function escHtml(text: string): string {
  return text
    .replace(/&(?!(?:#\d+|#x[0-9a-f]+|[a-z][a-z0-9]*);)/gi, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#039;");
}

/**
 * wp_pre_kses_less_than(): a `<` that never reaches a `>` is text, so it is
 * escaped before tags are stripped instead of swallowing the rest.
 */
function preKsesLessThan(text: string): string {
  return text.replace(/<[^>]*?(?:(?=<)|>|(?=\n?$))/g, (m) => (m.includes(">") ? m : escHtml(m)));
}

/** wp_strip_all_tags(): tags removed, with the content of script and style elements. */
function stripAllTags(text: string): string {
  return phpTrim(stripTags(text.replace(/<(script|style)[^>]*?>[\s\S]*?<\/\1>/gi, "")));
}

/** WordPress _sanitize_text_fields(): sanitize_text_field() and, keeping line breaks, sanitize_textarea_field(). */
function sanitizeTextFields(s: string, keepNewlines: boolean): string {
  let filtered = s;
  if (filtered.includes("<")) {
    filtered = stripAllTags(preKsesLessThan(filtered));
    // Keep a `<` that ends up before a newline from turning back into a tag later.
    filtered = filtered.split("<\n").join("&lt;\n");
  }
  if (!keepNewlines) filtered = filtered.replace(/[\r\n\t ]+/g, " ");
  filtered = phpTrim(filtered);

  let found = false;
  for (let m = /%[a-f0-9]{2}/i.exec(filtered); m !== null; m = /%[a-f0-9]{2}/i.exec(filtered)) {
    filtered = filtered.split(m[0]).join("");
    found = true;
  }
  if (found) filtered = phpTrim(filtered.replace(/ +/g, " "));
  return filtered;
}

/**
 * WordPress sanitize_text_field(): tags stripped (a lone `<` kept as
 * `&lt;`), line breaks, tabs and runs of spaces collapsed to one space,
 * percent-encoded octets removed, trimmed.
 */
export function sanitizeTextField(s: string): string {
  return sanitizeTextFields(s, false);
}

/** WordPress sanitize_textarea_field(): sanitize_text_field() that keeps line breaks, tabs and runs of spaces. */
export function sanitizeTextareaField(s: string): string {
  return sanitizeTextFields(s, true);
}

/** WordPress's wp_allowed_protocols(): the schemes esc_url_raw() keeps. */
export const WP_ALLOWED_PROTOCOLS: readonly string[] = [
  "http", "https", "ftp", "ftps", "mailto", "news", "irc", "irc6", "ircs", "gopher", "nntp", "feed",
  "telnet", "mms", "rtsp", "sms", "svn", "tel", "fax", "xmpp", "webcal", "urn",
];

/** wp_kses_no_null(): control characters and backslash-zero runs removed. */
function ksesNoNull(s: string): string {
  return s.replace(/[\x00-\x08\x0B\x0C\x0E-\x1F]/g, "").replace(/\\+0+/g, "");
}

/** wp_kses_bad_protocol_once2(): the scheme (entities decoded, whitespace removed) with its colon if allowed, else "". */
function allowedScheme(scheme: string, protocols: readonly string[]): string {
  const decoded = ksesNoNull(
    scheme
      .replace(/&#(\d+);?/g, (_m, d: string) => String.fromCodePoint(Math.min(Number(d), 0x10ffff)))
      .replace(/&#x([0-9a-f]+);?/gi, (_m, h: string) => String.fromCodePoint(Math.min(parseInt(h, 16), 0x10ffff)))
      .replace(/\s/g, ""),
  ).toLowerCase();
  return protocols.some((p) => p.toLowerCase() === decoded) ? `${decoded}:` : "";
}

/** wp_kses_bad_protocol_once(): one layer of scheme checked (`feed:` may wrap one more). */
function badProtocolOnce(content: string, protocols: readonly string[], count = 1): string {
  const marked = content.replace(/(&#0*58(?![;0-9])|&#x0*3a(?![;a-f0-9]))/gi, "$1;");
  const m = /:|&#0*58;|&#x0*3a;|&colon;/i.exec(marked);
  if (m === null) return marked;
  const head = marked.slice(0, m.index);
  if (/\/\?/.test(head)) return marked;
  let rest = phpTrim(marked.slice(m.index + m[0].length));
  const protocol = allowedScheme(head, protocols);
  if (protocol === "feed:") {
    if (count > 2) return "";
    rest = badProtocolOnce(rest, protocols, count + 1);
    if (rest === "") return rest;
  }
  return protocol + rest;
}

/** wp_kses_bad_protocol(): disallowed schemes removed, layer by layer; "" when they do not settle. */
function ksesBadProtocol(content: string, protocols: readonly string[]): string {
  let current = ksesNoNull(content);
  if ((current.startsWith("https://") && !current.startsWith("https://https://")) || (current.startsWith("http://") && !current.startsWith("http://http://"))) {
    return current;
  }
  let previous: string;
  let iterations = 0;
  do {
    previous = current;
    current = badProtocolOnce(current, protocols);
  } while (previous !== current && ++iterations < 6);
  return previous !== current ? "" : current;
}

/**
 * WordPress esc_url_raw() (esc_url() in its `db` context): characters a URL
 * may not hold removed, CR/LF escapes stripped, `http://` added to a bare
 * host, and "" for a URL whose scheme is not one of `protocols`
 * (`javascript:`, `data:`, `vbscript:`, however they are spelled).
 */
export function escUrlRaw(url: string, protocols: readonly string[] = WP_ALLOWED_PROTOCOLS): string {
  if (url === "") return url;
  let out = url.replace(/^[ \t\n\r\0\x0B]+/, "").replace(/ /g, "%20");
  out = out.replace(/[^a-z0-9\-~+_.?#=!&;,/:%@$|*'()[\]\u0080-\u{10FFFF}]/giu, "");
  if (out === "") return out;
  if (!out.toLowerCase().startsWith("mailto:")) {
    // _deep_replace(): until none is left, so `%0%0ada` cannot reassemble one.
    let before: string;
    do {
      before = out;
      out = out.replace(/%0d|%0a/gi, "");
    } while (out !== before);
  }
  out = out.split(";//").join("://");
  if (!out.includes(":") && !["/", "#", "?"].includes(out[0]) && !/^[a-z0-9-]+?\.php/i.test(out)) out = `http://${out}`;
  if (out.includes("[") || out.includes("]")) {
    // Brackets are kept in an IPv6 host only; elsewhere they are percent-encoded.
    const front = /^(?:[a-z][a-z0-9+.-]*:)?\/\/(?:[^/?#@]*@)?(?:\[[^\]]*\]|[^/?#:]*)(?::\d+)?/i.exec(out)?.[0] ?? "";
    out = front + out.slice(front.length).replace(/\[/g, "%5B").replace(/\]/g, "%5D");
  }
  if (out[0] === "/") return out;
  const good = ksesBadProtocol(out, protocols);
  return good.toLowerCase() !== out.toLowerCase() ? "" : good;
}

/** PHP trim()'s default characters, and `extra`. */
function trimWith(s: string, extra: string): string {
  return phpTrim(s, ` \t\n\r\0\x0B${extra}`);
}

/**
 * WordPress sanitize_email(): an address with the characters an address
 * may not hold removed (local part: letters, digits and
 * ``!#$%&'*+/=?^_`{|}~.-``; each domain label: letters, digits and `-`),
 * or "" when what is left is no address (under 6 bytes, no `@` after the
 * first character, fewer than two domain labels).
 */
export function sanitizeEmail(email: string): string {
  if (Buffer.byteLength(email) < 6) return "";
  const at = email.indexOf("@", 1);
  if (at < 0) return "";
  const local = email.slice(0, at).replace(/[^a-zA-Z0-9!#$%&'*+/=?^_`{|}~.-]/g, "");
  if (local === "") return "";
  let domain = email.slice(at + 1).replace(/\.{2,}/g, "");
  if (domain === "") return "";
  domain = trimWith(domain, ".");
  if (domain === "") return "";
  const subs = domain.split(".");
  if (subs.length < 2) return "";
  const labels = subs.map((sub) => trimWith(sub, "-").replace(/[^a-z0-9-]+/gi, "")).filter((sub) => sub !== "");
  if (labels.length < 2) return "";
  return `${local}@${labels.join(".")}`;
}

/**
 * sanitize_email() until the address settles: one pass can leave what a
 * second pass changes (`.@<x.y` gives `.@x.y`, which is under 6 bytes), and
 * a stored value must be one that cleaning leaves as it is. Each pass that
 * changes the address shortens it, so the loop ends.
 */
function settledEmail(email: string): string {
  let current = email;
  for (let next = sanitizeEmail(current); next !== current; next = sanitizeEmail(current)) current = next;
  return current;
}

/**
 * How a stored text is cleaned on save (the engine applies the kind each
 * post type and taxonomy declares for each text: lib/posts/clean.ts):
 * - `text`: sanitize_text_field(), for everyone (names, address parts,
 *   phone numbers: plain text, never markup);
 * - `textarea`: sanitize_textarea_field() (plain text keeping its line
 *   breaks), for everyone;
 * - `url`: esc_url_raw() with WordPress's allowed protocols, for everyone;
 * - `email`: sanitize_email(), for everyone;
 * - `slug`: sanitize_title(), for everyone;
 * - `html`: post HTML (wp_filter_post_kses: content, excerpts), kept as
 *   written for users with `unfiltered_html`;
 * - `basic-html`: WordPress's `$allowedtags` (wp_filter_kses: titles, term
 *   descriptions), kept as written for users with `unfiltered_html`;
 * - `raw`: stored as given — an explicit opt-out, for values that are not
 *   text a person wrote (identifiers, a JSON list the plugin built from
 *   values it cleaned itself).
 */
export type TextKind = "text" | "textarea" | "url" | "email" | "slug" | "html" | "basic-html" | "raw";
export const TEXT_KINDS: readonly TextKind[] = ["text", "textarea", "url", "email", "slug", "html", "basic-html", "raw"];

export function isTextKind(value: unknown): value is TextKind {
  return typeof value === "string" && (TEXT_KINDS as readonly string[]).includes(value);
}

/** `value` cleaned as its kind says, for a writer who has (`unfilteredHtml`) or lacks `unfiltered_html`. */
export function sanitizeField(kind: TextKind, value: string, unfilteredHtml: boolean): string {
  switch (kind) {
    case "text":
      return sanitizeTextField(value);
    case "textarea":
      return sanitizeTextareaField(value);
    case "url":
      return escUrlRaw(phpTrim(value));
    case "email":
      return settledEmail(phpTrim(value));
    case "slug":
      return sanitizeTitle(value);
    case "html":
      return unfilteredHtml ? value : sanitizePostHtml(value);
    case "basic-html":
      return unfilteredHtml ? value : sanitizeBasicHtml(value);
    case "raw":
      return value;
  }
}
