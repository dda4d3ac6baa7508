/**
 * `most_reblogged_accounts`: the ten accounts whose statuses the account
 * boosted most during the year (more than once), as Mastodon's
 * AnnualReport::MostRebloggedAccounts. Ids are strings, as every id in the
 * API (Mastodon 4.5 stores this one as a number). The accounts are
 * included in the API answer (api/entities/annual_report.ts).
 */
import { sql } from "drizzle-orm";
import { type ReportScope, reportStatusesWhere, type SourceDb } from "./year.ts";

const SET_SIZE = 10;
/** An account must have been boosted more than this many times. */
const MINIMUM_COUNT = 1;

/** The source's part of the report. */
export async function mostRebloggedAccounts(
  db: SourceDb,
  scope: ReportScope,
): Promise<Record<string, unknown>> {
  const rows = await db.rows<{ account_id: string; count: number }>(sql`SELECT
      o.account_id::text AS account_id, count(*)::int AS count
    FROM statuses s JOIN statuses o ON o.id = s.reblog_of_id
    WHERE ${reportStatusesWhere(scope)}
    GROUP BY o.account_id HAVING count(*) > ${MINIMUM_COUNT}
    ORDER BY count(*) DESC, o.account_id ASC LIMIT ${SET_SIZE}`);
  return {
    most_reblogged_accounts: rows.map((r) => ({
      account_id: String(r.account_id),
      count: Number(r.count),
    })),
  };
}
