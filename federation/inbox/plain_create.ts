/**
 * A plainly shaped `Create(Note)`, as Mastodon and most servers write one,
 * read into Fedify's objects without JSON-LD.
 *
 * Fedify reads a queued activity with `Activity.fromJsonLd`, which expands
 * the document seven times over (the activity, then again per class it
 * passes through, then the note twice): about half a millisecond of CPU
 * for a short note, a fifth of what an inbound note cost. Mastodon itself
 * reads the terms of such a document from its JSON, whatever the
 * `@context` says; so does this module, for the documents where that
 * reading and Fedify's are the same by construction:
 *
 * - the context is the ActivityStreams one, optionally followed by
 *   `https://w3id.org/security/v1` and inline term definitions that leave
 *   every term read here as ActivityStreams defines it (see
 *   {@link contextTerms});
 * - the note has no context of its own, or its activity's again;
 * - every key of the activity and of its note is one this module reads
 *   (or one of Mastodon's that nothing reads from Fedify's objects), with
 *   values of the one shape it knows: absolute http(s) IRIs as strings,
 *   RFC 3339 instants, plain strings, tags that are mentions or hashtags,
 *   no attachments;
 * - the activity, its actor and its note are on one origin, so Fedify
 *   would trust the embedded note as the activity's object as well.
 *
 * Anything else is null, and the activity takes Fedify's parse. No
 * signature or proof is ever read here: a document carrying one is null.
 * The JSON each object came from is remembered on it (dialects/received.ts),
 * as the inbox listeners read Mastodon's extension terms from it.
 */
import { Create, Hashtag, LanguageString, Mention, Note } from "@fedify/vocab";
import { remember } from "../dialects/received.ts";
import { isJson, type Json } from "../dialects/terms.ts";

const AS = "https://www.w3.org/ns/activitystreams";
const SECURITY_V1 = "https://w3id.org/security/v1";

/** The activity's keys read here. */
const ACTIVITY_KEYS = new Set([
  "@context",
  "id",
  "type",
  "actor",
  "published",
  "to",
  "cc",
  "object",
]);
/** The note's keys read here. */
const NOTE_KEYS = new Set([
  "@context",
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
  "tag",
  "attachment",
]);
/**
 * Mastodon's keys that Fedify's objects would carry but nothing reads from
 * them (OStatus ids; the replies, likes and shares collections): skipped.
 */
const SKIPPED_NOTE_KEYS = new Set([
  "atomUri",
  "inReplyToAtomUri",
  "conversation",
  "replies",
  "likes",
  "shares",
]);
/** Keys of a tag read here. */
const TAG_KEYS = new Set(["type", "href", "name"]);
/**
 * Terms the ActivityStreams context defines that this module reads (keys,
 * types, the `as` prefix): an inline context may not define them again.
 */
const AS_DEFINED = new Set([
  ...[...ACTIVITY_KEYS].filter((key) => !key.startsWith("@")),
  ...[...NOTE_KEYS].filter((key) => !key.startsWith("@") && key !== "sensitive"),
  "replies",
  "likes",
  "shares",
  "Create",
  "Note",
  "Mention",
  "as",
  "http",
  "https",
]);
/** Terms the ActivityStreams context leaves out that Mastodon's defines as ActivityStreams terms. */
const AS_EXTENSIONS = new Set(["sensitive", "Hashtag"]);
/** Mastodon's OStatus terms: any definition outside the ActivityStreams namespace. */
const OUTSIDE_AS = new Set(["atomUri", "inReplyToAtomUri", "conversation"]);
/** An RFC 3339 instant, which Fedify's Temporal and the runtime's read alike. */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;
/** A language map's key read here: a bare ISO 639 code, as Mastodon writes them. */
const LANGUAGE = /^[a-z]{2,3}$/;

/** Thrown (and caught below) where the document is not of the known shape. */
class NotPlain extends Error {}

function fail(): never {
  throw new NotPlain();
}

/**
 * The activity read into Fedify's objects when it is a plainly shaped
 * `Create(Note)` (see the module comment); null otherwise.
 */
export function plainCreate(json: unknown): Create | null {
  try {
    return readCreate(json);
  } catch (error) {
    if (error instanceof NotPlain) return null;
    throw error;
  }
}

function readCreate(json: unknown): Create {
  if (!isJson(json) || json.type !== "Create") fail();
  onlyKeys(json, ACTIVITY_KEYS);
  const extensions = contextTerms(json["@context"]);
  const note = json.object;
  if (!isJson(note) || note.type !== "Note") fail();
  const id = httpUrl(json.id);
  const actor = httpUrl(json.actor);
  // A note may repeat its activity's context (it then means the same).
  if ("@context" in note && JSON.stringify(note["@context"]) !== JSON.stringify(json["@context"])) {
    fail();
  }
  const object = readNote(note, extensions);
  if (actor.origin !== id.origin || object.id?.origin !== id.origin) fail();
  const create = new Create({
    id,
    actor,
    object,
    published: optional(json.published, instant),
    tos: iris(json.to),
    ccs: iris(json.cc),
  });
  return remember(create, json);
}

