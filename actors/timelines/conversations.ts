/**
 * Direct-message conversations as each local participant sees them
 * (Mastodon's AccountConversation): one row per participant and set of other
 * participants within a thread, pointing at its latest direct status and
 * marked unread for everyone but the author of that status.
 *
 * A recipient's notification policy gates their side, as Mastodon's
 * NotifyService does (it pushes a direct message to the conversation only
 * when the mention is not filtered): a direct message the policy filters
 * stays out of the recipient's conversations, and out of their unread state,
 * until they accept the sender's notification request
 * ({@link addAcceptedToConversations}); one it drops, or whose request is
 * dismissed, never comes in.
 *
 * Every write of a conversation row that keeps it is published to its
 * owner's streams (`conversation`), in the same transaction.
 */
import { and, eq, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { Db, Executor } from "../../db/connection.ts";
import {
  accountConversations,
  accounts,
  conversations,
  mentions,
  notifications,
  statuses,
} from "../../db/schema/mod.ts";
import { newId } from "../../db/ids.ts";
import { NotFoundError } from "../../model/errors.ts";
import { publishStreamEvents } from "../streaming/bus.ts";
import {
  answeredAccounts,
  decide,
  policyColumns,
  type PolicyFacts,
  type ScreenedCause,
} from "../notifications/policy.ts";

type StatusRow = typeof statuses.$inferSelect;

function byNumericId(a: string, b: string): number {
  const x = BigInt(a), y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The mentioned account, aliased `r` as the policy's columns expect. */
const r = alias(accounts, "r");

/**
 * Records a new direct status in its participants' conversations: the author
 * and every mentioned account, for those that are local. A recipient who
 * blocks the author gets nothing (the status is hidden from them anyway),
 * nor does one whose notification policy filters or drops the message (the
 * facts it needs come with the mentions, in the same query; see the module
 * comment).
 */
export async function addToConversations(tx: Executor, status: StatusRow): Promise<void> {
  let conversationId = status.conversationId;
  if (conversationId == null) {
    // Status creation normally sets the thread; give a lone status one so it can be keyed.
    conversationId = newId();
    await tx.insert(conversations).values({ id: conversationId });
    await tx.update(statuses).set({ conversationId }).where(eq(statuses.id, status.id));
  }
  const cause: ScreenedCause = {
    type: "mention",
    fromAccountId: status.accountId,
    status: { id: status.id, visibility: status.visibility, inReplyToId: status.inReplyToId },
  };
  const mentioned = await tx.select({
    id: r.id,
    domain: r.domain,
    blocksAuthor: sql<boolean>`EXISTS (SELECT 1 FROM blocks b
      WHERE b.account_id = ${r.id} AND b.target_account_id = ${status.accountId}::bigint)`,
    ...policyColumns(cause)!,
  }).from(mentions).innerJoin(r, eq(r.id, mentions.accountId))
    .where(eq(mentions.statusId, status.id));
  const [author] = await tx.select({ id: accounts.id, domain: accounts.domain })
    .from(accounts).where(eq(accounts.id, status.accountId));
  if (!author) return;
  const others = mentioned.filter((m) => m.id !== author.id);
  const everyone = [author.id, ...others.map((m) => m.id)];
  let answered: Set<string> | null = null;
  const admitted: string[] = [];
  for (const m of others) {
    if (m.domain != null || m.blocksAuthor) continue;
    const facts = m as unknown as PolicyFacts;
    let verdict = decide(cause, facts, false);
    // Whether it answers the recipient matters only when that would let it in.
    if (verdict !== "accept" && decide(cause, facts, true) === "accept") {
      answered ??= await answeredAccounts(tx, cause);
      verdict = decide(cause, facts, answered.has(m.id));
    }
    if (verdict === "accept") admitted.push(m.id);
  }
  const recipients = [...(author.domain == null ? [author.id] : []), ...admitted];
  if (recipients.length === 0) return;
  await upsertConversations(
    tx,
    recipients.map((accountId) => ({
      accountId,
      conversationId: conversationId!,
      participantAccountIds: everyone.filter((id) => id !== accountId).sort(byNumericId),
      lastStatusId: status.id,
      unread: accountId !== status.accountId,
    })),
  );
}

/**
 * Tells each owner's `direct` stream that these conversations changed, as
 * Mastodon pushes an AccountConversation whenever it is saved (a new status,
 * read or unread, a deleted last status); a conversation that goes away is
 * not announced.
 */
async function conversationsChanged(
  tx: Executor,
  rows: readonly { id: string; accountId: string }[],
): Promise<void> {
  await publishStreamEvents(
    tx,
    rows.map((r) => ({
      event: "conversation",
      accountId: String(r.accountId),
      conversationId: String(r.id),
    })),
  );
}

/** Inserts conversation rows, or moves existing ones to a newer status. */
async function upsertConversations(
  tx: Executor,
  rows: {
    accountId: string;
    conversationId: string;
    participantAccountIds: string[];
    lastStatusId: string;
    unread: boolean;
  }[],
): Promise<void> {
  const changed = await tx.insert(accountConversations)
    .values(rows.map((row) => ({ id: newId(), ...row })))
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
    }).returning({ id: accountConversations.id, accountId: accountConversations.accountId });
  await conversationsChanged(tx, changed);
}

/**
 * Brings the direct messages that `fromAccountId`'s filtered mentions held
 * back into `accountId`'s conversations, unread, as Mastodon's
 * UnfilterNotificationsWorker does when a request is accepted. Call it before
 * the notifications are unfiltered, in the same transaction.
 */
