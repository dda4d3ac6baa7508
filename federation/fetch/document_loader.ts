/**
 * How Rookery fetches ActivityPub documents from other servers: the document
 * loaders Fedify uses for actors, objects, keys and collections (plain and
 * signed by a local actor), and the context loader that JSON-LD processing
 * uses. They replace Fedify's built-in loaders because those trust too much
 * of what a hostile server sends:
 *
 * - **Deadline and size.** One deadline (FETCH_TIMEOUT, 10 s at most)
 *   covers the whole load,
 *   redirects and body included (a server that never answers, or trickles a
 *   byte a second, cannot hold a worker); at most 5 redirects; at most 1 MiB
 *   of body, then the load fails without reading further.
 * - **SSRF.** Every hop goes through actors/net/public_fetch.ts (no
 *   loopback, private, link-local or otherwise reserved address; the name
 *   resolved once and the connection pinned to the checked addresses, so
 *   DNS rebinding cannot move it) unless ALLOW_PRIVATE_ADDRESS is set; so a
 *   public URL cannot redirect inwards either.
 * - **Content type.** Only `application/activity+json`, or
 *   `application/ld+json` with the ActivityStreams profile, is a document
 *   (Mastodon's rule): a `text/plain` or HTML answer is refused.
 * - **Origin.** A document whose `id` is on another origin than the URL it
 *   was finally served from is refused: a server speaks only for itself.
 * - **Shape.** The limits of json_limits.ts, before any JSON-LD work.
 * - **Keys.** A standalone key document counts only when its owner's actor
 *   document, fetched from the owner's own origin, lists that key; a key
 *   embedded in an actor must name that actor as its owner. (Mastodon's
 *   two-way check. Fedify alone accepts a key that merely names its owner,
 *   which let anyone sign as any remote actor.)
 * - **Blocked domains.** Nothing is fetched from a server a domain block
 *   suspends, or (FEDERATION_MODE=allowlist) that is not allowed.
 * - **Contexts.** Remote `@context` URLs are never fetched: the contexts
 *   Fedify bundles are used, and any other URL resolves to an empty context
 *   (its terms are then read from the raw JSON, as Mastodon reads them).
 *
 * - **Signed.** Every fetch is signed: by the instance actor (`/actor`), as
 *   Mastodon signs its fetches, unless a local actor's loader was asked for
 *   (Fedify's authenticated loader). So a peer in authorized-fetch mode
 *   answers, also for the key of a signature we verify (inbox deliveries,
 *   signed GETs): an unsigned key fetch there got a 401 and the peer's
 *   deliveries were refused.
 *
 * Documents loaded for the instance actor are cached in the key–value store
 * for five minutes, as Fedify's built-in loader does, after these checks.
 */
import { kvCache, type KvKey, type KvStore, signRequest } from "@fedify/fedify";
import {
  type DocumentLoader,
  type DocumentLoaderOptions,
  FetchError,
  preloadedContexts,
  type RemoteDocument,
} from "@fedify/vocab-runtime";
import { publicFetch } from "../../actors/net/public_fetch.ts";
import { readUpTo } from "../../actors/net/read_body.ts";
import { getLogger } from "@logtape/logtape";
import { jsonShapeProblem, wellFormedJson } from "./json_limits.ts";
import { withValidContexts } from "../dialects/contexts.ts";

const logger = getLogger(["rookery", "federation", "fetch"]);

/** Redirects followed at most. */
export const FETCH_MAX_REDIRECTS = 5;
/** Bytes of a document read at most. */
export const FETCH_MAX_BYTES = 1024 * 1024;

/** Where loaded documents are cached (not Fedify's prefix: entries cached before these checks are not trusted). */
export const DOCUMENT_CACHE_PREFIX: KvKey = ["_fedify", "remoteDocument", "checked"];

const ACCEPT =
  'application/activity+json, application/ld+json; profile="https://www.w3.org/ns/activitystreams"';
