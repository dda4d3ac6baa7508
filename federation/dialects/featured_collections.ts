/**
 * FEP-7aa9 (featured collections: Mastodon 4.6's collections, "starter
 * packs") as other servers write it, read from the raw JSON.
 *
 * Fedify 2.3.6 has no vocabulary for these types, and its parse of an
 * activity throws on a type it cannot place (an inbox would answer 400):
 * a `FeatureRequest`, or an `Add`/`Update` embedding a `FeaturedItem` or a
 * `FeaturedCollection`. {@link withBaseTypes} (called by the inbox guard on
 * the body it hands on) adds the ActivityStreams base type beside the FEP
 * type, so Fedify parses the activity as a plain Activity, Object or
 * OrderedCollection; the listeners (federation/inbox/collections.ts) then
 * read the FEP's terms here, from the JSON as received.
 *
 * Every term is read under its compact key, a prefix the document's own
 * `@context` defines for the namespace, and its full IRI, in the FEP's
 * namespace (`https://w3id.org/fep/7aa9#`) and in Mastodon's
 * (`http://joinmastodon.org/ns#`, which its first 4.6 releases used); the
 * interaction terms also in GoToSocial's. Untrusted and pure, as
 * terms.ts: wrong types read as absent, lists and strings bounded.
 */
import {
  bool,
  firstOfMap,
  hashtagName,
  hasType,
  iri,
  isJson,
  type Json,
  list,
  NS,
  readWebUrl,
  str,
  term,
  unwrap,
} from "./terms.ts";

/** The FEP's namespace. */
export const FEP_7AA9 = "https://w3id.org/fep/7aa9#";
/** GoToSocial's namespace (interaction policies, the stamps' terms). */
export const GTS_NS = "https://gotosocial.org/ns#";

/** Items of a remote collection read at most (Mastodon's ITEMS_LIMIT). */
export const MAX_COLLECTION_ITEMS = 150;
/** A remote collection's name kept at most (Mastodon's hard limit). */
export const MAX_REMOTE_NAME = 256;
/** A remote collection's description kept at most, before sanitizing. */
export const MAX_REMOTE_SUMMARY = 2_048;
/** IRIs of one approval list read at most. */
const MAX_POLICY_IRIS = 20;

/** The spellings of the two namespaces a document's terms may use. */
export interface Vocabulary {
  fep: readonly string[];
  gts: readonly string[];
}

const FEP_IRIS = [FEP_7AA9, NS.toot[1]];
const GTS_IRIS = [GTS_NS];

/**
 * The spellings of FEP-7aa9's and GoToSocial's terms in `doc`: the full
 * IRIs, Mastodon's `toot:` and GoToSocial's `gts:` prefixes, and any other
 * prefix the document's inline `@context` maps to one of those namespaces.
 */
export function vocabularyOf(doc: Json): Vocabulary {
  const fep = new Set<string>([...FEP_IRIS, "toot:"]);
  const gts = new Set<string>([...GTS_IRIS, "gts:"]);
  const context = doc["@context"];
  for (const entry of Array.isArray(context) ? context.slice(0, 16) : [context]) {
    if (!isJson(entry)) continue;
    for (const [prefix, value] of Object.entries(entry).slice(0, 200)) {
      const target = typeof value === "string" ? value : isJson(value) ? value["@id"] : null;
      if (typeof target !== "string" || prefix.includes(":")) continue;
      if (FEP_IRIS.includes(target)) fep.add(`${prefix}:`);
      else if (GTS_IRIS.includes(target)) gts.add(`${prefix}:`);
    }
  }
  return { fep: [...fep], gts: [...gts] };
}

/** The FEP-7aa9 types we read. */
export type FepType =
  | "FeaturedCollection"
  | "FeaturedItem"
  | "FeatureRequest"
  | "FeatureAuthorization";

/** Whether `node` is typed `name` (compact, prefixed or full IRI). */
export function isFepType(node: unknown, name: FepType, vocab: Vocabulary): node is Json {
  return isJson(node) && hasType(node, name, vocab.fep);
}

// ------------------------------------------------------------ the type shim

/** The ActivityStreams type Fedify can parse each FEP type as. */
const BASE_TYPE: Record<FepType, string> = {
  FeatureRequest: "Activity",
  FeaturedCollection: "OrderedCollection",
  FeaturedItem: "Object",
  FeatureAuthorization: "Object",
};

