/**
 * Which account owns a local actor identifier's key pairs, remembered per
 * process. Fedify asks for a recipient's key pairs up to three times per
 * delivery to a personal inbox (the request's and the queued activity's
 * authenticated document loaders), and each ask read the whole account row
 * by username only to learn its id.
 *
 * A username names one account for good, except for a rejected sign-up,
 * whose row is deleted so its name may be taken again: every change to an
 * accounts row (deletion included) is announced on the entity channel, and
 * the entry of that account is dropped when it is heard
 * (db/announced_cache.ts).
 */
import { AnnouncedCache } from "../../db/announced_cache.ts";

export class KeyOwners extends AnnouncedCache<string> {
  constructor() {
    // The value is the owner's account id.
    super((owner) => owner);
  }

  /** The owner of `identifier`'s keys: remembered, or found with `find` (null: none). */
  ownerOf(identifier: string, find: () => Promise<string | null>): Promise<string | null> {
    return this.get(identifier, find);
  }
}
