/**
 * Mastodon's extension terms, and the other dialects' spellings of them, read
 * from the JSON another server sent, whatever its `@context` says.
 *
 * Fedify reads a document through JSON-LD: a term the sender's context does
 * not define (a Misskey or WordPress peer that sends only the ActivityStreams
 * context, yet writes `"type": "Hashtag"` or `"manuallyApprovesFollowers":
 * true`) is dropped by the expansion. Mastodon reads these keys from the raw
 * JSON, so peers send them that way and expect to be understood. This module
 * reads them the same way: each term under its compact key, its prefixed
 * form (`toot:featured`, `as:sensitive`, `schema:PropertyValue`) and its full
 * IRI (`http://joinmastodon.org/ns#featured`), with expanded JSON-LD values
 * (`[{"@value": …}]`, `{"@id": …}`, `{"@list": […]}`) unwrapped.
 *
 * Everything here is untrusted and pure: wrong types read as absent, lists
 * are bounded, URLs must be http(s) (federation/fetch/trust.ts webUrl), strings are
 * bounded before anyone sanitizes them. Nothing is written; the callers
 * (federation/objects/remote_status.ts, federation/remote/accounts.ts) merge
 * these values into what Fedify's typed objects give.
 */
import type { RemoteEmojiInput } from "../../actors/emoji/links.ts";
import { MAX_EMOJIS_PER_OBJECT } from "../../actors/emoji/shortcodes.ts";
import { validShortcode } from "../../model/emoji_shortcodes.ts";
import { checkLanguage } from "../../actors/statuses/validation.ts";
import { webUrl } from "../fetch/trust.ts";

/** A JSON object as received. */
export type Json = Record<string, unknown>;

/** The prefixes and namespace IRIs a term may be written with. */
export const NS = {
  as: ["as:", "https://www.w3.org/ns/activitystreams#"],
  toot: ["toot:", "http://joinmastodon.org/ns#"],
  schema: [
    "schema:",
    "http://schema.org#",
    "http://schema.org/",
    "https://schema.org#",
    "https://schema.org/",
  ],
  misskey: ["misskey:", "https://misskey-hub.net/ns#"],
  fedibird: ["fedibird:", "http://fedibird.com/ns#"],
  fep044f: ["https://w3id.org/fep/044f#"],
  gts: ["gts:", "https://gotosocial.org/ns#"],
} as const;

/** Tags, attachments and fields read from one object at most. */
export const MAX_TERM_ITEMS = 50;
/** Aliases (`alsoKnownAs`) and attribution domains read at most. */
const MAX_ALIASES = 20;
/** Profile fields kept (Mastodon keeps at most 16 remote fields). */
const MAX_FIELDS = 16;

