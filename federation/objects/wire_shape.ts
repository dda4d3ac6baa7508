/**
 * The shape of every ActivityStreams document we serve or send, as Mastodon
 * writes it: lists are arrays whatever their length, and the public
 * collection is its full IRI.
 *
 * JSON-LD compaction (Fedify's `toJsonLd`) writes a one-element list as a
 * single value and the public collection as `as:Public`. Both mean the same
 * to a JSON-LD reader, but servers that read the JSON as Mastodon writes it
 * miss a single alias (no move to us), a single profile field, a single
 * hashtag, or a public post addressed `as:Public`. {@link shapeForPeers}
 * rewrites a compacted document into Mastodon's shape; the list of terms
 * below drives it, for every type of document alike.
 *
 * It is applied where documents leave the process, once each:
 * - served documents: {@link installWireShape} wraps `federation.fetch`,
 *   through which every ActivityPub GET is answered (Fedify's actor, object
 *   and collection dispatchers, and the negotiated profile and status pages);
 * - sent activities: the wire classes of federation/objects/mastodon_terms.ts
 *   shape the compacted JSON Fedify then proves, signs and queues, so the
 *   object integrity proof and the LD signature cover the shaped document;
 * - the archive export (jobs/archive_export.ts).
 *
 * The rewrite preserves the meaning under our own contexts (none of these
 * terms is a `@json` literal, and `orderedItems`, a `@list`, reads a single
 * value and a one-element array alike), so the expanded RDF is unchanged.
 */
import type { Federation, FederationFetchOptions } from "@fedify/fedify";
import type { AppContext } from "../../context.ts";

type Json = Record<string, unknown>;

/** The public collection, as Mastodon writes it. */
export const PUBLIC_IRI = "https://www.w3.org/ns/activitystreams#Public";

/**
 * Terms whose value is a list in Mastodon's documents (its Note, Actor,
 * Collection and activity serializers, and the `interactionPolicy` rules it
 * reads as GoToSocial writes them), and FEP-521a's `assertionMethod`.
 */
const LIST_TERMS = new Set([
  "to",
  "cc",
  "bto",
  "bcc",
  "audience",
  "tag",
  "attachment",
  "alsoKnownAs",
  "attributionDomains",
  "items",
  "orderedItems",
  "oneOf",
  "anyOf",
  "assertionMethod",
  "automaticApproval",
  "manualApproval",
  "always",
  "approvalRequired",
]);

/** List terms by the type of their node: a Flag's `object` is [account, statuses…] in Mastodon's. */
const LIST_TERMS_OF_TYPE: Record<string, ReadonlySet<string>> = {
  Flag: new Set(["object"]),
};

/** Terms naming audiences, where the public collection is written in full. */
const AUDIENCE_TERMS = new Set([
  "to",
  "cc",
  "bto",
  "bcc",
  "audience",
  "automaticApproval",
  "manualApproval",
  "always",
  "approvalRequired",
]);

/**
 * Subtrees left as they are: contexts define terms rather than use them,
 * and a proof or LD signature covers bytes that must not move.
 */
const OPAQUE_TERMS = new Set(["@context", "proof", "signature", "@value"]);

/** The compact forms of the public collection. */
const PUBLIC_CURIES = new Set(["as:Public", "Public"]);

/** How deep a document is walked (ours are a few levels deep; the bound is for safety). */
const MAX_DEPTH = 32;

/**
 * `json` in Mastodon's shape: the list terms as arrays, the public
 * collection in full in audience terms. Returns a new value; the input
 * (possibly Fedify's cached document) is left unchanged.
 */
export function shapeForPeers<T>(json: T): T {
  return shape(json, null, 0) as T;
}

function shape(value: unknown, key: string | null, depth: number): unknown {
  if (depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => shape(item, key, depth + 1));
  if (typeof value === "string") {
    return key && AUDIENCE_TERMS.has(key) && PUBLIC_CURIES.has(value) ? PUBLIC_IRI : value;
  }
  if (!value || typeof value !== "object") return value;
  const node = value as Json;
  const typed = typeof node.type === "string" ? LIST_TERMS_OF_TYPE[node.type] : undefined;
  const out: Json = {};
  for (const [term, item] of Object.entries(node)) {
    if (OPAQUE_TERMS.has(term)) {
      out[term] = item;
      continue;
    }
    const shaped = shape(item, term, depth + 1);
    const listed = LIST_TERMS.has(term) || typed?.has(term);
    out[term] = listed && shaped != null && !Array.isArray(shaped) ? [shaped] : shaped;
  }
  return out;
}

/** Whether a response is an ActivityStreams document. */
function isActivityJson(response: Response): boolean {
  const type = response.headers.get("content-type")?.toLowerCase() ?? "";
  return type.startsWith("application/activity+json") || type.startsWith("application/ld+json");
}

type Fallback = (request: Request) => Response | Promise<Response>;

/**
 * Makes every ActivityStreams document Fedify's dispatchers answer through
 * `federation.fetch` leave in Mastodon's shape. What our own routes answer
 * when Fedify falls through to them (`onNotFound`, `onNotAcceptable`) is
 * passed on untouched: Hono has already committed that response (app.ts),
 * and those routes serve the wire classes' documents, shaped already.
 */
export function installWireShape(federation: Federation<AppContext>): void {
  const fetch = federation.fetch.bind(federation);
  federation.fetch = async (request: Request, options: FederationFetchOptions<AppContext>) => {
    const ours = new WeakSet<Response>();
    const noting = (fallback?: Fallback): Fallback | undefined =>
      fallback && (async (req) => {
        const answer = await fallback(req);
        ours.add(answer);
        return answer;
      });
    const response = await fetch(request, {
      ...options,
      onNotFound: noting(options.onNotFound),
      onNotAcceptable: noting(options.onNotAcceptable),
    });
    if (ours.has(response) || request.method !== "GET" || !response.body) return response;
    if (!isActivityJson(response)) return response;
    const text = await response.text();
    let body: string;
    try {
      body = JSON.stringify(shapeForPeers(JSON.parse(text)));
    } catch {
      body = text; // not JSON after all: passed on as it came
    }
    const headers = new Headers(response.headers);
    headers.delete("content-length");
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers,
    });
  };
}
