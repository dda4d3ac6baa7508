/**
 * Records notifications. Every command that should notify someone calls
 * {@link notify} (or one of the helpers below) inside its transaction; the
 * rules about who is not notified (remote recipients, self, blocks, mutes,
 * domain blocks, muted threads) live in ./rules.ts, once; the recipient's
 * notification policy (accept, filter or drop strangers) in ./policy.ts, with
 * filtered messages gathered in requests by ./requests.ts; group keys for the
 * v2 API in ./group_key.ts. A filtered notification has no group key (as in
 * Mastodon): it stays apart even once accepted. The Web Push of the others is
 * requested in the same transaction (../push/request.ts).
 *
 * Which status a notification carries, by type:
 * - mention, status, update, quote, quoted_update, poll: the status concerned;
 * - favourite: the favourited status;
 * - reblog: the boost itself (its row id) or the boosted status. Pass the
 *   boost: the notification then goes away with the boost (unreblog), as in
 *   Mastodon. Readers always show the boosted status, and the group key
 *   names the boosted status either way.
 *
 * Each new notification that is not filtered is published to the streams
 * (`notification`) in the same transaction; filtered ones reach them only
 * once accepted, as `notifications_merged` (./requests.ts).
 */
import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import { accounts, follows, notifications, statuses } from "../../db/schema/mod.ts";
import { keepNotificationFor, type NotificationCause } from "./rules.ts";
import { publishStreamEvent, publishStreamEvents } from "../streaming/bus.ts";
import {
  answeredAccounts,
  decide,
  policyColumns,
  type PolicyFacts,
  type Verdict,
} from "./policy.ts";
import { recordInRequest } from "./requests.ts";
import { nextGroupKey } from "./group_key.ts";
import type { NotificationType } from "../../model/notification_types.ts";
import { preparedQuery } from "../../db/queries/prepared.ts";
import { requestPush } from "../push/request.ts";

export {
  NOTIFICATION_TYPES,
  type NotificationType,
  STATUS_TYPES,
} from "../../model/notification_types.ts";

export interface NewNotification {
  type: NotificationType;
  /** The account notified. */
  accountId: string;
  /** The account that caused it. */
  fromAccountId: string;
  statusId?: string | null;
  /** The report (admin.report). */
  reportId?: string | null;
  /** The warning (moderation_warning). */
  accountWarningId?: string | null;
  /** The collection (added_to_collection, collection_update). */
  collectionId?: string | null;
}

/** The status a notification is about, as the rules and group keys need it. */
interface Target {
  /** The status shown: for a boost, the boosted status. */
  id: string;
  conversationId: string | null;
  inReplyToAccountId: string | null;
  inReplyToId: string | null;
  visibility: string;
}

const targetFields = {
  id: statuses.id,
  conversationId: statuses.conversationId,
  inReplyToAccountId: statuses.inReplyToAccountId,
  inReplyToId: statuses.inReplyToId,
  visibility: statuses.visibility,
};

/** The status shown for `statusId` (a boost resolves to the boosted status), or null. */
async function loadTarget(db: Executor, statusId: string): Promise<Target | null> {
  const byId = (id: string) =>
    preparedQuery(
      db,
      "notification_target",
      (db) =>
        db.select({ ...targetFields, reblogOfId: statuses.reblogOfId })
          .from(statuses).where(eq(statuses.id, sql.placeholder("id"))).limit(1),
    ).execute({ id });
  const [row] = await byId(statusId);
  if (!row?.reblogOfId) return row ?? null;
  const [original] = await byId(row.reblogOfId);
  return original ?? null;
}

/** A recipient that passed the rules, and what their policy makes of it. */
interface Screened {
  accountId: string;
  /** `accept` or `filter` (dropped recipients are left out). */
  verdict: Verdict;
}

/**
 * The candidates that pass the rules, with their policy's verdict, in one
 * query (plus one up the thread for a direct reply).
 */
async function screenRecipients(
  db: Executor,
  candidateIds: readonly string[],
  cause: NotificationCause & { status?: Target | null },
): Promise<Screened[]> {
  if (candidateIds.length === 0) return [];
  const columns = policyColumns(cause);
  const rows = await db.select({ id: sql<string>`r.id`, ...(columns ?? {}) })
    .from(sql`accounts r`)
    .where(and(
      inArray(sql`r.id`, [...new Set(candidateIds)]),
      keepNotificationFor(cause),
    ));
  if (!columns) return rows.map((r) => ({ accountId: String(r.id), verdict: "accept" }));
  const answered = await answeredAccounts(db, cause);
  const out: Screened[] = [];
  for (const row of rows) {
    const accountId = String(row.id);
    const verdict = decide(cause, row as unknown as PolicyFacts, answered.has(accountId));
    if (verdict !== "drop") out.push({ accountId, verdict });
  }
  return out;
}

/**
 * Records one notification unless the recipient's rules or policy drop it.
 * Returns the new notification's id (filtered or not), or null when it was
 * dropped (or its status is gone).
 */
