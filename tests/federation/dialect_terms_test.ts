/**
 * The dialect reader on its own (federation/dialects/terms.ts and
 * contexts.ts, no network): every spelling of a term (compact, prefixed,
 * full IRI, expanded JSON-LD values), every form of a quote, the web URL
 * among Links, and contexts JSON-LD would refuse.
 */
import assert from "node:assert/strict";
import {
  readActorTerms,
  readQuoteUri,
  readStatusTerms,
  readWebUrl,
} from "../../federation/dialects/terms.ts";
import { withValidContexts } from "../../federation/dialects/contexts.ts";
import { test } from "../harness.ts";

const AS = "https://www.w3.org/ns/activitystreams#";
const TOOT = "http://joinmastodon.org/ns#";

test("terms under their compact, prefixed and full-IRI names, and expanded values", () => {
  const compact = readActorTerms({
    manuallyApprovesFollowers: true,
    discoverable: true,
    featured: "https://r.example/u/a/featured",
    attachment: [{ type: "PropertyValue", name: "Web", value: "<a>w</a>" }],
    alsoKnownAs: ["https://old.example/u/a", "https://old.example/u/a", "ftp://x"],
    movedTo: "https://new.example/u/a",
    attributionDomains: ["Blog.Example", "bad domain"],
  });
  assert.equal(compact.manuallyApprovesFollowers, true);
  assert.equal(compact.discoverable, true);
  assert.equal(compact.featured, "https://r.example/u/a/featured");
  assert.deepEqual(compact.fields, [{ name: "Web", value: "<a>w</a>" }]);
  assert.deepEqual(compact.alsoKnownAs, ["https://old.example/u/a"]);
  assert.equal(compact.movedTo, "https://new.example/u/a");
  assert.deepEqual(compact.attributionDomains, ["blog.example"]);

  const prefixed = readActorTerms({
    "as:manuallyApprovesFollowers": true,
    "toot:discoverable": false,
    "toot:featured": { id: "https://r.example/f" },
    "toot:featuredTags": "https://r.example/t",
    attachment: { type: "schema:PropertyValue", name: "A", "schema:value": "1" },
  });
  assert.equal(prefixed.manuallyApprovesFollowers, true);
  assert.equal(prefixed.discoverable, false);
  assert.equal(prefixed.featured, "https://r.example/f");
  assert.equal(prefixed.featuredTags, "https://r.example/t");
  assert.deepEqual(prefixed.fields, [{ name: "A", value: "1" }]);

  // JSON-LD's expanded form (what Fedify keeps of a nested object).
  const expanded = readActorTerms({
    [`${AS}manuallyApprovesFollowers`]: [{ "@value": true }],
    [`${TOOT}indexable`]: [{ "@value": false }],
    [`${TOOT}featured`]: [{ "@id": "https://r.example/f2" }],
    [`${AS}attachment`]: [{
      "@type": ["http://schema.org#PropertyValue"],
      [`${AS}name`]: [{ "@value": "B" }],
      "http://schema.org#value": [{ "@value": "2" }],
    }],
  });
  assert.equal(expanded.manuallyApprovesFollowers, true);
  assert.equal(expanded.indexable, false);
  assert.equal(expanded.featured, "https://r.example/f2");
  assert.deepEqual(expanded.fields, [{ name: "B", value: "2" }]);

  // Wrong types read as absent.
  const wrong = readActorTerms({
    manuallyApprovesFollowers: "true",
    discoverable: 1,
    featured: "javascript:alert(1)",
    attachment: "x",
    alsoKnownAs: 5,
  });
  assert.equal(wrong.manuallyApprovesFollowers, null);
  assert.equal(wrong.discoverable, null);
  assert.equal(wrong.featured, null);
  assert.deepEqual(wrong.fields, []);
  assert.deepEqual(wrong.alsoKnownAs, []);
});

test("status terms: hashtags, emoji, sensitive, language maps, media extras, voters", () => {
  const terms = readStatusTerms({
    "as:sensitive": true,
    summaryMap: { de: "Achtung" },
    nameMap: { es: "Título" },
    contentMap: { "pt-br": "<p>olá</p>" },
    [`${TOOT}votersCount`]: 12,
    tag: [
      { type: "Hashtag", name: "#One" },
      { type: "as:Hashtag", name: "two" },
      { type: `${AS}Hashtag`, name: "#ONE" },
      { type: "Hashtag", name: "#has space" },
      { type: "toot:Emoji", name: ":blob:", icon: { url: "https://r.example/blob.png" } },
      { type: `${TOOT}Emoji`, name: ":gif:", icon: [{ url: { href: "https://r.example/g.gif" } }] },
      { type: "Emoji", name: "nocolons", icon: { url: "https://r.example/x.png" } },
    ],
    attachment: [
      {
        url: "https://r.example/1.png",
        "toot:blurhash": "LEHV6nWB2yk8",
        "toot:focalPoint": { "@list": [0.5, -0.5] },
      },
      { url: [{ href: "https://r.example/2.png" }], blurhash: "bad blurhash!", focalPoint: [2, 0] },
    ],
  });
  assert.equal(terms.sensitive, true);
  assert.equal(terms.content, "<p>olá</p>");
  assert.equal(terms.language, "pt-BR");
  assert.equal(terms.summary, "Achtung");
  assert.equal(terms.name, "Título");
  assert.equal(terms.votersCount, 12);
  assert.deepEqual(terms.hashtags, ["One", "two"]);
  assert.deepEqual(terms.emojis.map((e) => e.shortcode), ["blob", "gif"]);
  assert.deepEqual(terms.media.get("https://r.example/1.png"), {
    blurhash: "LEHV6nWB2yk8",
    focus: [0.5, -0.5],
  });
  assert.deepEqual(terms.media.get("https://r.example/2.png"), {});

  // `content` wins over `contentMap`; Misskey's source never replaces it.
  const misskey = readStatusTerms({
    content: "<p>html</p>",
    _misskey_content: "**mfm**",
    contentMap: { ja: "<p>html</p>" },
  });
  assert.equal(misskey.content, "<p>html</p>");
  assert.equal(misskey.language, "ja");
  assert.equal(readStatusTerms({ _misskey_content: "only mfm" }).content, null);
  // The language comes from contentMap, then nameMap, then summaryMap; "und" is none.
  assert.equal(readStatusTerms({ contentMap: { und: "x" } }).language, null);
  assert.equal(readStatusTerms({ nameMap: { fr: "y" }, summaryMap: { en: "z" } }).language, "fr");
});

