/**
 * Fedify's key–value store with its hints kept in memory: which HTTP
 * signature spec each server accepted (Fedify's KvSpecDeterminer, under
 * `["_fedify", "httpMessageSignaturesSpec"]`). Fedify reads that entry
 * before every delivery and writes it again after every one that went
 * through, the same value nearly always: two statements of the eight or so
 * a delivery costs, a thousand of each for a post to a thousand servers.
 *
 * Here the process remembers what it last read or wrote for such a key for
 * {@link HINT_TTL_MS}: reads within that time are answered from memory, and
 * a write of the value already stored is skipped. Another process's change
 * is seen once the memory expires; a stale spec only costs a second knock
 * (Fedify retries with the other spec and remembers the one that worked).
 * Every other key goes to the store untouched.
 */
import type { KvKey, KvStore, KvStoreListEntry, KvStoreSetOptions } from "@fedify/fedify";

/** How long a remembered hint is trusted. */
export const HINT_TTL_MS = 5 * 60_000;
/** Hints remembered at most (one per server delivered to); forgotten all at once beyond. */
const MAX_HINTS = 10_000;
/** Fedify's default prefix of the signature spec hints. */
const HINT_PREFIX = ["_fedify", "httpMessageSignaturesSpec"];

function isHint(key: KvKey): boolean {
  return key.length === HINT_PREFIX.length + 1 && HINT_PREFIX.every((part, i) => key[i] === part);
}

export class KvWithHints implements KvStore {
  readonly #inner: KvStore;
  readonly #hints = new Map<string, { value: unknown; until: number }>();

  constructor(inner: KvStore) {
    this.#inner = inner;
    if (inner.cas) {
      this.cas = (key, expected, value, options) => this.#cas(key, expected, value, options);
    }
  }

  cas?: KvStore["cas"];

  async get<T = unknown>(key: KvKey): Promise<T | undefined> {
    if (!isHint(key)) return await this.#inner.get<T>(key);
    const name = JSON.stringify(key);
    const known = this.#hints.get(name);
    if (known && known.until > Date.now()) return known.value as T | undefined;
    const value = await this.#inner.get<T>(key);
    this.#remember(name, value);
    return value;
  }

  async set(key: KvKey, value: unknown, options?: KvStoreSetOptions): Promise<void> {
    if (!isHint(key) || options?.ttl != null) {
      this.#forget(key);
      return await this.#inner.set(key, value, options);
    }
    const name = JSON.stringify(key);
    const known = this.#hints.get(name);
    if (known && known.until > Date.now() && known.value === value) return;
    await this.#inner.set(key, value, options);
    this.#remember(name, value);
  }

  async delete(key: KvKey): Promise<void> {
    this.#forget(key);
    await this.#inner.delete(key);
  }

  list(prefix?: KvKey): AsyncIterable<KvStoreListEntry> {
    return this.#inner.list(prefix);
  }

  #cas(key: KvKey, expected: unknown, value: unknown, options?: KvStoreSetOptions) {
    this.#forget(key);
    return this.#inner.cas!(key, expected, value, options);
  }

  #remember(name: string, value: unknown): void {
    if (this.#hints.size >= MAX_HINTS) this.#hints.clear();
    this.#hints.set(name, { value, until: Date.now() + HINT_TTL_MS });
  }

  #forget(key: KvKey): void {
    if (isHint(key)) this.#hints.delete(JSON.stringify(key));
  }
}
