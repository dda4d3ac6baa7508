/**
 * Delivers one notification to the Web Push subscriptions of its recipient
 * (the job queued by actors/push/request.ts through the outbox). Everything
 * is read at send time: the notification (gone or filtered: nothing to
 * send), the subscriptions of the recipient's live tokens (deleted or
 * revoked meanwhile: nothing to send), each one's alerts and policy, and
 * the sender and status the payload describes.
 *
 * The answers of push services decide what happens next: 404/410 deletes
 * the subscription; 429, 5xx and network failures come back to the caller
 * as retries (Retry-After honoured, else exponential backoff, at most
 * {@link MAX_ATTEMPTS} attempts) for it to queue with a delay; other
 * answers are logged and dropped.
 */
import { sql } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import { type PushPolicy, roleMayReceive } from "../../actors/push/alerts.ts";
import { payloadJson, pushPayload, urgencyOf } from "./payload.ts";
import { sendPush } from "./send.ts";
import { dropExpiredSubscription } from "../../actors/push/subscriptions.ts";
import { type VapidKeys, vapidKeys } from "../../actors/push/vapid.ts";

const logger = getLogger(["rookery", "push"]);

/** Attempts per message and subscription, the first included. */
export const MAX_ATTEMPTS = 5;
/** Backoff without Retry-After: 30 s, 2 min, 8 min, 32 min. */
const BASE_BACKOFF_MS = 30_000;
/** The shortest wait before a retry (a `Retry-After: 0` must not spin). */
const MIN_RETRY_MS = 1_000;
/** A Retry-After is honoured up to this; beyond it the message would be stale. */
const MAX_RETRY_AFTER_MS = 6 * 60 * 60 * 1000;

/** One subscription to try again later. */
export interface PushRetry {
  subscriptionId: number;
  /** The attempt that the retry will be (2 for the first retry). */
  attempt: number;
  delayMs: number;
}

/** Which delivery this is: the first (every subscription) or a retry of one. */
export interface PushAttempt {
  subscriptionId?: number;
  /** 1 for the first. */
  attempt?: number;
}

interface NotificationFacts {
  id: string;
  type: string;
  account_id: string;
  from_account_id: string;
  status_id: string | null;
  username: string;
  display_name: string;
  avatar_url: string | null;
  note: string;
  spoiler_text: string | null;
  text: string | null;
  content: string | null;
  status_gone: boolean;
  warning_text: string | null;
}

interface SubscriptionFacts {
  id: number;
  endpoint: string;
  key_p256dh: string;
  key_auth: string;
  standard: boolean;
  alerts: Record<string, boolean>;
  policy: PushPolicy;
  access_token: string;
  role: string;
  locale: string;
}

/** The VAPID `sub`: the contact address, else the server's https origin, else its mail sender. */
function vapidSubject(ctx: Pick<AppContext, "config">): string {
  const { config } = ctx;
  if (config.instance.contactEmail) return `mailto:${config.instance.contactEmail}`;
  if (config.origin.startsWith("https:")) return config.origin;
  const from = /<([^>]+)>/.exec(config.mail.from)?.[1] ?? config.mail.from;
  return `mailto:${from.trim()}`;
}

async function loadNotification(
  ctx: Pick<AppContext, "database">,
  id: string,
): Promise<NotificationFacts | null> {
  // The status shown is a boost's original (as in the API), and a deleted
  // status makes the notification moot.
  const [row] = await ctx.database.rows<NotificationFacts>(sql`
    SELECT n.id::text AS id, n.type, n.account_id::text AS account_id,
      n.from_account_id::text AS from_account_id, n.status_id::text AS status_id,
      a.username, a.display_name, a.avatar_url, a.note,
      s.spoiler_text, s.text, s.content,
      (n.status_id IS NOT NULL AND (s.id IS NULL OR s.deleted_at IS NOT NULL)) AS status_gone,
      w.text AS warning_text
    FROM notifications n
    JOIN accounts a ON a.id = n.from_account_id
    LEFT JOIN statuses b ON b.id = n.status_id
    LEFT JOIN statuses s ON s.id = coalesce(b.reblog_of_id, b.id)
    LEFT JOIN account_warnings w ON w.id = n.account_warning_id
    WHERE n.id = ${id} AND NOT n.filtered`);
  return row ?? null;
}

async function loadSubscriptions(
  ctx: Pick<AppContext, "database">,
  recipientId: string,
  only: number | undefined,
): Promise<SubscriptionFacts[]> {
  return await ctx.database.rows<SubscriptionFacts>(sql`
    SELECT s.id::float8 AS id, s.endpoint, s.key_p256dh, s.key_auth, s.standard, s.alerts,
      s.policy, s.access_token, u.role, u.locale
    FROM web_push_subscriptions s
    JOIN users u ON u.id = s.user_id
    JOIN oauth_access_tokens t ON t.id = s.access_token_id AND t.revoked_at IS NULL
    WHERE u.account_id = ${recipientId} AND u.disabled = false
      ${only == null ? sql`` : sql`AND s.id = ${only}`}
    ORDER BY s.id`);
}

