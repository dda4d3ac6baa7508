/**
 * Notification requests: the filtered notifications of one sender, held for
 * the recipient to accept or dismiss (Mastodon 4.3's NotificationRequest).
 *
 * - A filtered mention or quote opens (or refreshes) the sender's request:
 *   its last status becomes the new one and its count grows by one.
 *   Filtered favourites, boosts and follows are kept filtered but open no
 *   request, as in Mastodon.
 * - Accepting grants the sender a notification permission (they are never
 *   filtered again), turns their filtered notifications into ordinary ones
 *   and removes the request — all at once, where Mastodon uses a worker
 *   (so /requests/merged is always true here); the streams hear
 *   `notifications_merged` once the accepted ones are in.
 *   The direct messages it held back join the recipient's conversations
 *   then (../conversations.ts keeps them out until this).
 * - Dismissing deletes the sender's filtered notifications (Mastodon's
 *   FilteredNotificationCleanupWorker) and marks the request dismissed: it
 *   leaves the list and the summary. A later filtered mention from the same
 *   sender opens it afresh, with a new id, as Mastodon creates a new one.
 * - When filtered notifications go another way (their status is deleted,
 *   the recipient dismisses one, clears them all, or blocks the sender), the
 *   requests concerned are recounted, as Mastodon's
 *   NotificationRequest#reconsider_existence!: a pending request left with
 *   none disappears; its last status becomes the newest one still held.
 *
 * Someone else's request id matches nothing: NotFoundError for one, ignored
 * in a bulk call.
 */
import { and, eq, inArray, isNull, type SQL, sql } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { isId, newId } from "../../db/ids.ts";
import {
  notificationPermissions,
  notificationRequests,
  notifications,
} from "../../db/schema/mod.ts";
import { NotFoundError } from "../../model/errors.ts";
import { addAcceptedToConversations } from "../timelines/conversations.ts";
import { publishStreamEvent } from "../streaming/bus.ts";

/** Types whose filtered notifications open a request (they carry a message). */
export const REQUEST_TYPES: ReadonlySet<string> = new Set(["mention", "quote"]);

/** Most notifications a recount counts per request (Mastodon's MAX_MEANINGFUL_COUNT). */
export const MAX_COUNTED = 100;

/** Most ids a bulk accept or dismiss reads (more than two full pages; the rest are ignored). */
export const MAX_BULK_IDS = 200;

/**
 * Records a filtered notification in its sender's request (call it in the
 * transaction that inserted the notification).
 */
export async function recordInRequest(
  tx: Executor,
  filtered: { type: string; accountId: string; fromAccountId: string; statusId: string | null },
): Promise<void> {
  if (!REQUEST_TYPES.has(filtered.type)) return;
  const r = notificationRequests;
  const wasDismissed = sql`${r.dismissed}`;
  await tx.insert(r).values({
    id: newId(),
    accountId: filtered.accountId,
    fromAccountId: filtered.fromAccountId,
    lastStatusId: filtered.statusId,
    notificationsCount: 1,
    dismissed: false,
  }).onConflictDoUpdate({
    target: [r.accountId, r.fromAccountId],
    set: {
      // A dismissed request comes back as a new one: new id (top of the list), count from one.
      id: sql`CASE WHEN ${wasDismissed} THEN excluded.id ELSE ${r.id} END`,
      createdAt: sql`CASE WHEN ${wasDismissed} THEN now() ELSE ${r.createdAt} END`,
      notificationsCount: sql`CASE WHEN ${wasDismissed} THEN 1
        ELSE ${r.notificationsCount} + 1 END`,
      lastStatusId: sql`excluded.last_status_id`,
      dismissed: false,
      updatedAt: sql`now()`,
    },
  });
}

