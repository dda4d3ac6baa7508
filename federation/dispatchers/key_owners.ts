/**
 * Which account owns a local actor identifier's key pairs, remembered per
 * process. Fedify asks for a recipient's key pairs up to three times per
 * delivery to a personal inbox (the request's and the queued activity's
 * authenticated document loaders), and each ask read the whole account row
 * by username only to learn its id.
 *
 * A username names one account for good, except for a rejected sign-up,
 * whose row is deleted so its name may be taken again: every change to an
 * accounts row (deletion included) is announced on the entity channel
 * (migration 0005), and the entry of that account is dropped when it is
 * heard. A lookup that was under way when its account's announcement came
 * is not kept. Until the listen is in place (and after it was lost) nothing
 * is kept.
 */
import { type ChannelListener, ENTITY_CHANNEL } from "../../db/channel_listener.ts";

/** Identifiers kept at most; the oldest go first. */
const LIMIT = 10_000;
/** Invalidations remembered for the lookups in flight. */
const RECENT = 4_096;

export class KeyOwners {
  /** Identifier → owner account id, and back (an identifier is the one spelling of its name). */
  readonly #owners = new Map<string, string>();
  readonly #identifiers = new Map<string, string>();
  /** Account id → the invalidation count when it was last announced (most recent last). */
  #announced = new Map<string, number>();
  /** Invalidations heard; `*` and a new LISTEN count as one that touches all. */
  #count = 0;
  /** The count at the last `*` (or (re)listen). */
  #clearedAt = 0;
  #listening = false;

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
    const identifier = this.#identifiers.get(id);
    if (identifier !== undefined) this.#forget(identifier);
  }

  /** The owner of `identifier`'s keys: remembered, or found with `find` (null: none). */
  async ownerOf(identifier: string, find: () => Promise<string | null>): Promise<string | null> {
    const known = this.#owners.get(identifier);
    if (known) return known;
    const startedAt = this.#count;
    const owner = await find();
    if (owner && this.#listening && this.#unchangedSince(owner, startedAt)) {
      this.#forget(identifier);
      this.#owners.set(identifier, owner);
      this.#identifiers.set(owner, identifier);
      if (this.#owners.size > LIMIT) this.#forget(this.#owners.keys().next().value!);
    }
    return owner;
  }

  #forget(identifier: string): void {
    const owner = this.#owners.get(identifier);
    if (owner === undefined) return;
    this.#owners.delete(identifier);
    this.#identifiers.delete(owner);
  }

  #unchangedSince(owner: string, count: number): boolean {
    return this.#clearedAt <= count && (this.#announced.get(owner) ?? 0) <= count;
  }

  #clear(): void {
    this.#count++;
    this.#clearedAt = this.#count;
    this.#announced = new Map();
    this.#owners.clear();
    this.#identifiers.clear();
  }
}
