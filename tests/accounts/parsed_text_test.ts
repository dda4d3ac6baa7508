/**
 * The contract of a parsed text (actors/formatting/parsed_text.ts): what a
 * post, an edit, a bio or an announcement is parsed into once, and what the
 * length check, mention resolution, the HTML, the tags and the emoji read.
 */
import assert from "node:assert/strict";
import { parseText } from "../../actors/formatting/parsed_text.ts";

Deno.test("a parsed text is tokens that cover it in order, each kind with its parts", () => {
  const text = "hi @Bob@Remote.Example, see https://example.com/:wave:/x #Fedi :blob:\r\nbye";
  const parsed = parseText(text);
  assert.equal(parsed.source, text.replace("\r\n", "\n"));
  const tokens = parsed.tokens;
  assert.deepEqual(
    tokens.map((t) => [t.kind, parsed.source.slice(t.start, t.end)]),
    [
      ["text", "hi "],
      ["mention", "@Bob@Remote.Example"],
      ["text", ", see "],
      ["link", "https://example.com/:wave:/x"],
      ["text", " "],
      ["hashtag", "#Fedi"],
      ["text", " :blob:\nbye"],
    ],
  );
  // Handle parts: the username as written, the domain in lower case.
  assert.deepEqual(parsed.mentions[0].name, { username: "Bob", domain: "remote.example" });
  assert.deepEqual(parsed.hashtags.map((h) => h.tag), ["Fedi"]);
  // Shortcodes are found in the whole text, inside a link too (as Mastodon scans).
  assert.deepEqual(parsed.emojis.map((e) => e.shortcode), ["wave", "blob"]);
  // Read once: every reader gets the same tokens.
  assert.equal(parsed.tokens, tokens);
  assert.equal(parseText(parsed), parsed);
});

Deno.test("the length is read from the tokens: a link counts 23, a remote mention its username", () => {
  const parsed = parseText("@bob@remote.example https://example.com/" + "a".repeat(100));
  assert.equal(parsed.countableLength(), "@bob".length + 1 + 23);
  assert.equal(parsed.countableLength(10), "@bob".length + 1 + 10);
});

Deno.test("a bounded count of hostile text stops early and keeps no partial parse", () => {
  const parsed = parseText("@a ".repeat(30_000));
  assert.ok(parsed.countableLength(23, 500) > 500);
  // Read in full afterwards, the mentions are all there.
  assert.equal(parsed.mentions.length, 30_000);
  assert.equal(parsed.countableLength(), 90_000);
});
