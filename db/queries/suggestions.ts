/**
 * Follow suggestions for one account, in one query: candidates from five
 * sources (Mastodon 4.3's names), combined with a simple score, then every
 * account the viewer should not be offered is taken out.
 *
 * Sources:
 * - featured: accounts staff feature (`deno task admin suggestions feature`);
 * - most_followed: accounts local users followed most in the last 30 days;
 * - most_interactions: accounts whose posts most distinct accounts
 *   favourited or boosted in the last 7 days;
 * - similar_to_recently_followed: accounts featuring the hashtags the viewer
 *   follows or features, or that the viewer's 10 latest follows feature
 *   (Mastodon compares profile texts in its search engine, which we do not
 *   run);
 * - friends_of_friends: accounts followed by accounts the viewer follows.
 *
 * Score: 3 for being featured; 1 + ln(count) for each other source the
 * account comes from (count: followers, interacting accounts, shared tags or
 * friends). Ties go to the newer account.
 *
 * Never suggested: the viewer; accounts they follow or asked to follow;
 * accounts blocked either way, muted, or on a domain they blocked; accounts
 * that opted out of discovery; deleted, suspended or moved accounts; local
 * accounts not confirmed, not approved or disabled; instance actors; and
 * suggestions the viewer dismissed.
 */
import { sql } from "drizzle-orm";
import type { Database } from "../connection.ts";
import { minIdAt } from "../ids.ts";
import { discoverableAccount, notExcludedBy } from "./discoverable.ts";

/** The sources, as the Suggestion entity's `sources` names them. */
export type SuggestionSource =
  | "featured"
  | "most_followed"
  | "most_interactions"
  | "similar_to_recently_followed"
  | "friends_of_friends";

/** One suggested account. */
export interface SuggestionRow {
  accountId: string;
  sources: SuggestionSource[];
}

/** Each source offers at most this many candidates before the exclusions. */
const PER_SOURCE = 500;
const DAY_MS = 86_400_000;

/** The viewer's suggestions, best first. */
export async function suggestionsFor(
  database: Database,
  viewer: string,
  limit: number,
  now = new Date(),
): Promise<SuggestionRow[]> {
  const v = sql`${viewer}::bigint`;
  const month = new Date(now.getTime() - 30 * DAY_MS);
  const week = new Date(now.getTime() - 7 * DAY_MS);
  const rows = await database.rows<{ id: string; sources: string[] | string }>(
    sql`WITH
      featured AS (SELECT account_id AS id, 1::bigint AS n FROM suggestion_features),
      most_followed AS (
        SELECT f.target_account_id AS id, count(*) AS n FROM follows f
        JOIN accounts fa ON fa.id = f.account_id AND fa.domain IS NULL
        WHERE f.created_at >= ${month.toISOString()}::timestamptz
        GROUP BY 1 ORDER BY 2 DESC LIMIT ${PER_SOURCE}),
      most_interactions AS (
        SELECT s.account_id AS id, count(DISTINCT x.account_id) AS n
        FROM (
          SELECT fv.account_id, fv.status_id FROM favourites fv
            WHERE fv.created_at >= ${week.toISOString()}::timestamptz
          UNION ALL
          SELECT b.account_id, b.reblog_of_id FROM statuses b
            WHERE b.reblog_of_id IS NOT NULL AND b.deleted_at IS NULL
              AND b.id >= ${minIdAt(week)}::bigint
        ) x JOIN statuses s ON s.id = x.status_id
        WHERE x.account_id <> s.account_id
        GROUP BY 1 ORDER BY 2 DESC LIMIT ${PER_SOURCE}),
      my_tags AS (
        SELECT tag_id FROM tag_follows WHERE account_id = ${v}
        UNION SELECT tag_id FROM featured_tags WHERE account_id = ${v}
        UNION SELECT ft.tag_id FROM featured_tags ft WHERE ft.account_id IN (
          SELECT rf.target_account_id FROM follows rf WHERE rf.account_id = ${v}
          ORDER BY rf.id DESC LIMIT 10)),
      similar_profiles AS (
        SELECT ft.account_id AS id, count(*) AS n FROM featured_tags ft
        WHERE ft.tag_id IN (SELECT tag_id FROM my_tags)
        GROUP BY 1 ORDER BY 2 DESC LIMIT ${PER_SOURCE}),
      friends AS (
        SELECT f2.target_account_id AS id, count(*) AS n FROM follows f1
        JOIN follows f2 ON f2.account_id = f1.target_account_id
        WHERE f1.account_id = ${v}
        GROUP BY 1 ORDER BY 2 DESC LIMIT ${PER_SOURCE}),
      candidates AS (
        SELECT id, 'featured' AS source, 3::float8 AS score FROM featured
        UNION ALL SELECT id, 'most_followed', 1 + ln(n::float8) FROM most_followed
        UNION ALL SELECT id, 'most_interactions', 1 + ln(n::float8) FROM most_interactions
        UNION ALL SELECT id, 'similar_to_recently_followed', 1 + ln(n::float8) FROM similar_profiles
        UNION ALL SELECT id, 'friends_of_friends', 1 + ln(n::float8) FROM friends)
    SELECT c.id::text AS id, array_agg(c.source ORDER BY c.source) AS sources
    FROM candidates c JOIN accounts a ON a.id = c.id
    WHERE c.id <> ${v} AND ${discoverableAccount("a")} AND ${notExcludedBy(viewer, "a")}
      AND NOT EXISTS (SELECT 1 FROM follows x WHERE x.account_id = ${v} AND x.target_account_id = c.id)
      AND NOT EXISTS (SELECT 1 FROM follow_requests x
        WHERE x.account_id = ${v} AND x.target_account_id = c.id)
      AND NOT EXISTS (SELECT 1 FROM suggestion_dismissals x
        WHERE x.account_id = ${v} AND x.target_account_id = c.id)
    GROUP BY c.id
    ORDER BY sum(c.score) DESC, c.id DESC
    LIMIT ${limit}`,
  );
  return rows.map((r) => ({
    accountId: r.id,
    sources: parseArray(r.sources) as SuggestionSource[],
  }));
}

/** A text[] as the drivers return it: an array, or PostgreSQL's `{a,b}` literal. */
function parseArray(value: string[] | string): string[] {
  if (Array.isArray(value)) return value;
  return value.replace(/^\{|\}$/g, "").split(",").filter(Boolean);
}
