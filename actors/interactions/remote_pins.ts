/**
 * The pins of a remote account, as its server's featured collection lists
 * them (Mastodon's ActivityPub::FetchFeaturedCollectionService): the
 * collection is the truth, so the account's pins become exactly the listed
 * statuses. Single Add and Remove activities use `pin` and `unpin`
 * (pins.ts), which accept remote accounts.
 *
 * Only statuses the account itself wrote are kept, never a boost, a direct
 * status or a deleted one (the same rules as pins.ts). Remote accounts have
 * no pin limit here, as in Mastodon; the caller bounds how many it reads.
 *
 * The collection was read a moment before: a pin made meanwhile by an Add
 * (newer than `readAt`) is not in it and stays.
 */
import { and, eq, isNull, lt, ne, notInArray } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { minIdAt, newId } from "../../db/ids.ts";
import { anyId } from "../../db/queries/any_id.ts";
import { statuses, statusPins } from "../../db/schema/mod.ts";
import { actingAccount, lockFor } from "./target.ts";

/** What {@link replaceRemotePins} changed. */
export interface PinChanges {
  added: number;
  removed: number;
}

/**
 * Makes the remote account's pins exactly `statusIds` (newest pin first, as
 * a featured collection lists them, read at `readAt`), keeping only those
 * that may be its pins and those pinned since.
 * Local accounts are left alone: their pins are theirs to make.
 *
 * @throws NotFoundError when the account is missing or deleted
 */
export async function replaceRemotePins(
  app: AppContext,
  accountId: string,
  statusIds: readonly string[],
  readAt: Date,
): Promise<PinChanges> {
  return await app.database.db.transaction(async (tx) => {
    const account = await actingAccount(tx, accountId);
    if (account.domain == null) return { added: 0, removed: 0 };
    // The same lock as pin(): an Add arriving meanwhile does not interleave.
    await lockFor(tx, `pins:${accountId}`);
    const allowed = statusIds.length === 0 ? [] : await tx.select({ id: statuses.id })
      .from(statuses).where(and(
        anyId(statuses.id, statusIds),
        eq(statuses.accountId, accountId),
        isNull(statuses.reblogOfId),
        isNull(statuses.deletedAt),
        ne(statuses.visibility, "direct"),
      ));
    const keep = new Set(allowed.map((r) => r.id));
    const wanted = [...new Set(statusIds)].filter((id) => keep.has(id));
    const removed = await tx.delete(statusPins).where(and(
      eq(statusPins.accountId, accountId),
      lt(statusPins.id, minIdAt(readAt)),
      wanted.length ? notInArray(statusPins.statusId, wanted) : undefined,
    )).returning({ id: statusPins.id });
    if (wanted.length === 0) return { added: 0, removed: removed.length };
    // Oldest first, so the first listed gets the newest pin id.
    const added = await tx.insert(statusPins)
      .values(wanted.toReversed().map((statusId) => ({ id: newId(), accountId, statusId })))
      .onConflictDoNothing()
      .returning({ id: statusPins.id });
    return { added: added.length, removed: removed.length };
  });
}
