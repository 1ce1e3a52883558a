/** wpautop() of WordPress 6.1 (wp-includes/formatting.php). */
import { END, phpTrim, pregSplitDelim, strReplace, strReplaceAll, WS } from "./php";

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
