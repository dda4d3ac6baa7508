/**
 * The FEP-7aa9 documents we serve and send, as Mastodon 4.6 writes them
 * (its FeaturedCollection, FeaturedItem, FeatureRequest,
 * FeatureAuthorization, Accept/Reject of a request, Add/Remove/Update of a
 * collection or an item), built by pure functions from what
 * featured_collection_rows.ts reads. The ids are ours
 * (model/collection_uris.ts); receivers only compare them.
 *
 * Every document carries {@link FEATURED_CONTEXT}: the terms inline, so
 * nothing needs fetching to read (or LD-sign) it; we write the FEP's IRIs
 * and read any spelling (federation/dialects/featured_collections.ts).
 * Documents embedded in an activity carry no context of their own. Lists
 * are arrays and the public collection is written in full (the wire
 * shape, federation/objects/wire_shape.ts).
 */
import { escapeHtml } from "../../actors/formatting/escape_html.ts";
import type { FeaturePolicy } from "../../model/feature_policy.ts";
import type { NodeExtras } from "./mastodon_terms.ts";
import { PUBLIC_IRI } from "./wire_shape.ts";

type Json = Record<string, unknown>;

const FEP = "https://w3id.org/fep/7aa9#";

/** The `@context` of every FEP-7aa9 document we write. */
export const FEATURED_CONTEXT: readonly unknown[] = [
  "https://www.w3.org/ns/activitystreams",
  {
    toot: "http://joinmastodon.org/ns#",
    gts: "https://gotosocial.org/ns#",
    sensitive: "as:sensitive",
    Hashtag: "as:Hashtag",
    discoverable: "toot:discoverable",
    FeaturedCollection: `${FEP}FeaturedCollection`,
    FeaturedItem: `${FEP}FeaturedItem`,
    FeatureRequest: `${FEP}FeatureRequest`,
    FeatureAuthorization: `${FEP}FeatureAuthorization`,
    featuredObject: { "@id": `${FEP}featuredObject`, "@type": "@id" },
    featuredObjectType: `${FEP}featuredObjectType`,
    featureAuthorization: { "@id": `${FEP}featureAuthorization`, "@type": "@id" },
    topic: { "@id": `${FEP}topic`, "@type": "@id" },
    interactingObject: { "@id": "gts:interactingObject", "@type": "@id" },
    interactionTarget: { "@id": "gts:interactionTarget", "@type": "@id" },
  },
];

/** A document with {@link FEATURED_CONTEXT} first. */
function withContext(document: Json): Json {
  return { "@context": structuredClone(FEATURED_CONTEXT), ...document };
}

