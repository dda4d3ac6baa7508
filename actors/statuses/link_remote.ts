/**
 * Linking a stored remote status to the parent or quoted post it names, once
 * that arrives later than the status itself (it was over the fetch budget of
 * the activity that brought the status: federation/fetch/budget.ts).
 *
 * The rules are those createStatus applies when the parent is there at once:
 * - the reply counts on its parent only while the parent exists (the
 *   UPDATE of the count skips a deleted parent, and holds its row until the
 *   link commits, so a delete that comes next waits for it);
 * - the reply joins its parent's conversation, and so do the replies to it
 *   stored meanwhile that share its old conversation; other statuses of that
 *   conversation (its server's `context` thread) stay where they are;
 * - a link that would close a loop (the parent is the status or one of its
 *   replies) is refused, so that walks up a thread always end;
 * - a quote is accepted when the quoted post's server stamped it, pending
 *   otherwise, and counts in quotes_count only once accepted.
 * Each link is one transaction with the status's row locked, so a link made
 * twice (a job run again) changes nothing the second time.
 */
import { and, eq, isNull, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { newId } from "../../db/ids.ts";
import { quotes, statuses } from "../../db/schema/mod.ts";

/**
 * Makes `statusId` (a remote status stored without its parent) a reply to
 * `parentId`, with `approvedByUri`, the proof the parent's policy wanted
 * (checked by the caller), written in the same UPDATE. Returns false when
 * nothing was linked: the status is gone, local, already linked, or the
 * parent is deleted or below it in the thread.
 */
export async function linkRemoteParent(
  app: AppContext,
  input: { statusId: string; parentId: string; approvedByUri?: string },
): Promise<boolean> {
  const { database } = app;
  return await database.db.transaction(async (tx) => {
    const [child] = await tx.select().from(statuses).where(eq(statuses.id, input.statusId))
      .for("update");
    if (!child || child.local || child.deletedAt || child.reblogOfId || child.inReplyToId) {
      return false;
    }
    const loop = await database.rows(
      sql`WITH RECURSIVE up(id, parent) AS (
          SELECT id, in_reply_to_id FROM statuses WHERE id = ${input.parentId}::bigint
          UNION
          SELECT s.id, s.in_reply_to_id FROM statuses s JOIN up ON s.id = up.parent)
        SELECT 1 FROM up WHERE id = ${input.statusId}::bigint LIMIT 1`,
      tx,
    );
    if (loop.length > 0) return false;
    const [parent] = await tx.update(statuses)
      .set({ repliesCount: sql`${statuses.repliesCount} + 1` })
      .where(and(eq(statuses.id, input.parentId), isNull(statuses.deletedAt)))
      .returning({ accountId: statuses.accountId, conversationId: statuses.conversationId });
    if (!parent) return false;
    let conversationId = parent.conversationId;
    if (!conversationId) {
      // Only rows older than conversations lack one: the parent gets the child's.
      conversationId = child.conversationId ?? newId();
      if (!child.conversationId) {
        await database.rows(
          sql`INSERT INTO conversations (id) VALUES (${conversationId}::bigint)`,
          tx,
        );
      }
      await tx.update(statuses).set({ conversationId }).where(eq(statuses.id, input.parentId));
    }
    await tx.update(statuses)
      .set({
        inReplyToId: input.parentId,
        inReplyToAccountId: parent.accountId,
        ...(input.approvedByUri ? { approvedByUri: input.approvedByUri } : {}),
      })
      .where(eq(statuses.id, child.id));
    if (child.conversationId && child.conversationId !== conversationId) {
      // UNION (not UNION ALL): a loop among the replies cannot make this endless.
      await database.rows(
        sql`WITH RECURSIVE down(id) AS (
            SELECT ${child.id}::bigint
            UNION
            SELECT s.id FROM statuses s JOIN down ON s.in_reply_to_id = down.id)
          UPDATE statuses SET conversation_id = ${conversationId}::bigint
          WHERE id IN (SELECT id FROM down)
            AND conversation_id = ${child.conversationId}::bigint
          RETURNING id`,
        tx,
      );
    }
    return true;
  });
}

/**
 * Makes `statusId` (a remote status stored without its quoted post) quote
 * `quotedStatusId`, accepted when `stamped` (the quoted post's server
 * approved it) and pending otherwise. False when nothing was linked.
 */
export async function linkRemoteQuote(
  app: AppContext,
  input: { statusId: string; quotedStatusId: string; stamped: boolean },
): Promise<boolean> {
  return await app.database.db.transaction(async (tx) => {
    const [status] = await tx.select().from(statuses).where(eq(statuses.id, input.statusId))
      .for("update");
    if (!status || status.local || status.deletedAt || status.quotedStatusId) return false;
    if (status.id === input.quotedStatusId) return false;
    const [quoted] = await tx.select().from(statuses)
      .where(eq(statuses.id, input.quotedStatusId)).for("update");
    if (!quoted || quoted.deletedAt || quoted.visibility === "direct") return false;
    const state = input.stamped && !quoted.local ? "accepted" : "pending";
    const inserted = await tx.insert(quotes).values({
      id: newId(),
      statusId: status.id,
      quotedStatusId: quoted.id,
      accountId: status.accountId,
      quotedAccountId: quoted.accountId,
      state,
    }).onConflictDoNothing().returning({ id: quotes.id });
    if (inserted.length === 0) return false;
    await tx.update(statuses).set({ quotedStatusId: quoted.id }).where(eq(statuses.id, status.id));
    if (state === "accepted") {
      await tx.update(statuses).set({ quotesCount: sql`${statuses.quotesCount} + 1` })
        .where(eq(statuses.id, quoted.id));
    }
    return true;
  });
}