export async function addAcceptedToConversations(
  tx: Executor,
  accountId: string,
  fromAccountId: string,
): Promise<void> {
  const me = sql`${accountId}::bigint`;
  const held = await tx.select({
    statusId: sql<string>`${statuses.id}::text`,
    conversationId: sql<string>`${statuses.conversationId}::text`,
    // The author and everyone mentioned but the recipient, in id order.
    participants: sql<string | null>`(SELECT string_agg(p.id::text, ',' ORDER BY p.id)
      FROM (SELECT ${statuses.accountId} AS id
        UNION SELECT pm.account_id FROM mentions pm WHERE pm.status_id = ${statuses.id}) p
      WHERE p.id <> ${me})`,
  }).from(notifications).innerJoin(statuses, eq(statuses.id, notifications.statusId))
    .where(and(
      eq(notifications.accountId, accountId),
      eq(notifications.fromAccountId, fromAccountId),
      eq(notifications.filtered, true),
      eq(notifications.type, "mention"),
      eq(statuses.visibility, "direct"),
      sql`${statuses.deletedAt} IS NULL AND ${statuses.reblogOfId} IS NULL
        AND ${statuses.conversationId} IS NOT NULL`,
    ));
  // One row per conversation and set of participants, at its latest status.
  const latest = new Map<string, { conversationId: string; participants: string[]; id: string }>();
  for (const row of held) {
    const participants = String(row.participants ?? "").split(",").filter(Boolean);
    const key = `${row.conversationId}/${participants.join(",")}`;
    const seen = latest.get(key);
    const id = String(row.statusId);
    if (!seen || byNumericId(id, seen.id) > 0) {
      latest.set(key, { conversationId: String(row.conversationId), participants, id });
    }
  }
  if (latest.size === 0) return;
  await upsertConversations(
    tx,
    [...latest.values()].map((c) => ({
      accountId,
      conversationId: c.conversationId,
      participantAccountIds: c.participants,
      lastStatusId: c.id,
      unread: true,
    })),
  );
}

/**
 * A deleted status no longer ends its conversations: each row that pointed at
 * it moves back to the latest remaining direct status of the thread that its
 * owner wrote or was mentioned in (and that the owner's policy did not hold
 * back: a filtered mention of it marks those), or disappears when there is none.
 */
export async function removeFromConversations(tx: Executor, statusId: string): Promise<void> {
  const owners = sql`(SELECT account_id FROM statuses WHERE id = ${statusId}::bigint
    UNION SELECT account_id FROM mentions WHERE status_id = ${statusId}::bigint)`;
  const moved = await tx.execute(sql`UPDATE account_conversations ac SET last_status_id = (
      SELECT max(x.id) FROM statuses x
      WHERE x.conversation_id = ac.conversation_id AND x.visibility = 'direct'
        AND x.deleted_at IS NULL AND x.id <> ${statusId}::bigint AND x.reblog_of_id IS NULL
        AND NOT x.pending_approval
        AND (x.account_id = ac.account_id OR EXISTS (SELECT 1 FROM mentions m
          WHERE m.status_id = x.id AND m.account_id = ac.account_id))
        AND NOT EXISTS (SELECT 1 FROM notifications fn WHERE fn.status_id = x.id
          AND fn.account_id = ac.account_id AND fn.filtered))
    WHERE ac.account_id IN ${owners} AND ac.last_status_id = ${statusId}::bigint
    RETURNING ac.id::text AS id, ac.account_id::text AS account_id, ac.last_status_id`);
  await tx.execute(sql`DELETE FROM account_conversations
    WHERE account_id IN ${owners} AND last_status_id IS NULL`);
  const rows = (Array.isArray(moved) ? moved : (moved as unknown as { rows: unknown[] }).rows) as {
    id: string;
    account_id: string;
    last_status_id: string | null;
  }[];
  await conversationsChanged(
    tx,
    rows.filter((r) => r.last_status_id != null).map((r) => ({
      id: r.id,
      accountId: r.account_id,
    })),
  );
}

/** Marks one of the account's conversations as read and returns it. */
export async function markConversationRead(db: Db, accountId: string, id: string) {
  return await setConversationUnread(db, accountId, id, false);
}

/**
 * Marks one of the account's conversations as unread again (Mastodon's
 * undocumented POST /api/v1/conversations/:id/unread) and returns it.
 */
export async function markConversationUnread(db: Db, accountId: string, id: string) {
  return await setConversationUnread(db, accountId, id, true);
}

async function setConversationUnread(db: Db, accountId: string, id: string, unread: boolean) {
  return await db.transaction(async (tx) => {
    const mine = and(
      eq(accountConversations.id, id),
      eq(accountConversations.accountId, accountId),
    );
    const [row] = await tx.select().from(accountConversations).where(mine).for("update");
    if (!row) throw new NotFoundError();
    // Marking it as it already is changes nothing, and announces nothing.
    if (row.unread === unread) return row;
    const [updated] = await tx.update(accountConversations).set({ unread }).where(mine)
      .returning();
    await conversationsChanged(tx, [updated]);
    return updated;
  });
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

/**
 * Removes every conversation of `accountId` that `otherId` takes part in
 * (Mastodon's AfterBlockService, on block and on a mute that hides
 * notifications). The statuses stay; only a new message brings one back.
 */
export async function removeConversationsWith(
  tx: Executor,
  accountId: string,
  otherId: string,
): Promise<void> {
  await tx.delete(accountConversations).where(and(
    eq(accountConversations.accountId, accountId),
    sql`${accountConversations.participantAccountIds} @> jsonb_build_array(${otherId}::text)`,
  ));
}
