/**
 * WordPress's own output for the hostile inputs of test/vectors/sanitize
 * (generate.php), and the checks the tests share: which text kinds calpress
 * must match byte for byte, and what "no more than WordPress keeps" means
 * for HTML.
 */
import { expect } from "chai";
import fs from "node:fs";
import path from "node:path";
import sanitizeHtml from "sanitize-html";
import type { TextKind } from "../../lib/format/sanitize";

export interface SanitizeCase {
  input: string;
  text: string;
  textarea: string;
  url: string;
  email: string;
  slug: string;
  html: string;
  "basic-html": string;
  term_name: string;
  term_description: string;
}

export const WORDPRESS_SANITIZE: { source: Record<string, string>; cases: SanitizeCase[] } = JSON.parse(
  fs.readFileSync(path.join(__dirname, "../vectors/sanitize/wordpress.json"), "utf8"),
);

/** Kinds whose sanitiser is a port of WordPress's: their output is WordPress's, exactly. */
export const EXACT_KINDS = ["text", "textarea", "url", "email", "slug"] as const;

export function isExactKind(kind: TextKind): kind is (typeof EXACT_KINDS)[number] {
  return (EXACT_KINDS as readonly string[]).includes(kind);
}

/** Schemes a kept URL attribute may have (a relative URL has none). */
const SAFE_SCHEMES = /^(?:https?|mailto|tel):/i;
const URL_ATTRIBUTES = new Set(["href", "src", "cite", "longdesc", "poster", "usemap", "action", "formaction", "xlink:href"]);

/** The elements (`b`) and attributes (`a@href`) of an HTML text, and each URL attribute's value, as a parser reads them. */
export function markupOf(html: string): { names: Set<string>; urls: string[] } {
  const names = new Set<string>();
  const urls: string[] = [];
  sanitizeHtml(html, {
    allowedTags: false,
    allowedAttributes: false,
    allowVulnerableTags: true,
    nonTextTags: [],
    transformTags: {
      "*": (tagName, attribs) => {
        names.add(tagName);
        for (const [name, value] of Object.entries(attribs)) {
          names.add(`${tagName}@${name}`);
          if (URL_ATTRIBUTES.has(name)) urls.push(value);
        }
        return { tagName, attribs };
      },
    },
  });
  return { names, urls };
}

/**
 * HTML calpress stored for a user without `unfiltered_html`, against what
 * WordPress stores for the same input: calpress parses where kses matches
 * patterns, so the bytes differ (it drops a `javascript:` attribute where
 * kses strips the scheme and keeps `href="alert(1)"`, drops the body of a
 * `<script>` where kses keeps its text, writes `<img />`), but it never
 * keeps an element or attribute WordPress does not keep, never an event
 * handler, and no URL attribute with a scheme other than http(s), mailto
 * and tel.
 */
export function expectNoMoreThanWordPress(stored: string, wordpress: string, what: string): void {
  const ours = markupOf(stored);
  const theirs = markupOf(wordpress);
  for (const name of ours.names) expect(theirs.names.has(name), `${what}: ${name} kept, which WordPress drops (${JSON.stringify(wordpress)})`).to.equal(true);
  for (const name of ours.names) expect(name, what).to.not.match(/@on/i);
  for (const url of ours.urls) expect(!/^[^/?#]*:/.test(url) || SAFE_SCHEMES.test(url), `${what}: URL ${url}`).to.equal(true);
  expect(stored, what).to.not.match(/<script|<iframe|<svg|<style|javascript:[^\s]*"|\son\w+\s*=/i);
}
