/**
 * federation/inbox/plain_create.ts reads a plainly shaped Create(Note)
 * without JSON-LD: every document it accepts must read exactly as Fedify's
 * JSON-LD parse reads it (what the inbox listeners look at: ids, actor,
 * addressing, dates, texts, language maps, reply target, url, context,
 * mentions and hashtags), and every document whose reading could differ
 * must be left to Fedify (null). The corpus: Mastodon-shaped documents,
 * the bench's, and every Note of the peers' corpus (tests/federation/fixtures/peers/),
 * as written and reduced to the keys read here, each with its context, with
 * ActivityStreams' alone, and without the note's own.
 */
import assert from "node:assert/strict";
import {
  Activity,
  Hashtag,
  LanguageString,
  Mention,
  type Note,
  type Object as APObject,
} from "@fedify/vocab";
import { plainCreate } from "../../federation/inbox/plain_create.ts";
import { contextLoader } from "../../federation/fetch/document_loader.ts";
import { withValidContexts } from "../../federation/dialects/contexts.ts";
import { test } from "../harness.ts";

const AS = "https://www.w3.org/ns/activitystreams";
const PUBLIC = `${AS}#Public`;
const PEER = "https://peer.example";
const ACTOR = `${PEER}/users/gargamel`;
const MASTODON_CONTEXT = [
  AS,
  "https://w3id.org/security/v1",
  {
    ostatus: "http://ostatus.org#",
    atomUri: "ostatus:atomUri",
    inReplyToAtomUri: "ostatus:inReplyToAtomUri",
    conversation: "ostatus:conversation",
    sensitive: "as:sensitive",
    toot: "http://joinmastodon.org/ns#",
    votersCount: "toot:votersCount",
    Emoji: "toot:Emoji",
    Hashtag: "as:Hashtag",
    blurhash: "toot:blurhash",
    focalPoint: { "@container": "@list", "@id": "toot:focalPoint" },
  },
];

const noFetch = () => Promise.reject(new Error("not fetched"));

type Doc = Record<string, unknown>;

/** A Create of `note`, as Mastodon wraps one. */
function create(note: Doc, context: unknown = MASTODON_CONTEXT): Doc {
  return {
    "@context": context,
    id: `${note.id}/activity`,
    type: "Create",
    actor: ACTOR,
    published: note.published,
    to: note.to,
    cc: note.cc,
    object: note,
  };
}

/** A note as Mastodon writes one, with everything this path reads. */
function mastodonNote(n: number): Doc {
  const id = `${ACTOR}/statuses/${n}`;
  return {
    id,
    type: "Note",
    summary: "Spoilers",
    inReplyTo: `${PEER}/users/azrael/statuses/9`,
    published: "2025-05-01T10:00:00Z",
    updated: "2025-05-02T10:00:00.123+02:00",
    url: `${PEER}/@gargamel/${n}`,
    attributedTo: ACTOR,
    to: [PUBLIC],
    cc: [`${ACTOR}/followers`, `${PEER}/users/azrael`],
    sensitive: true,
    atomUri: id,
    inReplyToAtomUri: `${PEER}/users/azrael/statuses/9`,
    conversation: "tag:peer.example,2025-05-01:objectId=1:objectType=Conversation",
    context: `${PEER}/contexts/1`,
    content:
      '<p><span class="h-card"><a href="https://peer.example/@azrael">@azrael</a></span> #Potions</p>',
    contentMap: {
      fr: "<p>@azrael #Potions</p>",
      en:
        '<p><span class="h-card"><a href="https://peer.example/@azrael">@azrael</a></span> #Potions</p>',
    },
    attachment: [],
    tag: [
      { type: "Mention", href: `${PEER}/users/azrael`, name: "@azrael@peer.example" },
      { type: "Hashtag", href: `${PEER}/tags/potions`, name: "#Potions" },
    ],
    replies: {
      id: `${id}/replies`,
      type: "Collection",
      first: {
        type: "CollectionPage",
        next: `${id}/replies?page=true`,
        partOf: `${id}/replies`,
        items: [],
      },
    },
    likes: { id: `${id}/likes`, type: "Collection", totalItems: 3 },
    shares: { id: `${id}/shares`, type: "Collection", totalItems: 1 },
  };
}

/** The bench's delivery (bench/inbound.ts). */
function benchCreate(): Doc {
  const id = `${ACTOR}/notes/bench-1`;
  const published = "2026-11-29T17:00:00.000Z";
  return {
    "@context": AS,
    id: `${id}/activity`,
    type: "Create",
    actor: ACTOR,
    published,
    to: [PUBLIC],
    cc: [`${ACTOR}/followers`],
    object: {
      id,
      type: "Note",
      attributedTo: ACTOR,
      published,
      to: [PUBLIC],
      cc: [`${ACTOR}/followers`],
      content: "<p>Inbound benchmark note, with a little text to carry.</p>",
    },
  };
}

