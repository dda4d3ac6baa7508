/**
 * Who is not notified, as Mastodon's NotifyService::DropCondition decides it,
 * written once as SQL over a candidate recipient so that a single
 * notification and a fan-out to many followers apply the very same rules.
 *
 * A notification is dropped when:
 * - the recipient is remote (only local accounts read notifications here),
 *   deleted or suspended (except `moderation_warning`: the warning that
 *   comes with a suspension is there to read once it is lifted);
 * - the recipient caused it (except `poll`: "a poll you created ended", and
 *   `moderation_warning`, whose sender is the recipient, as in Mastodon);
 * - the recipient blocks the sender;
 * - the recipient mutes the sender with notifications hidden (a mute in force);
 * - the recipient blocked the sender's domain and does not follow the sender;
 * - the status belongs to a conversation the recipient muted;
 * - a mention that also mentions, or replies to, someone the recipient blocks
 *   or mutes (Mastodon's FeedManager mention filter).
 */
import { type SQL, sql } from "drizzle-orm";
import type { NotificationType } from "../../model/notification_types.ts";

/** What the rules need to know about the cause of a notification. */
export interface NotificationCause {
  type: NotificationType;
  fromAccountId: string;
  /** The status shown (for a boost: the boosted status). */
  status?: {
    id: string;
    conversationId: string | null;
    inReplyToAccountId: string | null;
  } | null;
}

/** Types that may notify their own author. */
const SELF_ALLOWED = new Set<NotificationType>(["poll", "moderation_warning"]);

/**
 * A condition over `recipient` (an SQL expression yielding an account id,
 * with the recipient's `accounts` row available as `r`) that holds when the
 * recipient should get the notification.
 */
export function keepNotificationFor(cause: NotificationCause): SQL {
  const from = sql`${cause.fromAccountId}::bigint`;
  const parts: SQL[] = [
    cause.type === "moderation_warning"
      ? sql`r.domain IS NULL AND r.deleted_at IS NULL`
      : sql`r.domain IS NULL AND r.deleted_at IS NULL AND r.suspended_at IS NULL`,
    sql`NOT EXISTS (SELECT 1 FROM blocks nb WHERE nb.account_id = r.id
      AND nb.target_account_id = ${from})`,
    sql`NOT EXISTS (SELECT 1 FROM mutes nm WHERE nm.account_id = r.id
      AND nm.target_account_id = ${from} AND nm.hide_notifications
      AND (nm.expires_at IS NULL OR nm.expires_at > now()))`,
    sql`NOT EXISTS (SELECT 1 FROM accounts sa JOIN account_domain_blocks ndb
      ON ndb.account_id = r.id AND lower(ndb.domain) = lower(sa.domain)
      WHERE sa.id = ${from} AND sa.domain IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM follows nf WHERE nf.account_id = r.id
        AND nf.target_account_id = ${from}))`,
  ];
  if (!SELF_ALLOWED.has(cause.type)) parts.push(sql`r.id <> ${from}`);
  const status = cause.status;
  if (status?.conversationId) {
    parts.push(sql`NOT EXISTS (SELECT 1 FROM conversation_mutes ncm
      WHERE ncm.account_id = r.id AND ncm.conversation_id = ${status.conversationId}::bigint)`);
  }
  if (status && cause.type === "mention") {
    // The accounts a mention drags along: everyone it mentions and whom it answers.
    const involved =
      sql`(SELECT im.account_id FROM mentions im WHERE im.status_id = ${status.id}::bigint
      ${
        status.inReplyToAccountId
          ? sql`UNION SELECT ${status.inReplyToAccountId}::bigint`
          : sql``
      })`;
    parts.push(sql`NOT EXISTS (SELECT 1 FROM blocks ib WHERE ib.account_id = r.id
      AND ib.target_account_id IN ${involved})`);
    parts.push(sql`NOT EXISTS (SELECT 1 FROM mutes imu WHERE imu.account_id = r.id
      AND imu.target_account_id IN ${involved}
      AND (imu.expires_at IS NULL OR imu.expires_at > now()))`);
  }
  return sql.join(parts.map((p) => sql`(${p})`), sql` AND `);
}
