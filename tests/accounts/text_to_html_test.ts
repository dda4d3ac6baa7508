/** The text-to-HTML formatter: links, mentions, hashtags, escaping, paragraphs. */
import assert from "node:assert/strict";
import {
  countableLength,
  extractHashtags,
  extractMentions,
  type MentionTarget,
  parseText,
  textToHtml,
} from "../../actors/formatting/text_to_html.ts";
import { htmlToText } from "../../actors/formatting/html_to_text.ts";

const origin = "https://example.social";

Deno.test("escapes markup and keeps paragraphs and line breaks", () => {
  assert.equal(
    textToHtml("<b>hi</b> & \"you\"\nline two\n\npara 'two'", { origin, multiline: true }),
    "<p>&lt;b&gt;hi&lt;/b&gt; &amp; &quot;you&quot;<br />line two</p><p>para &#39;two&#39;</p>",
  );
  assert.equal(textToHtml("a\r\nb", { origin, multiline: true }), "<p>a<br />b</p>");
  assert.equal(textToHtml("   \n ", { origin, multiline: true }), "");
  assert.equal(textToHtml("one line", { origin }), "one line");
});

Deno.test("links http(s) URLs the way Mastodon shortens them", () => {
  assert.equal(
    textToHtml("see https://www.example.com/about.", { origin }),
    'see <a href="https://www.example.com/about" target="_blank" rel="nofollow noopener" ' +
      'translate="no"><span class="invisible">https://www.</span><span class="">example.com/about' +
      '</span><span class="invisible"></span></a>.',
  );
  const long = "https://example.com/" + "a".repeat(40);
  const html = textToHtml(long, { origin, relMe: true });
  assert.match(html, /rel="nofollow noopener me"/);
  assert.match(html, /<span class="ellipsis">example\.com\/a{18}<\/span>/);
  assert.match(html, /<span class="invisible">a{22}<\/span>/);
  // Bare domains and other schemes stay text.
  assert.equal(textToHtml("example.com", { origin }), "example.com");
  assert.equal(
    textToHtml("javascript:alert(1)", { origin }),
    "javascript:alert(1)",
  );
  // A quote in a URL cannot break out of the attribute.
  assert.match(
    textToHtml('https://x.example/"onmouseover=1', { origin }),
    /^<a href="https:\/\/x\.example\/&quot;/,
  );
});

Deno.test("links hashtags to the tag page and known mentions to profiles", () => {
  const mentions = new Map<string, MentionTarget>([
    ["alice", { url: `${origin}/@alice`, display: "alice" }],
    ["bob@remote.example", { url: "https://remote.example/@bob", display: "bob" }],
  ]);
  const html = textToHtml("hi @alice and @bob@remote.example and @ghost@nowhere.example #Fedi", {
    origin,
    mentions,
  });
  assert.equal(
    html,
    'hi <span class="h-card" translate="no"><a href="https://example.social/@alice" ' +
      'class="u-url mention">@<span>alice</span></a></span> and <span class="h-card" ' +
      'translate="no"><a href="https://remote.example/@bob" class="u-url mention">@<span>bob' +
      "</span></a></span> and @ghost@nowhere.example " +
      '<a href="https://example.social/tags/Fedi" class="mention hashtag" rel="tag">#<span>Fedi' +
      "</span></a>",
  );
  // Not hashtags: inside URLs, after letters, all digits.
  assert.deepEqual(extractHashtags("https://x.example/#frag a#b #123 #ok_1 #日本"), [
    "ok_1",
    "日本",
  ]);
  assert.deepEqual(extractMentions("mail me@example.com or @Carol@Host.Example:8443"), [
    { username: "Carol", domain: "host.example:8443" },
  ]);
});

Deno.test("counts links as 23 characters and remote mentions without their domain", () => {
  assert.equal(countableLength("x https://example.com/" + "a".repeat(100)), 2 + 23);
  assert.equal(countableLength("@bob@remote.example"), 4);
  assert.equal(countableLength("héllo"), 5);
});

Deno.test("reads our HTML back as text", () => {
  const html = textToHtml("a & b\nhttps://example.com/x\n\n#tag", { origin, multiline: true });
  assert.equal(htmlToText(html), "a & b\nhttps://example.com/x\n\n#tag");
});

Deno.test("one parse gives the same length, mentions, hashtags and HTML as each scan alone", () => {
  const texts = [
    "hi @alice and @bob@example.com, see https://example.com/a_very/long/path?x=1 #tag #Tag",
    "@Bob@EXAMPLE.com #ünïcode http://x.y/#frag #a http://x.y/#a",
    "(https://example.com/x) @a@b.c@d #x_y ＃full",
    "no entities at all\n\nsecond paragraph",
    "@İstanbul@İSTANBUL.example and @x@xn--bcher-kva.example",
  ];
  for (const text of texts) {
    const parsed = parseText(text);
    assert.equal(countableLength(parsed), countableLength(text), text);
    assert.equal(countableLength(parsed, 23, 500), countableLength(text, 23, 500), text);
    assert.deepEqual(extractMentions(parsed), extractMentions(text), text);
    assert.deepEqual(extractHashtags(parsed), extractHashtags(text), text);
    assert.equal(
      textToHtml(parsed, { origin, multiline: true }),
      textToHtml(text, { origin, multiline: true }),
      text,
    );
    // The parse is kept: the same entities, not a second scan.
    assert.equal(parsed.entities, parsed.entities);
  }
});
