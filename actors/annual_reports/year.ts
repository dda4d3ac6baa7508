/**
 * What every source of an annual report reads: the account's own statuses
 * created in the year (UTC), boosts included and deleted ones left out, as
 * Mastodon's AnnualReport::Source#report_statuses. Mastodon bounds them by
 * snowflake id; we bound them by created_at, because a remote status's id
 * and a backdated (imported) status's id need not follow its date.
 *
 * Every source is one SQL aggregate over these rows, so a report never
 * loads a user's statuses (see ./generate.ts for the list of sources).
 */
import { type SQL, sql } from "drizzle-orm";
import type { Database } from "../../db/connection.ts";

/** The first year a report may cover (Mastodon was released in 2016; dates before are imports). */
export const FIRST_REPORT_YEAR = 2000;

/** Whom and which year a report is about. */
export interface ReportScope {
  accountId: string;
  year: number;
}

/** The year's bounds, [start, end), in UTC. */
export function yearBounds(year: number): { start: Date; end: Date } {
  return {
    start: new Date(Date.UTC(year, 0, 1)),
    end: new Date(Date.UTC(year + 1, 0, 1)),
  };
}

/**
 * The condition that picks the report's statuses from `statuses` aliased
 * `alias` (a trusted identifier, never user input).
 */
export function reportStatusesWhere(scope: ReportScope, alias = "s"): SQL {
  const { start, end } = yearBounds(scope.year);
  const t = sql.raw(alias);
  return sql`${t}.account_id = ${scope.accountId}::bigint
    AND ${t}.created_at >= ${start.toISOString()}::timestamptz
    AND ${t}.created_at < ${end.toISOString()}::timestamptz
    AND ${t}.deleted_at IS NULL AND NOT ${t}.pending_approval`;
}

/** The condition on `follows` aliased `alias` for follows made in the year. */
export function followsInYearWhere(year: number, alias = "f"): SQL {
  const { start, end } = yearBounds(year);
  const t = sql.raw(alias);
  return sql`${t}.created_at >= ${start.toISOString()}::timestamptz
    AND ${t}.created_at < ${end.toISOString()}::timestamptz`;
}

/** Runs an aggregate query; sources take the database, not a transaction. */
export type SourceDb = Pick<Database, "rows">;