/** The request rows of `accountId` among `ids` (malformed ids dropped). */
async function ownRequests(db: Executor, accountId: string, ids: readonly string[]) {
  const valid = [...new Set(ids.filter((id) => isId(id)))].slice(0, MAX_BULK_IDS);
  if (valid.length === 0) return [];
  return await db.select({ id: notificationRequests.id, from: notificationRequests.fromAccountId })
    .from(notificationRequests)
    .where(and(
      eq(notificationRequests.accountId, accountId),
      inArray(notificationRequests.id, valid),
    ));
}

/**
 * The sender's filtered notifications to the recipient. A filtered
 * notification has no group key, which lets the (account, group key) index
 * skip the recipient's grouped ones.
 */
function filteredFrom(accountId: string, fromAccountId: string) {
  return and(
    eq(notifications.accountId, accountId),
    isNull(notifications.groupKey),
    eq(notifications.fromAccountId, fromAccountId),
    eq(notifications.filtered, true),
  );
}

async function acceptOne(tx: Executor, accountId: string, request: { id: string; from: string }) {
  await tx.insert(notificationPermissions).values({ accountId, fromAccountId: request.from })
    .onConflictDoNothing();
  await addAcceptedToConversations(tx, accountId, request.from);
  await tx.update(notifications).set({ filtered: false })
    .where(filteredFrom(accountId, request.from));
  await tx.delete(notificationRequests).where(eq(notificationRequests.id, request.id));
}

async function dismissOne(tx: Executor, accountId: string, request: { id: string; from: string }) {
  await tx.delete(notifications).where(filteredFrom(accountId, request.from));
  await tx.update(notificationRequests).set({ dismissed: true, updatedAt: sql`now()` })
    .where(eq(notificationRequests.id, request.id));
}

/** The requests of `accountId` among `ids`; with `single`, none is a NotFoundError. */
async function requestsToAnswer(
  tx: Executor,
  accountId: string,
  ids: readonly string[],
  options: { single?: boolean },
) {
  const found = await ownRequests(tx, accountId, ids);
  if (options.single && found.length === 0) throw new NotFoundError();
  return found;
}

/**
 * Accepts requests of `accountId` by id. With `single`, a request that is
 * not theirs (or does not exist) is a NotFoundError; otherwise it is skipped.
 */
export async function acceptRequests(
  tx: Executor,
  accountId: string,
  ids: readonly string[],
  options: { single?: boolean } = {},
): Promise<void> {
  const found = await requestsToAnswer(tx, accountId, ids, options);
  for (const request of found) await acceptOne(tx, accountId, request);
  // Once per command, as Mastodon once its last unfilter job is done: apps reload.
  if (found.length > 0) {
    await publishStreamEvent(tx, { event: "notifications_merged", accountId });
  }
}

/** Dismisses requests of `accountId` by id (see {@link acceptRequests} for `single`). */
export async function dismissRequests(
  tx: Executor,
  accountId: string,
  ids: readonly string[],
  options: { single?: boolean } = {},
): Promise<void> {
  for (const request of await requestsToAnswer(tx, accountId, ids, options)) {
    await dismissOne(tx, accountId, request);
  }
}

/** A recipient and a sender: the key of a request. */
export interface RequestPair {
  accountId: string;
  fromAccountId: string;
}

/**
 * Recounts the pending requests named by `pairs` (an SQL query yielding
 * `account_id, from_account_id`): the count becomes the number of filtered
 * mentions and quotes still held (at most {@link MAX_COUNTED}) whose status is
 * not deleted, the last status the newest of them; a request left with none
 * is deleted. Dismissed requests are left as they are. One statement; each
 * count reads only the recipient's ungrouped notifications (a filtered
 * notification never has a group key), newest first, and stops at the cap.
 */
