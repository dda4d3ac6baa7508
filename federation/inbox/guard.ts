/**
 * The inbox entrance: what every POST to an inbox passes before Fedify
 * parses it. Fedify reads the whole body, parses it as JSON and may run
 * JSON-LD over it (Linked Data signatures, integrity proofs) before it
 * checks the HTTP signature, so an unsigned 8 MB body of 100,000 tags cost
 * seconds of CPU before the 401. Here, cheapest check first:
 *
 * 1. a request for another host than ours → 403, body unread (the
 *    entrance refuses it first: request_host.ts; asked again here because
 *    a signature counts only for our host); no HTTP signature header → 401,
 *    body unread; a signing key on a server we do not federate with
 *    (suspended by a domain block, or not allowed in allowlist mode:
 *    actors/moderation/domain_rules.ts) → 403, body unread;
 * 2. a body over 1 MiB → 413, read no further;
 * 3. a signature dated more than an hour ahead → 401 (Fedify's window is
 *    the same both ways; Mastodon's twelve hours apply to the past only),
 *    or one that does not cover the target, host, date and digest → 401;
 * 4. not a JSON object, or beyond the limits of json_limits.ts → 400; an
 *    activity whose actor is on a server we do not federate with → 403
 *    (still before any fetch or signature work);
 * 5. the HTTP signature verified with the checked key loader of
 *    document_loader.ts (a key counts only when its owner publishes it);
 *    when it fails, once more with the key's document fetched afresh (a
 *    key rotated at the same id; at most once a minute per key:
 *    key_refresh.ts) → 401 when that fails too, 503 (with Retry-After) when the key's server
 *    could not be reached (key_reachability.ts: the sender tries again
 *    later, and the failure is not remembered as a missing key);
 * 6. the signer is the activity's actor → passed on as received (marked
 *    {@link SIGNED_BY_ACTOR}, a mark no other request keeps), unless
 *    the activity's `id` is on another origin than its actor's → 400 (its
 *    actor's server cannot vouch for it, and an id taken first would make
 *    the genuine activity a duplicate). Otherwise the activity is relayed
 *    (inbox forwarding, a relay), and only then are its FEP-8b32 proofs
 *    looked at (proofs.ts):
 *    - a valid proof by a key its actor lists: a Create, Update or Delete
 *      goes on as received, as its actor's own (each is safe to apply
 *      twice: a known status is a duplicate, an older Update is not an
 *      edit, a Delete of what is gone does nothing), if its id and its
 *      object are on its actor's server and what it creates is its
 *      actor's; any other type → 401;
 *    - a proof that does not verify → 401; its key's server unreachable → 503;
 *    - no proof: a Create goes on with its object reduced to its id, so
 *      the listener fetches the object from its own server, and without an
 *      id of its own, so a relayed copy cannot take the id of an activity
 *      its actor has yet to deliver; anything else → 401.
 *    A Linked Data signature is never the reason to trust an activity: an
 *    old one can be replayed.
 *
 * Keys are fetched with the loader mod.ts gives, signed by the instance
 * actor (document_loader.ts), so peers in authorized-fetch mode answer.
 *
 * This is the only authentication of deliveries: Fedify is told to skip
 * its own (`skipSignatureVerification` in mod.ts), and rookery.ts sends
 * every inbox POST through here.
 */
import {
  type KeyCache,
  type KvKey,
  type KvStore,
  verifyRequestDetailed,
  type VerifyRequestDetailedResult,
} from "@fedify/fedify";
import { CryptographicKey, Multikey } from "@fedify/vocab";
import type { DocumentLoader } from "@fedify/vocab-runtime";
import { getLogger } from "@logtape/logtape";
import { jsonShapeProblem, wellFormedJson } from "../fetch/json_limits.ts";
import { readUpTo } from "../../actors/net/read_body.ts";
import { withValidContexts } from "../dialects/contexts.ts";
import { withBaseTypes } from "../dialects/featured_collections.ts";
import { addressedToUs, blockedHost } from "../request_host.ts";
import { sameOrigin } from "../fetch/trust.ts";
import { observeReachability, type Reachability } from "./key_reachability.ts";
import { verifyAuthorProof } from "./proofs.ts";
import { cavageVerifier } from "./cavage_signature.ts";
import { forgettingLoader, mayRefetchKey, refetching } from "./key_refresh.ts";

const logger = getLogger(["rookery", "federation", "inbox"]);

