/**
 * When reports are made, and for whom. Mastodon offers the year's report
 * ("Wrapstodon") between the 10th and the 31st of December, where the
 * server's administrator enabled it; the worker's campaign
 * (jobs/annual_reports.ts) queues one job per local account due in
 * that window, and `deno task admin annual-report generate <year>` does the
 * same for any past year on request.
 */
import { sql } from "drizzle-orm";
import type { Database } from "../../db/connection.ts";
import { yearBounds } from "./year.ts";

/** The year whose reports are offered at `now` (10–31 December, UTC), else null. */
export function campaignYear(now: Date): number | null {
  return now.getUTCMonth() === 11 && now.getUTCDate() >= 10 ? now.getUTCFullYear() : null;
}

/**
 * Local accounts (not suspended or deleted) that made a status in `year`
 * and have no report for it yet, by id after `afterId`, at most `limit`.
 */
export async function accountsDueForReport(
  database: Database,
  year: number,
  afterId: string | null,
  limit: number,
): Promise<string[]> {
  const { start, end } = yearBounds(year);
  const rows = await database.rows<{ id: string }>(sql`SELECT a.id::text AS id FROM accounts a
    WHERE a.domain IS NULL AND a.suspended_at IS NULL AND a.deleted_at IS NULL
      AND a.id > ${afterId ?? "0"}::bigint
      AND EXISTS (SELECT 1 FROM statuses s WHERE s.account_id = a.id
        AND s.created_at >= ${start.toISOString()}::timestamptz
        AND s.created_at < ${end.toISOString()}::timestamptz AND s.deleted_at IS NULL)
      AND NOT EXISTS (SELECT 1 FROM generated_annual_reports r
        WHERE r.account_id = a.id AND r.year = ${year})
    ORDER BY a.id LIMIT ${limit}`);
  return rows.map((r) => String(r.id));
}