async function recount(tx: Executor, pairs: SQL): Promise<void> {
  const types = sql.join([...REQUEST_TYPES].map((t) => sql`${t}`), sql`, `);
  await tx.execute(sql`WITH pairs AS (${pairs}),
    counted AS (
      SELECT nr.id, c.n, c.last FROM notification_requests nr
      JOIN pairs p ON p.account_id = nr.account_id AND p.from_account_id = nr.from_account_id
      CROSS JOIN LATERAL (
        SELECT count(*)::int AS n, (array_agg(k.status_id ORDER BY k.id DESC))[1] AS last
        FROM (
          SELECT fn.id, fn.status_id FROM notifications fn
          LEFT JOIN statuses fs ON fs.id = fn.status_id
          WHERE fn.account_id = nr.account_id AND fn.group_key IS NULL
            AND fn.from_account_id = nr.from_account_id AND fn.filtered
            AND fn.type IN (${types}) AND fs.deleted_at IS NULL
          ORDER BY fn.id DESC LIMIT ${sql.raw(String(MAX_COUNTED))}
        ) k
      ) c
      WHERE NOT nr.dismissed
    ),
    emptied AS (
      DELETE FROM notification_requests nr USING counted c WHERE nr.id = c.id AND c.n = 0
    )
    UPDATE notification_requests nr
    SET notifications_count = c.n, last_status_id = c.last, updated_at = now()
    FROM counted c
    WHERE nr.id = c.id AND c.n > 0
      AND (nr.notifications_count <> c.n OR nr.last_status_id IS DISTINCT FROM c.last)`);
}

/** Recounts the requests of these recipient–sender pairs (see {@link recount}). */
export async function recountRequests(
  tx: Executor,
  pairs: readonly RequestPair[],
): Promise<void> {
  const unique = new Map(pairs.map((p) => [`${p.accountId}/${p.fromAccountId}`, p]));
  if (unique.size === 0) return;
  const values = sql.join(
    [...unique.values()].map((p) => sql`(${p.accountId}::bigint, ${p.fromAccountId}::bigint)`),
    sql`, `,
  );
  await recount(
    tx,
    sql`SELECT * FROM (VALUES ${values}) AS v(account_id, from_account_id)`,
  );
}

/**
 * Recounts the requests holding a filtered notification of `statusId` (call
 * it once the status is marked deleted). Costs one index probe when there is
 * none, which is nearly always.
 */
export async function recountRequestsOfStatus(tx: Executor, statusId: string): Promise<void> {
  const types = sql.join([...REQUEST_TYPES].map((t) => sql`${t}`), sql`, `);
  const [held] = await tx.select({ id: notifications.id }).from(notifications)
    .where(and(
      eq(notifications.statusId, statusId),
      eq(notifications.filtered, true),
      sql`${notifications.type} IN (${types})`,
    )).limit(1);
  if (!held) return;
  await recount(
    tx,
    sql`SELECT DISTINCT account_id, from_account_id FROM notifications
      WHERE status_id = ${statusId}::bigint AND filtered AND type IN (${types})`,
  );
}

/**
 * Notifications were deleted: recounts the requests of those that were
 * filtered mentions or quotes (the rows a DELETE … RETURNING gave back).
 */
export async function recountAfterRemoval(
  tx: Executor,
  removed: readonly (RequestPair & { type: string; filtered: boolean })[],
): Promise<void> {
  await recountRequests(tx, removed.filter((n) => n.filtered && REQUEST_TYPES.has(n.type)));
}

/**
 * `accountId` blocked `fromAccountId`: their request goes, dismissed or not,
 * with the filtered notifications it held (Mastodon's AfterBlockService
 * destroys both; unblocking brings neither back).
 */
export async function forgetRequestsFrom(
  tx: Executor,
  accountId: string,
  fromAccountId: string,
): Promise<void> {
  await tx.delete(notifications).where(filteredFrom(accountId, fromAccountId));
  await tx.delete(notificationRequests).where(and(
    eq(notificationRequests.accountId, accountId),
    eq(notificationRequests.fromAccountId, fromAccountId),
  ));
}

/**
 * All of `accountId`'s notifications were cleared: their pending requests
 * have nothing left (dismissed ones stay, as a recount leaves them).
 */
export async function dropPendingRequests(tx: Executor, accountId: string): Promise<void> {
  await tx.delete(notificationRequests).where(and(
    eq(notificationRequests.accountId, accountId),
    eq(notificationRequests.dismissed, false),
  ));
}