/** Inbox bodies read at most (Mastodon refuses larger ones too). */
export const INBOX_MAX_BYTES = 1024 * 1024;
/** How far ahead of our clock a signature may be dated. */
export const MAX_FUTURE_SKEW_MS = 60 * 60 * 1000;
/** How far back (Mastodon's window). */
export const SIGNATURE_MAX_AGE = { hours: 12 } as const;
const SIGNATURE_MAX_AGE_MS = SIGNATURE_MAX_AGE.hours * 60 * 60 * 1000;
/** When a sender refused with 503 (its key's server unreachable) is told to try again, in seconds. */
export const KEY_UNREACHABLE_RETRY_AFTER = 60;
/** Activities a valid proof by their actor admits when someone else relays them. */
const PROVABLE_TYPES = new Set(["Create", "Update", "Delete"]);

const INBOX_PATH = /^\/(?:users\/[^/]+\/)?inbox\/?$/;

/**
 * Set by the guard on a delivery HTTP-signed by the activity's own actor,
 * and removed from every other: such a delivery's Linked Data signature
 * and integrity proofs decide nothing more (fast_path.ts).
 */
export const SIGNED_BY_ACTOR = "rookery-signed-by-actor";

export interface InboxGuardOptions {
  /** ORIGIN: signatures count only for its host. */
  origin: string;
  kv: KvStore;
  /** Where Fedify caches public keys: the guard fills the same entries. */
  keyCachePrefix: KvKey;
  documentLoader: DocumentLoader;
  contextLoader: DocumentLoader;
  /** Whether deliveries from this domain (host with port) are refused (actors/moderation/domain_rules.ts). */
  refusedDomain?: (domain: string) => Promise<boolean>;
}

/** Whether `request` is a delivery to one of our inboxes. */
export function isInboxDelivery(request: Request): boolean {
  return request.method === "POST" && INBOX_PATH.test(new URL(request.url).pathname);
}

/**
 * Returns the refusal for a delivery that fails one of the checks above,
 * or the request to hand to Fedify (its body already read and checked).
 */
export function createInboxGuard(options: InboxGuardOptions) {
  const keyCache = sharedKeyCache(options);
  const verifyCavage = cavageVerifier();
  const refusedDomain = options.refusedDomain ?? (() => Promise.resolve(false));
  return async (request: Request): Promise<Request | Response> => {
    const bytes = await admittedBody(request, options.origin, refusedDomain);
    if (bytes instanceof Response) return bytes;
    const json = parsedActivity(bytes);
    if (json instanceof Response) return json;
    const actorDomain = hostOf(idOf(json.actor));
    if (actorDomain != null && await refusedDomain(actorDomain)) {
      return refuse(403, "This server does not federate with the actor's domain");
    }
    // This delivery's key fetches, observed: an unreachable key server is a 503.
    const reachability = observeReachability(options.documentLoader);
    const verifying = {
      documentLoader: reachability.documentLoader,
      contextLoader: options.contextLoader,
      keyCache: reachability.keyCache(keyCache),
    };
    const verify = (v: Verifying) => verifySignature(request, bytes, v, verifyCavage);
    let verification = await verify(verifying);
    // A key rotated at the same id: its document fetched afresh, once in a while (key_refresh.ts).
    const keyId = verification.verified ? null : (verification.reason as { keyId?: URL }).keyId;
    if (
      !verification.verified && verification.reason.type === "invalidSignature" &&
      keyId != null && await mayRefetchKey(options.kv, keyId)
    ) {
      verification = await verify({
        ...verifying,
        documentLoader: forgettingLoader(options.kv, verifying.documentLoader),
        keyCache: refetching(verifying.keyCache),
      });
    }
    if (!verification.verified) {
      logger.info("Refused a delivery to {path}: {reason}.", {
        path: new URL(request.url).pathname,
        reason: verification.reason.type,
        transient: reachability.transient,
      });
      if (reachability.transient) return keyServerUnreachable();
      return refuse(401, "Signature could not be verified");
    }
    const signer = verification.key.ownerId?.href ??
      (verification.key as { controllerId?: URL | null }).controllerId?.href;
    return await handOn(request, bytes, json, signer ?? null, {
      reachability,
      keyCache,
      contextLoader: options.contextLoader,
    });
  };
}

/** What step 5 verifies a signature with. */
type Verifying = {
  documentLoader: DocumentLoader;
  contextLoader: DocumentLoader;
  keyCache: KeyCache;
};