function readNote(json: Json, extensions: Set<string>): Note {
  for (const key of Object.keys(json)) {
    if (!NOTE_KEYS.has(key) && !SKIPPED_NOTE_KEYS.has(key)) fail();
  }
  if (json.attachment !== undefined && !emptyList(json.attachment)) fail();
  const sensitive = optional(
    json.sensitive,
    (value) => typeof value === "boolean" ? value : fail(),
  );
  const note = new Note({
    id: httpUrl(json.id),
    attribution: httpUrl(json.attributedTo),
    published: optional(json.published, instant),
    updated: optional(json.updated, instant),
    tos: iris(json.to),
    ccs: iris(json.cc),
    contents: contents(json.content, json.contentMap),
    summary: optional(json.summary, text),
    // Without Mastodon's definition, JSON-LD drops `sensitive` (the raw JSON still has it).
    sensitive: extensions.has("sensitive") ? sensitive : null,
    replyTarget: optional(json.inReplyTo, httpUrl),
    url: optional(json.url, httpUrl),
    contexts: optional(json.context, (value) => [httpUrl(value)]) ?? [],
    tags: tags(json.tag, extensions.has("Hashtag")),
  });
  return remember(note, json);
}

/**
 * The ActivityStreams extensions the context defines as Mastodon's does
 * (`sensitive`, `Hashtag`); fails unless the context leaves every term read
 * here as ActivityStreams defines it.
 */
function contextTerms(context: unknown): Set<string> {
  const extensions = new Set<string>();
  if (context === AS) return extensions;
  if (!Array.isArray(context) || context[0] !== AS) fail();
  for (const item of context.slice(1)) {
    if (item === SECURITY_V1) continue;
    if (!isJson(item)) fail();
    for (const [term, definition] of Object.entries(item)) {
      if (term.startsWith("@") || AS_DEFINED.has(term)) fail();
      const iri = definedIri(definition);
      if (AS_EXTENSIONS.has(term)) {
        if (typeof definition !== "string" || !sameAsTerm(definition, term)) fail();
        extensions.add(term);
      } else if (OUTSIDE_AS.has(term)) {
        if (iri.startsWith("as:") || iri.startsWith(AS)) fail();
      }
    }
  }
  return extensions;
}

/**
 * The IRI a term definition maps its term to, when the definition is of
 * the plain forms Mastodon's and the common servers' contexts use (an IRI,
 * or `@id` with a `@type` or a list or set container); fails otherwise, as
 * JSON-LD might refuse it (and Fedify drop the activity).
 */
function definedIri(definition: unknown): string {
  if (typeof definition === "string") return definition.includes(":") ? definition : fail();
  if (!isJson(definition)) fail();
  for (const [key, value] of Object.entries(definition)) {
    if (typeof value !== "string") fail();
    if (key === "@type" || key === "@id") continue;
    if (key !== "@container" || (value !== "@list" && value !== "@set")) fail();
  }
  const iri = definition["@id"];
  return typeof iri === "string" && iri.includes(":") ? iri : fail();
}

/** Whether `iri` is ActivityStreams' `term` (`as:term` or its full IRI). */
function sameAsTerm(iri: string, term: string): boolean {
  return iri === `as:${term}` || iri === `${AS}#${term}`;
}

function onlyKeys(json: Json, keys: Set<string>): void {
  for (const key of Object.keys(json)) if (!keys.has(key)) fail();
}

/** `read(value)`, or undefined when the value is absent or null (JSON-LD drops nulls). */
function optional<T>(value: unknown, read: (value: unknown) => T): T | undefined {
  return value == null ? undefined : read(value);
}

function httpUrl(value: unknown): URL {
  if (typeof value !== "string") fail();
  const url = URL.parse(value);
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:")) fail();
  return url;
}

/** One IRI or a list of them (ActivityStreams' `to`, `cc`). */
function iris(value: unknown): URL[] {
  if (value == null) return [];
  return (Array.isArray(value) ? value : [value]).map(httpUrl);
}

function instant(value: unknown): Temporal.Instant {
  if (typeof value !== "string" || !INSTANT.test(value)) fail();
  return Temporal.Instant.from(value);
}

function text(value: unknown): string {
  return typeof value === "string" ? value : fail();
}

function emptyList(value: unknown): boolean {
  return Array.isArray(value) && value.length === 0;
}

/**
 * `content` and `contentMap`, in the order JSON-LD's expansion gives them
 * (keys sorted: the plain string, then the map by language).
 */
function contents(content: unknown, map: unknown): (string | LanguageString)[] {
  const out: (string | LanguageString)[] = [];
  if (content != null) out.push(text(content));
  if (map == null) return out;
  if (!isJson(map)) fail();
  for (const language of Object.keys(map).sort()) {
    if (!LANGUAGE.test(language)) fail();
    out.push(new LanguageString(text(map[language]), language));
  }
  return out;
}

/**
 * Mentions, and hashtags where the context defines them (under the bare
 * ActivityStreams context JSON-LD cannot type a hashtag, and the raw JSON
 * is where it is read: dialects/terms.ts).
 */
function tags(value: unknown, hashtags: boolean): (Mention | Hashtag)[] {
  if (value == null) return [];
  const out: (Mention | Hashtag)[] = [];
  for (const tag of Array.isArray(value) ? value : [value]) {
    if (!isJson(tag)) fail();
    onlyKeys(tag, TAG_KEYS);
    const href = httpUrl(tag.href);
    const name = optional(tag.name, text);
    if (tag.type === "Mention") out.push(new Mention({ href, name }));
    else if (tag.type === "Hashtag") {
      if (hashtags) out.push(new Hashtag({ href, name }));
    } else fail();
  }
  return out;
}