/** `node` with the base type of the first of `names` it has added; itself when none applies. */
function based(node: unknown, names: readonly FepType[], vocab: Vocabulary): unknown {
  if (!isJson(node)) return node;
  const name = names.find((n) => isFepType(node, n, vocab));
  if (!name) return node;
  const key = "type" in node ? "type" : "@type";
  const types = Array.isArray(node[key]) ? node[key] as unknown[] : [node[key]];
  const base = BASE_TYPE[name];
  if (hasType(node, base, NS.as)) return node;
  const shaped: Json = { ...node, [key]: [...types, base] };
  if (name === "FeaturedCollection") {
    for (const items of ["orderedItems", "items"]) {
      const value = shaped[items];
      if (Array.isArray(value)) {
        shaped[items] = value.slice(0, MAX_COLLECTION_ITEMS * 2)
          .map((item) => based(item, ["FeaturedItem"], vocab));
      } else if (value !== undefined) shaped[items] = based(value, ["FeaturedItem"], vocab);
    }
  }
  return shaped;
}

/** Where an activity may embed a FEP-7aa9 document. */
const EMBEDDING_TERMS = ["object", "instrument", "target", "result"];
const EMBEDDED_TYPES: readonly FepType[] = [
  "FeatureRequest",
  "FeaturedCollection",
  "FeaturedItem",
  "FeatureAuthorization",
];

/** Whether a node's type names a FEP-7aa9 type in some spelling (a cheap test, before any other). */
function mentionsFepType(node: unknown): boolean {
  if (!isJson(node)) return false;
  const raw = node.type ?? node["@type"];
  return (Array.isArray(raw) ? raw : [raw]).some((t) =>
    typeof t === "string" && /Feature(?:Request|dCollection|dItem|Authorization)$/.test(t)
  );
}

/**
 * The activity with an ActivityStreams base type added beside every
 * FEP-7aa9 type, at the top and in what it embeds (an Add's FeaturedItem, an
 * Update's FeaturedCollection and its items, an Accept's FeatureRequest, a
 * Delete's FeatureAuthorization), so Fedify's parse accepts it. The same
 * object when nothing was added (the body then goes on as received); other
 * activities cost one look at their types.
 */
export function withBaseTypes(activity: Json): Json {
  const embedded = EMBEDDING_TERMS.filter((key) => mentionsFepType(activity[key]));
  if (!mentionsFepType(activity) && embedded.length === 0) return activity;
  const vocab = vocabularyOf(activity);
  const out = { ...based(activity, ["FeatureRequest"], vocab) as Json };
  for (const key of embedded) out[key] = based(out[key], EMBEDDED_TYPES, vocab);
  return out;
}

// ------------------------------------------------------------------ readers

/** An IRI-valued term: the first http(s) IRI of its value. */
function iriTerm(node: Json, name: string, namespaces: readonly string[]): string | null {
  return iri(list(term(node, name, namespaces), 1)[0]);
}

/** A date-time term; null when absent or not a date. */
function dateTerm(node: Json, name: string): Date | null {
  const value = str(term(node, name, NS.as), 64);
  if (!value) return null;
  const time = Date.parse(value);
  return Number.isFinite(time) ? new Date(time) : null;
}

/** A node's own id (http(s)). */
export function idOfNode(node: unknown): string | null {
  if (typeof node === "string") return iri(node);
  return isJson(node) ? iri(node.id ?? node["@id"]) : null;
}

/** A FeaturedItem as its collection lists it. */
export interface FeaturedItemTerms {
  id: string;
  /** The featured actor. */
  featuredObject: string | null;
  /** `Person`, `Service`, `Group`…; null when absent. */
  featuredObjectType: string | null;
  /** The member's server's stamp (FeatureAuthorization). */
  featureAuthorization: string | null;
  published: Date | null;
}

/** Reads a FeaturedItem; null when it has no usable id. */
export function readFeaturedItem(node: unknown, vocab: Vocabulary): FeaturedItemTerms | null {
  if (!isJson(node)) return null;
  const id = idOfNode(node);
  if (!id) return null;
  return {
    id,
    featuredObject: iriTerm(node, "featuredObject", vocab.fep),
    featuredObjectType: str(term(node, "featuredObjectType", vocab.fep), 64),
    featureAuthorization: iriTerm(node, "featureAuthorization", vocab.fep),
    published: dateTerm(node, "published"),
  };
}

/** A FeaturedCollection as its owner's server describes it. */
export interface FeaturedCollectionTerms {
  id: string;
  attributedTo: string | null;
  /** At most {@link MAX_REMOTE_NAME} characters (longer names are cut). */
  name: string;
  /** HTML as sent (to sanitize), at most {@link MAX_REMOTE_SUMMARY} characters. */
  summary: string | null;
  /** The first key of `summaryMap` (ISO 639-1), else null. */
  language: string | null;
  sensitive: boolean;
  discoverable: boolean;
  /** Its HTML page; its id when it names none (as Mastodon stores it). */
  url: string;
  /** The hashtag name (without `#`) of its `topic`; null when none. */
  topic: string | null;
  totalItems: number | null;
  published: Date | null;
  updated: Date | null;
  /** Its items in order, embedded or by id, at most {@link MAX_COLLECTION_ITEMS}. */
  items: (FeaturedItemTerms | { id: string; reference: true })[];
}