/** Step 5's check: draft-cavage (Mastodon's) over the bytes read (cavage_signature.ts); RFC 9421, Fedify's. */
async function verifySignature(
  request: Request,
  bytes: Uint8Array<ArrayBuffer>,
  verifying: Verifying,
  verifyCavage: ReturnType<typeof cavageVerifier>,
): Promise<VerifyRequestDetailedResult> {
  if (!request.headers.has("signature-input")) {
    return await verifyCavage(request, bytes, { ...verifying, windowMs: SIGNATURE_MAX_AGE_MS });
  }
  return await verifyRequestDetailed(
    new Request(request.url, { method: "POST", headers: request.headers, body: bytes }),
    { ...verifying, timeWindow: SIGNATURE_MAX_AGE },
  );
}

/**
 * Steps 1 to 3: the body of a signed request for our host, from a server we
 * federate with, whose signature covers what it must; else the refusal.
 */
async function admittedBody(
  request: Request,
  origin: string,
  refusedDomain: (domain: string) => Promise<boolean>,
): Promise<Uint8Array<ArrayBuffer> | Response> {
  const headers = request.headers;
  if (!addressedToUs(request, origin)) {
    await request.body?.cancel();
    return blockedHost();
  }
  if (!headers.has("signature") && !headers.has("signature-input")) {
    await request.body?.cancel();
    return refuse(401, "Request is not signed");
  }
  const keyDomain = hostOf(signingKeyId(headers));
  if (keyDomain != null && await refusedDomain(keyDomain)) {
    await request.body?.cancel();
    return refuse(403, "This server does not federate with the sender's domain");
  }
  const bytes = await readCapped(request);
  if (!bytes) return refuse(413, `Request body is larger than ${INBOX_MAX_BYTES} bytes`);
  if (signedInTheFuture(headers)) return refuse(401, "Signature is dated in the future");
  const weakness = uncoveredParts(headers, { digest: true });
  if (weakness) return refuse(401, `Signature must cover ${weakness}`);
  return bytes;
}

/** Step 4's shape: a UTF-8 JSON object within the limits of json_limits.ts; else 400. */
function parsedActivity(bytes: Uint8Array<ArrayBuffer>): Record<string, unknown> | Response {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    return refuse(400, "Request body is not UTF-8 JSON");
  }
  const problem = jsonShapeProblem(json);
  return problem ? refuse(400, `Activity refused: ${problem}`) : json as Record<string, unknown>;
}

/**
 * Whether the activity's id (when it has one) is on its actor's origin:
 * only the actor's server may name its activities. Another server's id,
 * taken first, would make the genuine activity a duplicate to drop, and
 * would lend that server's origin to what the activity embeds.
 */
function idOnActorsServer(activity: Record<string, unknown>): boolean {
  const id = activity.id;
  if (id == null) return true;
  const actorId = idOf(activity.actor);
  return typeof id === "string" && actorId != null && sameOrigin(id, actorId);
}

/** The body of a delivery: its bytes and their JSON, before any repair. */
interface Received {
  bytes: Uint8Array<ArrayBuffer>;
  json: Record<string, unknown>;
}

/** What step 6 needs to verify a relayed activity's proofs. */
interface RelayedChecks {
  reachability: Reachability;
  keyCache: KeyCache;
  contextLoader: DocumentLoader;
}

/**
 * Step 6: the request Fedify gets. The signer's own activity goes on as
 * received, if its id is on its actor's server. Someone else's (inbox
 * forwarding, relays) is trusted for what its actor's proof vouches for
 * (see the top of this file); without a proof, for no more than its signer
 * can vouch for: its Linked Data signature is not enough (an old one can be
 * replayed), so a Create is kept as a pointer (its object is fetched from
 * its own server) and without an id (which would stand for the actor's own
 * activity of that id, to be dropped as a duplicate when it came);
 * anything else is refused.
 */
async function handOn(
  request: Request,
  bytes: Uint8Array<ArrayBuffer>,
  json: Record<string, unknown>,
  signer: string | null,
  checks: RelayedChecks,
): Promise<Request | Response> {
  const headers = new Headers(request.headers);
  headers.delete(SIGNED_BY_ACTOR);
  // Contexts JSON-LD would refuse lose their bad definitions (federation/dialects/contexts.ts).
  const activity = withBaseTypes(
    withValidContexts(wellFormedJson(json)) as Record<string, unknown>,
  );
  if (signer != null && signer === idOf(activity.actor)) {
    if (!idOnActorsServer(activity)) {
      return refuse(400, "Activity refused: its id is not on its actor's server");
    }
    headers.set(SIGNED_BY_ACTOR, "1");
    return passedOn(request.url, headers, { bytes, json }, activity);
  }
  // Relayed: its actor's proofs, when it carries any (the JSON as received: repairs would not verify).
  const actorId = idOf(activity.actor);
  const verdict = actorId == null ? "none" : await verifyAuthorProof(json, actorId, {
    ...checks,
    maxFutureSkewMs: MAX_FUTURE_SKEW_MS,
  });
  if (verdict === "invalid") return refuse(401, "Integrity proof could not be verified");
  if (verdict === "unreachable") return keyServerUnreachable();
  if (verdict === "valid") return provedByItsActor(request.url, headers, { bytes, json }, activity);
  const objectId = idOf(activity.object);
  if (activity.type !== "Create" || objectId == null) {
    return refuse(401, "The signer and the actor do not match");
  }
  const { signature: _signature, proof: _proof, id: _id, ...relayed } = activity;
  const body = JSON.stringify({ ...relayed, object: objectId });
  return new Request(request.url, { method: "POST", headers, body });
}