/** An ISO date-time without milliseconds, as Mastodon writes them. */
export function apTime(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** One accepted member of a collection, as its FeaturedItem names it. */
export interface FeaturedItemData {
  /** The item's id (ours for our collections). */
  id: string;
  /** The member's actor IRI. */
  memberUri: string;
  /** The member's actor type (`Person`, `Service`, `Group`…). */
  memberType: string;
  /** The member's stamp: ours for a local member, its server's for a remote one. */
  stampUri: string;
  createdAt: Date;
}

/** What a FeaturedCollection says. */
export interface FeaturedCollectionData {
  id: string;
  url: string;
  ownerUri: string;
  name: string;
  /** Plain text as typed (sent escaped). */
  description: string | null;
  language: string | null;
  sensitive: boolean;
  discoverable: boolean;
  /** The hashtag and its page on our server, or null. */
  tag: { name: string; url: string } | null;
  createdAt: Date;
  updatedAt: Date;
  /** The accepted items, in order. */
  items: FeaturedItemData[];
}

/** A FeaturedItem (no context: it is always embedded). */
export function featuredItemObject(item: FeaturedItemData): Json {
  return {
    id: item.id,
    type: "FeaturedItem",
    featuredObject: item.memberUri,
    featuredObjectType: item.memberType,
    featureAuthorization: item.stampUri,
    published: apTime(item.createdAt),
  };
}

/**
 * A FeaturedCollection, embedded (no context). Mastodon's serializer:
 * `summary` when the language is unknown, else only `summaryMap`; `topic`
 * only with a hashtag; `totalItems` and `orderedItems` the accepted items.
 */
export function featuredCollectionObject(collection: FeaturedCollectionData): Json {
  const summary = collection.description ? escapeHtml(collection.description) : null;
  return {
    id: collection.id,
    type: "FeaturedCollection",
    totalItems: collection.items.length,
    name: collection.name,
    attributedTo: collection.ownerUri,
    url: collection.url,
    sensitive: collection.sensitive,
    discoverable: collection.discoverable,
    published: apTime(collection.createdAt),
    updated: apTime(collection.updatedAt),
    ...(summary == null
      ? {}
      : collection.language
      ? { summaryMap: { [collection.language]: summary } }
      : { summary }),
    ...(collection.tag
      ? { topic: { type: "Hashtag", href: collection.tag.url, name: `#${collection.tag.name}` } }
      : {}),
    orderedItems: collection.items.map(featuredItemObject),
  };
}

/** The FeaturedCollection as served at its id. */
export function featuredCollectionDocument(collection: FeaturedCollectionData): Json {
  return withContext(featuredCollectionObject(collection));
}

/** An actor's `featuredCollections`: the collection, pointing at its first page. */
export function featuredCollectionsDocument(
  input: { id: string; totalItems: number },
): Json {
  return {
    "@context": "https://www.w3.org/ns/activitystreams",
    id: input.id,
    type: "Collection",
    totalItems: input.totalItems,
    first: `${input.id}?page=1`,
  };
}

/** One page of an actor's `featuredCollections` (1-based), with its collections embedded. */
export function featuredCollectionsPage(
  input: { id: string; page: number; totalItems: number; hasNext: boolean },
  collections: FeaturedCollectionData[],
): Json {
  return withContext({
    id: `${input.id}?page=${input.page}`,
    type: "CollectionPage",
    totalItems: input.totalItems,
    partOf: input.id,
    ...(input.hasNext ? { next: `${input.id}?page=${input.page + 1}` } : {}),
    ...(input.page > 1 ? { prev: `${input.id}?page=${input.page - 1}` } : {}),
    items: collections.map(featuredCollectionObject),
  });
}

/** A member's stamp: its consent to be in a collection. */
export interface StampData {
  id: string;
  collectionUri: string;
  memberUri: string;
}

function stampObject(stamp: StampData): Json {
  return {
    id: stamp.id,
    type: "FeatureAuthorization",
    interactingObject: stamp.collectionUri,
    interactionTarget: stamp.memberUri,
  };
}

/** The FeatureAuthorization as served at its id. */
export function featureAuthorizationDocument(stamp: StampData): Json {
  return withContext(stampObject(stamp));
}

/** The curator asks the member's server to let it feature the member. */
export function featureRequestActivity(
  input: { id: string; curatorUri: string; memberUri: string; collectionUri: string },
): Json {
  return withContext({
    id: input.id,
    type: "FeatureRequest",
    actor: input.curatorUri,
    to: [input.memberUri],
    object: input.memberUri,
    instrument: input.collectionUri,
  });
}

/** The member's server answers a FeatureRequest: Accept (with the stamp) or Reject. */
export function featureAnswerActivity(
  input: {
    id: string;
    memberUri: string;
    curatorUri: string;
    requestUri: string;
    /** The stamp of an acceptance; null for a refusal. */
    stampUri: string | null;
  },
): Json {
  return {
    "@context": "https://www.w3.org/ns/activitystreams",
    id: input.id,
    type: input.stampUri ? "Accept" : "Reject",
    actor: input.memberUri,
    to: [input.curatorUri],
    object: input.requestUri,
    ...(input.stampUri ? { result: input.stampUri } : {}),
  };
}

/** Add of a collection (to `featuredCollections`) or of an item (to its collection). */
export function addActivity(
  input: { id: string; actorUri: string; target: string; object: Json },
): Json {
  return withContext({
    id: input.id,
    type: "Add",
    actor: input.actorUri,
    target: input.target,
    object: input.object,
  });
}

/** Remove of a collection (from `featuredCollections`) or of an item (from its collection). */
export function removeActivity(
  input: { id: string; actorUri: string; target: string; object: string },
): Json {
  return withContext({
    id: input.id,
    type: "Remove",
    actor: input.actorUri,
    target: input.target,
    object: input.object,
  });
}

/** Update of a collection, addressed to the public as Mastodon's. */
export function updateCollectionActivity(
  input: { id: string; collection: FeaturedCollectionData },
): Json {
  return withContext({
    id: input.id,
    type: "Update",
    actor: input.collection.ownerUri,
    to: [PUBLIC_IRI],
    object: featuredCollectionObject(input.collection),
  });
}

/** The member takes its consent back: Delete of its stamp. */
export function stampDeleteActivity(stamp: StampData): Json {
  return withContext({
    id: `${stamp.id}#delete`,
    type: "Delete",
    actor: stamp.memberUri,
    to: [PUBLIC_IRI],
    object: stampObject(stamp),
  });
}

/**
 * What our actor says of its collections (Mastodon's actor serializer):
 * where they are listed (`featuredCollections`), and who may feature it
 * (`interactionPolicy.canFeature.automaticApproval`: the public, its
 * followers while it approves followers by hand, or only itself when it
 * is not discoverable), with the context the two FEP terms need (the
 * GoToSocial context our actors carry defines the others).
 */
export function actorCollectionTerms(
  input: {
    actorUri: string;
    followersUri: string;
    featuredCollectionsUri: string;
    policy: FeaturePolicy;
  },
): NodeExtras {
  const iris = input.policy.automatic.map((word) =>
    word === "public" ? PUBLIC_IRI : word === "followers" ? input.followersUri : null
  ).filter((iri): iri is string => iri != null);
  return {
    members: {
      featuredCollections: input.featuredCollectionsUri,
      interactionPolicy: {
        canFeature: { automaticApproval: iris.length ? iris : [input.actorUri] },
      },
    },
    context: {
      featuredCollections: { "@id": `${FEP}featuredCollections`, "@type": "@id" },
      canFeature: { "@id": `${FEP}canFeature`, "@type": "@id" },
    },
  };
}
