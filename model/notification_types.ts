/**
 * The notification types: the one list. db/queries/notifications.ts filters
 * by it, actors/notifications/ writes these, and a push subscription's
 * alerts are named after them (actors/push/alerts.ts).
 */

/** Every notification type the API knows, in Mastodon's order. */
export const NOTIFICATION_TYPES = [
  "mention",
  "status",
  "reblog",
  "follow",
  "follow_request",
  "favourite",
  "poll",
  "update",
  "quote",
  "quoted_update",
  "admin.sign_up",
  "admin.report",
  "moderation_warning",
  // Someone one follows moved (actors/accounts/moves.ts); the account is the one that moved.
  "move",
  // Collections (Mastodon 4.6): the account is the collection's owner.
  "added_to_collection",
  "collection_update",
  // GoToSocial's: an interaction with one's status waits for approval
  // (issue 34, actors/interactions/requests.ts). The status is the liked
  // status, the held reply, or the held boost.
  "pending.favourite",
  "pending.reply",
  "pending.reblog",
] as const;

/** A notification type. */
export type NotificationType = typeof NOTIFICATION_TYPES[number];

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

/** Types never pushed: a move, and the collection types (not among Mastodon's push alerts). */
type Unpushed = "move" | "added_to_collection" | "collection_update";
const UNPUSHED: ReadonlySet<string> = new Set<Unpushed>([
  "move",
  "added_to_collection",
  "collection_update",
]);

/**
 * The types a push subscription can ask alerts for (Mastodon's push alerts
 * take the Notification::TYPES names of its Web::PushSubscription).
 */
export const PUSH_ALERTS = NOTIFICATION_TYPES.filter(
  (type): type is Exclude<NotificationType, Unpushed> => !UNPUSHED.has(type),
);

/**
 * The alert a `pending.*` alert follows when a subscription does not name
 * it (issue 34): an app that asks for mentions hears of held replies too.
 */
export const PENDING_ALERT_BASES: Readonly<Record<string, NotificationType>> = {
  "pending.favourite": "favourite",
  "pending.reply": "mention",
  "pending.reblog": "reblog",
};
/** A push alert's name. */
export type PushAlert = typeof PUSH_ALERTS[number];
