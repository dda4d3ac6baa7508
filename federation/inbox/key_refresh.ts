/**
 * A key that no longer verifies, fetched afresh. A peer that rotates its
 * key keeps the key's id (`…#main-key`) and serves the new key in its actor
 * document; the verifiers' own retry (a key cached in the key cache is
 * fetched again when it fails: cavage_signature.ts, Fedify's) read that
 * document through the document loader's cache (document_loader.ts, five
 * minutes), so the peer's deliveries were refused until it expired. As
 * Mastodon refetches the actor when a signature fails with a stored key, the
 * guard verifies a failed signature once more with the document forgotten
 * and fetched again (guard.ts, step 5).
 *
 * At most once per key id in {@link KEY_REFETCH_INTERVAL}, across processes
 * (a claim in the key–value store): a forger signing with a key id of a real
 * peer must not make us fetch that peer's document on every request.
 */
import type { KeyCache, KvKey, KvStore } from "@fedify/fedify";
import type { DocumentLoader } from "@fedify/vocab-runtime";
import { DOCUMENT_CACHE_PREFIX } from "../fetch/document_loader.ts";

/** How often one key may be fetched afresh after a failed signature. */
export const KEY_REFETCH_INTERVAL = Temporal.Duration.from({ minutes: 1 });

const CLAIM_PREFIX: KvKey = ["rookery", "keyRefetch"];

/** Whether `keyId` may be fetched afresh now; true claims this interval's fetch. */
export async function mayRefetchKey(kv: KvStore, keyId: URL): Promise<boolean> {
  const claim: KvKey = [...CLAIM_PREFIX, keyId.href];
  const options = { ttl: KEY_REFETCH_INTERVAL };
  if (kv.cas) return await kv.cas(claim, undefined, true, options);
  if (await kv.get(claim) !== undefined) return false;
  await kv.set(claim, true, options);
  return true;
}

/** `loader`, forgetting the cached document of each URL before loading it (which caches it anew). */
export function forgettingLoader(kv: KvStore, loader: DocumentLoader): DocumentLoader {
  return async (url, options) => {
    await kv.delete([...DOCUMENT_CACHE_PREFIX, url]);
    return await loader(url, options);
  };
}

/** A key cache that misses every read (and still records what is fetched). */
export function refetching(keyCache: KeyCache | undefined): KeyCache {
  return {
    get: () => Promise.resolve(undefined),
    set: async (keyId, key) => await keyCache?.set(keyId, key),
  };
}