export async function notify(tx: Executor, notification: NewNotification): Promise<string | null> {
  const { type, accountId, fromAccountId } = notification;
  const statusId = notification.statusId ?? null;
  const target = statusId ? await loadTarget(tx, statusId) : null;
  if (statusId && !target) return null;
  const [screened] = await screenRecipients(tx, [accountId], {
    type,
    fromAccountId,
    status: target,
  });
  if (!screened) return null;
  const filtered = screened.verdict === "filter";
  const id = newId();
  await tx.insert(notifications).values({
    id,
    accountId,
    fromAccountId,
    type,
    statusId,
    reportId: notification.reportId ?? null,
    accountWarningId: notification.accountWarningId ?? null,
    collectionId: notification.collectionId ?? null,
    filtered,
    groupKey: filtered ? null : await nextGroupKey(tx, accountId, type, target?.id ?? null),
  });
  if (!filtered) {
    await publishStreamEvent(tx, { event: "notification", accountId, notificationId: id });
  }
  if (filtered) await recordInRequest(tx, { type, accountId, fromAccountId, statusId });
  await requestPush(tx, [{ id, accountId, filtered }]);
  return id;
}

/**
 * Notifies several recipients of the same event (ungrouped types only:
 * mention, status, update, poll, quoted_update). Returns the recipients notified (filtered ones included).
 */
export async function notifyMany(
  tx: Executor,
  event: { type: NotificationType; fromAccountId: string; statusId: string },
  recipientIds: readonly string[],
): Promise<string[]> {
  if (recipientIds.length === 0) return [];
  const target = await loadTarget(tx, event.statusId);
  if (!target) return [];
  const screened = await screenRecipients(tx, recipientIds, {
    type: event.type,
    fromAccountId: event.fromAccountId,
    status: target,
  });
  if (screened.length === 0) return [];
  const rows = screened.map(({ accountId, verdict }) => ({
    id: newId(),
    accountId,
    fromAccountId: event.fromAccountId,
    type: event.type,
    statusId: event.statusId,
    filtered: verdict === "filter",
    groupKey: null,
  }));
  await tx.insert(notifications).values(rows);
  await requestPush(tx, rows);
  for (const { accountId, verdict } of screened) {
    if (verdict !== "filter") continue;
    await recordInRequest(tx, { ...event, accountId });
  }
  await publishStreamEvents(
    tx,
    rows.filter((n) => !n.filtered).map((n) => ({
      event: "notification",
      accountId: n.accountId,
      notificationId: n.id,
    })),
  );
  return screened.map((s) => s.accountId);
}

/** The parts of a status row the helpers read. */
export interface StatusForNotifications {
  id: string;
  accountId: string;
  visibility: string;
  reblogOfId: string | null;
  inReplyToAccountId: string | null;
}

/**
 * `mention` notifications for the accounts a new status mentions (remote and
 * self mentions are dropped by the rules). Call it once, at creation; an
 * edit notifies only the newly mentioned accounts.
 */
export async function notifyMentions(
  tx: Executor,
  status: Pick<StatusForNotifications, "id" | "accountId">,
  mentionedAccountIds: readonly string[],
): Promise<string[]> {
  return await notifyMany(
    tx,
    { type: "mention", fromAccountId: status.accountId, statusId: status.id },
    mentionedAccountIds,
  );
}

/**
 * `status` notifications for the local followers who asked to be told when
 * the author posts (follows.notify), as Mastodon's FeedInsertWorker: not for
 * boosts, not for replies to someone else, not for direct messages (which
 * reach only the mentioned accounts). Call it once, when the status is created.
 * `known`: those followers' ids, when the caller has read them already (on
 * PGlite, fan-out's reach probe: fanout.ts).
 */
export async function notifySubscribers(
  tx: Executor,
  status: StatusForNotifications,
  known?: readonly string[],
): Promise<string[]> {
  if (status.reblogOfId || status.visibility === "direct") return [];
  if (status.inReplyToAccountId && status.inReplyToAccountId !== status.accountId) return [];
  if (known) {
    return await notifyMany(
      tx,
      { type: "status", fromAccountId: status.accountId, statusId: status.id },
      known,
    );
  }
  const subscribers = await preparedQuery(
    tx,
    "status_subscribers",
    (db) =>
      db.select({ id: follows.accountId }).from(follows)
        .innerJoin(accounts, eq(accounts.id, follows.accountId))
        .where(and(
          eq(follows.targetAccountId, sql.placeholder("id")),
          eq(follows.notify, true),
          isNull(accounts.domain),
        )),
  ).execute({ id: status.accountId });
  return await notifyMany(
    tx,
    { type: "status", fromAccountId: status.accountId, statusId: status.id },
    subscribers.map((s) => s.id),
  );
}

/** `follow`: `followerId` now follows the local account `targetId`. */
export async function notifyFollow(
  tx: Executor,
  followerId: string,
  targetId: string,
): Promise<string | null> {
  return await notify(tx, { type: "follow", accountId: targetId, fromAccountId: followerId });
}

/** `follow_request`: `requesterId` asked to follow the locked local account `targetId`. */
export async function notifyFollowRequest(
  tx: Executor,
  requesterId: string,
  targetId: string,
): Promise<string | null> {
  return await notify(tx, {
    type: "follow_request",
    accountId: targetId,
    fromAccountId: requesterId,
  });
}

/**
 * Removes the notifications an undone action left (Mastodon destroys them
 * with the follow request, follow, favourite… that caused them): those of
 * `types` sent by `fromAccountId` to `accountId`, about `statusId` when given.
 */
export async function retractNotifications(
  tx: Executor,
  what: {
    types: readonly NotificationType[];
    accountId: string;
    fromAccountId: string;
    statusId?: string;
  },
): Promise<void> {
  await tx.delete(notifications).where(and(
    eq(notifications.accountId, what.accountId),
    eq(notifications.fromAccountId, what.fromAccountId),
    inArray(notifications.type, [...what.types]),
    what.statusId ? eq(notifications.statusId, what.statusId) : undefined,
  ));
}
