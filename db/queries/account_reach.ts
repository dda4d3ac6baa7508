/**
 * The servers that should hear about a local account's own changes (an
 * Update of its actor, a suspension, its deletion): Mastodon's
 * AccountReachFinder, which is wider than the followers. The remote accounts
 * (alive, with an inbox) that
 *
 * - follow it, are followed by it, or have a follow request pending either
 *   way (a deletion must reach the accounts it follows too);
 * - reported it (a Flag came from them);
 * - were mentioned or replied to by its statuses of the last
 *   {@link REACH_SINCE_MS} (at most {@link REACH_STATUS_LIMIT} statuses), or
 *   wrote the statuses it boosted or favourited in that time (an
 *   interaction their server recorded, so it holds a copy of the account).
 *
 * ActivityPub relays would be part of it; Rookery has none. Deliveries
 * prefer shared inboxes, so one row per shared inbox (or per personal inbox
 * for servers without one) is enough: a reach of 10,000 followers on 100
 * servers is about 100 rows.
 */
import { sql } from "drizzle-orm";
import type { Executor } from "../connection.ts";
import { minIdAt } from "../ids.ts";

/** How far back statuses and favourites count (Mastodon: two days). */
export const REACH_SINCE_MS = 2 * 24 * 60 * 60 * 1000;
/** How many recent statuses are looked at (Mastodon: 200). */
export const REACH_STATUS_LIMIT = 200;

/** A remote account whose inbox is reached (the shape deliveries take). */
export interface ReachInbox {
  uri: string;
  inboxUrl: string;
  sharedInboxUrl: string | null;
}

/** The inboxes of the accounts that should hear about `accountId` (see above). */
export async function accountReach(
  db: Executor,
  accountId: string,
  now = new Date(),
): Promise<ReachInbox[]> {
  const since = minIdAt(new Date(now.getTime() - REACH_SINCE_MS));
  const result = await db.execute(sql`
    WITH recent AS (
      SELECT s.id, s.in_reply_to_account_id, s.reblog_of_id FROM statuses s
      WHERE s.account_id = ${accountId}::bigint AND s.id >= ${since}::bigint
      ORDER BY s.id DESC LIMIT ${REACH_STATUS_LIMIT}
    ), related AS (
      SELECT account_id AS id FROM follows WHERE target_account_id = ${accountId}::bigint
      UNION SELECT target_account_id FROM follows WHERE account_id = ${accountId}::bigint
      UNION SELECT target_account_id FROM follow_requests WHERE account_id = ${accountId}::bigint
      UNION SELECT account_id FROM follow_requests WHERE target_account_id = ${accountId}::bigint
      UNION SELECT account_id FROM reports
        WHERE target_account_id = ${accountId}::bigint AND account_id IS NOT NULL
      UNION SELECT m.account_id FROM recent r JOIN mentions m ON m.status_id = r.id
      UNION SELECT r.in_reply_to_account_id FROM recent r
        WHERE r.in_reply_to_account_id IS NOT NULL
      UNION SELECT b.account_id FROM recent r JOIN statuses b ON b.id = r.reblog_of_id
      UNION SELECT fs.account_id FROM favourites f JOIN statuses fs ON fs.id = f.status_id
        WHERE f.account_id = ${accountId}::bigint AND f.id >= ${since}::bigint
    )
    SELECT DISTINCT ON (coalesce(a.shared_inbox_url, a.inbox_url))
      a.uri, a.inbox_url, a.shared_inbox_url
    FROM accounts a JOIN related ON related.id = a.id
    WHERE a.domain IS NOT NULL AND a.inbox_url IS NOT NULL AND a.deleted_at IS NULL
    ORDER BY coalesce(a.shared_inbox_url, a.inbox_url), a.id`);
  const rows = Array.isArray(result) ? result : (result as unknown as { rows: unknown[] }).rows;
  return (rows as { uri: string; inbox_url: string; shared_inbox_url: string | null }[]).map(
    (r) => ({ uri: r.uri, inboxUrl: r.inbox_url, sharedInboxUrl: r.shared_inbox_url }),
  );
}
