/**
 * Preview cards, the pure parts: which link of a status gets a card, and
 * what a page says about itself.
 */
import assert from "node:assert/strict";
import { firstCardLink } from "../../actors/cards/links.ts";
import { extractCard } from "../../jobs/link_cards/opengraph.ts";
import { textToHtml } from "../../actors/formatting/text_to_html.ts";

const ORIGIN = "https://rookery.example";

Deno.test("the first link that is not a mention, hashtag, quote line or local page", () => {
  const pick = (html: string, skipHrefs: string[] = []) =>
    firstCardLink(html, { origin: ORIGIN, skipHrefs });
  // Mastodon's markup for mentions and hashtags, a quote's RE: line, a local link.
  const html = '<p class="quote-inline">RE: <a href="https://far.example/@q/1">q</a></p>' +
    '<p><span class="h-card"><a href="https://far.example/@bob" class="u-url mention">@bob</a>' +
    '</span> <a href="https://far.example/tags/cats" class="mention hashtag" rel="tag">#cats</a>' +
    ` <a href="${ORIGIN}/@alice/1">here</a> <a href="mailto:a@b.example">mail</a>` +
    ' <a href="https://news.example/story?id=1">story</a> <a href="https://other.example/">x</a></p>';
  assert.equal(pick(html), "https://news.example/story?id=1");
  // rel="tag" alone, or a class that marks a mention, is enough to skip.
  assert.equal(
    pick(
      '<a href="https://a.example/t" rel="nofollow tag">#t</a><a href="https://b.example/">b</a>',
    ),
    "https://b.example/",
  );
  // A mention from a server that marks it with no class: known by its href.
  assert.equal(
    pick('<a href="https://far.example/users/bob">@bob</a> <a href="https://b.example/x">b</a>', [
      "https://far.example/users/bob",
    ]),
    "https://b.example/x",
  );
  // Compared as URLs: the same account written another way is still skipped.
  assert.equal(
    pick('<a href="https://far.example/users/bob">@bob</a>', ["HTTPS://FAR.example/users/bob"]),
    null,
  );
  // Void elements and unclosed tags do not confuse the quote tracking.
  assert.equal(
    pick(
      '<p class="quote-inline">RE:<br><a href="https://q.example/1">q</a></p><p>' +
        '<a href="https://b.example/after">b</a>',
    ),
    "https://b.example/after",
  );
  // Hosts are normalized; nothing http(s) means no link.
  assert.equal(pick('<a href="HTTPS://News.Example/A">a</a>'), "https://news.example/A");
  assert.equal(pick('<a href="ftp://x.example/">a</a><a href="/relative">r</a>'), null);
  assert.equal(pick(`<a href="https://x.example/${"a".repeat(3000)}">long</a>`), null);
  assert.equal(pick("no links at all"), null);

  // Our own formatter's output: mention and hashtag links are skipped.
  const local = textToHtml("#cats https://news.example/a", { origin: ORIGIN });
  assert.equal(pick(local), "https://news.example/a");
});

Deno.test("OpenGraph first, then <title> and meta description; entities decoded, capped", () => {
  const page = `<!doctype html><html><head>
    <title>Fallback title</title>
    <meta property="og:title" content="  Fish &amp; Chips
       &#8212; a story ">
    <meta property="og:description" content="All about &lt;fish&gt;.">
    <meta property="OG:IMAGE" content="/img/cover.png">
    <meta property="og:image:width" content="640"><meta property="og:image:height" content="x">
    <meta property="og:site_name" content="The Paper">
    <meta property="og:site" content="paper.example">
    <meta name="og:author" content="Ann Writer">
    <meta property="og:type" content="article">
    <meta property="og:title" content="second og:title is ignored">
  </head><body>text</body></html>`;
  assert.deepEqual(extractCard(page, "https://paper.example/a/b.html"), {
    title: "Fish & Chips \u2014 a story",
    description: "All about <fish>.",
    type: "link",
    imageUrl: "https://paper.example/img/cover.png",
    width: 640,
    height: 0,
    providerName: "The Paper",
    providerUrl: "http://paper.example/",
    authorName: "Ann Writer",
    creatorHandle: null,
  });

  const plain = extractCard(
    '<html><head><title>Just &quot;a&quot; title</title><meta name="description" ' +
      `content="${"d".repeat(1500)}"><meta property="og:image" content="javascript:x"></head>`,
    "https://plain.example/",
  );
  assert.equal(plain?.title, 'Just "a" title');
  assert.equal(plain?.description.length, 1000);
  assert.equal(plain?.imageUrl, null);
  assert.equal(plain?.providerName, "");
  assert.equal(
    extractCard(`<title>${"t".repeat(400)}</title>`, "https://x.example/")?.title,
    "t".repeat(255),
  );

  // fediverse:creator: a handle with or without its @, lower-cased; anything else is none.
  const creator = (content: string) =>
    extractCard(
      `<title>t</title><meta name="fediverse:creator" content="${content}">`,
      "https://x.example/",
    )?.creatorHandle;
  assert.equal(creator("@Ann@Paper.example"), "ann@paper.example");
  assert.equal(creator("ann@paper.example"), "ann@paper.example");
  assert.equal(creator("https://paper.example/@ann"), null);
  assert.equal(creator("@ann"), null);

  // No title: no card. Markup inside <title> is text, not tags.
  assert.equal(
    extractCard("<html><head><meta name=description content=d></head>", "https://x.example/"),
    null,
  );
  assert.equal(extractCard("<title>   </title>", "https://x.example/"), null);
  assert.equal(
    extractCard("<title><b>bold</b></title>", "https://x.example/")?.title,
    "<b>bold</b>",
  );
});
