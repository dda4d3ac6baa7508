/**
 * The script's character count (web/assets/rookery.js countableLength)
 * against the server's (actors/formatting/parsed_text.ts, what posting
 * enforces): the same number for plain text, emoji, links (http and https,
 * with a path, a query, trailing punctuation, several), local and remote
 * mentions (with a port), a mention inside a link, and a link longer than
 * twitter-text's limit, which counts in full.
 */
import assert from "node:assert/strict";
import { countableLength as scriptCount } from "../../web/assets/rookery.js";
import { countableLength as serverCount } from "../../actors/formatting/parsed_text.ts";

const SAMPLES = [
  "",
  "Hello, world",
  "Emoji count once each: 🦜🦜👩‍👩‍👧",
  "A link https://example.com/a/very/long/path?with=query&and=more#anchor in the middle",
  "Ends a sentence with a link: http://example.org/page.",
  "Two links (https://a.example/x) and https://b.example/y!",
  "Mentions @ann and @bob@remote.example and @cat@localhost:8080 count by user",
  "A mention inside a link https://example.com/@bob@remote.example stays the link",
  "Bare domains stay text: example.com and www.example.org",
  `Too long a link https://example.com/${"x".repeat(4100)} counts in full`,
  "email@example.com is no mention, nor x@y",
];

Deno.test("the script counts a post as the server does", () => {
  for (const perUrl of [23, 40]) {
    for (const text of SAMPLES) {
      assert.equal(
        scriptCount(text, perUrl),
        serverCount(text, perUrl),
        `${JSON.stringify(text.slice(0, 80))} (a link counts ${perUrl})`,
      );
    }
  }
});