export function isJson(value: unknown): value is Json {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * The value of a term, looked up under its compact key and every spelling
 * of its namespaces; undefined when absent.
 */
export function term(object: Json, name: string, namespaces: readonly string[]): unknown {
  if (name in object) return object[name];
  for (const prefix of namespaces) {
    const key = prefix + name;
    if (key in object) return object[key];
  }
  return undefined;
}

/** Unwraps an expanded JSON-LD value: a one-item array, `@value`, `@id`, `@list`. */
export function unwrap(value: unknown): unknown {
  let current = value;
  for (let i = 0; i < 4; i++) {
    if (Array.isArray(current) && current.length === 1) current = current[0];
    else if (isJson(current) && "@value" in current) current = current["@value"];
    else if (isJson(current) && "@list" in current) current = current["@list"];
    else break;
  }
  return current;
}

/** A list of values (a single value is a list of one), at most `max`. */
export function list(value: unknown, max: number): unknown[] {
  const v = isJson(value) && "@list" in value ? value["@list"] : value;
  if (v === undefined || v === null) return [];
  return (Array.isArray(v) ? v : [v]).slice(0, max);
}

export function bool(value: unknown): boolean | null {
  const v = unwrap(value);
  return typeof v === "boolean" ? v : null;
}

export function str(value: unknown, max: number): string | null {
  const v = unwrap(value);
  return typeof v === "string" && v.length <= max ? v : null;
}

/** An http(s) IRI: a string, or an object with `id`, `@id` or `href`. */
export function iri(value: unknown): string | null {
  const v = unwrap(value);
  if (typeof v === "string") return v.length <= 2_048 ? webUrl(v) : null;
  if (!isJson(v)) return null;
  for (const key of ["id", "@id", "href"]) {
    if (typeof v[key] === "string") return iri(v[key]);
  }
  return null;
}

/** Whether the object's `type` is `name` in one of `namespaces` (or compact). */
export function hasType(object: Json, name: string, namespaces: readonly string[]): boolean {
  const raw = object.type ?? object["@type"];
  const types = Array.isArray(raw) ? raw : [raw];
  return types.some((t) =>
    typeof t === "string" && (t === name || namespaces.some((prefix) => t === prefix + name))
  );
}

/** The items of a tag/attachment-like property, objects only. */
function items(object: Json, name: string): Json[] {
  return list(term(object, name, NS.as), MAX_TERM_ITEMS * 4).filter(isJson);
}

// ------------------------------------------------------------------ tags

/** Hashtag names (without `#`), as Mastodon reads `{"type": "Hashtag", "name": "#tag"}`. */
export function readHashtags(object: Json): string[] {
  return hashtagNames(items(object, "tag"), MAX_TERM_ITEMS);
}

/** The names of the `Hashtag` items among `tags`, deduplicated, at most `max`. */
function hashtagNames(tags: Json[], max: number): string[] {
  const names: string[] = [];
  for (const tag of tags) {
    const name = hashtagName(tag);
    if (!name) continue;
    if (!names.some((n) => n.toLowerCase() === name.toLowerCase())) names.push(name);
    if (names.length >= max) break;
  }
  return names;
}

/** The name (without `#`) of one `Hashtag` object; null when it is not one or is unusable. */
export function hashtagName(tag: Json): string | null {
  if (!hasType(tag, "Hashtag", NS.as)) return null;
  const name = str(term(tag, "name", NS.as), 200)?.trim().replace(/^#/, "") ?? "";
  return /^[\p{L}\p{N}_]{1,100}$/u.test(name) ? name : null;
}

/**
 * The hashtags listed by a `featuredTags` collection (Mastodon's
 * ActivityPub::FetchFeaturedTagsCollectionService): `Hashtag` items of the
 * collection or of its embedded first page, at most `max`. An item whose
 * `href` is there but not an http(s) URL is skipped.
 */
export function readFeaturedTagsCollection(collection: Json, max: number): string[] {
  const candidates: Json[] = [];
  const first = unwrap(term(collection, "first", NS.as));
  for (const page of [collection, first].filter(isJson)) {
    for (const key of ["orderedItems", "items"]) {
      candidates.push(...list(term(page, key, NS.as), max * 4).filter(isJson));
    }
  }
  const usable = candidates.filter((tag) => {
    const href = term(tag, "href", NS.as);
    return href === undefined || iri(href) !== null;
  });
  return hashtagNames(usable, max);
}

/** One `Emoji` tag: `{"type": "Emoji", "name": ":x:", "icon": {"url": …}}`; null when unusable. */
export function readEmoji(tag: Json): RemoteEmojiInput | null {
  if (!hasType(tag, "Emoji", NS.toot)) return null;
  const name = str(term(tag, "name", NS.as), 200)?.trim() ?? "";
  const shortcode = /^:([^:]+):$/.exec(name)?.[1] ?? "";
  if (!validShortcode(shortcode)) return null;
  const icon = unwrap(list(term(tag, "icon", NS.as), 1)[0]);
  // An Image with a url, as Mastodon reads `icon.url`; a bare link is not an emoji image.
  const url = isJson(icon) ? iri(term(icon, "url", NS.as)) : null;
  if (!url) return null;
  const mediaType = isJson(icon) ? str(term(icon, "mediaType", NS.as), 80) : null;
  return {
    shortcode,
    url,
    uri: iri(tag.id ?? tag["@id"]),
    contentType: mediaType && /^image\/[\w.+-]{1,60}$/.test(mediaType) ? mediaType : null,
  };
}

/** The usable Emoji tags, one per shortcode, at most MAX_EMOJIS_PER_OBJECT. */
export function readEmojis(object: Json): RemoteEmojiInput[] {
  const emojis: RemoteEmojiInput[] = [];
  for (const tag of items(object, "tag")) {
    const emoji = readEmoji(tag);
    if (emoji && !emojis.some((e) => e.shortcode === emoji.shortcode)) emojis.push(emoji);
    if (emojis.length >= MAX_EMOJIS_PER_OBJECT) break;
  }
  return emojis;
}

// ------------------------------------------------------------- languages

/**
 * The first entry of a language map (`contentMap`, `summaryMap`, `nameMap`):
 * its language (normalized, null when not ISO 639-1) and its text.
 */
export function firstOfMap(
  object: Json,
  name: string,
): { language: string | null; text: string } | null {
  const map = term(object, name, NS.as);
  if (!isJson(map)) return null;
  for (const [key, value] of Object.entries(map)) {
    if (typeof value !== "string") continue;
    let language: string | null = null;
    try {
      language = checkLanguage(key);
    } catch {
      // Not a language we can name ("und", a script subtag): text without a language.
    }
    return { language, text: value };
  }
  return null;
}

/** What a status object says in words, with the language maps as Mastodon reads them. */
export interface StatusTexts {
  /** `content`, else the first value of `contentMap` (never `_misskey_content`). */
  content: string | null;
  /** `summary`, else the first value of `summaryMap`. */
  summary: string | null;
  /** `name`, else the first value of `nameMap`. */
  name: string | null;
  /** The first key of `contentMap`, else of `nameMap`, else of `summaryMap` (Mastodon's order). */
  language: string | null;
}

/** Mastodon's StatusParser: text, spoiler text, title and language. */
export function readTexts(object: Json): StatusTexts {
  const content = firstOfMap(object, "contentMap");
  const summary = firstOfMap(object, "summaryMap");
  const name = firstOfMap(object, "nameMap");
  const plain = (key: string) => {
    const value = str(term(object, key, NS.as), 1_000_000);
    return value && value.trim() !== "" ? value : null;
  };
  return {
    content: plain("content") ?? content?.text ?? null,
    summary: plain("summary") ?? summary?.text ?? null,
    name: plain("name") ?? name?.text ?? null,
    language: content?.language ?? name?.language ?? summary?.language ?? null,
  };
}

// ---------------------------------------------------------------- status

/** blurhash and focal point of one attachment. */
export interface MediaExtras {
  blurhash?: string;
  focus?: [number, number];
}

/** `blurhash` and `focalPoint` of the attachments, by their URL. */
export function readMediaExtras(object: Json): Map<string, MediaExtras> {
  const extras = new Map<string, MediaExtras>();
  for (const item of items(object, "attachment").slice(0, MAX_TERM_ITEMS)) {
    const url = iri(list(term(item, "url", NS.as), 1)[0]);
    if (!url) continue;
    const blurhash = str(term(item, "blurhash", NS.toot), 100);
    const point = list(term(item, "focalPoint", NS.toot), 3).map(unwrap);
    const focus = point.length === 2 &&
        point.every((n) => typeof n === "number" && Number.isFinite(n) && n >= -1 && n <= 1)
      ? point as [number, number]
      : undefined;
    extras.set(url, {
      ...(blurhash && /^[0-9A-Za-z#$%*+,\-.:;=?@[\]^_{|}~]+$/.test(blurhash) ? { blurhash } : {}),
      ...(focus ? { focus } : {}),
    });
  }
  return extras;
}

/**
 * The quoted post, in every form peers send it, in Mastodon's order:
 * FEP-044f `quote`, `quoteUrl` (as:), Fedibird's `quoteUri`, Misskey's
 * `_misskey_quote`.
 */
export function readQuoteUri(object: Json): string | null {
  return iri(term(object, "quote", NS.fep044f)) ??
    iri(term(object, "quoteUrl", NS.as)) ??
    iri(term(object, "quoteUri", NS.fedibird)) ??
    iri(term(object, "_misskey_quote", NS.misskey));
}

/**
 * The object's web page (`url`), as Mastodon's `url_to_href(url, "text/html")`:
 * a string, or among Links (PeerTube lists its video files there too) the
 * one whose mediaType is text/html (or absent), else the first.
 */
export function readWebUrl(object: Json): string | null {
  const values = list(term(object, "url", NS.as), MAX_TERM_ITEMS);
  // A Link without a mediaType is a web page (Mastodon's reading).
  const html = values.find((v) =>
    isJson(v) && (str(term(v, "mediaType", NS.as), 100) ?? "text/html").startsWith("text/html")
  );
  for (const value of html ? [html] : values) {
    const href = isJson(value) ? iri(term(value, "href", NS.as) ?? value.url) : iri(value);
    if (href) return href;
  }
  return null;
}

/** What a status object carries beyond what Fedify reads whatever the context. */
export interface StatusTerms extends StatusTexts {
  hashtags: string[];
  emojis: RemoteEmojiInput[];
  /** `sensitive` (as:sensitive); null when absent. */
  sensitive: boolean | null;
  quoteUri: string | null;
  /** A poll's `votersCount`; null when absent or not a count. */
  votersCount: number | null;
  media: Map<string, MediaExtras>;
  /** The page its `Link` attachment names, for its preview card (FEP-8967); null when none. */
  cardLink: string | null;
}

/** Reads a status object (Note, Question, Article…) as received. */
export function readStatusTerms(object: Json): StatusTerms {
  const voters = unwrap(term(object, "votersCount", NS.toot));
  return {
    ...readTexts(object),
    hashtags: readHashtags(object),
    emojis: readEmojis(object),
    sensitive: bool(term(object, "sensitive", NS.as)),
    quoteUri: readQuoteUri(object),
    votersCount: typeof voters === "number" && Number.isSafeInteger(voters) && voters >= 0
      ? voters
      : null,
    media: readMediaExtras(object),
    cardLink: readCardLink(object),
  };
}

/**
 * The first `Link` attachment that names a web page (FEP-8967, as Mastodon
 * 4.7 writes and reads it: `{"type": "Link", "href": …, "mediaType":
 * "text/html"}`), the link its author chose for the preview card.
 */
export function readCardLink(object: Json): string | null {
  for (const item of items(object, "attachment").slice(0, MAX_TERM_ITEMS)) {
    if (!hasType(item, "Link", NS.as)) continue;
    const mediaType = term(item, "mediaType", NS.as);
    if (mediaType !== undefined && str(mediaType, 100) !== "text/html") continue;
    const href = iri(term(item, "href", NS.as));
    if (href) return href;
  }
  return null;
}

// ----------------------------------------------------------------- actor

/** A profile field as sent (plain name, HTML value: the caller sanitizes). */
export interface RawField {
  name: string;
  value: string;
}

/** `PropertyValue` attachments (schema.org's), as Mastodon reads profile fields. */
export function readFields(actor: Json): RawField[] {
  const fields: RawField[] = [];
  for (const item of items(actor, "attachment")) {
    if (!hasType(item, "PropertyValue", NS.schema)) continue;
    // Long values are cut (the caller bounds them again after sanitizing), not dropped.
    const name = str(term(item, "name", [...NS.as, ...NS.schema]), 1_000_000)?.slice(0, 1_000);
    const value = str(term(item, "value", NS.schema), 1_000_000)?.slice(0, 10_000);
    if (!name || value == null) continue;
    fields.push({ name, value });
    if (fields.length >= MAX_FIELDS) break;
  }
  return fields;
}

/** What an actor document carries in Mastodon's terms; null/empty when absent. */
export interface ActorTerms {
  fields: RawField[];
  manuallyApprovesFollowers: boolean | null;
  discoverable: boolean | null;
  indexable: boolean | null;
  memorial: boolean | null;
  featured: string | null;
  featuredTags: string | null;
  alsoKnownAs: string[];
  movedTo: string | null;
  /** Domains allowed to credit the account as author of their pages (lower case). */
  attributionDomains: string[];
  emojis: RemoteEmojiInput[];
  /** The profile tabs' switches (Mastodon 4.6: `showFeatured`, `showMedia`, `showRepliesInMedia`). */
  showFeatured: boolean | null;
  showMedia: boolean | null;
  showRepliesInMedia: boolean | null;
  /** The avatar's and header's descriptions (the `name` of `icon` and `image`). */
  iconName: string | null;
  imageName: string | null;
}

/** Reads an actor document as received. */
export function readActorTerms(actor: Json): ActorTerms {
  const domains = list(term(actor, "attributionDomains", NS.toot), MAX_ALIASES)
    .map((d) => str(d, 253)?.trim().toLowerCase() ?? "")
    .filter((d) => /^[a-z0-9.-]+(?::\d{1,5})?$/.test(d));
  return {
    fields: readFields(actor),
    manuallyApprovesFollowers: bool(term(actor, "manuallyApprovesFollowers", NS.as)),
    discoverable: bool(term(actor, "discoverable", NS.toot)),
    indexable: bool(term(actor, "indexable", NS.toot)),
    memorial: bool(term(actor, "memorial", NS.toot)),
    featured: iri(term(actor, "featured", NS.toot)),
    featuredTags: iri(term(actor, "featuredTags", NS.toot)),
    alsoKnownAs: [
      ...new Set(
        list(term(actor, "alsoKnownAs", NS.as), MAX_ALIASES).map(iri)
          .filter((u): u is string => u != null),
      ),
    ],
    movedTo: iri(term(actor, "movedTo", NS.as)),
    attributionDomains: [...new Set(domains)],
    emojis: readEmojis(actor),
    showFeatured: bool(term(actor, "showFeatured", NS.toot)),
    showMedia: bool(term(actor, "showMedia", NS.toot)),
    showRepliesInMedia: bool(term(actor, "showRepliesInMedia", NS.toot)),
    iconName: imageName(term(actor, "icon", NS.as)),
    imageName: imageName(term(actor, "image", NS.as)),
  };
}

/** The `name` of an actor's icon or image (its description), bounded; null when none. */
function imageName(value: unknown): string | null {
  const image = unwrap(value);
  return isJson(image) ? str(term(image, "name", NS.as), 10_000) : null;
}

// ------------------------------------------------------------------ interaction policies

/** The sub-policies of GoToSocial's `interactionPolicy`, as the wire names them. */
export type SubPolicyTerm = "canLike" | "canReply" | "canAnnounce";

/**
 * A sub-policy in GoToSocial's spelling before 0.20 (`always`,
 * `approvalRequired`; Fedify reads only `automaticApproval` and
 * `manualApproval`): its IRIs, at most `max` a list; null when the raw
 * JSON has no such sub-policy.
 */
export function readLegacyInteractionRule(
  object: Json,
  sub: SubPolicyTerm,
  max: number,
): { automatic: string[]; manual: string[] } | null {
  const policy = unwrap(term(object, "interactionPolicy", NS.gts));
  if (!isJson(policy)) return null;
  const rule = unwrap(term(policy, sub, NS.gts));
  if (!isJson(rule)) return null;
  const iris = (name: string) =>
    list(term(rule, name, NS.gts), max).map(iri).filter((v): v is string => v != null);
  return { automatic: iris("always"), manual: iris("approvalRequired") };
}