/** Whether recipient follows sender, and sender follows recipient (asked only when a policy needs it). */
async function followFacts(
  ctx: Pick<AppContext, "database">,
  recipientId: string,
  senderId: string,
): Promise<{ followed: boolean; follower: boolean }> {
  const [row] = await ctx.database.rows<{ followed: boolean; follower: boolean }>(sql`
    SELECT
      EXISTS (SELECT 1 FROM follows WHERE account_id = ${recipientId}
        AND target_account_id = ${senderId}) AS followed,
      EXISTS (SELECT 1 FROM follows WHERE account_id = ${senderId}
        AND target_account_id = ${recipientId}) AS follower`);
  return { followed: !!row?.followed, follower: !!row?.follower };
}

/**
 * Sends notification `notificationId` to its recipient's subscriptions (or,
 * for a retry, to the one named). Returns the retries to queue.
 */
export async function deliverPush(
  ctx: Pick<AppContext, "config" | "database" | "core">,
  notificationId: string,
  retry: PushAttempt = {},
): Promise<PushRetry[]> {
  const notification = await loadNotification(ctx, notificationId);
  if (!notification || notification.status_gone) return [];
  const all = await loadSubscriptions(ctx, notification.account_id, retry.subscriptionId);
  const wanted = all.filter((s) =>
    s.alerts?.[notification.type] === true && roleMayReceive(s.role, notification.type) &&
    s.policy !== "none"
  );
  if (wanted.length === 0) return [];
  const follows = wanted.some((s) => s.policy === "followed" || s.policy === "follower")
    ? await followFacts(ctx, notification.account_id, notification.from_account_id)
    : { followed: false, follower: false };
  const vapid = await vapidKeys(ctx);
  const attempt = retry.attempt ?? 1;
  const allowed = wanted.filter((s) =>
    (s.policy !== "followed" || follows.followed) && (s.policy !== "follower" || follows.follower)
  );
  // Each subscription on its own: a slow or broken push service delays no other.
  const retries = await Promise.all(
    allowed.map((subscription) =>
      pushTo(ctx, notification, subscription, vapid, attempt).catch((error) => {
        logger.warn("Push of notification {notification} to {subscription} failed: {error}", {
          notification: notification.id,
          subscription: subscription.id,
          error,
        });
        return null;
      })
    ),
  );
  return retries.filter((r): r is PushRetry => r != null);
}

/** Sends one notification to one subscription; returns the retry to queue, if any. */
async function pushTo(
  ctx: Pick<AppContext, "config" | "database">,
  notification: NotificationFacts,
  subscription: SubscriptionFacts,
  vapid: VapidKeys,
  attempt: number,
): Promise<PushRetry | null> {
  const payload = pushPayload(ctx.config.origin, {
    accessToken: subscription.access_token,
    locale: subscription.locale,
    notificationId: notification.id,
    type: notification.type,
    sender: {
      username: notification.username,
      displayName: notification.display_name,
      avatarUrl: notification.avatar_url,
      note: notification.note,
    },
    warningText: notification.warning_text,
    status: notification.status_id
      ? {
        spoilerText: notification.spoiler_text ?? "",
        text: notification.text,
        content: notification.content ?? "",
      }
      : null,
  });
  const outcome = await sendPush(
    {
      endpoint: subscription.endpoint,
      p256dh: subscription.key_p256dh,
      auth: subscription.key_auth,
      standard: subscription.standard,
    },
    payloadJson(payload),
    {
      vapid,
      subject: vapidSubject(ctx),
      urgency: urgencyOf(notification.type),
      allowPrivateAddress: ctx.config.allowPrivateAddress,
      timeoutMs: ctx.config.fetchTimeoutMs,
      origin: ctx.config.origin,
    },
  );
  const where = { subscription: subscription.id, notification: notification.id };
  switch (outcome.kind) {
    case "sent":
      return null;
    case "gone":
      logger.info("Push subscription {subscription} is gone (HTTP {status}); deleted", {
        ...where,
        status: outcome.status,
      });
      await dropExpiredSubscription(ctx.database.db, subscription);
      return null;
    case "dropped":
      logger.warn("Push of notification {notification} to {subscription} dropped: {reason}", {
        ...where,
        reason: outcome.reason,
      });
      return null;
    case "retry": {
      if (attempt >= MAX_ATTEMPTS) {
        logger.warn(
          "Push of notification {notification} to {subscription} failed {attempt} times: {reason}",
          { ...where, attempt, reason: outcome.reason },
        );
        return null;
      }
      const backoff = BASE_BACKOFF_MS * 4 ** (attempt - 1);
      const delayMs = Math.min(
        Math.max(outcome.retryAfterMs ?? backoff, MIN_RETRY_MS),
        MAX_RETRY_AFTER_MS,
      );
      logger.info(
        "Push of notification {notification} to {subscription} will be retried in {delayMs} ms: {reason}",
        { ...where, delayMs, reason: outcome.reason },
      );
      return { subscriptionId: subscription.id, attempt: attempt + 1, delayMs };
    }
  }
}
