/**
 * A plainly shaped `Create(Note)`, as Mastodon 4.5 and most servers write
 * one, read into Fedify's objects without JSON-LD.
 *
 * Fedify reads a queued activity with `Activity.fromJsonLd`, which expands
 * the document seven times over (the activity, then again per class it
 * passes through, then the note twice): about half a millisecond of CPU
 * for a short note, a fifth of what an inbound note cost. Mastodon itself
 * reads the terms of such a document from its JSON, whatever the
 * `@context` says; so does this module, for the documents where that
 * reading and Fedify's are the same by construction:
 *
 * - the context is one plain_context.ts knows: ActivityStreams' first,
 *   and definitions that leave every term read here as ActivityStreams,
 *   Mastodon and GoToSocial define it;
 * - the note has no context of its own, or its activity's again;
 * - every key of the activity and of its note is one read here
 *   (plain_note.ts, plain_tags.ts, plain_attachments.ts), or one of the
 *   keys Mastodon and Misskey write that nothing reads from Fedify's
 *   objects, with values of the one shape it knows: absolute http(s) IRIs
 *   as strings, RFC 3339 instants, plain strings and integers, mentions,
 *   hashtags and custom emoji, media, an interaction policy; no quote;
 * - the activity, its actor and its note (and any id in its tags) are on
 *   one origin, so Fedify would trust the embedded objects as well.
 *
 * Anything else is null, and the activity takes Fedify's parse. No
 * signature or proof is ever read here: a document carrying a proof, or a
 * `signature` of another shape than Mastodon's `RsaSignature2017`
 * (ld_signature.ts), is null; a Mastodon-shaped one is passed over, as
 * Fedify's handler detaches it before it reads the activity (the inbox
 * guard authenticated the delivery; the JSON as received, signature and
 * all, is what the listener's context keeps for forwarding). The JSON each object came from is
 * remembered on it (dialects/received.ts), as the inbox listeners read
 * Mastodon's extension terms from it.
 */
import { Create } from "@fedify/vocab";
import { remember } from "../dialects/received.ts";
import { isJson } from "../dialects/terms.ts";
import { isPlainLdSignature } from "./ld_signature.ts";
import { readContext } from "./plain_context.ts";
import { readNote } from "./plain_note.ts";
import { fail, httpUrl, instant, iris, NotPlain, onlyKeys, optional } from "./plain_values.ts";

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
  // Passed over, never read (see the module comment); its shape is checked.
  "signature",
]);

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
  if ("signature" in json && !isPlainLdSignature(json.signature)) fail();
  const vocabulary = readContext(json["@context"]);
  const note = json.object;
  if (!isJson(note) || note.type !== "Note") fail();
  const id = httpUrl(json.id);
  const actor = httpUrl(json.actor);
  // A note may repeat its activity's context (it then means the same).
  if ("@context" in note && JSON.stringify(note["@context"]) !== JSON.stringify(json["@context"])) {
    fail();
  }
  const object = readNote(note, vocabulary);
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
