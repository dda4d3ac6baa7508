/**
 * Blocking, as Mastodon's BlockService and UnblockService: a block severs
 * follows and pending requests in both directions (with their deliveries:
 * Undo(Follow) for ours, Reject(Follow) for theirs) and, towards a remote
 * account, sends Block. A remote Block arrives here too (`block(remote,
 * local)`), so `blocked_by` shows and the follows between them go. What the
 * blocked account brought the blocker (feed entries, notifications,
 * conversations) is removed in the same transaction (after_block.ts).
 */
import { and, eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { newId } from "../../db/ids.ts";
import { blocks, endorsements, followRequests, follows } from "../../db/schema/mod.ts";
import { ValidationError } from "../../model/errors.ts";
import { recordDelivery } from "../outbox/deliveries.ts";
import { isLocal, pairOf, removeFollows, removeRequests, requirePair } from "./follow_rows.ts";
import type { BlockSnapshot, FollowSnapshot } from "../outbox/relationships.ts";
import { removeAuthorFromHome } from "../timelines/fanout.ts";
import { clearAfterBlock } from "./after_block.ts";
import { activityIds } from "../../model/uris.ts";

function selfError(action: string): ValidationError {
  return new ValidationError({
    account: [{ error: "ERR_INVALID", description: `cannot ${action} yourself` }],
  });
}

/** What a block removed between two accounts, whose deliveries it records. */
interface Severed {
  /** Follows and requests from the local side to the remote one (Undo). */
  undone: FollowSnapshot[];
  /** Follows and requests from the remote side to the local one (Reject). */
  rejected: FollowSnapshot[];
}

/**
 * `accountId` blocks `targetId`. Blocking again is not an error (a remote
 * Block that is delivered twice updates its IRI).
 *
 * @param remote the Block activity's IRI when the blocker is remote
 */
export async function block(
  app: AppContext,
  accountId: string,
  targetId: string,
  remote?: { uri: string },
): Promise<void> {
  if (accountId === targetId) throw selfError("block");
  await app.database.db.transaction(async (tx) => {
    const { account, target } = await requirePair(tx, accountId, targetId);
    const id = newId();
    const uri = remote?.uri ?? activityIds.block(account.uri, id);
    const [inserted] = await tx.insert(blocks).values({
      id,
      accountId,
      targetAccountId: targetId,
      uri,
    }).onConflictDoNothing().returning();
    if (!inserted && remote) {
      await tx.update(blocks).set({ uri }).where(
        and(eq(blocks.accountId, accountId), eq(blocks.targetAccountId, targetId)),
      );
    }
    const outgoing = [
      ...await removeFollows(tx, pairOf(follows, accountId, targetId)),
      ...await removeRequests(tx, pairOf(followRequests, accountId, targetId)),
    ];
    const incoming = [
      ...await removeFollows(tx, pairOf(follows, targetId, accountId)),
      ...await removeRequests(tx, pairOf(followRequests, targetId, accountId)),
    ];
    await tx.delete(endorsements).where(
      and(eq(endorsements.accountId, accountId), eq(endorsements.targetAccountId, targetId)),
    );
    await tx.delete(endorsements).where(
      and(eq(endorsements.accountId, targetId), eq(endorsements.targetAccountId, accountId)),
    );
    // What the blocked account brought the blocker goes (after_block.ts), and
    // the blocked side keeps none of the blocker's posts in its home timeline.
    await clearAfterBlock(tx, accountId, targetId);
    await removeAuthorFromHome(tx, targetId, accountId);
    // Only the local side announces anything, and only to a remote side.
    const crosses = isLocal(account) !== isLocal(target);
    const severed: Severed = !crosses
      ? { undone: [], rejected: [] }
      : isLocal(account)
      ? { undone: outgoing, rejected: incoming }
      : { undone: incoming, rejected: outgoing };
    const announce: BlockSnapshot | null = inserted && isLocal(account) && !isLocal(target)
      ? { id: inserted.id, uri: inserted.uri, accountId, targetAccountId: targetId }
      : null;
    for (const s of severed.undone) await recordDelivery(tx, "followUndone", s);
    for (const s of severed.rejected) await recordDelivery(tx, "followRejected", s);
    if (announce) await recordDelivery(tx, "blocked", announce);
  });
}

/**
 * `accountId` lifts its block of `targetId` (a remote target is sent
 * Undo(Block)); returns whether there was a block to lift.
 */
export async function unblock(
  app: AppContext,
  accountId: string,
  targetId: string,
): Promise<boolean> {
  return await app.database.db.transaction(async (tx) => {
    const { account, target } = await requirePair(tx, accountId, targetId);
    const [removed] = await tx.delete(blocks).where(
      and(eq(blocks.accountId, accountId), eq(blocks.targetAccountId, targetId)),
    ).returning();
    if (!removed || !isLocal(account) || isLocal(target)) return removed != null;
    const snapshot: BlockSnapshot = {
      id: removed.id,
      uri: removed.uri,
      accountId,
      targetAccountId: targetId,
    };
    await recordDelivery(tx, "blockUndone", snapshot);
    return true;
  });
}

export { selfError };
