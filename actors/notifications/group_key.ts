/**
 * Group keys of the v2 (grouped) notifications API, computed as Mastodon's
 * Notification#set_group_key! does:
 *
 * - favourite and reblog: `<type>-<status id>-<hour bucket>`;
 * - follow and admin.sign_up: `<type>-<hour bucket>`;
 * - anything else: no key (the API shows it as `ungrouped-<id>`).
 *
 * The hour bucket is the number of hours since the epoch. A new notification
 * joins the recipient's most recent group of the same kind while that group's
 * bucket is less than {@link MAXIMUM_GROUP_SPAN_HOURS} old, so a burst of
 * favourites that crosses an hour boundary stays one group, and a group never
 * spans more than half a day. Mastodon remembers the last bucket in Redis; we
 * look for the newest notification under one of the few keys still open,
 * which the (account_id, group_key, id) index answers directly.
 */
import { and, desc, eq, inArray } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { notifications } from "../../db/schema/mod.ts";
import type { NotificationType } from "../../model/notification_types.ts";

/** How long a group stays open, in hours (Mastodon's MAXIMUM_GROUP_SPAN_HOURS). */
export const MAXIMUM_GROUP_SPAN_HOURS = 12;

/** The part of the key before the bucket, or null for types that are not grouped. */
export function groupKeyPrefix(type: NotificationType, statusId: string | null): string | null {
  switch (type) {
    case "favourite":
    case "reblog":
      return statusId ? `${type}-${statusId}` : null;
    case "follow":
    case "admin.sign_up":
      return type;
    default:
      return null;
  }
}

/**
 * The group key for a new notification of `recipientId`, reusing the bucket
 * of a group that is still open.
 */
export async function nextGroupKey(
  db: Executor,
  recipientId: string,
  type: NotificationType,
  statusId: string | null,
  now = new Date(),
): Promise<string | null> {
  const prefix = groupKeyPrefix(type, statusId);
  if (!prefix) return null;
  const bucket = Math.floor(now.getTime() / 3_600_000);
  const open: string[] = [];
  for (let b = bucket - MAXIMUM_GROUP_SPAN_HOURS + 1; b <= bucket; b++) open.push(`${prefix}-${b}`);
  const [previous] = await db.select({ groupKey: notifications.groupKey }).from(notifications)
    .where(and(eq(notifications.accountId, recipientId), inArray(notifications.groupKey, open)))
    .orderBy(desc(notifications.id)).limit(1);
  return previous?.groupKey ?? `${prefix}-${bucket}`;
}
