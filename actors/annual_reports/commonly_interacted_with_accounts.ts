/**
 * `commonly_interacted_with_accounts`: the forty accounts the account
 * replied to most during the year (more than once; replies to itself left
 * out), as Mastodon's AnnualReport::CommonlyInteractedWithAccounts. The
 * accounts are included in the API answer (api/entities/annual_report.ts).
 */
import { sql } from "drizzle-orm";
import { type ReportScope, reportStatusesWhere, type SourceDb } from "./year.ts";

const SET_SIZE = 40;
/** An account must have been replied to more than this many times. */
const MINIMUM_INTERACTIONS = 1;

/** The source's part of the report. */
export async function commonlyInteractedWithAccounts(
  db: SourceDb,
  scope: ReportScope,
): Promise<Record<string, unknown>> {
  const rows = await db.rows<{ account_id: string; count: number }>(sql`SELECT
      s.in_reply_to_account_id::text AS account_id, count(*)::int AS count
    FROM statuses s
    WHERE ${reportStatusesWhere(scope)} AND s.in_reply_to_account_id <> s.account_id
    GROUP BY s.in_reply_to_account_id HAVING count(*) > ${MINIMUM_INTERACTIONS}
    ORDER BY count(*) DESC, s.in_reply_to_account_id ASC LIMIT ${SET_SIZE}`);
  return {
    commonly_interacted_with_accounts: rows.map((r) => ({
      account_id: String(r.account_id),
      count: Number(r.count),
    })),
  };
}