/**
 * A relayed activity whose proofs its actor made: taken as the actor's own
 * when it is a Create, Update or Delete whose id and object are on the
 * actor's server and whose embedded object (if any) is the actor's.
 */
function provedByItsActor(
  url: string,
  headers: Headers,
  received: Received,
  activity: Record<string, unknown>,
): Request | Response {
  if (typeof activity.type !== "string" || !PROVABLE_TYPES.has(activity.type)) {
    return refuse(401, "The signer and the actor do not match");
  }
  if (!idOnActorsServer(activity)) {
    return refuse(400, "Activity refused: its id is not on its actor's server");
  }
  if (!objectOfItsActor(activity)) {
    return refuse(401, "Activity refused: its object is not its actor's");
  }
  logger.debug("Accepted {id}, relayed, on its author's proof.", { id: activity.id });
  return passedOn(url, headers, received, activity);
}

/**
 * Whether a proved activity's object is on its actor's server and, when
 * embedded, attributed to its actor (or is the actor itself: an Update of
 * its profile). The proof covers what the activity embeds; it must not lend
 * the actor's word to someone else's object.
 */
function objectOfItsActor(activity: Record<string, unknown>): boolean {
  const actorId = idOf(activity.actor)!;
  const objectId = idOf(activity.object);
  if (objectId == null || !sameOrigin(objectId, actorId)) return false;
  const object = activity.object;
  if (typeof object === "string" || activity.type === "Delete" || objectId === actorId) return true;
  const attributed = (object as Record<string, unknown>).attributedTo;
  const authors = Array.isArray(attributed) ? attributed : [attributed];
  return authors.length === 1 && idOf(authors[0]) === actorId;
}

/** The activity as received, unless half an emoji or a context had to be repaired. */
function passedOn(
  url: string,
  headers: Headers,
  received: Received,
  activity: Record<string, unknown>,
): Request {
  const body = activity === received.json ? received.bytes : JSON.stringify(activity);
  return new Request(url, { method: "POST", headers, body });
}

/** The id of an activity's actor or object, given as a string or an embedded object. */
export function idOf(value: unknown): string | null {
  if (typeof value === "string") return value;
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const id = (value as { id?: unknown }).id;
    return typeof id === "string" ? id : null;
  }
  return null;
}

/** The key id a request's signature names (draft-cavage `keyId`, RFC 9421 `keyid`). */
function signingKeyId(headers: Headers): string | null {
  const cavage = /(?:^|[,\s])keyId\s*=\s*"([^"]*)"/i.exec(headers.get("signature") ?? "");
  if (cavage) return cavage[1];
  const rfc = /;\s*keyid\s*=\s*"([^"]*)"/i.exec(headers.get("signature-input") ?? "");
  return rfc ? rfc[1] : null;
}

/** The host (with its port) of a URL, lower case; null when it is not a URL. */
function hostOf(url: string | null): string | null {
  if (!url) return null;
  try {
    return new URL(url).host.toLowerCase() || null;
  } catch {
    return null;
  }
}

/** 503: the key's server could not be reached; the sender should try again later. */
function keyServerUnreachable(): Response {
  const response = refuse(503, "The key's server could not be reached");
  response.headers.set("Retry-After", String(KEY_UNREACHABLE_RETRY_AFTER));
  return response;
}

function refuse(status: number, message: string): Response {
  return new Response(JSON.stringify({ error: message }), {
    status,
    headers: { "Content-Type": "application/json; charset=utf-8" },
  });
}

/** The body, or null once it passes {@link INBOX_MAX_BYTES} (the rest is not read). */
async function readCapped(request: Request): Promise<Uint8Array<ArrayBuffer> | null> {
  const declared = Number(request.headers.get("content-length"));
  if (declared > INBOX_MAX_BYTES) {
    await request.body?.cancel();
    return null;
  }
  if (!request.body) return new Uint8Array();
  const { bytes, truncated } = await readUpTo(request.body, INBOX_MAX_BYTES);
  return truncated ? null : bytes;
}