/** What the inbox listeners read of a parsed Create(Note). */
async function reading(activity: Activity) {
  const object = await activity.getObject({ documentLoader: noFetch }) as Note | null;
  assert.ok(object);
  const tags = [];
  for await (const tag of object.getTags({ documentLoader: noFetch, suppressError: true })) {
    // Every reader of tags looks for these three classes only (Emoji is never accepted here).
    if (tag instanceof Mention || tag instanceof Hashtag) {
      tags.push({ type: tag.constructor.name, href: tag.href?.href, name: tag.name?.toString() });
    }
  }
  const text = (value: string | LanguageString) =>
    value instanceof LanguageString
      ? { value: value.toString(), language: value.locale.baseName }
      : value;
  const hrefs = (urls: (URL | APObject | { href?: URL | null })[]) =>
    urls.map((u) => u instanceof URL ? u.href : String((u as { href?: URL }).href));
  const instant = (value: Temporal.Instant | null) => value?.epochNanoseconds.toString() ?? null;
  return {
    type: activity.constructor.name,
    id: activity.id?.href,
    actors: hrefs(activity.actorIds),
    to: hrefs(activity.toIds),
    cc: hrefs(activity.ccIds),
    published: instant(activity.published),
    object: {
      type: object.constructor.name,
      id: object.id?.href,
      attributedTo: hrefs(object.attributionIds),
      to: hrefs(object.toIds),
      cc: hrefs(object.ccIds),
      published: instant(object.published),
      updated: instant(object.updated),
      contents: object.contents.map(text),
      content: object.content == null ? null : text(object.content),
      summaries: object.summaries.map(text),
      sensitive: object.sensitive,
      inReplyTo: hrefs(object.replyTargetIds),
      urls: hrefs(object.urls as (URL | { href?: URL | null })[]),
      contexts: hrefs(object.contextIds),
      tags,
    },
  };
}

async function fedifyReading(doc: Doc) {
  const parsed = await Activity.fromJsonLd(structuredClone(doc), {
    contextLoader,
    documentLoader: noFetch,
  });
  return await reading(parsed);
}

/** The note's keys plain_create.ts reads. */
const READ = new Set([
  "id",
  "type",
  "attributedTo",
  "published",
  "updated",
  "to",
  "cc",
  "content",
  "contentMap",
  "summary",
  "sensitive",
  "inReplyTo",
  "url",
  "context",
]);

/** Every Note the peers' corpus delivers, wrapped as tests/federation/peers_corpus.ts wraps it. */
function corpusCreates(): Doc[] {
  const out: Doc[] = [];
  const folder = new URL("./fixtures/peers/", import.meta.url);
  for (const entry of Deno.readDirSync(folder)) {
    const text = Deno.readTextFileSync(new URL(`${entry.name}/peer.json`, folder))
      .replaceAll("{{peer}}", PEER)
      .replaceAll("{{pem}}", "")
      .replaceAll("{{local_status}}", "https://rookery.example/users/alice/statuses/1");
    const fixture = JSON.parse(text) as { actor: Doc; objects?: Doc[] };
    for (const object of fixture.objects ?? []) {
      if (object.type !== "Note") continue;
      const wrap = (note: Doc, context: unknown) => ({
        "@context": context,
        id: `${note.id}#create`,
        type: "Create",
        actor: fixture.actor.id,
        to: note.to,
        cc: note.cc,
        object: note,
      });
      // As the inbox guard queues it.
      const { "@context": context, ...bare } = withValidContexts(object) as Doc;
      // Reduced to what this path reads (no media, emoji, quotes or dialect keys).
      const reduced: Doc = { attachment: [] };
      for (const [key, value] of Object.entries(bare)) {
        if (READ.has(key)) reduced[key] = value;
      }
      const tags = Array.isArray(bare.tag) ? bare.tag : bare.tag == null ? [] : [bare.tag];
      reduced.tag = tags.filter((t) => t.type === "Mention" || t.type === "Hashtag");
      for (const note of [bare, reduced]) {
        out.push(wrap({ ...note, "@context": context }, context));
        out.push(wrap({ ...note, "@context": AS }, AS));
        out.push(wrap(note, context));
        out.push(wrap(note, AS));
      }
    }
  }
  return out;
}

