/**
 * `top_statuses`: the account's public status of the year with the most
 * boosts, then (another one) with the most favourites, then (a third) with
 * the most replies, as Mastodon's AnnualReport::TopStatuses picks them; ids
 * as strings, null when none. Only public statuses, as Mastodon 4.5 (schema
 * 1) allows. Unlike Mastodon, which takes the first row of its order even
 * at zero, a status must have been boosted (favourited, replied to) at
 * least once to be the most boosted (…): "your most boosted post" with no
 * boost says nothing. Ties go to the earlier status.
 */
import { sql } from "drizzle-orm";
import { type ReportScope, reportStatusesWhere, type SourceDb } from "./year.ts";

/** The counters a status is ranked by (columns of `statuses`). */
const COUNTERS = {
  by_reblogs: "reblogs_count",
  by_favourites: "favourites_count",
  by_replies: "replies_count",
} as const;

/** The source's part of the report. */
export async function topStatuses(
  db: SourceDb,
  scope: ReportScope,
): Promise<Record<string, unknown>> {
  const picked: string[] = [];
  const top: Record<string, string | null> = {};
  for (const [key, column] of Object.entries(COUNTERS)) {
    const counter = sql.raw(`s.${column}`);
    const exclude = picked.length
      ? sql`AND s.id NOT IN (${sql.join(picked.map((id) => sql`${id}::bigint`), sql`, `)})`
      : sql``;
    const [row] = await db.rows<{ id: string }>(sql`SELECT s.id::text AS id FROM statuses s
      WHERE ${reportStatusesWhere(scope)} AND s.visibility = 'public'
        AND s.reblog_of_id IS NULL AND ${counter} > 0 ${exclude}
      ORDER BY ${counter} DESC, s.id ASC LIMIT 1`);
    top[key] = row ? String(row.id) : null;
    if (row) picked.push(String(row.id));
  }
  return { top_statuses: top };
}
