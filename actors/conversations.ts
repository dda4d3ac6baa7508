/**
 * Direct-message conversations as each local participant sees them
 * (Mastodon's AccountConversation): one row per participant and set of other
 * participants within a thread, pointing at its latest direct status and
 * marked unread for everyone but the author of that status.
 */
import { and, eq, sql } from "drizzle-orm";
import type { Db, Executor } from "../db/connection.ts";
import { accountConversations, accounts, conversations, mentions, statuses } from "../db/schema.ts";
import { newId } from "../db/ids.ts";
import { NotFoundError } from "./errors.ts";

type StatusRow = typeof statuses.$inferSelect;

function byNumericId(a: string, b: string): number {
  const x = BigInt(a), y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Records a new direct status in its participants' conversations: the author
 * and every mentioned account, for those that are local. A recipient who
 * blocks the author gets nothing (the status is hidden from them anyway).
 */
export async function addToConversations(tx: Executor, status: StatusRow): Promise<void> {
  let conversationId = status.conversationId;
  if (conversationId == null) {
    // Status creation normally sets the thread; give a lone status one so it can be keyed.
    conversationId = newId();
    await tx.insert(conversations).values({ id: conversationId });
    await tx.update(statuses).set({ conversationId }).where(eq(statuses.id, status.id));
  }
  const mentioned = await tx.select({
    id: accounts.id,
    domain: accounts.domain,
    blocksAuthor: sql<boolean>`EXISTS (SELECT 1 FROM blocks b
      WHERE b.account_id = ${accounts.id} AND b.target_account_id = ${status.accountId}::bigint)`,
  }).from(mentions).innerJoin(accounts, eq(accounts.id, mentions.accountId))
    .where(eq(mentions.statusId, status.id));
  const [author] = await tx.select({ id: accounts.id, domain: accounts.domain })
    .from(accounts).where(eq(accounts.id, status.accountId));
  if (!author) return;
  const others = mentioned.filter((m) => m.id !== author.id);
  const everyone = [author.id, ...others.map((m) => m.id)];
  const recipients = [
    ...(author.domain == null ? [author.id] : []),
    ...others.filter((m) => m.domain == null && !m.blocksAuthor).map((m) => m.id),
  ];
  if (recipients.length === 0) return;
  const values = recipients.map((accountId) => ({
    id: newId(),
    accountId,
    conversationId: conversationId!,
    participantAccountIds: everyone.filter((id) => id !== accountId).sort(byNumericId),
    lastStatusId: status.id,
    unread: accountId !== status.accountId,
  }));
  await tx.insert(accountConversations).values(values)
    .onConflictDoUpdate({
      target: [
        accountConversations.accountId,
        accountConversations.conversationId,
        accountConversations.participantAccountIds,
      ],
      set: {
        lastStatusId: sql`greatest(${accountConversations.lastStatusId}, excluded.last_status_id)`,
        // Writing in a thread reads it; everyone else has something new.
        unread: sql`excluded.unread`,
        updatedAt: sql`now()`,
      },
    });
}

/**
 * A deleted status no longer ends its conversations: each row that pointed at
 * it moves back to the latest remaining direct status of the thread that its
 * owner wrote or was mentioned in, or disappears when there is none.
 */
export async function removeFromConversations(tx: Executor, statusId: string): Promise<void> {
  const owners = sql`(SELECT account_id FROM statuses WHERE id = ${statusId}::bigint
    UNION SELECT account_id FROM mentions WHERE status_id = ${statusId}::bigint)`;
  await tx.execute(sql`UPDATE account_conversations ac SET last_status_id = (
      SELECT max(x.id) FROM statuses x
      WHERE x.conversation_id = ac.conversation_id AND x.visibility = 'direct'
        AND x.deleted_at IS NULL AND x.id <> ${statusId}::bigint AND x.reblog_of_id IS NULL
        AND (x.account_id = ac.account_id OR EXISTS (SELECT 1 FROM mentions m
          WHERE m.status_id = x.id AND m.account_id = ac.account_id)))
    WHERE ac.account_id IN ${owners} AND ac.last_status_id = ${statusId}::bigint`);
  await tx.execute(sql`DELETE FROM account_conversations
    WHERE account_id IN ${owners} AND last_status_id IS NULL`);
}

/** The conversation `id` of `accountId`, or NotFoundError. */
async function ownConversation(db: Executor, accountId: string, id: string) {
  const [row] = await db.select().from(accountConversations)
    .where(and(eq(accountConversations.id, id), eq(accountConversations.accountId, accountId)));
  if (!row) throw new NotFoundError();
  return row;
}

/** Marks one of the account's conversations as read and returns it. */
export async function markConversationRead(db: Db, accountId: string, id: string) {
  await ownConversation(db, accountId, id);
  const [row] = await db.update(accountConversations).set({ unread: false })
    .where(and(eq(accountConversations.id, id), eq(accountConversations.accountId, accountId)))
    .returning();
  if (!row) throw new NotFoundError();
  return row;
}

/**
 * Removes a conversation from the account's list (the statuses stay; a new
 * message in the thread brings the conversation back, as on Mastodon).
 */
export async function removeConversation(db: Db, accountId: string, id: string): Promise<void> {
  const deleted = await db.delete(accountConversations)
    .where(and(eq(accountConversations.id, id), eq(accountConversations.accountId, accountId)))
    .returning({ id: accountConversations.id });
  if (deleted.length === 0) throw new NotFoundError();
}
