/**
 * Create(Note) documents as servers write them, for the tests of
 * federation/inbox/plain_create.ts (plain_create_test.ts,
 * plain_dispatch_test.ts) and the inbound bench's Mastodon 4.5 shape
 * (bench/inbound.ts): Mastodon before 4.5 and 4.5 (its serializer and
 * context, app/serializers/activitypub/note_serializer.rb and
 * app/lib/activitypub/adapter.rb), Misskey and GoToSocial.
 */
export const AS = "https://www.w3.org/ns/activitystreams";
export const PUBLIC = `${AS}#Public`;
export const PEER = "https://peer.example";
export const ACTOR = `${PEER}/users/gargamel`;
export const MASTODON_CONTEXT = [
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

/** The context Mastodon 4.5 writes on a Create(Note) (app/lib/activitypub/adapter.rb). */
export const MASTODON_45_CONTEXT = [
  AS,
  {
    ostatus: "http://ostatus.org#",
    atomUri: "ostatus:atomUri",
    inReplyToAtomUri: "ostatus:inReplyToAtomUri",
    conversation: "ostatus:conversation",
    sensitive: "as:sensitive",
    toot: "http://joinmastodon.org/ns#",
    votersCount: "toot:votersCount",
    quote: "https://w3id.org/fep/044f#quote",
    quoteUri: "http://fedibird.com/ns#quoteUri",
    _misskey_quote: "https://misskey-hub.net/ns#_misskey_quote",
    quoteAuthorization: { "@id": "https://w3id.org/fep/044f#quoteAuthorization", "@type": "@id" },
    gts: "https://gotosocial.org/ns#",
    interactionPolicy: { "@id": "gts:interactionPolicy", "@type": "@id" },
    canQuote: { "@id": "gts:canQuote", "@type": "@id" },
    automaticApproval: { "@id": "gts:automaticApproval", "@type": "@id" },
    manualApproval: { "@id": "gts:manualApproval", "@type": "@id" },
    blurhash: "toot:blurhash",
    focalPoint: { "@container": "@list", "@id": "toot:focalPoint" },
    Hashtag: "as:Hashtag",
    Emoji: "toot:Emoji",
  },
];
/** Misskey's context on a note (its ApRendererService, abridged to the note's terms and a few more). */
export const MISSKEY_CONTEXT = [
  AS,
  "https://w3id.org/security/v1",
  {
    Key: "sec:Key",
    manuallyApprovesFollowers: "as:manuallyApprovesFollowers",
    sensitive: "as:sensitive",
    Hashtag: "as:Hashtag",
    quoteUrl: "as:quoteUrl",
    toot: "http://joinmastodon.org/ns#",
    Emoji: "toot:Emoji",
    featured: "toot:featured",
    discoverable: "toot:discoverable",
    schema: "http://schema.org#",
    PropertyValue: "schema:PropertyValue",
    value: "schema:value",
    misskey: "https://misskey-hub.net/ns#",
    _misskey_content: "misskey:_misskey_content",
    _misskey_quote: "misskey:_misskey_quote",
    _misskey_reaction: "misskey:_misskey_reaction",
    _misskey_votes: "misskey:_misskey_votes",
    _misskey_summary: "misskey:_misskey_summary",
    isCat: "misskey:isCat",
    vcard: "http://www.w3.org/2006/vcard/ns#",
  },
];

export type Doc = Record<string, unknown>;

/** A Create of `note`, as Mastodon wraps one. */
export function create(note: Doc, context: unknown = MASTODON_CONTEXT): Doc {
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
export function mastodonNote(n: number): Doc {
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

/**
 * A note as Mastodon 4.5 writes one (app/serializers/activitypub/note_serializer.rb):
 * a reply with a mention, a hashtag, a custom emoji, an image on the media
 * host, a content warning and who may quote it.
 */
export function mastodon45Note(n: number): Doc {
  const id = `${ACTOR}/statuses/${n}`;
  return {
    ...mastodonNote(n),
    content:
      '<p><span class="h-card">@azrael</span> :smurf: <a href="/tags/potions">#Potions</a></p>',
    contentMap: { en: "<p>@azrael :smurf: #Potions</p>" },
    attachment: [{
      type: "Document",
      mediaType: "image/png",
      url: `https://files.peer-cdn.example/media_attachments/files/${n}/original/a.png`,
      name: "A cauldron",
      blurhash: "UBL_:rOpGG-oBUNG,qRj2so|=eE1w^n4S5NH",
      focalPoint: [-0.5, 0.25],
      width: 1200,
      height: 800,
    }],
    tag: [
      { type: "Mention", href: `${PEER}/users/azrael`, name: "@azrael@peer.example" },
      { type: "Hashtag", href: `${PEER}/tags/potions`, name: "#Potions" },
      {
        id: `${PEER}/emojis/4`,
        type: "Emoji",
        name: ":smurf:",
        updated: "2024-06-01T08:00:00Z",
        icon: {
          type: "Image",
          mediaType: "image/png",
          url: "https://files.peer-cdn.example/custom_emojis/images/4/smurf.png",
        },
      },
    ],
    interactionPolicy: {
      canQuote: { automaticApproval: [PUBLIC, `${ACTOR}/followers`] },
    },
    context: `${PEER}/contexts/${n}`,
    replies: { ...(mastodonNote(n).replies as Doc), id: `${id}/replies` },
  };
}

/** A note as Misskey writes one (its source text, an emoji, a file, no language map). */
export function misskeyNote(n: number): Doc {
  const id = `${PEER}/notes/9kf${n}`;
  return {
    id,
    type: "Note",
    attributedTo: ACTOR,
    content: `<p>nyaa <span>:blobcat:</span> <a href="${PEER}/tags/neko" rel="tag">#neko</a></p>`,
    _misskey_content: "nyaa :blobcat: #neko",
    source: { content: "nyaa :blobcat: #neko", mediaType: "text/x.misskeymarkdown" },
    published: "2025-05-02T10:00:00.000Z",
    to: [PUBLIC],
    cc: [`${ACTOR}/followers`],
    inReplyTo: null,
    attachment: [{
      type: "Document",
      mediaType: "image/webp",
      url: `${PEER}/files/webpublic-${n}.webp`,
      name: null,
      sensitive: false,
    }],
    sensitive: false,
    tag: [
      { type: "Hashtag", href: `${PEER}/tags/neko`, name: "#neko" },
      { type: "Mention", href: `${PEER}/users/azrael`, name: "@azrael" },
      {
        id: `${PEER}/emojis/blobcat`,
        type: "Emoji",
        name: ":blobcat:",
        updated: "2024-03-01T00:00:00.000Z",
        icon: { type: "Image", mediaType: "image/png", url: `${PEER}/files/blobcat.png` },
      },
    ],
  };
}

/** GoToSocial's note and its four sub-policies, under an inline context (GoToSocial's own names its context first: not read here). */
export function gotosocialNote(n: number): Doc {
  return {
    id: `${ACTOR}/statuses/01HX${n}`,
    type: "Note",
    attributedTo: ACTOR,
    to: PUBLIC,
    cc: `${ACTOR}/followers`,
    url: `${PEER}/@gargamel/statuses/01HX${n}`,
    published: "2025-05-04T10:00:00Z",
    content: "<p>hanging in the trees</p>",
    contentMap: { en: "<p>hanging in the trees</p>" },
    sensitive: false,
    summary: "",
    attachment: [{
      type: "Image",
      mediaType: "image/webp",
      url: `${PEER}/fileserver/01/original/${n}.webp`,
      name: "a sloth",
      blurhash: "LIIE|gRj00WB-;j[t7j[4nWBj[Rj",
      focalPoint: [0, -0.6],
      width: 1200,
      height: 800,
    }],
    tag: { type: "Hashtag", href: `${PEER}/tags/trees`, name: "#trees" },
    interactionPolicy: {
      canLike: { automaticApproval: PUBLIC },
      canReply: { automaticApproval: [PUBLIC], manualApproval: [] },
      canAnnounce: { automaticApproval: `${ACTOR}/followers`, manualApproval: PUBLIC },
      canQuote: { automaticApproval: [ACTOR] },
    },
  };
}
export const GOTOSOCIAL_CONTEXT = [AS, {
  gts: "https://gotosocial.org/ns#",
  interactionPolicy: { "@id": "gts:interactionPolicy", "@type": "@id" },
  canLike: { "@id": "gts:canLike", "@type": "@id" },
  canReply: { "@id": "gts:canReply", "@type": "@id" },
  canAnnounce: { "@id": "gts:canAnnounce", "@type": "@id" },
  canQuote: { "@id": "gts:canQuote", "@type": "@id" },
  automaticApproval: { "@id": "gts:automaticApproval", "@type": "@id" },
  manualApproval: { "@id": "gts:manualApproval", "@type": "@id" },
  Hashtag: "as:Hashtag",
  sensitive: "as:sensitive",
  toot: "http://joinmastodon.org/ns#",
  blurhash: "toot:blurhash",
  focalPoint: { "@container": "@list", "@id": "toot:focalPoint" },
}];
