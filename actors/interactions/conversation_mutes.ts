/**
 * Muting a conversation: no more notifications from the thread a status
 * belongs to (the notification rules read conversation_mutes). As in
 * Mastodon's API, any status the account may see can be used to mute its
 * thread; the web interface offers it only in threads one takes part in. A
 * boost stands for the boosted status's thread.
 */
import { and, eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { conversationMutes } from "../../db/schema/mod.ts";
import { Problems } from "../../model/errors.ts";
import { type StatusRow, visibleOriginal } from "./target.ts";

function conversationOf(status: StatusRow): string {
  if (status.conversationId == null) {
    const problems = new Problems();
    problems.add("base", "ERR_INVALID", "This post is not part of a conversation");
    problems.throwIfAny();
  }
  return status.conversationId!;
}

/**
 * `accountId` mutes the conversation of `statusId` (idempotent). Returns the status.
 *
 * @throws NotFoundError when the status is missing or hidden from the account
 * @throws ValidationError when the status belongs to no conversation
 */
export async function muteConversation(
  app: AppContext,
  accountId: string,
  statusId: string,
): Promise<StatusRow> {
  return await app.database.db.transaction(async (tx) => {
    const status = await visibleOriginal(tx, accountId, statusId);
    await tx.insert(conversationMutes)
      .values({ accountId, conversationId: conversationOf(status) })
      .onConflictDoNothing();
    return status;
  });
}

/**
 * `accountId` unmutes the conversation of `statusId` (idempotent). Returns the status.
 *
 * @throws NotFoundError when the status is missing or hidden from the account
 * @throws ValidationError when the status belongs to no conversation
 */
export async function unmuteConversation(
  app: AppContext,
  accountId: string,
  statusId: string,
): Promise<StatusRow> {
  return await app.database.db.transaction(async (tx) => {
    const status = await visibleOriginal(tx, accountId, statusId);
    await tx.delete(conversationMutes).where(and(
      eq(conversationMutes.accountId, accountId),
      eq(conversationMutes.conversationId, conversationOf(status)),
    ));
    return status;
  });
}
