/**
 * `percentiles`: where the account stands among this server's accounts for
 * followers gained and statuses made during the year, as Mastodon's
 * AnnualReport::Percentiles computes it: the share (0–100) of local
 * accounts that gained at least one follower (made at least one status)
 * that year and gained (made) fewer than this account, over their number
 * plus one.
 *
 * Each figure is one aggregate over the year's local follows (statuses,
 * through the (local, created_at) index): a report costs a scan of the
 * server's year, not of the account's history.
 */
import { type SQL, sql } from "drizzle-orm";
import {
  followsInYearWhere,
  type ReportScope,
  reportStatusesWhere,
  type SourceDb,
  yearBounds,
} from "./year.ts";

/** The percentile of `mine` among the per-account counts `perAccount` (a grouped subquery). */
async function percentile(
  db: SourceDb,
  perAccount: SQL,
  mine: number,
): Promise<number> {
  const [row] = await db.rows<{ fewer: number; any: number }>(sql`SELECT
      (count(*) FILTER (WHERE c.n < ${mine}))::int AS fewer, count(*)::int AS any
    FROM (${perAccount}) c`);
  return (Number(row?.fewer ?? 0) / (Number(row?.any ?? 0) + 1)) * 100;
}

/** The source's part of the report. */
export async function percentiles(
  db: SourceDb,
  scope: ReportScope,
): Promise<Record<string, unknown>> {
  const { start, end } = yearBounds(scope.year);
  const [[followersGained], [statusesMade]] = await Promise.all([
    db.rows<{ n: number }>(sql`SELECT count(*)::int AS n FROM follows f
      WHERE f.target_account_id = ${scope.accountId}::bigint
        AND ${followsInYearWhere(scope.year)}`),
    db.rows<{ n: number }>(sql`SELECT count(*)::int AS n FROM statuses s
      WHERE ${reportStatusesWhere(scope)}`),
  ]);
  const [followers, statuses] = await Promise.all([
    percentile(
      db,
      sql`SELECT count(*) AS n FROM follows f JOIN accounts a ON a.id = f.target_account_id
        WHERE a.domain IS NULL AND ${followsInYearWhere(scope.year)}
        GROUP BY f.target_account_id`,
      Number(followersGained?.n ?? 0),
    ),
    percentile(
      db,
      sql`SELECT count(*) AS n FROM statuses s
        WHERE s.local AND s.created_at >= ${start.toISOString()}::timestamptz
          AND s.created_at < ${end.toISOString()}::timestamptz AND s.deleted_at IS NULL
        GROUP BY s.account_id`,
      Number(statusesMade?.n ?? 0),
    ),
  ]);
  return { percentiles: { followers, statuses } };
}