const AS_PROFILE = "https://www.w3.org/ns/activitystreams";
const KEY_TYPES = new Set(["Key", "CryptographicKey", "Multikey", "sec:Key"]);

export interface LoaderSettings {
  kv: KvStore;
  allowPrivateAddress: boolean;
  userAgent: string;
  /** The whole load, redirects and body included. */
  timeoutMs: number;
  /**
   * Whether this server refuses to fetch from the URL's domain (suspended
   * by a domain block, or not allowed in allowlist mode:
   * actors/moderation/domain_rules.ts); checked at every hop, redirects included.
   */
  refusedUrl?: (url: URL) => Promise<boolean>;
  /** The instance actor's key, which signs every fetch not made for a local actor. */
  instanceIdentity: () => Promise<SigningIdentity>;
}

/** A local actor's RSA key, for fetches from servers that require signed GETs. */
export interface SigningIdentity {
  keyId: URL;
  privateKey: CryptoKey;
}

/** Who signs a load: a local actor, or the instance actor (its key read when first needed). */
type Signer = SigningIdentity | (() => Promise<SigningIdentity>);

/** The three loader factories createFederation takes. */
export function createDocumentLoaders(settings: LoaderSettings) {
  // Made once: Fedify asks the factory for every context it makes (each
  // inbound activity), and Fedify's kvCache compiles a URL pattern (the
  // polyfill's, 0.1–0.15 ms) and checks its rules at every call.
  const instanceLoader = checkedLoader(settings, settings.instanceIdentity);
  return {
    documentLoaderFactory: () => instanceLoader,
    authenticatedDocumentLoaderFactory: (identity: SigningIdentity) =>
      checkedLoader(settings, identity),
    contextLoaderFactory: () => contextLoader,
  };
}

/**
 * Bundled contexts only; any other context URL is an empty context.
 *
 * A bundled context is tagged `static`: jsonld.js then keeps it resolved and
 * processed across expansions (its shared cache takes only static entries).
 * Untagged, every expansion resolved and processed the whole ActivityStreams
 * context again, and Fedify expands a delivery once per class it dispatches
 * through and once per nested object: a quarter of the CPU of parsing a
 * plain Create(Note), a tenth of a Mastodon one (docs/benchmarks.md).
 * The documents never change, so the results are the same. Unknown URLs stay
 * untagged: they are the sender's to choose, and the cache holds 100 entries.
 */
export const contextLoader: DocumentLoader = (url) => {
  const bundled = (preloadedContexts as Record<string, unknown>)[url];
  if (bundled === undefined) {
    logger.debug("Context {url} is not bundled; it is read as empty, never fetched.", { url });
    return Promise.resolve({ contextUrl: null, document: { "@context": {} }, documentUrl: url });
  }
  // `tag` is jsonld.js's, beyond Fedify's RemoteDocument type.
  const document = { contextUrl: null, document: bundled, documentUrl: url, tag: "static" };
  return Promise.resolve(document);
};

function checkedLoader(settings: LoaderSettings, identity: Signer): DocumentLoader {
  const load: DocumentLoader = async (url, options) => {
    const document = await fetchDocument(url, settings, identity, options);
    // The owner is fetched directly, not through this loader: a key whose
    // "owner" is another key (and so on) must not make us recurse.
    await confirmKeyOwnership(
      document,
      (owner) => fetchDocument(owner, settings, identity, options),
    );
    return document;
  };
  // A local actor's fetches may return what that actor alone may see: never
  // cache them. What the instance actor is shown, the whole server may see.
  const cached = typeof identity === "function"
    ? kvCache({ loader: load, kv: settings.kv, prefix: DOCUMENT_CACHE_PREFIX })
    : load;
  // Asked before the cache too: a domain blocked a minute ago is not read from it.
  return async (url, options) => {
    const bundled = (preloadedContexts as Record<string, unknown>)[url] !== undefined;
    if (!bundled && settings.refusedUrl && await refusedUrl(settings.refusedUrl, url)) {
      throw new FetchError(url, `This server does not federate with the domain of ${url}`);
    }
    return await cached(url, options);
  };
}

