/**
 * The one HTML-to-text reading (actors/formatting/html_to_text.ts): our own
 * stored HTML as a source text, remote values that must be plain text
 * (display names, field names, alt text) and page descriptions on one line.
 */
import assert from "node:assert/strict";
import { htmlToText } from "../../actors/formatting/html_to_text.ts";

Deno.test("stored HTML: paragraphs, line breaks, entities", () => {
  assert.equal(htmlToText("<p>a &amp; b<br />c</p>\n<p>d&#39;e</p>"), "a & b\nc\n\nd'e");
  assert.equal(htmlToText("<p>one</p><p></p><p>two</p>"), "one\n\ntwo");
  assert.equal(htmlToText(""), "");
  assert.equal(htmlToText(null), "");
});

Deno.test("what no reader sees goes, a `<` that opens no tag stays", () => {
  assert.equal(htmlToText("x<script>alert(1)</script><style>p{}</style>y"), "xy");
  assert.equal(htmlToText("1 < 2 &eacute;"), "1 < 2 é");
  assert.equal(htmlToText("a\u0007b"), "a b");
});

Deno.test("one line: white space folded, bounded by code points", () => {
  const oneLine = (html: string, maxLength?: number) =>
    htmlToText(html, { oneLine: true, maxLength });
  assert.equal(oneLine("<p>Tom &amp; Jerry</p><p>and\n friends</p>"), "Tom & Jerry and friends");
  assert.equal(oneLine("a<br>b\u0000c"), "a b c");
  assert.equal(oneLine("😀".repeat(10), 3), "😀😀😀");
  assert.equal(oneLine(`  ${"x".repeat(50_000)}`, 5), "xxxxx");
});
