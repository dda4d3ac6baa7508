/**
 * `time_series`: for each month of the year (UTC), the statuses the account
 * made, the accounts it started following and the followers it gained, as
 * Mastodon's AnnualReport::TimeSeries. Follows count as of when they were
 * accepted (the row in `follows`); a follow since undone is not counted,
 * as in Mastodon.
 */
import { type SQL, sql } from "drizzle-orm";
import {
  followsInYearWhere,
  type ReportScope,
  reportStatusesWhere,
  type SourceDb,
} from "./year.ts";

type PerMonth = Map<number, number>;

async function perMonth(db: SourceDb, query: SQL): Promise<PerMonth> {
  const rows = await db.rows<{ month: number; count: number }>(query);
  return new Map(rows.map((r) => [Number(r.month), Number(r.count)]));
}

/** The source's part of the report. */
export async function timeSeries(
  db: SourceDb,
  scope: ReportScope,
): Promise<Record<string, unknown>> {
  const month = (column: string) =>
    sql.raw(`extract(month FROM ${column} AT TIME ZONE 'UTC')::int`);
  const [statuses, following, followers] = await Promise.all([
    perMonth(
      db,
      sql`SELECT ${month("s.created_at")} AS month, count(*)::int AS count
        FROM statuses s WHERE ${reportStatusesWhere(scope)} GROUP BY 1`,
    ),
    perMonth(
      db,
      sql`SELECT ${month("f.created_at")} AS month, count(*)::int AS count
        FROM follows f WHERE f.account_id = ${scope.accountId}::bigint
          AND ${followsInYearWhere(scope.year)} GROUP BY 1`,
    ),
    perMonth(
      db,
      sql`SELECT ${month("f.created_at")} AS month, count(*)::int AS count
        FROM follows f WHERE f.target_account_id = ${scope.accountId}::bigint
          AND ${followsInYearWhere(scope.year)} GROUP BY 1`,
    ),
  ]);
  return {
    time_series: Array.from({ length: 12 }, (_, i) => ({
      month: i + 1,
      statuses: statuses.get(i + 1) ?? 0,
      following: following.get(i + 1) ?? 0,
      followers: followers.get(i + 1) ?? 0,
    })),
  };
}
