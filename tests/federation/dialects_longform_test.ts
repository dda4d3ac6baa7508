/**
 * Long-form and media servers' dialects (Pixelfed, PeerTube, Lemmy,
 * WordPress, Mobilizon, WriteFreely, Plume), each from the corpus under
 * fixtures/peers/, delivered by a signed fake peer and checked through the
 * Mastodon API (tests/federation/peers_corpus.ts), as written and again with
 * only the ActivityStreams context. Their Articles, Pages, Events and Videos
 * keep their title, as a heading before the summary (or the content) and the
 * link (issue 30, item 13).
 */
import { test } from "../harness.ts";
import { playFamilies } from "./peers_corpus.ts";

test("media and long-form dialects arrive as Mastodon shows them, with or without their context", async (t) => {
  await playFamilies(t, [
    "pixelfed",
    "peertube",
    "lemmy",
    "wordpress",
    "mobilizon",
    "writefreely",
    "plume",
  ]);
});