async function refusedUrl(check: (url: URL) => Promise<boolean>, url: string): Promise<boolean> {
  try {
    return await check(new URL(url));
  } catch {
    return false;
  }
}

/** Fetches one document with the deadline, redirect, size, type and origin rules above. */
async function fetchDocument(
  url: string,
  settings: LoaderSettings,
  identity: Signer,
  options?: DocumentLoaderOptions,
): Promise<RemoteDocument> {
  const bundled = (preloadedContexts as Record<string, unknown>)[url];
  if (bundled !== undefined) return { contextUrl: null, document: bundled, documentUrl: url };
  const deadline = AbortSignal.timeout(settings.timeoutMs);
  const signal = options?.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
  let current = url;
  for (let hop = 0;; hop++) {
    const target = new URL(current);
    if (target.protocol !== "https:" && target.protocol !== "http:") {
      throw new FetchError(current, `Unsupported protocol ${target.protocol}`);
    }
    if (await settings.refusedUrl?.(target)) {
      throw new FetchError(current, `This server does not federate with ${target.host}`);
    }
    const response = await send(current, settings, identity, signal);
    const location = response.headers.get("location");
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      if (hop >= FETCH_MAX_REDIRECTS) {
        throw new FetchError(url, `More than ${FETCH_MAX_REDIRECTS} redirects`);
      }
      current = new URL(location, current).href;
      continue;
    }
    if (!response.ok) {
      await response.body?.cancel();
      // Fedify clones the error's response (to cache the failure): it gets one
      // without the body just cancelled, or the clone throws and the inbox
      // answered a key that is gone (404, 410) with a 500.
      const status = { status: response.status, statusText: response.statusText };
      const answer = new Response(null, { ...status, headers: response.headers });
      throw new FetchError(current, `HTTP ${response.status}: ${current}`, answer);
    }
    if (!isActivityPubType(response.headers.get("content-type"))) {
      await response.body?.cancel();
      throw new FetchError(
        current,
        `Not an ActivityPub document (${response.headers.get("content-type")})`,
      );
    }
    const text = await readText(response, current);
    let document: unknown;
    try {
      document = JSON.parse(text);
    } catch {
      throw new FetchError(current, "The document is not JSON");
    }
    const problem = jsonShapeProblem(document);
    if (problem) throw new FetchError(current, `Refused document: ${problem}`);
    const id = (document as Record<string, unknown>).id;
    if (typeof id === "string" && originOf(id) !== target.origin) {
      throw new FetchError(current, `The document's id ${id} is not on ${target.origin}`);
    }
    return {
      contextUrl: null,
      // Contexts JSON-LD would refuse lose their bad definitions (dialects/contexts.ts).
      document: withValidContexts(wellFormedJson(document)),
      documentUrl: current,
    };
  }
}

/** One GET; signed draft-cavage first (what most peers verify), RFC 9421 if that is refused. */
async function send(
  url: string,
  settings: LoaderSettings,
  signer: Signer,
  signal: AbortSignal,
): Promise<Response> {
  const request = () =>
    new Request(url, { headers: { Accept: ACCEPT, "User-Agent": settings.userAgent } });
  // Unless private addresses are allowed, connect only to the addresses
  // checked as public (one DNS answer, so rebinding cannot move it).
  const dispatch = (request: Request) =>
    settings.allowPrivateAddress
      ? fetch(request, { redirect: "manual", signal })
      : publicFetch(new URL(request.url), { headers: Object.fromEntries(request.headers), signal });
  const identity = typeof signer === "function" ? await signer() : signer;
  let response: Response | null = null;
  for (const spec of ["draft-cavage-http-signatures-12", "rfc9421"] as const) {
    await response?.body?.cancel();
    const signed = await signRequest(request(), identity.privateKey, identity.keyId, { spec });
    response = await dispatch(signed);
    if (response.status !== 401 && response.status !== 403) break;
  }
  return response!;
}

