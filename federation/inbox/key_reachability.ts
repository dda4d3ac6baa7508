/**
 * Whether a key could not be had because its server could not be reached,
 * as opposed to a key that is not there. The inbox guard answers the first
 * with 503 (the sender retries later, as it does for Mastodon's 503) and
 * the second with 401.
 *
 * Fedify's key fetch turns every failure into "no key" and remembers it in
 * the key cache (`set(keyId, null)`), so one timeout made the peer's next
 * deliveries fail too, for ten minutes. The guard gives each delivery an
 * observer of its own: a loader that notes how its loads failed, and a key
 * cache that does not remember a key as missing when its load failed that
 * way.
 *
 * Transient: a network error (connection refused or reset, a name that does
 * not resolve, a TLS failure), the deadline, or an HTTP 5xx or 429 answer.
 * Not transient: any other answer (404, 410, 401…), a document that is not
 * ActivityPub or not a key of its owner, a private address or a server we
 * do not federate with (document_loader.ts refuses those itself).
 */
import type { KeyCache } from "@fedify/fedify";
import { type DocumentLoader, FetchError } from "@fedify/vocab-runtime";
import { PrivateAddressError, RefusedAddressError } from "../../actors/net/public_fetch.ts";

/** What one delivery's key fetches learned. */
export interface Reachability {
  /** The guard's loader, noting its failures. */
  readonly documentLoader: DocumentLoader;
  /** Whether a load failed because its server could not be reached. */
  readonly transient: boolean;
  /** `cache`, except that a key is not remembered as missing after a transient failure. */
  keyCache(cache: KeyCache): KeyCache;
}

/** An observer of the loads made for one delivery, through `loader`. */
export function observeReachability(loader: DocumentLoader): Reachability {
  let transient = false;
  return {
    documentLoader: async (url, options) => {
      try {
        return await loader(url, options);
      } catch (error) {
        if (isTransientFailure(error)) transient = true;
        throw error;
      }
    },
    get transient() {
      return transient;
    },
    keyCache: (cache) => ({
      get: (keyId) => cache.get(keyId),
      set: async (keyId, key) => {
        if (key == null && transient) return;
        await cache.set(keyId, key);
      },
    }),
  };
}

/** Whether a failed load may succeed if tried again later (see above). */
export function isTransientFailure(error: unknown): boolean {
  if (error instanceof FetchError) {
    const status = error.response?.status;
    return status != null && (status >= 500 || status === 429);
  }
  if (error instanceof PrivateAddressError) return false;
  // A name that did not resolve (its cause is the resolver's error); other
  // refusals (a scheme, a name without addresses) are final.
  if (error instanceof RefusedAddressError) return error.cause != null;
  // fetch's network errors are TypeErrors; Deno's own (ConnectionRefused…),
  // the deadline (TimeoutError) and an abort are errors of other classes.
  return error instanceof Error;
}
