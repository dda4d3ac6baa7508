/**
 * federation/inbox/plain_create.ts reads a plainly shaped Create(Note)
 * without JSON-LD: every document it accepts must read exactly as Fedify's
 * JSON-LD parse reads it (what the inbox listeners look at: ids, actor,
 * addressing, dates, texts, language maps, reply target, url, context,
 * mentions, hashtags, custom emoji, media, interaction policy, and the
 * JSON remembered for each object), and every document whose reading
 * could differ must be left to Fedify (null). The corpus: documents shaped
 * as Mastodon (before 4.5 and 4.5), Misskey and GoToSocial write them
 * (plain_documents.ts), the bench's, and every Note of the peers' corpus
 * (tests/federation/fixtures/peers/), as written and reduced to the keys
 * read here, each with its context, with ActivityStreams' alone, and
 * without the note's own.
 */
import assert from "node:assert/strict";
import {
  Activity,
  Emoji,
  Hashtag,
  type Image,
  LanguageString,
  Link,
  Mention,
  type Note,
  type Object as APObject,
} from "@fedify/vocab";
import { plainCreate } from "../../federation/inbox/plain_create.ts";
import { receivedJson } from "../../federation/dialects/received.ts";
import { contextLoader } from "../../federation/fetch/document_loader.ts";
import { withValidContexts } from "../../federation/dialects/contexts.ts";
import { test } from "../harness.ts";
import { inboundCreate, ldSigned } from "../../bench/inbound.ts";
import { rsaKeyPair } from "../fixtures/fake_peer.ts";
import {
  ACTOR,
  AS,
  create,
  type Doc,
  GOTOSOCIAL_CONTEXT,
  gotosocialNote,
  mastodon45Note,
  MASTODON_45_CONTEXT,
  MASTODON_CONTEXT,
  mastodonNote,
  MISSKEY_CONTEXT,
  misskeyNote,
  PEER,
  PUBLIC,
} from "./plain_documents.ts";

const noFetch = () => Promise.reject(new Error("not fetched"));

const instant = (value: Temporal.Instant | null) => value?.epochNanoseconds.toString() ?? null;

