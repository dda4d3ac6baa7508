/**
 * What a block takes away from the blocker, as Mastodon's AfterBlockService
 * does (its BlockWorker runs it after a block, and after a mute that hides
 * notifications): the blocked account's posts, boosts and mentions of it in
 * the blocker's home and list feeds, the notifications it caused (deleted,
 * not hidden), its notification request, and the blocker's direct
 * conversations it takes part in. Lifting the block or the mute brings none
 * of it back.
 *
 * Everything is rows in the database, removed in the command's transaction;
 * the feeds' streams hear a `delete` per entry through the stream bus
 * (NOTIFY at commit), so every process's open streams drop them too.
 */
import { and, eq } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { notifications } from "../../db/schema/mod.ts";
import { removeConversationsWith } from "../timelines/conversations.ts";
import { forgetRequestsFrom } from "../notifications/requests.ts";
import { removeAuthorFromHome, removeAuthorFromLists } from "../timelines/fanout.ts";

/** Clears what `targetId` brought to `accountId` (see the module comment), in `tx`. */
export async function clearAfterBlock(
  tx: Executor,
  accountId: string,
  targetId: string,
): Promise<void> {
  await removeAuthorFromHome(tx, accountId, targetId, { mentions: true, announce: true });
  await removeAuthorFromLists(tx, accountId, targetId, { mentions: true });
  // The request first: it recounts the filtered notifications it held.
  await forgetRequestsFrom(tx, accountId, targetId);
  await tx.delete(notifications).where(and(
    eq(notifications.accountId, accountId),
    eq(notifications.fromAccountId, targetId),
  ));
  await removeConversationsWith(tx, accountId, targetId);
}
