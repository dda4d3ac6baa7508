/**
 * Bookmarks: private to their owner, never federated. A bookmark of a boost
 * is a bookmark of the boosted status, as Mastodon's Bookmark model does.
 */
import { and, eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { newId } from "../../db/ids.ts";
import { bookmarks, statuses } from "../../db/schema/mod.ts";
import { originalIdOf, type StatusRow, visibleOriginal } from "./target.ts";

/**
 * `accountId` bookmarks `statusId` (idempotent). Returns the bookmarked status.
 *
 * @throws NotFoundError when the status is missing or hidden from the account
 */
export async function bookmark(
  app: AppContext,
  accountId: string,
  statusId: string,
): Promise<StatusRow> {
  return await app.database.db.transaction(async (tx) => {
    const status = await visibleOriginal(tx, accountId, statusId);
    await tx.insert(bookmarks).values({ id: newId(), accountId, statusId: status.id })
      .onConflictDoNothing();
    return status;
  });
}

/**
 * `accountId` removes its bookmark of `statusId` (not having one is no
 * error). A bookmarked status that became hidden can still be unbookmarked.
 *
 * @throws NotFoundError when there is no bookmark and the status is missing or hidden
 */
export async function unbookmark(
  app: AppContext,
  accountId: string,
  statusId: string,
): Promise<StatusRow> {
  return await app.database.db.transaction(async (tx) => {
    const originalId = await originalIdOf(tx, statusId);
    const [row] = await tx.delete(bookmarks)
      .where(and(eq(bookmarks.accountId, accountId), eq(bookmarks.statusId, originalId)))
      .returning();
    if (!row) return await visibleOriginal(tx, accountId, statusId);
    const [status] = await tx.select().from(statuses).where(eq(statuses.id, originalId));
    return status;
  });
}
