/**
 * Deleting a status (DELETE /api/v1/statuses/:id), as Mastodon's
 * RemoveStatusService does it:
 * - The row stays, marked deleted (readers never show it; the ActivityPub
 *   object answers 410 Tombstone), so the redraft answer can still be built.
 * - Counters go back: the parent's replies, the quoted status's quotes, the
 *   author's statuses; boosts of the status are deleted with it (and their
 *   authors' counters go back too); pins go; feeds forget it (and the streams
 *   hear a `delete` for it and each boost, from removeFromFeeds); notification
 *   requests that held a filtered mention or quote of it are recounted.
 * - Media are detached and kept about a day so a redraft can attach them
 *   again, or removed for good with `delete_media` (their files once the
 *   deletion committed); actors/media/removal.ts has the rules.
 */
import { countInFeaturedTags } from "../tags/featured_tags.ts";
import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Executor } from "../../db/connection.ts";
import { withdrawRequest } from "../interactions/requests.ts";
import { accounts, quotes, statuses, statusPins } from "../../db/schema/mod.ts";
import { removeFromFeeds } from "../timelines/fanout.ts";
import { recountRequestsOfStatus } from "../notifications/requests.ts";
import { recordDelivery } from "../outbox/deliveries.ts";
import { ownStatus } from "./edit.ts";
import type { StatusRow } from "./create.ts";
import { settleDeletedStatusMedia } from "../media/removal.ts";
import { flushDiscardedMedia } from "../media/discarded.ts";

export interface DeleteStatusOptions {
  /**
   * Remove the attachments instead of keeping them for a redraft (always
   * done for a remote status: there is no redraft of it here).
   */
  deleteMedia?: boolean;
}

/** Deletes one's own status; returns the row as it was. */
export async function deleteStatus(
  ctx: AppContext,
  accountId: string,
  statusId: string,
  options: DeleteStatusOptions = {},
): Promise<StatusRow> {
  const db = ctx.database.db;
  const status = await ownStatus(db, accountId, statusId);
  const discarded = await db.transaction((tx) => removeStatusIn(tx, status, options));
  if (discarded > 0) await flushDiscardedMedia(db, ctx.media);
  return status;
}

/**
 * The deletion of `status` in the caller's transaction (see the module
 * notes); returns how many media files are to be flushed after it commits.
 * A status held for approval (issue 34) was never counted on its parent nor
 * sent: its request goes instead, and its Delete goes only where its
 * request went (the author of a remote parent).
 */
export async function removeStatusIn(
  tx: Executor,
  status: StatusRow,
  options: DeleteStatusOptions = {},
): Promise<number> {
  const now = new Date();
  const marked = await tx.update(statuses).set({ deletedAt: now })
    .where(and(eq(statuses.id, status.id), isNull(statuses.deletedAt)))
    .returning({ id: statuses.id });
  if (marked.length === 0) return 0; // deleted meanwhile by another request
  await countInFeaturedTags(tx, status, -1);
  if (status.pendingApproval) await withdrawRequest(tx, { statusId: status.id });
  else if (status.inReplyToId) {
    await tx.update(statuses)
      .set({ repliesCount: sql`GREATEST(${statuses.repliesCount} - 1, 0)` })
      .where(eq(statuses.id, status.inReplyToId));
  }
  const [quote] = await tx.select().from(quotes).where(eq(quotes.statusId, status.id));
  if (quote?.quotedStatusId && quote.state === "accepted") {
    await tx.update(statuses)
      .set({ quotesCount: sql`GREATEST(${statuses.quotesCount} - 1, 0)` })
      .where(eq(statuses.id, quote.quotedStatusId));
  }
  // Quotes of this status now point at a deleted post.
  await tx.update(quotes).set({ state: "deleted" }).where(eq(quotes.quotedStatusId, status.id));
  const boosts = await tx.update(statuses).set({ deletedAt: now })
    .where(and(eq(statuses.reblogOfId, status.id), isNull(statuses.deletedAt)))
    .returning({ id: statuses.id, accountId: statuses.accountId });
  const decrement = [
    ...(status.visibility === "direct" ? [] : [status.accountId]),
    ...boosts.map((b) => b.accountId),
  ];
  for (const id of decrement) {
    await tx.update(accounts)
      .set({ statusesCount: sql`GREATEST(${accounts.statusesCount} - 1, 0)` })
      .where(eq(accounts.id, id));
  }
  await tx.delete(statusPins).where(
    inArray(statusPins.statusId, [status.id, ...boosts.map((b) => b.id)]),
  );
  const files = await settleDeletedStatusMedia(tx, status, {
    deleteMedia: options.deleteMedia === true || !status.local,
  });
  // Boosts of it too (their feeds, and a `delete` event for each).
  await removeFromFeeds(tx, status.id);
  await recountRequestsOfStatus(tx, status.id);
  // A held reply was sent only to the author of a remote parent (our
  // ReplyRequest): its Delete goes to them alone (federation/outbox/statuses.ts).
  if (status.local && (!status.pendingApproval || status.inReplyToId)) {
    await recordDelivery(tx, "statusDeleted", status.id);
  }
  return files;
}
