/**
 * The JSON each remote object arrived as, kept beside Fedify's parse of it,
 * so federation/dialects/terms.ts can read what the parse dropped.
 *
 * Fedify keeps a parsed object's JSON only sometimes: a nested object keeps
 * its JSON-LD expansion (terms the sender's context does not define are gone
 * from it), and a document with a tag Fedify cannot type (a `Hashtag` under
 * the plain ActivityStreams context) keeps nothing, so `toJsonLd()` writes
 * Fedify's own re-serialization. The original is what counts, so it is
 * remembered where it is known:
 *
 * - an inbox delivery: the payload as received (Fedify's InboxContext holds
 *   it for forwarding; {@link inboxJson});
 * - a fetched document: what the document loader returned for it
 *   ({@link capturingLoader}, used by federation/fetch/lookup.ts and by the inbox
 *   when an activity's object is fetched by reference);
 * - an object embedded in one of those: found in its parent's JSON by id
 *   ({@link embeddedJson}, {@link collectionItemJson}).
 *
 * The JSON is kept on the object itself (a hidden property), so it lives
 * as long as the object.
 */
import type { DocumentLoader, Object as APObject } from "@fedify/vocab";
import { isJson, type Json } from "./terms.ts";

const RECEIVED = Symbol("rookery.receivedJson");
type Received = { [RECEIVED]?: Json };

/** Remembers `json` as what `object` was parsed from (when it is a JSON object). */
export function remember<T extends object | null>(object: T, json: unknown): T {
  if (object && isJson(json) && Object.isExtensible(object)) {
    Object.defineProperty(object, RECEIVED, { value: json, configurable: true, writable: true });
  }
  return object;
}

/**
 * The JSON `object` arrived as; else Fedify's serialization of it (which
 * holds what Fedify understood, in its own context), else null.
 */
export async function receivedJson(object: APObject | null | undefined): Promise<Json | null> {
  if (!object) return null;
  const known = (object as Received)[RECEIVED];
  if (known) return known;
  try {
    const json = await object.toJsonLd();
    return isJson(json) ? json : null;
  } catch {
    return null;
  }
}

/** Whether `json` is the node with id `id` (any id when `id` is null). */
function isNode(json: unknown, id: string | null): json is Json {
  return isJson(json) && (id == null || json.id === id || json["@id"] === id);
}

/**
 * The JSON of the object embedded under `key` of `parent` (an activity's
 * `object`), when it is the node with `id`; null otherwise.
 */
export function embeddedJson(parent: Json | null, key: string, id: string | null): Json | null {
  if (!parent) return null;
  const value = parent[key];
  const candidates = Array.isArray(value) ? value : [value];
  return (candidates.find((c) => isNode(c, id)) as Json | undefined) ?? null;
}

/**
 * The JSON of item `id` of a collection (or collection page) as received:
 * `orderedItems`/`items`, of the collection or of its embedded `first` page.
 */
export function collectionItemJson(collection: Json | null, id: string): Json | null {
  if (!collection) return null;
  const pages = [collection, collection.first].filter(isJson);
  for (const page of pages) {
    for (const key of ["orderedItems", "items"]) {
      const found = embeddedJson(page, key, id);
      if (found) return found;
    }
  }
  return null;
}

/**
 * The payload of the activity an inbox listener handles, as the sender
 * wrote it (remembered for `activity`). Fedify keeps it on its inbox
 * context (for forwarding, which must not alter it); it is not part of the
 * typed interface, so it is read defensively and checked against the id.
 */
export function inboxJson(ctx: object, activity: APObject): Json | null {
  const payload = (ctx as { activity?: unknown }).activity;
  if (!isNode(payload, activity.id?.href ?? null)) return (activity as Received)[RECEIVED] ?? null;
  remember(activity, payload);
  return payload;
}

/**
 * A document loader that records the documents it returns, and a function
 * that remembers, for a parsed object, the recorded document with its id.
 */
export function capturingLoader(loader: DocumentLoader) {
  const documents: unknown[] = [];
  const capturing: DocumentLoader = async (url, options) => {
    const remote = await loader(url, options);
    if (documents.length < 16) documents.push(remote.document);
    return remote;
  };
  const rememberFrom = <T extends APObject | null>(object: T): T => {
    const id = object?.id?.href;
    if (!object || !id) return object;
    return remember(object, documents.find((d) => isNode(d, id)));
  };
  return { loader: capturing, rememberFrom };
}
