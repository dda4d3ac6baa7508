/**
 * Reading remote objects (no network): content is sanitized, tags, mentions,
 * attachments with blurhash and focal point, polls, converted types and
 * visibility from the addressing come out as Mastodon reads them.
 */
import assert from "node:assert/strict";
import { Article, Note, Question } from "@fedify/vocab";
import {
  parseStatusObject,
  visibilityFromAudience,
} from "../../federation/objects/remote_status.ts";
import { test } from "../harness.ts";

const PUBLIC = "https://www.w3.org/ns/activitystreams#Public";
const CONTEXT = [
  "https://www.w3.org/ns/activitystreams",
  {
    toot: "http://joinmastodon.org/ns#",
    blurhash: "toot:blurhash",
    focalPoint: { "@container": "@list", "@id": "toot:focalPoint" },
    Hashtag: "as:Hashtag",
    sensitive: "as:sensitive",
    votersCount: "toot:votersCount",
  },
];

test("a remote Note: sanitized content, CW, tags, mentions, media with blurhash and focus", async () => {
  const raw = {
    "@context": CONTEXT,
    id: "https://remote.example/notes/1",
    type: "Note",
    attributedTo: "https://remote.example/users/zed",
    content: '<p>Hi <script>alert(1)</script><a href="https://x.example" onclick="x()">x</a></p>',
    summary: "spoiler <b>here</b>",
    sensitive: true,
    inReplyTo: "https://elsewhere.example/notes/9",
    to: [PUBLIC],
    cc: ["https://remote.example/users/zed/followers"],
    tag: [
      { type: "Hashtag", href: "https://remote.example/tags/cats", name: "#Cats" },
      { type: "Mention", href: "https://local.example/users/alice", name: "@alice" },
    ],
    attachment: [{
      type: "Document",
      mediaType: "image/png",
      url: "https://remote.example/media/1.png",
      name: "a cat",
      blurhash: "LEHV6nWB2yk8",
      focalPoint: [0.5, -0.25],
      width: 640,
      height: 480,
    }],
  };
  const note = await Note.fromJsonLd(raw);
  const parsed = await parseStatusObject(note, {
    followersUrl: "https://remote.example/users/zed/followers",
    raw,
    maxMedia: 4,
  });
  assert.ok(parsed);
  assert.doesNotMatch(parsed.content, /script|onclick/);
  assert.match(parsed.content, /href="https:\/\/x.example"/);
  assert.equal(parsed.spoilerText, "spoiler here");
  assert.equal(parsed.sensitive, true);
  assert.equal(parsed.visibility, "public");
  assert.equal(parsed.inReplyToUri, "https://elsewhere.example/notes/9");
  assert.deepEqual(parsed.tagNames, ["Cats"]);
  assert.deepEqual(parsed.mentionUris, ["https://local.example/users/alice"]);
  assert.equal(parsed.media.length, 1);
  assert.deepEqual(parsed.media[0], {
    remoteUrl: "https://remote.example/media/1.png",
    type: "image",
    contentType: "image/png",
    description: "a cat",
    blurhash: "LEHV6nWB2yk8",
    meta: { original: { width: 640, height: 480 }, focus: { x: 0.5, y: -0.25 } },
  });
});

test("visibility from to/cc, a Question's options and tallies, an Article converted", async () => {
  const followers = "https://r.example/u/z/followers";
  const v = (to: string[], cc: string[]) =>
    visibilityFromAudience(
      { toIds: to.map((u) => new URL(u)), ccIds: cc.map((u) => new URL(u)) },
      followers,
    );
  assert.equal(v([PUBLIC], [followers]), "public");
  assert.equal(v([followers], [PUBLIC]), "unlisted");
  assert.equal(v([followers], []), "private");
  assert.equal(v(["https://l.example/users/a"], []), "direct");

  const question = await Question.fromJsonLd({
    "@context": CONTEXT,
    id: "https://r.example/q/1",
    type: "Question",
    attributedTo: "https://r.example/u/z",
    content: "<p>Pick</p>",
    endTime: "2030-01-01T00:00:00Z",
    votersCount: 3,
    anyOf: [
      { type: "Note", name: "one", replies: { type: "Collection", totalItems: 2 } },
      { type: "Note", name: "two", replies: { type: "Collection", totalItems: 1 } },
    ],
    to: [PUBLIC],
  });
  const q = await parseStatusObject(question, { followersUrl: followers, maxMedia: 4 });
  assert.deepEqual(q?.poll, {
    options: ["one", "two"],
    tallies: [2, 1],
    multiple: true,
    expiresAt: new Date("2030-01-01T00:00:00Z"),
    votersCount: 3,
    closed: false,
  });

  const article = await Article.fromJsonLd({
    "@context": CONTEXT,
    id: "https://r.example/a/1",
    type: "Article",
    attributedTo: "https://r.example/u/z",
    name: "Fish & <b>chips</b>",
    url: "https://r.example/blog/1",
    to: [PUBLIC],
  });
  const a = await parseStatusObject(article, { followersUrl: followers, maxMedia: 4 });
  assert.match(a!.content, /^<p><strong>Fish &amp; chips<\/strong><\/p>/);
  assert.match(a!.content, /href="https:\/\/r.example\/blog\/1"/);
});

test("a Question closed at a date is read as closed then (Fedify's polyfill instants)", async () => {
  // Fedify builds its Temporal values with @js-temporal/polyfill, which the
  // runtime's `Temporal.Instant` does not recognise.
  const question = await Question.fromJsonLd({
    "@context": CONTEXT,
    id: "https://r.example/q/2",
    type: "Question",
    attributedTo: "https://r.example/u/z",
    content: "<p>Over</p>",
    closed: "2024-01-01T00:00:00Z",
    oneOf: [{ type: "Note", name: "yes", replies: { type: "Collection", totalItems: 4 } }],
    to: [PUBLIC],
  });
  const q = await parseStatusObject(question, {
    followersUrl: "https://r.example/u/z/followers",
    maxMedia: 4,
  });
  assert.equal(q?.poll?.closed, true);
  assert.deepEqual(q?.poll?.expiresAt, new Date("2024-01-01T00:00:00Z"));
});
