/**
 * The notification types. Apart from notify.ts because the modules notify.ts
 * uses (rules.ts, group_key.ts) need the type too.
 */
import { KNOWN_TYPES } from "../db/queries/notifications.ts";

/** A notification type (the list lives with the queries: db/ must not import actors/). */
export type NotificationType = (typeof KNOWN_TYPES)[number];

/** Every type, in Mastodon's order. */
export const NOTIFICATION_TYPES: readonly NotificationType[] = KNOWN_TYPES;

/** Types that carry a status (Mastodon's NotificationSerializer#status_type?). */
export const STATUS_TYPES: ReadonlySet<NotificationType> = new Set([
  "favourite",
  "reblog",
  "status",
  "mention",
  "poll",
  "update",
  "quote",
  "quoted_update",
  "pending.favourite",
  "pending.reply",
  "pending.reblog",
]);
