/**
 * A per-process map of rows kept while the entity channel (migration 0005)
 * says nothing about them: each value belongs to one accounts row, and the
 * entry goes when that account's change is announced (`a<id>`). Counter-only
 * changes are announced apart (`n<id>`, migration 0058) and keep it, so a
 * row every delivery counts against stays cached.
 *
 * A lookup that was under way when its account's announcement came is not
 * kept. Until the listen is in place (and after it was lost) nothing is
 * kept. What this process wrote is announced back to it a moment after the
 * commit: a writer whose next read must see its write calls `forget`.
 */
import { type ChannelListener, ENTITY_CHANNEL } from "./channel_listener.ts";

/** Invalidations remembered for the lookups in flight. */
const RECENT = 4_096;

export class AnnouncedCache<V> {
  /** Key → value, and account id → its key (one key per account). */
  readonly #values = new Map<string, V>();
  readonly #keys = new Map<string, string>();
  /** Account id → the invalidation count when it was last announced (most recent last). */
  #announced = new Map<string, number>();
  /** Invalidations heard; `*` and a new LISTEN count as one that touches all. */
  #count = 0;
  /** The count at the last `*` (or (re)listen). */
  #clearedAt = 0;
  #listening = false;

  /** `accountOf`: the account a value belongs to; at most `limit` entries, the oldest go first. */
  constructor(
    private readonly accountOf: (value: V) => string,
    private readonly limit = 10_000,
  ) {}

  /** Subscribes to the entity channel (the process core does it as it opens). */
  listen(listener: ChannelListener): Promise<unknown> {
    return listener.listen(ENTITY_CHANNEL, (payload) => this.received(payload), () => {
      this.#clear();
      this.#listening = true;
    }).catch(() => this.#listening = false);
  }

  /** Applies one entity notification. */
  received(payload: string): void {
    if (payload === "*") return this.#clear();
    if (payload[0] !== "a") return;
    const id = payload.slice(1);
    this.#count++;
    this.#announced.delete(id);
    this.#announced.set(id, this.#count);
    if (this.#announced.size > RECENT) {
      // Forgetting the oldest: a lookup older than what is left cannot be checked.
      this.#clearedAt = Math.max(this.#clearedAt, this.#announced.values().next().value!);
      this.#announced.delete(this.#announced.keys().next().value!);
    }
    const key = this.#keys.get(id);
    if (key !== undefined) this.forget(key);
  }

  /** The value under `key`: remembered, or found with `find` (null: none, not kept). */
  async get(key: string, find: () => Promise<V | null>): Promise<V | null> {
    const known = this.#values.get(key);
    if (known !== undefined) return known;
    const startedAt = this.#count;
    const value = await find();
    if (value == null || !this.#listening) return value;
    const account = this.accountOf(value);
    if (!this.#unchangedSince(account, startedAt)) return value;
    this.forget(key);
    const previous = this.#keys.get(account);
    if (previous !== undefined) this.forget(previous);
    this.#values.set(key, value);
    this.#keys.set(account, key);
    if (this.#values.size > this.limit) this.forget(this.#values.keys().next().value!);
    return value;
  }

  /** Drops what is kept under `key`. */
  forget(key: string): void {
    const value = this.#values.get(key);
    if (value === undefined) return;
    this.#values.delete(key);
    this.#keys.delete(this.accountOf(value));
  }

  #unchangedSince(account: string, count: number): boolean {
    return this.#clearedAt <= count && (this.#announced.get(account) ?? 0) <= count;
  }

  #clear(): void {
    this.#count++;
    this.#clearedAt = this.#count;
    this.#announced = new Map();
    this.#values.clear();
    this.#keys.clear();
  }
}
