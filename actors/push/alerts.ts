/**
 * What a push subscription may ask for: the alerts (one per notification
 * type Mastodon pushes) and the policy on senders. Shared by the
 * subscription commands and the delivery.
 */
import { mayReceiveNotification } from "../../model/permissions.ts";
import { PUSH_ALERTS, type PushAlert } from "../../model/notification_types.ts";

/** Whose notifications are pushed: everyone's, accounts the user follows, followers, nobody's. */
export const PUSH_POLICIES = ["all", "followed", "follower", "none"] as const;
export type PushPolicy = typeof PUSH_POLICIES[number];

/**
 * Whether a user of `role` may receive `alert`: a staff alert needs the
 * permission its notification needs (model/permissions.ts).
 */
export function roleMayReceive(role: string, alert: string): boolean {
  return mayReceiveNotification(role, alert);
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
