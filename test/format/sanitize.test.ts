import { expect } from "chai";
import { sanitizePostHtml, sanitizeTextField } from "../../lib/format/sanitize";

describe("format/sanitize", () => {
  describe("sanitizePostHtml", () => {
    it("removes <script> elements with their content", () => {
      expect(sanitizePostHtml("<p>hi</p><script>alert(1)</script>")).to.equal("<p>hi</p>");
    });
    it("removes <style> elements with their content", () => {
      expect(sanitizePostHtml("<style>body{display:none}</style><p>hi</p>")).to.equal("<p>hi</p>");
    });
    it("removes event-handler attributes", () => {
      expect(sanitizePostHtml('<a href="https://example.com/" onclick="alert(1)">x</a>')).to.equal('<a href="https://example.com/">x</a>');
      expect(sanitizePostHtml('<img src="/a.png" onerror="alert(1)" alt="a" />')).to.equal('<img src="/a.png" alt="a" />');
    });
    it("removes javascript: URLs, also when obfuscated", () => {
      expect(sanitizePostHtml('<a href="javascript:alert(1)">x</a>')).to.equal("<a>x</a>");
      expect(sanitizePostHtml('<a href=" JaVaScRiPt&#58;alert(1)">x</a>')).to.equal("<a>x</a>");
      expect(sanitizePostHtml('<a href="java\tscript:alert(1)">x</a>')).to.equal("<a>x</a>");
    });
    it("removes data: URLs", () => {
      expect(sanitizePostHtml('<img src="data:image/svg+xml;base64,PHN2Zz4=" alt="x" />')).to.equal('<img alt="x" />');
    });
    it("keeps http, https, mailto, tel and relative URLs", () => {
      const html =
        '<a href="http://a.test/">1</a><a href="https://a.test/">2</a><a href="mailto:x@a.test">3</a>' +
        '<a href="tel:+123">4</a><a href="/events/">5</a><a href="#top">6</a><a href="../x">7</a>';
      expect(sanitizePostHtml(html)).to.equal(html);
    });
    it("removes unsafe elements but keeps their text", () => {
      expect(sanitizePostHtml("<form><p>a</p></form><marquee>b</marquee>")).to.equal("<p>a</p>b");
      expect(sanitizePostHtml('<iframe src="https://evil.test/"></iframe>c')).to.equal("c");
    });
    it("keeps allowed markup", () => {
      const html =
        '<h2 id="top">Title</h2><p class="lead" style="text-align:center">Some <strong>bold</strong>, <em>em</em>, ' +
        '<a href="https://example.com/" target="_blank" rel="noopener">link</a><br />line</p>' +
        "<ul><li>one</li></ul><ol start=\"3\"><li>three</li></ol><blockquote cite=\"https://q.test/\"><p>q</p></blockquote>" +
        '<figure><img src="https://example.com/a.jpg" alt="A" width="10" height="20" /><figcaption>cap</figcaption></figure>' +
        '<table><thead><tr><th scope="col">h</th></tr></thead><tbody><tr><td colspan="2">d</td></tr></tbody></table>' +
        "<pre><code>x = 1;</code></pre><hr />";
      expect(sanitizePostHtml(html)).to.equal(html);
    });
    it("filters style declarations", () => {
      expect(sanitizePostHtml('<p style="color:red;background-image:url(javascript:alert(1));position:fixed">x</p>')).to.equal(
        '<p style="color:red">x</p>',
      );
    });
    it("escapes bare ampersands and keeps entities", () => {
      expect(sanitizePostHtml("Tom & Jerry &amp; friends")).to.equal("Tom &amp; Jerry &amp; friends");
    });
    it("leaves an empty string empty", () => {
      expect(sanitizePostHtml("")).to.equal("");
    });
  });

  describe("sanitizeTextField", () => {
    it("strips tags and trims", () => {
      expect(sanitizeTextField("  <b>Hello</b> <script>x()</script>world  ")).to.equal("Hello world");
    });
    it("collapses line breaks, tabs and runs of spaces", () => {
      expect(sanitizeTextField("a\n\nb\t\tc    d\r\ne")).to.equal("a b c d e");
    });
    it("removes percent-encoded octets", () => {
      expect(sanitizeTextField("100%20off %3Cb%3E now")).to.equal("100off b now");
    });
    it("keeps a lone < as an entity instead of eating the rest", () => {
      expect(sanitizeTextField("x <y")).to.equal("x &lt;y");
      expect(sanitizeTextField("1 < 2")).to.equal("1 &lt; 2");
    });
    it("strips a < ... > span as a tag, like WordPress", () => {
      expect(sanitizeTextField("1 <2 and 3 > 2")).to.equal("1 2");
    });
  });
});
