/**
 * What a user does with their own notifications: dismiss one, dismiss a
 * group, or clear them all. Each is one statement scoped to the owner, so
 * someone else's id simply matches nothing. A filtered mention or quote that
 * goes this way leaves its notification request recounted (./requests.ts).
 */
import { and, eq } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { notifications } from "../../db/schema/mod.ts";
import { groupCondition } from "../../db/queries/notifications.ts";
import { isId } from "../../db/ids.ts";
import { NotFoundError } from "../../model/errors.ts";
import { dropPendingRequests, recountAfterRemoval } from "./requests.ts";

/** What a deletion hands back so the requests concerned can be recounted. */
const removedFields = {
  accountId: notifications.accountId,
  fromAccountId: notifications.fromAccountId,
  type: notifications.type,
  filtered: notifications.filtered,
};

/**
 * Dismisses one of `accountId`'s notifications.
 *
 * @throws NotFoundError when it is not theirs or does not exist
 */
export async function dismissNotification(
  db: Executor,
  accountId: string,
  notificationId: string,
): Promise<void> {
  if (!isId(notificationId)) throw new NotFoundError();
  await db.transaction(async (tx) => {
    const removed = await tx.delete(notifications)
      .where(and(eq(notifications.accountId, accountId), eq(notifications.id, notificationId)))
      .returning(removedFields);
    if (removed.length === 0) throw new NotFoundError();
    await recountAfterRemoval(tx, removed);
  });
}

/** Dismisses every notification of a group (`ungrouped-<id>` names a single one). */
export async function dismissGroup(
  db: Executor,
  accountId: string,
  groupKey: string,
): Promise<void> {
  await db.transaction(async (tx) => {
    const removed = await tx.delete(notifications)
      .where(and(eq(notifications.accountId, accountId), groupCondition(groupKey)))
      .returning(removedFields);
    await recountAfterRemoval(tx, removed);
  });
}

/** Removes all of `accountId`'s notifications. */
export async function clearNotifications(db: Executor, accountId: string): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.delete(notifications).where(eq(notifications.accountId, accountId));
    await dropPendingRequests(tx, accountId);
  });
}