/** Reads a FeaturedCollection; null when it is not one or has no usable id. */
export function readFeaturedCollection(
  node: unknown,
  vocab: Vocabulary,
): FeaturedCollectionTerms | null {
  if (!isFepType(node, "FeaturedCollection", vocab)) return null;
  const id = idOfNode(node);
  if (!id) return null;
  const map = firstOfMap(node, "summaryMap");
  const summary = str(term(node, "summary", NS.as), 1_000_000) ?? map?.text ?? null;
  const topic = unwrap(term(node, "topic", vocab.fep));
  const total = unwrap(term(node, "totalItems", NS.as));
  const listed = term(node, "orderedItems", NS.as) ?? term(node, "items", NS.as);
  const items: FeaturedCollectionTerms["items"] = [];
  for (const value of list(listed, MAX_COLLECTION_ITEMS)) {
    const item = typeof value === "string"
      ? (iri(value) ? { id: iri(value)!, reference: true as const } : null)
      : readFeaturedItem(unwrap(value), vocab);
    if (item) items.push(item);
  }
  return {
    id,
    attributedTo: iriTerm(node, "attributedTo", NS.as),
    name: (str(term(node, "name", NS.as), 1_000_000) ?? "").slice(0, MAX_REMOTE_NAME),
    summary: summary ? summary.slice(0, MAX_REMOTE_SUMMARY) : null,
    language: map?.language ?? null,
    sensitive: bool(term(node, "sensitive", NS.as)) ?? false,
    discoverable: bool(term(node, "discoverable", NS.toot)) ?? true,
    url: readWebUrl(node) ?? id,
    topic: isJson(topic) ? hashtagName({ ...topic, type: "Hashtag" }) : null,
    totalItems: typeof total === "number" && Number.isSafeInteger(total) && total >= 0
      ? total
      : null,
    published: dateTerm(node, "published"),
    updated: dateTerm(node, "updated"),
    items,
  };
}

/** A FeatureRequest: `actor` asks to put `object` in the collection `instrument`. */
export interface FeatureRequestTerms {
  id: string;
  actor: string | null;
  object: string | null;
  instrument: string | null;
}

/** Reads a FeatureRequest; null when it is not one or has no usable id. */
export function readFeatureRequest(node: unknown, vocab: Vocabulary): FeatureRequestTerms | null {
  if (!isFepType(node, "FeatureRequest", vocab)) return null;
  const id = idOfNode(node);
  if (!id) return null;
  return {
    id,
    actor: iriTerm(node, "actor", NS.as),
    object: iriTerm(node, "object", NS.as),
    instrument: iriTerm(node, "instrument", NS.as),
  };
}

/** A FeatureAuthorization: the member's consent to be in a collection. */
export interface FeatureAuthorizationTerms {
  id: string;
  /** The collection. */
  interactingObject: string | null;
  /** The featured actor. */
  interactionTarget: string | null;
}

/** Reads a FeatureAuthorization; null when it is not one or has no usable id. */
export function readFeatureAuthorization(
  node: unknown,
  vocab: Vocabulary,
): FeatureAuthorizationTerms | null {
  if (!isFepType(node, "FeatureAuthorization", vocab)) return null;
  const id = idOfNode(node);
  if (!id) return null;
  return {
    id,
    interactingObject: iriTerm(node, "interactingObject", vocab.gts),
    interactionTarget: iriTerm(node, "interactionTarget", vocab.gts),
  };
}

// -------------------------------------------------------------------- actor

/** An actor's `featuredCollections` (its collections); null when absent. */
export function readFeaturedCollectionsUrl(
  actor: Json,
  vocab = vocabularyOf(actor),
): string | null {
  return iriTerm(actor, "featuredCollections", vocab.fep);
}

/** The IRIs of an actor's `interactionPolicy.canFeature` rules. */
export interface CanFeatureRules {
  automaticApproval: string[];
  manualApproval: string[];
}

/**
 * An actor's `interactionPolicy.canFeature`, as IRIs; null when it
 * publishes none (FEP-7aa9: no policy, no consent).
 */
export function readCanFeature(actor: Json, vocab = vocabularyOf(actor)): CanFeatureRules | null {
  const policy = unwrap(term(actor, "interactionPolicy", vocab.gts));
  if (!isJson(policy)) return null;
  const rules = unwrap(term(policy, "canFeature", vocab.fep));
  if (!isJson(rules)) return null;
  const iris = (name: string) =>
    list(term(rules, name, vocab.gts), MAX_POLICY_IRIS)
      .map((value) => {
        const v = unwrap(value);
        // The public collection's compact forms, as terms.ts's audiences read them.
        if (v === "as:Public" || v === "Public") return `${NS.as[1]}Public`;
        return iri(v);
      })
      .filter((v): v is string => v != null);
  return { automaticApproval: iris("automaticApproval"), manualApproval: iris("manualApproval") };
}
