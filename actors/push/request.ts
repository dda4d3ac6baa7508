/**
 * Asks for the Web Push of new notifications, in the transaction that
 * inserts them (actors/notifications/notify.ts): an outbox intent
 * (`pushRequested`, actors/outbox/deliveries.ts) commits with the notifications or
 * not at all, and the relay turns it into queued jobs (jobs/web_push/deliver.ts
 * sends them). Only recipients with a subscription get an intent, so the
 * common case (nobody subscribed) costs one indexed query and no write.
 */
import { eq, inArray } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { users, webPushSubscriptions } from "../../db/schema/mod.ts";
import { recordDelivery } from "../outbox/deliveries.ts";

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
  if (ids.length > 0) await recordDelivery(tx, "pushRequested", ids);
}
