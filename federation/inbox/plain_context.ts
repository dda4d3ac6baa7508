/**
 * The `@context` of a document federation/inbox/plain_create.ts reads: the
 * ActivityStreams context first, optionally `https://w3id.org/security/v1`
 * (which defines none of the terms read), and inline term definitions.
 *
 * What JSON-LD makes of a key depends on those definitions; this module
 * accepts a context only where that is known without running JSON-LD:
 * - no ActivityStreams term read here is defined again, nor any keyword
 *   (`@vocab`, `@language`…), nor a compact IRI as a term;
 * - each extension term read here (Mastodon's `sensitive`, `Hashtag`,
 *   `Emoji`, `blurhash`, `focalPoint`; GoToSocial's interaction policy
 *   terms, which Mastodon 4.5 writes) is either left undefined (JSON-LD
 *   then drops it, and so does the reading) or defined exactly as those
 *   servers define it, prefixes resolved;
 * - the other definitions are of the plain forms Mastodon's and the common
 *   servers' contexts use, and Mastodon's OStatus terms and Misskey's
 *   source text stay outside the namespaces Fedify reads.
 */
import { isJson } from "../dialects/terms.ts";
import { fail } from "./plain_values.ts";

export const AS = "https://www.w3.org/ns/activitystreams";
const SECURITY_V1 = "https://w3id.org/security/v1";
const TOOT = "http://joinmastodon.org/ns#";
const GTS = "https://gotosocial.org/ns#";

/** ActivityStreams terms read here (keys and types): never to be defined again. */
const AS_TERMS = new Set([
  ..."id type actor published updated to cc bcc object attributedTo content contentMap".split(" "),
  ..."summary summaryMap inReplyTo url context tag attachment replies likes shares".split(" "),
  ..."source name nameMap mediaType href width height icon image duration".split(" "),
  ..."Create Note Mention Document Image Video Audio Link Collection".split(" "),
  ..."OrderedCollection CollectionPage OrderedCollectionPage Question as http https".split(" "),
]);

interface Definition {
  iri: string;
  type?: string;
  container?: string;
}

/** The extension terms read here, as the servers that write them define them. */
const EXTENSIONS: Record<string, Definition> = {
  sensitive: { iri: `${AS}#sensitive` },
  Hashtag: { iri: `${AS}#Hashtag` },
  Emoji: { iri: `${TOOT}Emoji` },
  blurhash: { iri: `${TOOT}blurhash` },
  focalPoint: { iri: `${TOOT}focalPoint`, container: "@list" },
  interactionPolicy: { iri: `${GTS}interactionPolicy`, type: "@id" },
  canQuote: { iri: `${GTS}canQuote`, type: "@id" },
  canLike: { iri: `${GTS}canLike`, type: "@id" },
  canReply: { iri: `${GTS}canReply`, type: "@id" },
  canAnnounce: { iri: `${GTS}canAnnounce`, type: "@id" },
  automaticApproval: { iri: `${GTS}automaticApproval`, type: "@id" },
  manualApproval: { iri: `${GTS}manualApproval`, type: "@id" },
};

/** Terms of skipped keys (nothing reads them from Fedify's objects): never in a namespace Fedify reads. */
const KEPT_APART = new Set([
  "atomUri",
  "inReplyToAtomUri",
  "conversation",
  "_misskey_content",
  "_misskey_summary",
]);
const MISSKEY = "https://misskey-hub.net/ns#";
const OSTATUS = "http://ostatus.org#";

/** The extension terms the context defines (exactly as {@link EXTENSIONS} says). */
export type Vocabulary = ReadonlySet<string>;

/**
 * The extension terms `context` defines; fails unless it is a context
 * this reading knows (see the module comment).
 */
export function readContext(context: unknown): Vocabulary {
  const vocabulary = new Set<string>();
  if (context === AS) return vocabulary;
  if (!Array.isArray(context) || context[0] !== AS) fail();
  const definitions = new Map<string, unknown>();
  for (const item of context.slice(1)) {
    if (item === SECURITY_V1) continue;
    if (!isJson(item)) fail();
    for (const [term, definition] of Object.entries(item)) {
      if (term.startsWith("@") || term.includes(":") || AS_TERMS.has(term)) fail();
      if (definitions.has(term)) fail();
      definitions.set(term, definition);
    }
  }
  for (const [term, definition] of definitions) {
    const defined = definedAs(definition, definitions);
    const expected = EXTENSIONS[term];
    if (expected) {
      if (!sameDefinition(defined, expected)) fail();
      vocabulary.add(term);
    } else if (KEPT_APART.has(term)) {
      if (!defined.iri.startsWith(OSTATUS) && !defined.iri.startsWith(MISSKEY)) fail();
    }
  }
  return vocabulary;
}

function sameDefinition(defined: Definition, expected: Definition): boolean {
  return defined.iri === expected.iri && defined.type === expected.type &&
    defined.container === expected.container;
}

/**
 * A term's definition, its IRI expanded, when the definition is of the
 * plain forms Mastodon's and the common servers' contexts use (an IRI, or
 * `@id` with a `@type` or a list or set container); fails otherwise, as
 * JSON-LD might refuse it (and Fedify drop the activity).
 */
function definedAs(definition: unknown, definitions: Map<string, unknown>): Definition {
  if (typeof definition === "string") return { iri: expand(definition, definitions) };
  if (!isJson(definition)) fail();
  for (const [key, value] of Object.entries(definition)) {
    if (typeof value !== "string") fail();
    if (key === "@id") continue;
    if (key === "@type" && (value === "@id" || value.includes(":"))) continue;
    if (key !== "@container" || (value !== "@list" && value !== "@set")) fail();
  }
  const iri = definition["@id"];
  if (typeof iri !== "string") fail();
  const out: Definition = { iri: expand(iri, definitions) };
  if (typeof definition["@type"] === "string") out.type = definition["@type"];
  if (typeof definition["@container"] === "string") out.container = definition["@container"];
  return out;
}

/**
 * An IRI as JSON-LD expands it: `prefix:suffix` with the prefix defined
 * in the context (as a plain namespace IRI) or ActivityStreams' `as`; else
 * an absolute IRI as written. Fails on what is neither.
 */
function expand(iri: string, definitions: Map<string, unknown>): string {
  const colon = iri.indexOf(":");
  if (colon <= 0) fail();
  const prefix = iri.slice(0, colon);
  const suffix = iri.slice(colon + 1);
  if (prefix === "as") return `${AS}#${suffix}`;
  if (suffix.startsWith("//")) return iri;
  const namespace = definitions.get(prefix);
  if (namespace === undefined) return iri;
  if (typeof namespace !== "string" || !/^https?:\/\/[^\s]*[#/]$/.test(namespace)) fail();
  return namespace + suffix;
}