/** What the inbox listeners read of a parsed Create(Note). */
async function reading(activity: Activity) {
  const object = await activity.getObject({ documentLoader: noFetch }) as Note | null;
  assert.ok(object);
  const options = { documentLoader: noFetch, suppressError: true };
  const tags = [];
  for await (const tag of object.getTags(options)) {
    // Every reader of tags looks for these three classes only (remote_status.ts, emoji.ts).
    if (tag instanceof Mention || tag instanceof Hashtag) {
      tags.push({ type: tag.constructor.name, href: tag.href?.href, name: tag.name?.toString() });
    } else if (tag instanceof Emoji) {
      const icon = await tag.getIcon(options) as Image | null;
      tags.push({
        type: "Emoji",
        id: tag.id?.href,
        name: tag.name?.toString(),
        updated: instant(tag.updated),
        icon: icon && {
          type: icon.constructor.name,
          mediaType: icon.mediaType,
          url: icon.url instanceof Link ? icon.url.href?.href : icon.url?.href,
        },
      });
    } else tags.push({ type: tag?.constructor.name ?? null });
  }
  const attachments = [];
  for await (const item of object.getAttachments(options)) {
    const media = item as Image;
    attachments.push({
      type: item.constructor.name,
      id: item.id?.href ?? null,
      mediaType: media.mediaType ?? null,
      url: media.url instanceof Link ? { link: media.url.href?.href } : media.url?.href ?? null,
      name: media.name?.toString() ?? null,
      summary: media.summary?.toString() ?? null,
      width: media.width ?? null,
      height: media.height ?? null,
      sensitive: media.sensitive ?? null,
    });
  }
  const policy = object.interactionPolicy;
  const rule = (name: "canQuote" | "canLike" | "canReply" | "canAnnounce") => {
    const r = policy?.[name];
    return r && {
      automatic: r.automaticApprovals.map((u) => u.href),
      manual: r.manualApprovals.map((u) => u.href),
    };
  };
  const text = (value: string | LanguageString) =>
    value instanceof LanguageString
      ? { value: value.toString(), language: value.locale.baseName }
      : value;
  const hrefs = (urls: (URL | APObject | { href?: URL | null })[]) =>
    urls.map((u) => u instanceof URL ? u.href : String((u as { href?: URL }).href));
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
      attachments,
      interactionPolicy: policy && {
        canQuote: rule("canQuote"),
        canLike: rule("canLike"),
        canReply: rule("canReply"),
        canAnnounce: rule("canAnnounce"),
      },
      quote: object.quoteId?.href ?? object.quoteUrl?.href ?? null,
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
  "attachment",
  "interactionPolicy",
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
      // Reduced to what this path reads (no quotes or dialect keys).
      const reduced: Doc = {};
      for (const [key, value] of Object.entries(bare)) {
        if (READ.has(key)) reduced[key] = value;
      }
      const tags = Array.isArray(bare.tag) ? bare.tag : bare.tag == null ? [] : [bare.tag];
      reduced.tag = tags.filter((t) => ["Mention", "Hashtag", "Emoji"].includes(t.type));
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
  const m45 = (n: number, extra: Doc = {}) =>
    create({ ...mastodon45Note(n), ...extra }, MASTODON_45_CONTEXT);
  const misskey = (note: Doc): Doc => create(note, MISSKEY_CONTEXT);
  const expected = [
    // The inbound bench's two shapes, as it sends them: it measures this path.
    inboundCreate("minimal", ACTOR, `${ACTOR}/notes/bench-1`, "1"),
    inboundCreate("mastodon45", ACTOR, `${ACTOR}/notes/bench-2`, "2"),
    create(mastodonNote(1)),
    create(mastodonNote(2), AS),
    create({ ...mastodonNote(3), to: PUBLIC, cc: undefined, contentMap: undefined }),
    create({ ...mastodonNote(4), content: undefined, summary: null, inReplyTo: null }),
    create({ ...mastodonNote(5), tag: { type: "Mention", href: `${PEER}/users/azrael` } }),
    create({ ...mastodonNote(6), to: [PUBLIC, PUBLIC], cc: [] }),
    m45(7),
    m45(8, { summary: null, sensitive: false, inReplyTo: null, inReplyToAtomUri: null }),
    m45(9, { interactionPolicy: { canQuote: { automaticApproval: [ACTOR] } } }),
    m45(10, { interactionPolicy: { canQuote: { automaticApproval: PUBLIC, manualApproval: [] } } }),
    m45(11, {
      attachment: [
        { type: "Document", mediaType: "image/jpeg", url: `${PEER}/m/1.jpg`, name: null },
        { type: "Video", mediaType: "video/mp4", url: `${PEER}/m/2.mp4`, width: 640 },
        { type: "Audio", url: `${PEER}/m/3.mp3`, summary: "a song" },
        { type: "Image", mediaType: "image/gif", url: `${PEER}/m/4.gif`, blurhash: null },
      ],
    }),
    m45(12, { tag: [], attachment: [], contentMap: { de: "<p>a</p>", ca: "<p>b</p>" } }),
    create(mastodon45Note(13), [AS, "https://w3id.org/security/v1", MASTODON_45_CONTEXT[1]]),
    // Under ActivityStreams' context alone: no sensitive, hashtag or policy as JSON-LD reads it.
    create({ ...mastodon45Note(14), tag: (mastodon45Note(14).tag as Doc[]).slice(0, 2) }, AS),
    misskey(misskeyNote(1)),
    misskey({ ...misskeyNote(2), attachment: [], inReplyTo: `${PEER}/notes/9kf1` }),
    create(gotosocialNote(1), GOTOSOCIAL_CONTEXT),
  ];
  const documents = [
    ...expected,
    // A note with a thumbnail and a duration (a video): Fedify's.
    m45(20, { attachment: [{ type: "Document", url: `${PEER}/v.mp4`, duration: "PT12.5S" }] }),
    ...corpusCreates(),
  ];
  for (const doc of documents) {
    const fast = plainCreate(structuredClone(doc));
    if (!fast) continue;
    accepted.push(doc);
    assert.deepEqual(await reading(fast), await fedifyReading(doc), JSON.stringify(doc));
    // The JSON remembered is the one received (the listeners read Mastodon's terms from it).
    assert.deepEqual(await receivedJson(fast), doc);
    assert.deepEqual(await receivedJson(await fast.getObject()), (doc as Doc).object);
  }
  // The documents above, and the corpus's notes (as written, or reduced to what is read).
  assert.ok(accepted.length >= 40, `only ${accepted.length} accepted`);
  for (const doc of expected) assert.ok(accepted.includes(doc), JSON.stringify(doc));
});

