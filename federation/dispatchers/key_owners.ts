/**
 * Local actors' accounts by identifier, remembered per process. Fedify asks
 * for a recipient's key pairs up to three times per delivery to a personal
 * inbox (the request's and the queued activity's authenticated document
 * loaders), and the inbox's fast path asks whether the recipient exists;
 * each ask read the whole account row by username.
 *
 * A username names one account for good, except for a rejected sign-up,
 * whose row is deleted so its name may be taken again: every change to an
 * accounts row other than its counters (deletion included) is announced on
 * the entity channel, and the entry of that account is dropped when it is
 * heard (db/announced_cache.ts).
 */
import { AnnouncedCache } from "../../db/announced_cache.ts";
import type { LocalAccount } from "./local_actors.ts";

export class KeyOwners extends AnnouncedCache<LocalAccount> {
  constructor() {
    super((account) => account.id);
  }

  /** The account of `identifier` (deleted or not): remembered, or found with `find` (null: none). */
  account(
    identifier: string,
    find: () => Promise<LocalAccount | null>,
  ): Promise<LocalAccount | null> {
    return this.get(identifier, find);
  }

  /** The owner of `identifier`'s keys: remembered, or found with `find` (null: none). */
  async ownerOf(
    identifier: string,
    find: () => Promise<LocalAccount | null>,
  ): Promise<string | null> {
    return (await this.get(identifier, find))?.id ?? null;
  }
}
