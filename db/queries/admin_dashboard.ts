/** The figures on the staff dashboard (/admin), in one query. */
import { sql } from "drizzle-orm";
import type { Database } from "../connection.ts";

export interface DashboardCounts {
  /** Local users whose account is neither suspended nor deleted. */
  users: number;
  /** Local users seen in the last 30 days (API or web activity: actors/accounts/user_activity.ts). */
  activeUsers: number;
  /** Sign-ups waiting for approval. */
  pendingUsers: number;
  /** Reports nobody has resolved yet. */
  openReports: number;
  /** Local statuses not deleted. */
  localStatuses: number;
  /** Remote accounts we know of. */
  remoteAccounts: number;
  /** Servers those accounts are on. */
  knownDomains: number;
  /** Instance domain blocks in force. */
  domainBlocks: number;
}

export async function dashboardCounts(
  database: Database,
  now = new Date(),
): Promise<DashboardCounts> {
  const monthAgo = new Date(now.getTime() - 30 * 24 * 60 * 60 * 1000).toISOString();
  const [row] = await database.rows<Record<string, string | number>>(sql`
    SELECT
      (SELECT count(*) FROM users u JOIN accounts a ON a.id = u.account_id
        WHERE a.suspended_at IS NULL AND a.deleted_at IS NULL) AS users,
      (SELECT count(*) FROM users u WHERE u.last_sign_in_at >= ${monthAgo}::timestamptz
        OR EXISTS (SELECT 1 FROM user_activity_days d
          WHERE d.user_id = u.id AND d.day >= ${monthAgo}::timestamptz::date)) AS active_users,
      (SELECT count(*) FROM users u JOIN accounts a ON a.id = u.account_id
        WHERE NOT u.approved AND a.deleted_at IS NULL) AS pending_users,
      (SELECT count(*) FROM reports WHERE action_taken_at IS NULL) AS open_reports,
      (SELECT count(*) FROM statuses WHERE local AND deleted_at IS NULL) AS local_statuses,
      (SELECT count(*) FROM accounts WHERE domain IS NOT NULL AND deleted_at IS NULL)
        AS remote_accounts,
      (SELECT count(DISTINCT lower(domain)) FROM accounts WHERE domain IS NOT NULL)
        AS known_domains,
      (SELECT count(*) FROM domain_blocks) AS domain_blocks`);
  return {
    users: Number(row.users),
    activeUsers: Number(row.active_users),
    pendingUsers: Number(row.pending_users),
    openReports: Number(row.open_reports),
    localStatuses: Number(row.local_statuses),
    remoteAccounts: Number(row.remote_accounts),
    knownDomains: Number(row.known_domains),
    domainBlocks: Number(row.domain_blocks),
  };
}
