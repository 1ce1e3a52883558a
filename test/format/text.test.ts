import { expect } from "chai";
import * as fs from "fs";
import * as path from "path";
import { wpautop } from "../../lib/format/autop";
import { plainText } from "../../lib/format/plain-text";
import { shortcodeUnautop } from "../../lib/format/shortcodes";
import { stripTags } from "../../lib/format/strip-tags";
import { capitalPDangit, convertChars, renderContent, renderExcerpt, renderTitle } from "../../lib/format/text";
import { wptexturize } from "../../lib/format/texturize";

interface TextCase {
  input: string;
  wpautop: string;
  content: string;
  excerpt: string;
  title: string;
}

// A copy of the shared vectors kept in the repository (test/vectors/README.md), so a bare clone runs them.
const VECTORS = path.resolve(__dirname, "../vectors/text.json");
const FIELDS = ["input", "wpautop", "content", "excerpt", "title"] as const;

function isTextCase(value: unknown): value is TextCase {
  if (typeof value !== "object" || value === null) return false;
  const record = value as Record<string, unknown>;
  return FIELDS.every((field) => typeof record[field] === "string");
}

function loadCases(): TextCase[] {
  const parsed: unknown = JSON.parse(fs.readFileSync(VECTORS, "utf8"));
  const cases = typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>).cases : undefined;
  if (!Array.isArray(cases) || !cases.every(isTextCase)) throw new Error(`unexpected vector file shape: ${VECTORS}`);
  return cases;
}

