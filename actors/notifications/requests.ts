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
 *   (so /requests/merged is always true here).
 *   The direct messages it held back join the recipient's conversations
 *   then (../conversations.ts keeps them out until this).
 * - Dismissing deletes the sender's filtered notifications (Mastodon's
 *   FilteredNotificationCleanupWorker) and marks the request dismissed: it
 *   leaves the list and the summary. A later filtered mention from the same
 *   sender opens it afresh, with a new id, as Mastodon creates a new one.
 *
 * Someone else's request id matches nothing: NotFoundError for one, ignored
 * in a bulk call.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { isId, newId } from "../../db/ids.ts";
import { notificationPermissions, notificationRequests, notifications } from "../../db/schema.ts";
import { NotFoundError } from "../errors.ts";
import { addAcceptedToConversations } from "../conversations.ts";

/** Types whose filtered notifications open a request (they carry a message). */
export const REQUEST_TYPES: ReadonlySet<string> = new Set(["mention", "quote"]);

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

/** The sender's filtered notifications to the recipient. */
function filteredFrom(accountId: string, fromAccountId: string) {
  return and(
    eq(notifications.accountId, accountId),
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
  const found = await ownRequests(tx, accountId, ids);
  if (options.single && found.length === 0) throw new NotFoundError();
  for (const request of found) await acceptOne(tx, accountId, request);
}

/** Dismisses requests of `accountId` by id (see {@link acceptRequests} for `single`). */
export async function dismissRequests(
  tx: Executor,
  accountId: string,
  ids: readonly string[],
  options: { single?: boolean } = {},
): Promise<void> {
  const found = await ownRequests(tx, accountId, ids);
  if (options.single && found.length === 0) throw new NotFoundError();
  for (const request of found) await dismissOne(tx, accountId, request);
}
