/**
 * Asks for the Web Push of new notifications, in the transaction that
 * inserts them (actors/notifications/notify.ts): one `web_push` job per
 * notification (actors/outbox/jobs.ts) commits with the notifications or not
 * at all (jobs/web_push/ sends them). Only recipients with a subscription
 * get a job, so the common case (nobody subscribed) costs one indexed query
 * and no write.
 */
import { eq, inArray } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { users, webPushSubscriptions } from "../../db/schema/mod.ts";
import { recordJobs } from "../outbox/jobs.ts";

/** A notification just inserted. */
export interface InsertedNotification {
  id: string;
  accountId: string;
  /** Filtered notifications (held back by the recipient's policy) are not pushed. */
  filtered?: boolean;
}

/** Records the push of those of `inserted` whose recipients have a subscription. */
export async function requestPush(
  tx: Executor,
  inserted: readonly InsertedNotification[],
): Promise<void> {
  const candidates = inserted.filter((n) => !n.filtered);
  if (candidates.length === 0) return;
  const recipients = [...new Set(candidates.map((n) => n.accountId))];
  const rows = await tx.selectDistinct({ accountId: users.accountId }).from(webPushSubscriptions)
    .innerJoin(users, eq(users.id, webPushSubscriptions.userId))
    .where(inArray(users.accountId, recipients));
  const subscribed = new Set(rows.map((r) => r.accountId));
  const ids = candidates.filter((n) => subscribed.has(n.accountId)).map((n) => n.id);
  await recordJobs(tx, ids.map((notificationId) => ({ job: "web_push", notificationId })));
}