/**
 * What a signature leaves out of what Mastodon requires it to cover: the
 * method and target, the host, the date and, for a delivery, the body's
 * digest (otherwise a signature over one request could be reused on another
 * host, another path, or another body). Null when it covers all of it.
 * Signed GETs (authorized_fetch.ts) are checked without the digest.
 */
export function uncoveredParts(headers: Headers, need: { digest: boolean }): string | null {
  const input = headers.get("signature-input");
  if (input) {
    // RFC 9421: every signature's covered components, e.g. sig1=("@method" "@target-uri" …);…
    for (const match of input.matchAll(/=\(([^)]*)\)/g)) {
      const covered = new Set([...match[1].matchAll(/"([^"]+)"/g)].map((m) => m[1].toLowerCase()));
      const target = covered.has("@target-uri") ||
        (covered.has("@authority") && covered.has("@path"));
      if (!covered.has("@method") || !target) return "the method and target URI";
      if (need.digest && !covered.has("content-digest")) return "the content digest";
    }
    return null;
  }
  const list = /(?:^|,)\s*headers\s*=\s*"([^"]*)"/i.exec(headers.get("signature") ?? "")?.[1];
  const covered = new Set((list ?? "date").toLowerCase().split(/\s+/));
  if (!covered.has("(request-target)")) return "(request-target)";
  if (!covered.has("host")) return "host";
  if (!covered.has("date") && !covered.has("(created)")) return "date";
  if (need.digest && !covered.has("digest")) return "digest";
  return null;
}

/** A `Date` header, or an RFC 9421 `created` parameter, more than an hour ahead. */
export function signedInTheFuture(headers: Headers): boolean {
  const limit = Date.now() + MAX_FUTURE_SKEW_MS;
  const date = headers.get("date");
  if (date && Date.parse(date) > limit) return true;
  for (const match of (headers.get("signature-input") ?? "").matchAll(/;created=(\d+)/g)) {
    if (Number(match[1]) * 1000 > limit) return true;
  }
  return false;
}

/** How long a key read from the store is reused in this process without asking it again. */
export const KEY_MEMO_MS = 5 * 60 * 1000;
/** Keys kept in the process memo at most (it is emptied when full). */
const KEY_MEMO_MAX = 10_000;

/**
 * A key cache over the same entries as Fedify's own (same prefix, same
 * serialisation), so the key the guard fetched is not fetched again when
 * Fedify verifies the request after it.
 *
 * In front of the store, a memo of this process's parsed keys: reading the
 * entry and parsing it as JSON-LD was a database round trip and most of
 * the guard's CPU on every delivery from a busy peer. It changes no
 * decision: a key that no longer verifies is fetched afresh by the
 * verifier, which replaces it here too (`set`), and an entry another
 * process replaced (a rotated key) is seen within {@link KEY_MEMO_MS}.
 */
function sharedKeyCache(options: InboxGuardOptions): KeyCache {
  const { kv, keyCachePrefix: prefix } = options;
  const jsonLdOptions = {
    documentLoader: options.documentLoader,
    contextLoader: options.contextLoader,
  };
  const memo = new Map<string, { key: CryptographicKey | Multikey; until: number }>();
  const parse = async (stored: unknown) => {
    try {
      return await CryptographicKey.fromJsonLd(stored, jsonLdOptions);
    } catch {
      try {
        return await Multikey.fromJsonLd(stored, jsonLdOptions);
      } catch {
        return undefined;
      }
    }
  };
  const remember = (keyId: string, key: CryptographicKey | Multikey) => {
    if (memo.size >= KEY_MEMO_MAX) memo.clear();
    memo.set(keyId, { key, until: Date.now() + KEY_MEMO_MS });
  };
  return {
    async get(keyId) {
      const hit = memo.get(keyId.href);
      if (hit && hit.until > Date.now()) return hit.key;
      memo.delete(keyId.href);
      const stored = await kv.get([...prefix, keyId.href]);
      if (stored === undefined || stored === null) return stored as null | undefined;
      const key = await parse(stored);
      if (key) remember(keyId.href, key);
      return key;
    },
    async set(keyId, key) {
      memo.delete(keyId.href);
      if (key == null) {
        // Fedify remembers failures for ten minutes; a forged request must
        // not make a real key unavailable for longer than that.
        await kv.set([...prefix, keyId.href], null, {
          ttl: Temporal.Duration.from({ minutes: 10 }),
        });
        return;
      }
      await kv.set([...prefix, keyId.href], await key.toJsonLd(jsonLdOptions));
      remember(keyId.href, key);
    },
  };
}
