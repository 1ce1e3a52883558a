/**
 * Input sanitising for users without the `unfiltered_html` capability
 * (WordPress runs titles, content and excerpts of such users through kses)
 * and a port of WordPress's sanitize_text_field().
 *
 * HTML is sanitised with sanitize-html, i.e. parsed rather than pattern
 * matched: regular expressions cannot safely decide what a browser will
 * treat as markup.
 */
import sanitizeHtml from "sanitize-html";
import { phpTrim, stripTags } from "./text";

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
  if (html === "") return "";
  return sanitizeHtml(html, SANITIZE_OPTIONS);
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

/**
 * WordPress sanitize_text_field(): tags stripped (a lone `<` kept as
 * `&lt;`), line breaks, tabs and runs of spaces collapsed to one space,
 * percent-encoded octets removed, trimmed.
 */
export function sanitizeTextField(s: string): string {
  let filtered = s;
  if (filtered.includes("<")) {
    filtered = stripAllTags(preKsesLessThan(filtered));
    // Keep a `<` that ends up before a newline from turning back into a tag later.
    filtered = filtered.split("<\n").join("&lt;\n");
  }
  filtered = phpTrim(filtered.replace(/[\r\n\t ]+/g, " "));

  let found = false;
  for (let m = /%[a-f0-9]{2}/i.exec(filtered); m !== null; m = /%[a-f0-9]{2}/i.exec(filtered)) {
    filtered = filtered.split(m[0]).join("");
    found = true;
  }
  if (found) filtered = phpTrim(filtered.replace(/ +/g, " "));
  return filtered;
}
