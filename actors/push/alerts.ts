/**
 * What a push subscription may ask for: the alerts (one per notification
 * type Mastodon pushes) and the policy on senders. Shared by the
 * subscription commands and the delivery.
 */

/** Every alert, in the order the entity lists them. */
export const PUSH_ALERTS = [
  "mention",
  "status",
  "reblog",
  "follow",
  "follow_request",
  "favourite",
  "poll",
  "update",
  "admin.sign_up",
  "admin.report",
  "quote",
  "quoted_update",
] as const;
export type PushAlert = typeof PUSH_ALERTS[number];

/** Whose notifications are pushed: everyone's, accounts the user follows, followers, nobody's. */
export const PUSH_POLICIES = ["all", "followed", "follower", "none"] as const;
export type PushPolicy = typeof PUSH_POLICIES[number];

/**
 * Roles that may see the admin notifications. Mastodon's default
 * moderator, admin and owner roles all hold manage_users (admin.sign_up)
 * and manage_reports (admin.report); plain users hold neither.
 */
const STAFF_ROLES = new Set(["owner", "admin", "moderator"]);

/** Whether a user of `role` may receive `alert`. */
export function roleMayReceive(role: string, alert: string): boolean {
  return !alert.startsWith("admin.") || STAFF_ROLES.has(role);
}

/**
 * The stored alerts: every known alert given as true, except the admin ones
 * for a role that may not see them. Unknown names are dropped, as
 * Mastodon's permitted parameters drop them.
 */
export function allowedAlerts(
  given: Readonly<Record<string, boolean>>,
  role: string,
): Record<PushAlert, boolean> {
  const out = {} as Record<PushAlert, boolean>;
  for (const alert of PUSH_ALERTS) {
    out[alert] = given[alert] === true && roleMayReceive(role, alert);
  }
  return out;
}
