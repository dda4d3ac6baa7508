/**
 * `type_distribution`: how many statuses the account made in the year, and
 * how many were boosts, replies to others and standalone posts, as
 * Mastodon's AnnualReport::TypeDistribution counts them. A reply to one's
 * own status (a thread) is standalone, not a reply. The same counts (and
 * the number with a poll) decide the archetype (./archetype.ts), so they
 * come from one query.
 */
import { sql } from "drizzle-orm";
import { type ReportScope, reportStatusesWhere, type SourceDb } from "./year.ts";

/** The year's statuses by kind. */
export interface PostCounts {
  total: number;
  reblogs: number;
  /** Replies to someone else. */
  replies: number;
  /** Neither a boost nor a reply to someone else. */
  standalone: number;
  /** Statuses with a poll (standalone ones among them too). */
  polls: number;
}

/** Counts the year's statuses by kind, in one pass. */
export async function postCounts(db: SourceDb, scope: ReportScope): Promise<PostCounts> {
  const [row] = await db.rows<PostCounts>(sql`SELECT
      count(*)::int AS total,
      (count(*) FILTER (WHERE s.reblog_of_id IS NOT NULL))::int AS reblogs,
      (count(*) FILTER (WHERE s.in_reply_to_id IS NOT NULL
        AND s.in_reply_to_account_id <> s.account_id))::int AS replies,
      (count(*) FILTER (WHERE s.reblog_of_id IS NULL
        AND ((s.in_reply_to_id IS NULL AND s.in_reply_to_uri IS NULL)
          OR s.in_reply_to_account_id = s.account_id)))::int AS standalone,
      (count(*) FILTER (WHERE s.poll_id IS NOT NULL))::int AS polls
    FROM statuses s WHERE ${reportStatusesWhere(scope)}`);
  return {
    total: Number(row?.total ?? 0),
    reblogs: Number(row?.reblogs ?? 0),
    replies: Number(row?.replies ?? 0),
    standalone: Number(row?.standalone ?? 0),
    polls: Number(row?.polls ?? 0),
  };
}

/** The source's part of the report. */
export function typeDistribution(counts: PostCounts): Record<string, unknown> {
  return {
    type_distribution: {
      total: counts.total,
      reblogs: counts.reblogs,
      replies: counts.replies,
      standalone: counts.standalone,
    },
  };
}
