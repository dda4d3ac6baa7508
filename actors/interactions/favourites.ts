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
import type { Executor } from "../../db/connection.ts";
import { favourites, statuses } from "../../db/schema/mod.ts";
import { notify, retractNotifications } from "../notifications/notify.ts";
import type { FavouriteSnapshot } from "../outbox/interactions.ts";
import { actingAccount, originalIdOf, type StatusRow, visibleOriginal } from "./target.ts";
import { decideInteraction, ForbiddenInteractionError, waitsForApproval } from "./policy.ts";
import { approvingIfHeld, openRequest, withdrawRequest } from "./requests.ts";

/** The refusal of a favourite the status's interaction policy does not allow (GoToSocial's words). */
const FORBIDDEN = "You do not have permission to favourite this status";
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
    const status = await approvingIfHeld(
      tx,
      app.config.origin,
      accountId,
      await visibleOriginal(tx, accountId, statusId),
    );
    const decision = await decideInteraction(tx, "favourite", status, account);
    if (decision.permission === "forbidden") throw new ForbiddenInteractionError(FORBIDDEN);
    const id = newId();
    const held = waitsForApproval(decision, status);
    const [row] = await tx.insert(favourites).values({
      id,
      accountId,
      statusId: status.id,
      // Fragment ids on the actor: unique, ours, never dereferenced (Mastodon's shape).
      uri: remote?.uri ?? (account.domain == null ? activityIds.like(account.uri, id) : null),
      pendingApproval: held,
    }).onConflictDoNothing().returning();
    if (!row) return status;
    if (held) {
      // Counted (and sent) when the author approves.
      await openRequest(tx, {
        type: "favourite",
        target: status,
        accountId,
        favouriteId: row.id,
        interactionUri: row.uri ?? activityIds.like(account.uri, row.id),
      });
      return status;
    }
    const counted = await countFavourite(tx, row, account.domain == null);
    await notify(tx, {
      type: "favourite",
      accountId: status.accountId,
      fromAccountId: accountId,
      statusId: status.id,
    });
    return counted;
  });
  return status;
}

/**
 * What a favourite adds once it stands (at once, or when the status's author
 * approves it): the counter, and a local account's Like. Returns the status.
 */
async function countFavourite(
  tx: Executor,
  row: typeof favourites.$inferSelect,
  local: boolean,
): Promise<StatusRow> {
  const [counted] = await tx.update(statuses)
    .set({ favouritesCount: sql`${statuses.favouritesCount} + 1` })
    .where(eq(statuses.id, row.statusId)).returning();
  if (local) await recordDelivery(tx, "statusFavourited", snapshotOf(row));
  return counted;
}

/**
 * A held favourite approved by the status's author: it counts from now on
 * (actors/interactions/requests.ts); the author, who approved it, is not
 * notified of it again.
 */
export async function approveHeldFavourite(
  tx: Executor,
  favouriteId: string,
  proof: string,
): Promise<void> {
  const [row] = await tx.update(favourites).set({ pendingApproval: false, approvedByUri: proof })
    .where(and(eq(favourites.id, favouriteId), eq(favourites.pendingApproval, true))).returning();
  if (!row) return;
  // No Like goes out: the only server that needs it had it with the request.
  await countFavourite(tx, row, false);
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
    const [row] = await tx.select().from(favourites)
      .where(and(eq(favourites.accountId, accountId), eq(favourites.statusId, originalId)))
      .for("update").limit(1);
    if (!row) return await visibleOriginal(tx, accountId, statusId);
    // A held favourite never counted nor was sent: its request goes with it.
    if (row.pendingApproval) await withdrawRequest(tx, { favouriteId: row.id });
    await tx.delete(favourites).where(eq(favourites.id, row.id));
    if (row.pendingApproval) {
      const [status] = await tx.select().from(statuses).where(eq(statuses.id, originalId));
      return status;
    }
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
