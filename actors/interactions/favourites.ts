/**
 * Favouriting, as Mastodon's FavouriteService and UnfavouriteService: the
 * API calls these for local users, the inbox for remote Likes. A favourite
 * of a boost is a favourite of the boosted status.
 *
 * Each command is one transaction (the row, the counter on the status and
 * the notification); the Like or Undo(Like) is recorded with it.
 */
import { and, eq, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { newId } from "../../db/ids.ts";
import { favourites, statuses } from "../../db/schema/mod.ts";
import { notify, retractNotifications } from "../notifications/notify.ts";
import type { FavouriteSnapshot } from "../outbox/interactions.ts";
import { actingAccount, originalIdOf, type StatusRow, visibleOriginal } from "./target.ts";
import { recordDelivery } from "../outbox/deliveries.ts";
import { activityIds } from "../../model/uris.ts";

/** What a remote Like carries that a local favourite does not. */
export interface RemoteFavourite {
  /** The Like activity's id, kept for its Undo. */
  uri: string;
}

/**
 * `accountId` favourites `statusId` (idempotent: favouriting again changes
 * nothing). Returns the favourited status (the original, for a boost).
 *
 * @throws NotFoundError when the status is missing or hidden from the account
 */
export async function favourite(
  app: AppContext,
  accountId: string,
  statusId: string,
  remote?: RemoteFavourite,
): Promise<StatusRow> {
  const status = await app.database.db.transaction(async (tx) => {
    const account = await actingAccount(tx, accountId);
    const status = await visibleOriginal(tx, accountId, statusId);
    const id = newId();
    const [row] = await tx.insert(favourites).values({
      id,
      accountId,
      statusId: status.id,
      // Fragment ids on the actor: unique, ours, never dereferenced (Mastodon's shape).
      uri: remote?.uri ?? (account.domain == null ? activityIds.like(account.uri, id) : null),
    }).onConflictDoNothing().returning();
    if (!row) return status;
    const [counted] = await tx.update(statuses)
      .set({ favouritesCount: sql`${statuses.favouritesCount} + 1` })
      .where(eq(statuses.id, status.id)).returning();
    await notify(tx, {
      type: "favourite",
      accountId: status.accountId,
      fromAccountId: accountId,
      statusId: status.id,
    });
    if (account.domain == null) await recordDelivery(tx, "statusFavourited", snapshotOf(row));
    return counted;
  });
  return status;
}

/**
 * `accountId` takes back its favourite of `statusId` (not having favourited
 * it is no error). The notification it caused goes too, as in Mastodon.
 * Returns the status. A status that became hidden can still be
 * unfavourited, as Mastodon lets a user take back what they hold.
 *
 * @throws NotFoundError when there is no favourite and the status is missing or hidden
 */
export async function unfavourite(
  app: AppContext,
  accountId: string,
  statusId: string,
): Promise<StatusRow> {
  return await app.database.db.transaction(async (tx) => {
    const originalId = await originalIdOf(tx, statusId);
    const [row] = await tx.delete(favourites)
      .where(and(eq(favourites.accountId, accountId), eq(favourites.statusId, originalId)))
      .returning();
    if (!row) return await visibleOriginal(tx, accountId, statusId);
    const [status] = await tx.update(statuses)
      .set({ favouritesCount: sql`GREATEST(${statuses.favouritesCount} - 1, 0)` })
      .where(eq(statuses.id, originalId)).returning();
    await retractNotifications(tx, {
      types: ["favourite"],
      accountId: status.accountId,
      fromAccountId: accountId,
      statusId: status.id,
    });
    // A remote account's Undo arrives here too; the outbox sends only ours.
    await recordDelivery(tx, "statusUnfavourited", snapshotOf(row));
    return status;
  });
}

function snapshotOf(row: typeof favourites.$inferSelect): FavouriteSnapshot {
  return { id: row.id, uri: row.uri, accountId: row.accountId, statusId: row.statusId };
}