describe("format/text", () => {
  describe("rendering matches WordPress (text.json)", () => {
    const cases = loadCases();
    it("has vector cases", () => {
      expect(cases.length).to.be.greaterThan(0);
    });
    cases.forEach((c, i) => {
      describe(`#${i} ${JSON.stringify(c.input)}`, () => {
        // PHP's wpautop() ends its output with "\n"; the vector holds it trimmed.
        it("wpautop", () => expect(wpautop(c.input).trim()).to.equal(c.wpautop));
        it("content", () => expect(renderContent(c.input)).to.equal(c.content));
        it("excerpt", () => expect(renderExcerpt(c.input)).to.equal(c.excerpt));
        it("title", () => expect(renderTitle(c.input)).to.equal(c.title));
      });
    });
  });

  describe("wpautop", () => {
    it("ends with a newline, as PHP's does", () => {
      expect(wpautop("foo")).to.equal("<p>foo</p>\n");
    });
    it("returns an empty string for blank input", () => {
      expect(wpautop(" \n\t ")).to.equal("");
    });
    it("leaves <pre> content alone", () => {
      const input = "before\n\n<pre>line 1\n\nline 2</pre>\n\nafter";
      expect(wpautop(input)).to.equal("<p>before</p>\n<pre>line 1\n\nline 2</pre>\n<p>after</p>\n");
    });
    it("does not insert <br /> for newlines inside tags", () => {
      expect(wpautop('<a\nhref="x">link</a>')).to.equal('<p><a\nhref="x">link</a></p>\n');
    });
    it("puts a paragraph inside a blockquote", () => {
      expect(wpautop("<blockquote>quoted</blockquote>")).to.equal("<blockquote><p>quoted</p></blockquote>\n");
    });
    it("can skip the <br /> conversion", () => {
      expect(wpautop("a\nb", false)).to.equal("<p>a\nb</p>\n");
    });
  });

  describe("wptexturize", () => {
    it("emits numeric entities for quotes, dashes and ellipsis", () => {
      expect(wptexturize(`"Hello" -- it's 'quoted' ... a - b --- c`)).to.equal(
        "&#8220;Hello&#8221; &#8212; it&#8217;s &#8216;quoted&#8217; &#8230; a &#8211; b &#8212; c",
      );
    });
    it("uses primes after digits", () => {
      expect(wptexturize(`a 9' pole and a 12" ruler`)).to.equal("a 9&#8242; pole and a 12&#8243; ruler");
    });
    it("treats a quote between digits as an apostrophe, as WordPress does", () => {
      expect(wptexturize(`He is 6'2" tall`)).to.equal("He is 6&#8217;2&#8243; tall");
    });
    it("handles abbreviated years and cockney words", () => {
      expect(wptexturize("back in '99 'til 'twas over")).to.equal("back in &#8217;99 &#8217;til &#8217;twas over");
    });
    it("converts (tm), 1x2 and lone ampersands", () => {
      expect(wptexturize("Brand (tm) 1x2 & 0x1F &amp;")).to.equal("Brand &#8482; 1&#215;2 &#038; 0x1F &amp;");
    });
    it("leaves code, pre, kbd, style, script and tt content alone", () => {
      const input = `<code>"a" -- b</code> <pre>'x'</pre> <kbd>...</kbd> <tt>--</tt> "done"`;
      expect(wptexturize(input)).to.equal(`<code>"a" -- b</code> <pre>'x'</pre> <kbd>...</kbd> <tt>--</tt> &#8220;done&#8221;`);
    });
    it("does not touch attributes but escapes bare ampersands in them", () => {
      expect(wptexturize(`<a href="/x?a=1&b='2'" title="it's">it's</a>`)).to.equal(
        `<a href="/x?a=1&#038;b='2'" title="it's">it&#8217;s</a>`,
      );
    });
    it("skips HTML comments", () => {
      expect(wptexturize(`<!-- "x" -- y --> "z"`)).to.equal(`<!-- "x" -- y --> &#8220;z&#8221;`);
    });
    it("skips registered shortcodes", () => {
      expect(wptexturize(`[gallery ids="1,2"] "x"`)).to.equal(`[gallery ids="1,2"] &#8220;x&#8221;`);
    });
  });

  describe("small filters", () => {
    it("convertChars encodes only lone ampersands", () => {
      expect(convertChars("a & b &amp; c &#038; d &é")).to.equal("a &#038; b &amp; c &#038; d &#038;é");
    });
    it("capitalPDangit corrects Wordpress only in the contexts WordPress does", () => {
      expect(capitalPDangit("Wordpress, the Wordpress way (Wordpress) <b>Wordpress</b>")).to.equal(
        "Wordpress, the WordPress way (WordPress) <b>WordPress</b>",
      );
    });
    it("shortcodeUnautop unwraps a paragraph holding only a registered shortcode", () => {
      expect(shortcodeUnautop('<p>[gallery ids="1"]</p>\n<p>[unknown]</p>')).to.equal('[gallery ids="1"]\n<p>[unknown]</p>');
    });
    it("render functions keep empty input empty", () => {
      expect(renderContent("")).to.equal("");
      expect(renderExcerpt("")).to.equal("");
      expect(renderTitle("")).to.equal("");
    });
  });

  describe("stripTags (PHP strip_tags)", () => {
    it("removes tags and comments but keeps a < followed by whitespace", () => {
      expect(stripTags("<b>bold</b> <!-- c --> 1 < 2")).to.equal("bold  1 < 2");
    });
    it("does not end a tag at a > inside quotes", () => {
      expect(stripTags(`<a title="x>y">z</a>`)).to.equal("z");
    });
  });

  describe("plainText", () => {
    it("strips tags, decodes entities and collapses whitespace", () => {
      expect(plainText("<p>Tom &#038; Jerry&#8217;s\n<br />  show&nbsp;&amp; more</p>\n<p>&eacute;t&eacute;</p>")).to.equal(
        "Tom & Jerry’s show & more été",
      );
    });
    it("drops script and style bodies", () => {
      expect(plainText("<style>p{}</style>a<script>alert(1)</script> b")).to.equal("a b");
    });
    it("leaves unknown entities as written", () => {
      expect(plainText("&bogus; &#0;")).to.equal("&bogus; &#0;");
    });
    it("decodes before it strips: an escaped tag never comes out live (issue 19 item 4)", () => {
      expect(plainText("Gig &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt; night")).to.equal("Gig night");
      expect(plainText("a &lt;!-- b")).to.equal("a");
      expect(plainText("&#60;img src=x onerror=alert(1)&#62;ok")).to.equal("ok");
      // A `<` that starts no tag stays text.
      expect(plainText("5 &lt; 6")).to.equal("5 < 6");
    });
  });
});
