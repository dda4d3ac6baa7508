/** WebPushSubscription (Mastodon 4.5: `standard` since 4.4, quote alerts since 4.5). */
import type { PushSubscriptionRow } from "../../actors/push/subscriptions.ts";
import { PUSH_ALERTS } from "../../model/notification_types.ts";

export interface WebPushSubscription {
  id: number;
  endpoint: string;
  standard: boolean;
  /** Every alert with whether it is on. */
  alerts: Record<string, boolean>;
  policy: string;
  /** The server's VAPID public key. */
  server_key: string;
}

/** Serializes a subscription; `serverKey` is the VAPID key as Mastodon shows it. */
export function webPushSubscriptionEntity(
  row: PushSubscriptionRow,
  serverKey: string,
): WebPushSubscription {
  const alerts: Record<string, boolean> = {};
  for (const alert of PUSH_ALERTS) alerts[alert] = row.alerts[alert] === true;
  return {
    id: row.id,
    endpoint: row.endpoint,
    standard: row.standard,
    alerts,
    policy: row.policy,
    server_key: serverKey,
  };
}