test("a Create(Note) with Mastodon's Linked Data signature reads as without it, and keeps it", async () => {
  const keys = await rsaKeyPair(2048);
  const sign = (doc: Doc) => ldSigned(doc, keys.privateKey, `${ACTOR}#main-key`);
  const unsigned = [
    inboundCreate("minimal", ACTOR, `${ACTOR}/notes/bench-1`, "1"),
    inboundCreate("mastodon45", ACTOR, `${ACTOR}/notes/bench-2`, "2"),
    create(mastodonNote(1)),
    create({ ...mastodon45Note(2) }, MASTODON_45_CONTEXT),
    create(misskeyNote(3), MISSKEY_CONTEXT),
  ];
  for (const doc of unsigned) {
    const signed = await sign(doc);
    assert.equal((signed.signature as Doc).type, "RsaSignature2017");
    const fast = plainCreate(structuredClone(signed));
    assert.ok(fast, JSON.stringify(signed));
    // As Fedify reads it, signed or not (its queued handler detaches the signature first).
    assert.deepEqual(await reading(fast), await fedifyReading(doc));
    assert.deepEqual(await reading(fast), await fedifyReading(signed));
    // The JSON remembered (and forwarded) is the one received, signature and all.
    assert.deepEqual(await receivedJson(fast), signed);
  }
  // Another shape under `signature` is Fedify's, as before.
  const signed = await sign(create(mastodonNote(4)));
  const signature = signed.signature as Doc;
  const hostile: [string, unknown][] = [
    ["a string", "RsaSignature2017"],
    ["a list", [signature]],
    ["null", null],
    ["another suite", { ...signature, type: "Ed25519Signature2018" }],
    ["an extra key", { ...signature, nonce: "x" }],
    ["a nested value", { ...signature, creator: { id: `${ACTOR}#main-key` } }],
    ["a huge value", { ...signature, signatureValue: "A".repeat(600_000) }],
    ["no creator", { ...signature, creator: undefined }],
    ["another context", { ...signature, "@context": "https://evil.example/" }],
    ["a keyword", { ...signature, "@type": "sec:RsaSignature2017" }],
  ];
  for (const [what, value] of hostile) {
    assert.equal(plainCreate({ ...signed, signature: value }), null, what);
  }
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
    ["an Emoji tag without an icon", create({ ...note, tag: [{ type: "Emoji", name: ":x:" }] })],
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

test("a Mastodon 4.5 note whose media, emoji or policy could read otherwise is left to Fedify", () => {
  const note = mastodon45Note(1);
  const m45 = (extra: Doc, context: unknown = MASTODON_45_CONTEXT) =>
    create({ ...note, ...extra }, context);
  const image = (note.attachment as Doc[])[0];
  const [mention, hashtag, emoji] = note.tag as Doc[];
  const icon = emoji.icon as Doc;
  const withMedia = (extra: Doc) => m45({ attachment: [{ ...image, ...extra }] });
  const withEmoji = (extra: Doc) => m45({ tag: [mention, hashtag, { ...emoji, ...extra }] });
  const withPolicy = (policy: unknown) => m45({ interactionPolicy: policy });
  const [AS_, terms] = MASTODON_45_CONTEXT as [string, Doc];
  const withTerms = (extra: Doc) => m45({}, [AS_, { ...terms, ...extra }]);
  const { gts: _gts, ...withoutGts } = terms;
  const { canQuote: _canQuote, ...withoutCanQuote } = terms;
  const refused: [string, unknown][] = [
    ["media with an id on another origin", withMedia({ id: "https://elsewhere.example/m/1" })],
    ["media with an id", withMedia({ id: `${PEER}/media/1` })],
    ["a media URL as a Link", withMedia({ url: { type: "Link", href: `${PEER}/a.png` } })],
    ["media URLs", withMedia({ url: [`${PEER}/a.png`, `${PEER}/b.png`] })],
    ["a relative media URL", withMedia({ url: "/a.png" })],
    ["a media URL that is not http(s)", withMedia({ url: "data:image/png;base64,AAAA" })],
    ["a thumbnail", withMedia({ icon: { type: "Image", url: `${PEER}/t.png` } })],
    ["a duration", withMedia({ duration: "PT12.5S" })],
    ["a width as a string", withMedia({ width: "1200" })],
    ["a negative height", withMedia({ height: -1 })],
    ["a fractional width", withMedia({ width: 12.5 })],
    ["a focal point of three", withMedia({ focalPoint: [0, 0, 0] })],
    ["a focal point of strings", withMedia({ focalPoint: ["0", "0"] })],
    ["a blurhash that is no string", withMedia({ blurhash: 7 })],
    ["a description per language", withMedia({ name: ["a", "b"] })],
    ["a typed value", withMedia({ name: { "@value": "a", "@language": "en" } })],
    ["a media type list", withMedia({ mediaType: ["image/png"] })],
    ["a preview card's Link", m45({ attachment: [{ type: "Link", href: `${PEER}/page` }] })],
    ["media of two types", withMedia({ type: ["Document", "Image"] })],
    ["an Emoji with an id on another origin", withEmoji({ id: "https://elsewhere.example/e/1" })],
    ["an Emoji without an icon", withEmoji({ icon: undefined })],
    ["an Emoji icon as a Link", withEmoji({ icon: { ...icon, type: "Link" } })],
    ["an Emoji icon with URLs", withEmoji({ icon: { ...icon, url: [icon.url, icon.url] } })],
    ["an Emoji icon with an id", withEmoji({ icon: { ...icon, id: `${PEER}/e.png` } })],
    ["an Emoji with two names", withEmoji({ name: [":a:", ":b:"] })],
    ["an Emoji of two types", withEmoji({ type: ["Emoji", "Image"] })],
    ["an Emoji under ActivityStreams' context", m45({}, AS)],
    ["Emoji as another term", withTerms({ Emoji: "as:Emoji" })],
    ["Mastodon's namespace elsewhere", withTerms({ toot: "https://evil.example/ns#" })],
    ["GoToSocial's namespace elsewhere", withTerms({ gts: "https://evil.example/ns#" })],
    ["the policy without GoToSocial's namespace", m45({}, [AS_, withoutGts])],
    ["mediaType redefined", withTerms({ mediaType: "toot:mediaType" })],
    ["url redefined", withTerms({ url: { "@id": "as:url", "@type": "@vocab" } })],
    ["focalPoint as a set", withTerms({ focalPoint: "toot:focalPoint" })],
    ["an approval list of literals", withTerms({ automaticApproval: "gts:automaticApproval" })],
    ["canQuote left undefined", m45({}, [AS_, withoutCanQuote])],
    ["a term defined twice", m45({}, [AS_, terms, { Emoji: "toot:Emoji" }])],
    ["GoToSocial's older spelling", withPolicy({ canQuote: { always: [PUBLIC] } })],
    ["an approval as an object", withPolicy({ canQuote: { automaticApproval: { id: PUBLIC } } })],
    ["a relative approval", withPolicy({ canQuote: { automaticApproval: ["followers"] } })],
    ["an unknown sub-policy", withPolicy({ canFeature: { automaticApproval: [PUBLIC] } })],
    ["a sub-policy as an IRI", withPolicy({ canQuote: PUBLIC })],
    ["a policy as an IRI", withPolicy(`${PEER}/policies/1`)],
    ["replies of another type", m45({ replies: { type: "Note", content: "x" } })],
    ["replies with a keyword", m45({ replies: { type: "Collection", "@type": "as:Note" } })],
    ["a source with a keyword", m45({ source: { content: "x", "@language": "en" } })],
    ["a source text that is no string", m45({ _misskey_content: { "@value": "x" } })],
    ["a quote", m45({ quote: `${PEER}/users/gargamel/statuses/0` })],
    ["Misskey's quote", m45({ _misskey_quote: `${PEER}/notes/0` })],
    ["a quote authorization", m45({ quoteAuthorization: `${PEER}/stamps/0` })],
    ["a poll's voters", m45({ votersCount: 3 })],
  ];
  assert.ok(plainCreate(m45({})), "the unaltered note is read");
  for (const [what, doc] of refused) assert.equal(plainCreate(doc), null, what);
});