/** Mastodon's rule: activity+json, or ld+json whose profile names ActivityStreams. */
export function isActivityPubType(header: string | null): boolean {
  if (!header) return false;
  const [type, ...params] = header.split(";").map((part) => part.trim());
  const mime = type.toLowerCase();
  if (mime === "application/activity+json") return true;
  if (mime !== "application/ld+json") return false;
  return params.some((param) => {
    const match = /^profile\s*=\s*"?([^"]*)"?$/i.exec(param);
    return match != null && match[1].split(/\s+/).includes(AS_PROFILE);
  });
}

/** The body as text, refusing it past {@link FETCH_MAX_BYTES} without reading the rest. */
async function readText(response: Response, url: string): Promise<string> {
  const declared = Number(response.headers.get("content-length"));
  if (declared > FETCH_MAX_BYTES) {
    await response.body?.cancel();
    throw new FetchError(url, `The document is larger than ${FETCH_MAX_BYTES} bytes`);
  }
  if (!response.body) return "";
  const { bytes, truncated } = await readUpTo(response.body, FETCH_MAX_BYTES);
  if (truncated) throw new FetchError(url, `The document is larger than ${FETCH_MAX_BYTES} bytes`);
  return new TextDecoder().decode(bytes);
}

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/**
 * Refuses a document that would let a key speak for someone who never
 * published it: a standalone key whose owner does not list it, or a key
 * embedded in an actor that names someone else as its owner.
 */
async function confirmKeyOwnership(
  remote: RemoteDocument,
  fetchOwner: (url: string) => Promise<RemoteDocument>,
): Promise<void> {
  const document = remote.document as Record<string, unknown>;
  const keyId = typeof document.id === "string" ? document.id : remote.documentUrl;
  if (isKeyDocument(document)) {
    const owner = ownerOf(document);
    if (!owner) throw new FetchError(remote.documentUrl, "A key without an owner");
    const ownerDocument = (await fetchOwner(owner)).document as Record<string, unknown>;
    if (
      isKeyDocument(ownerDocument) || ownerDocument.id !== owner ||
      !listedKeyIds(ownerDocument).includes(keyId)
    ) {
      throw new FetchError(remote.documentUrl, `The key's owner ${owner} does not list ${keyId}`);
    }
    return;
  }
  for (const key of embeddedKeys(document)) {
    const owner = ownerOf(key);
    if (owner != null && owner !== document.id) {
      throw new FetchError(
        remote.documentUrl,
        `An embedded key names ${owner} as its owner, not ${String(document.id)}`,
      );
    }
  }
}

function isKeyDocument(document: Record<string, unknown>): boolean {
  const types = asArray(document.type);
  if (types.some((type) => typeof type === "string" && KEY_TYPES.has(type))) return true;
  return types.length === 0 &&
    ("publicKeyPem" in document || "publicKeyMultibase" in document);
}

function ownerOf(key: Record<string, unknown>): string | null {
  const owner = key.owner ?? key.controller;
  if (typeof owner === "string") return owner;
  if (owner && typeof owner === "object" && typeof (owner as { id?: unknown }).id === "string") {
    return (owner as { id: string }).id;
  }
  return null;
}

/** The keys an actor document embeds (`publicKey` and `assertionMethod`). */
function embeddedKeys(document: Record<string, unknown>): Record<string, unknown>[] {
  return [...asArray(document.publicKey), ...asArray(document.assertionMethod)]
    .filter((key): key is Record<string, unknown> => key !== null && typeof key === "object");
}

/** The ids of the keys an actor document lists, embedded or by reference. */
function listedKeyIds(document: Record<string, unknown>): string[] {
  return [...asArray(document.publicKey), ...asArray(document.assertionMethod)]
    .map((key) =>
      typeof key === "string"
        ? key
        : key && typeof key === "object"
        ? (key as { id?: unknown }).id
        : null
    )
    .filter((id): id is string => typeof id === "string");
}

function asArray(value: unknown): unknown[] {
  return value == null ? [] : Array.isArray(value) ? value : [value];
}