test("a plainly shaped Create(Note) reads as Fedify's JSON-LD parse reads it", async () => {
  const accepted: Doc[] = [];
  const documents = [
    benchCreate(),
    create(mastodonNote(1)),
    create(mastodonNote(2), AS),
    create({ ...mastodonNote(3), to: PUBLIC, cc: undefined, contentMap: undefined }),
    create({ ...mastodonNote(4), content: undefined, summary: null, inReplyTo: null }),
    create({ ...mastodonNote(5), tag: { type: "Mention", href: `${PEER}/users/azrael` } }),
    create({ ...mastodonNote(6), to: [PUBLIC, PUBLIC], cc: [] }),
    ...corpusCreates(),
  ];
  for (const doc of documents) {
    const fast = plainCreate(structuredClone(doc));
    if (!fast) continue;
    accepted.push(doc);
    assert.deepEqual(await reading(fast), await fedifyReading(doc), JSON.stringify(doc));
  }
  // The Mastodon-shaped and bench documents above, and the corpus's notes reduced to what is read.
  assert.ok(accepted.length >= 30, `only ${accepted.length} accepted`);
  for (const doc of documents.slice(0, 7)) assert.ok(accepted.includes(doc), JSON.stringify(doc));
});

test("a Create whose reading could differ from Fedify's is left to Fedify", () => {
  const note = mastodonNote(1);
  const withContext = (extra: Doc) => create(note, [...MASTODON_CONTEXT, extra]);
  const refused: [string, unknown][] = [
    ["a Linked Data signature", { ...create(note), signature: { type: "RsaSignature2017" } }],
    ["an integrity proof", { ...create(note), proof: { type: "DataIntegrityProof" } }],
    ["a default language", withContext({ "@language": "en" })],
    ["a default vocabulary", withContext({ "@vocab": "https://evil.example/#" })],
    ["content redefined", withContext({ content: "https://evil.example/#content" })],
    ["to redefined", withContext({ to: "as:to" })],
    ["the as prefix redefined", withContext({ as: "https://evil.example/#" })],
    ["Note redefined", withContext({ Note: "https://evil.example/#Note" })],
    ["Hashtag as another term", withContext({ Hashtag: "toot:Hashtag" })],
    [
      "sensitive with a type",
      withContext({ sensitive: { "@id": "as:sensitive", "@type": "@id" } }),
    ],
    ["a definition JSON-LD refuses", withContext({ caps: { "@id": "toot:caps", announce: "x" } })],
    [
      "a language container",
      withContext({ nameMap: { "@id": "toot:n", "@container": "@language" } }),
    ],
    ["a term defined as a term", withContext({ blurb: "summary" })],
    ["conversation as an ActivityStreams term", withContext({ conversation: "as:context" })],
    ["an unknown context", create(note, [AS, "https://evil.example/context"])],
    ["ActivityStreams not first", create(note, ["https://w3id.org/security/v1", AS])],
    ["another context on the note", create({ ...note, "@context": AS })],
    ["a note on another origin", create({ ...note, id: "https://elsewhere.example/notes/1" })],
    ["an actor on another origin", { ...create(note), actor: "https://elsewhere.example/u/a" }],
    [
      "an attachment",
      create({ ...note, attachment: [{ type: "Document", url: `${PEER}/a.png` }] }),
    ],
    ["an Emoji tag", create({ ...note, tag: [{ type: "Emoji", name: ":x:", icon: {} }] })],
    [
      "a tag with an id",
      create({ ...note, tag: [{ id: `${PEER}/t`, type: "Mention", href: ACTOR }] }),
    ],
    ["a relative IRI", create({ ...note, cc: ["followers"] })],
    ["a compact IRI", create({ ...note, to: ["as:Public"] })],
    ["a date without an offset", create({ ...note, published: "2025-05-01T10:00:00" })],
    ["a date that is no date", create({ ...note, published: "yesterday at noon" })],
    ["a quote", create({ ...note, quote: `${PEER}/users/gargamel/statuses/0` })],
    ["an object by reference", { ...create(note), object: note.id }],
    ["a Question", create({ ...note, type: "Question" })],
    ["an Update", { ...create(note), type: "Update" }],
    ["a region in a language map", create({ ...note, contentMap: { "zh-TW": "<p>x</p>" } })],
    ["a content that is not a string", create({ ...note, content: ["<p>x</p>"] })],
    ["an actor given as an object", { ...create(note), actor: { id: ACTOR } }],
    ["a bcc", { ...create(note), bcc: [ACTOR] }],
    ["not an object", [create(note)]],
  ];
  assert.ok(plainCreate(create(note)), "the unaltered note is read");
  for (const [what, doc] of refused) assert.equal(plainCreate(doc), null, what);
});
