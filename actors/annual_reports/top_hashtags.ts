/**
 * `top_hashtags`: the forty hashtags the account used most during the year
 * (in more than one status), by their display name, as Mastodon's
 * AnnualReport::TopHashtags.
 */
import { sql } from "drizzle-orm";
import { type ReportScope, reportStatusesWhere, type SourceDb } from "./year.ts";

const SET_SIZE = 40;
/** A hashtag must have been used in more than this many statuses. */
const MINIMUM_COUNT = 1;

/** The source's part of the report. */
export async function topHashtags(
  db: SourceDb,
  scope: ReportScope,
): Promise<Record<string, unknown>> {
  const rows = await db.rows<{ name: string; count: number }>(sql`SELECT
      coalesce(t.display_name, t.name) AS name, count(*)::int AS count
    FROM statuses s
      JOIN statuses_tags st ON st.status_id = s.id
      JOIN tags t ON t.id = st.tag_id
    WHERE ${reportStatusesWhere(scope)}
    GROUP BY coalesce(t.display_name, t.name) HAVING count(*) > ${MINIMUM_COUNT}
    ORDER BY count(*) DESC, coalesce(t.display_name, t.name) ASC LIMIT ${SET_SIZE}`);
  return { top_hashtags: rows.map((r) => ({ name: r.name, count: Number(r.count) })) };
}