test("quotes in every form, in Mastodon's order; the web URL among Links", () => {
  const q = "https://r.example/notes/1";
  for (
    const object of [
      { quote: q },
      { "https://w3id.org/fep/044f#quote": { id: q } },
      { quoteUrl: q },
      { "as:quoteUrl": q },
      { quoteUri: q },
      { "fedibird:quoteUri": q },
      { "http://fedibird.com/ns#quoteUri": [{ "@id": q }] },
      { _misskey_quote: q },
      { "misskey:_misskey_quote": q },
      { "https://misskey-hub.net/ns#_misskey_quote": q },
    ]
  ) assert.equal(readQuoteUri(object), q, JSON.stringify(object));
  assert.equal(
    readQuoteUri({ quote: "https://a.example/1", _misskey_quote: q }),
    "https://a.example/1",
  );
  assert.equal(readQuoteUri({ quoteUrl: "javascript:x", quoteUri: 3 }), null);

  assert.equal(
    readWebUrl({
      url: [
        { type: "Link", mediaType: "video/mp4", href: "https://v.example/1.mp4" },
        { type: "Link", mediaType: "text/html", href: "https://v.example/w/1" },
      ],
    }),
    "https://v.example/w/1",
  );
  assert.equal(
    readWebUrl({ url: [{ type: "Link", href: "https://v.example/p" }] }),
    "https://v.example/p",
  );
  assert.equal(readWebUrl({ url: "https://v.example/s" }), "https://v.example/s");
  assert.equal(readWebUrl({ url: "data:text/html,x" }), null);
});

test("profile terms (Mastodon 4.6/4.7) and a post's Link attachment, in every spelling", () => {
  const compact = readActorTerms({
    showFeatured: false,
    "toot:showMedia": false,
    [`${TOOT}showRepliesInMedia`]: [{ "@value": false }],
    icon: { type: "Image", url: "https://r.example/a.png", name: "A cat" },
    "as:image": { type: "Image", url: "https://r.example/h.png", [`${AS}name`]: "A hill" },
  });
  assert.deepEqual(
    [compact.showFeatured, compact.showMedia, compact.showRepliesInMedia],
    [false, false, false],
  );
  assert.equal(compact.iconName, "A cat");
  assert.equal(compact.imageName, "A hill");
  const bare = readActorTerms({ icon: "https://r.example/a.png", showMedia: "no" });
  assert.deepEqual([bare.showFeatured, bare.showMedia, bare.iconName], [null, null, null]);

  const link = (attachment: unknown) => readStatusTerms({ attachment }).cardLink;
  assert.equal(
    link([
      { type: "Document", mediaType: "image/png", url: "https://r.example/1.png" },
      { type: "Link", mediaType: "application/pdf", href: "https://r.example/doc.pdf" },
      { type: "Link", mediaType: "text/html", href: "https://r.example/page" },
    ]),
    "https://r.example/page",
  );
  assert.equal(
    link({ "@type": "as:Link", "as:href": "https://r.example/p" }),
    "https://r.example/p",
  );
  assert.equal(link([{ type: "Link", href: "javascript:alert(1)" }]), null);
  assert.equal(link([{ type: "Document", url: "https://r.example/page" }]), null);
});

test("contexts JSON-LD would refuse lose only their bad definitions", () => {
  const good = {
    "@context": ["https://www.w3.org/ns/activitystreams", { toot: "http://joinmastodon.org/ns#" }],
    type: "Note",
  };
  assert.equal(withValidContexts(good), good, "a valid document is returned as it is");
  const pixelfed = {
    "@context": [
      "https://www.w3.org/ns/activitystreams",
      {
        Hashtag: "as:Hashtag",
        capabilities: { announce: { "@type": "@id" }, like: { "@type": "@id" } },
        commentsEnabled: "sc:Boolean",
        weird: 5,
      },
    ],
    object: { "@context": { broken: { nope: 1 }, fine: { "@id": "as:fine" } } },
  };
  assert.deepEqual(withValidContexts(pixelfed), {
    "@context": [
      "https://www.w3.org/ns/activitystreams",
      { Hashtag: "as:Hashtag", commentsEnabled: "sc:Boolean" },
    ],
    object: { "@context": { fine: { "@id": "as:fine" } } },
  });
});
