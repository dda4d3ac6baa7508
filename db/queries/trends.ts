/**
 * Trends: the scoring queries the worker's trends job runs, and the reads
 * behind /api/v1/trends/*.
 *
 * A score is a sum of contributions that halve every {@link HALF_LIFE_HOURS}
 * hours, so recent activity outweighs a bigger crowd from yesterday:
 * - tag: one contribution per distinct account that used the tag, aged by
 *   its latest use;
 * - link: the same, per distinct account that posted the link (its card);
 * - status: the status's favourites and boosts, aged by the status itself
 *   (Mastodon ages trending statuses by their creation too).
 * Only public originals that are not deleted, by accounts that are neither
 * deleted nor suspended and that opted in to discovery, count; statuses and
 * links also leave out sensitive posts and posts behind a content warning,
 * and trending statuses are not replies (as Mastodon's eligibility rules).
 *
 * An item trends when its score reaches what its minimum crowd
 * ({@link MIN_ACCOUNTS} accounts, {@link MIN_INTERACTIONS} interactions)
 * scores an hour after acting: a tag used by three accounts within the last
 * hour always trends, and the same three uses drop out a few hours later.
 */
import { and, desc, getTableColumns, type SQL, sql } from "drizzle-orm";
import type { Database, Executor } from "../connection.ts";
import { statuses } from "../schema/mod.ts";
import { minIdAt } from "../ids.ts";
import { dailyHistories, type TagHistoryDay } from "./tags.ts";
import { notMutedBy, type StatusRow } from "./timelines.ts";
import { notLimitedFilter, visibleStatusFilter } from "./visibility.ts";

/** The kinds of trending item. */
export const TREND_KINDS = ["tag", "status", "link"] as const;
export type TrendKind = typeof TREND_KINDS[number];

/** Contributions halve every this many hours. */
export const HALF_LIFE_HOURS = 3;
/** Activity older than this is not read at all (its weight is below 1/65,000). */
export const WINDOW_HOURS = 48;
/** Distinct accounts a tag or link needs, as if they all acted an hour ago. */
export const MIN_ACCOUNTS = 3;
/** Favourites and boosts a status needs, as if it were an hour old. */
export const MIN_INTERACTIONS = 2;

const HOUR_MS = 3_600_000;

/** The weight of something that happened `hoursAgo` hours ago. */
export function decay(hoursAgo: number): number {
  return Math.pow(0.5, Math.max(0, hoursAgo) / HALF_LIFE_HOURS);
}

/** The lowest score that trends, for a minimum crowd of `count`. */
export function threshold(count: number): number {
  // A hair under, so a crowd exactly an hour old is not lost to rounding.
  return count * decay(1) - 1e-9;
}

/** One computed score. */
export interface TrendScore {
  targetId: string;
  score: number;
  /** Distinct accounts (tags, links) or interactions (statuses). */
  accounts: number;
}

/** The statuses that may count: public, live originals of usable, discoverable accounts. */
function eligible(now: Date, alias: string): SQL {
  const s = sql.raw(alias);
  const since = new Date(now.getTime() - WINDOW_HOURS * HOUR_MS);
  return sql`${s}.id >= ${minIdAt(since)}::bigint
    AND ${s}.created_at >= ${since.toISOString()}::timestamptz
    AND ${s}.created_at <= ${now.toISOString()}::timestamptz
    AND ${s}.visibility = 'public' AND ${s}.deleted_at IS NULL AND ${s}.reblog_of_id IS NULL
    AND NOT ${s}.pending_approval
    AND EXISTS (SELECT 1 FROM accounts ta WHERE ta.id = ${s}.account_id
      AND ta.discoverable AND ta.deleted_at IS NULL AND ta.suspended_at IS NULL)`;
}

/** A contribution's weight in SQL, from the time it happened. */
function weight(now: Date, at: SQL): SQL {
  return sql`power(0.5, greatest(0, extract(epoch FROM (${now.toISOString()}::timestamptz - ${at})))
    / ${HALF_LIFE_HOURS * 3600}::float8)`;
}

interface ScoreRow {
  target_id: string;
  score: number | string;
  accounts: number | string;
}

function scores(rows: ScoreRow[]): TrendScore[] {
  return rows.map((r) => ({
    targetId: r.target_id,
    score: Number(r.score),
    accounts: Number(r.accounts),
  }));
}

/**
 * The decayed score of each target: the distinct accounts whose latest
 * eligible status links to it (through `link`, a join table with the
 * target's id in `column`), each weighted by that status's age.
 */
async function scoreByAccounts(
  database: Database,
  now: Date,
  link: { table: string; column: string; where?: SQL },
  executor?: Executor,
) {
  const [table, column] = [sql.raw(link.table), sql.raw(link.column)];
  const rows = await database.rows<ScoreRow>(
    sql`WITH uses AS (
        SELECT l.${column} AS target_id, s.account_id, max(s.created_at) AS last_at
        FROM statuses s JOIN ${table} l ON l.status_id = s.id
        WHERE ${eligible(now, "s")}${link.where ? sql` AND ${link.where}` : sql``}
        GROUP BY 1, 2)
      SELECT target_id::text AS target_id, sum(${weight(now, sql`last_at`)}) AS score,
        count(*) AS accounts
      FROM uses GROUP BY target_id
      HAVING sum(${weight(now, sql`last_at`)}) >= ${threshold(MIN_ACCOUNTS)}`,
    executor,
  );
  return scores(rows);
}

/** Trending tags at `now`: distinct accounts' latest uses, decayed. */
export function scoreTags(database: Database, now: Date, executor?: Executor) {
  return scoreByAccounts(database, now, { table: "statuses_tags", column: "tag_id" }, executor);
}

/** Trending links at `now`: distinct accounts' latest posts with the card, decayed. */
export function scoreLinks(database: Database, now: Date, executor?: Executor) {
  return scoreByAccounts(database, now, {
    table: "statuses_preview_cards",
    column: "preview_card_id",
    where: sql`NOT s.sensitive AND s.spoiler_text = ''`,
  }, executor);
}

/** Trending statuses at `now`: favourites and boosts, decayed by the status's age. */
export async function scoreStatuses(database: Database, now: Date, executor?: Executor) {
  const interactions = sql`(s.favourites_count + s.reblogs_count)`;
  const score = sql`${interactions} * ${weight(now, sql`s.created_at`)}`;
  const rows = await database.rows<ScoreRow>(
    sql`SELECT s.id::text AS target_id, ${score} AS score, ${interactions} AS accounts
      FROM statuses s
      WHERE ${eligible(now, "s")} AND NOT s.sensitive AND s.spoiler_text = ''
        AND s.in_reply_to_id IS NULL AND s.in_reply_to_uri IS NULL
        AND ${interactions} >= ${MIN_INTERACTIONS}
        AND ${score} >= ${threshold(MIN_INTERACTIONS)}`,
    executor,
  );
  return scores(rows);
}

/**
 * The review condition on a `trend_reviews` row joined as `r`: with review
 * on, only allowed items; otherwise everything a moderator did not reject.
 */
export function reviewCondition(review: boolean): SQL {
  return review ? sql`r.state = 'allowed'` : sql`(r.state IS NULL OR r.state <> 'rejected')`;
}

/** A page of current trends of one kind: target ids, best first. */
export interface TrendPage {
  offset: number;
  limit: number;
}

/**
 * The publisher (site) of a preview card joined as `alias`: its URL's host,
 * lowercased (Mastodon's PreviewCardProvider domain).
 */
export function cardDomain(alias: string): SQL {
  return sql`lower(substring(${sql.raw(alias)}.url
    from '^[A-Za-z][A-Za-z0-9+.-]*://(?:[^@/?#]*@)?([^:/?#]+)'))`;
}

/**
 * The listed target ids of one kind, best first (the reads add their own
 * filters). A link without a decision of its own takes its publisher's, as
 * Mastodon's PreviewCard#trendable? falls back to its provider.
 */
export function listedTrends(kind: TrendKind, review: boolean): SQL {
  if (kind === "link") {
    return sql`SELECT t.target_id, t.score FROM trend_scores t
      JOIN preview_cards pc ON pc.id = t.target_id
      LEFT JOIN trend_publishers p ON p.domain = ${cardDomain("pc")}
      LEFT JOIN trend_reviews pr ON pr.kind = 'publisher' AND pr.target_id = p.id
      LEFT JOIN trend_reviews own ON own.kind = t.kind AND own.target_id = t.target_id
      CROSS JOIN LATERAL (SELECT coalesce(own.state, pr.state) AS state) r
      WHERE t.kind = 'link' AND ${reviewCondition(review)}`;
  }
  return sql`SELECT t.target_id, t.score FROM trend_scores t
    LEFT JOIN trend_reviews r ON r.kind = t.kind AND r.target_id = t.target_id
    WHERE t.kind = ${kind} AND ${reviewCondition(review)}`;
}

/** Adds the publishers of the trending links not known yet (inside the refresh). */
export async function addTrendPublishers(executor: Executor): Promise<void> {
  await executor.execute(sql`INSERT INTO trend_publishers (id, domain)
    SELECT min(pc.id), x.domain FROM trend_scores t
      JOIN preview_cards pc ON pc.id = t.target_id
      CROSS JOIN LATERAL (SELECT ${cardDomain("pc")} AS domain) x
     WHERE t.kind = 'link' AND x.domain IS NOT NULL
     GROUP BY x.domain
    ON CONFLICT DO NOTHING`);
}

/** Trending tags, best first. */
export async function trendingTags(
  database: Database,
  review: boolean,
  page: TrendPage,
): Promise<{ id: string; name: string }[]> {
  return await database.rows<{ id: string; name: string }>(
    sql`SELECT tg.id::text AS id, tg.name FROM (${listedTrends("tag", review)}) t
      JOIN tags tg ON tg.id = t.target_id
      ORDER BY t.score DESC, t.target_id DESC OFFSET ${page.offset} LIMIT ${page.limit}`,
  );
}

/** Trending preview cards' ids, best first. */
export async function trendingCardIds(
  database: Database,
  review: boolean,
  page: TrendPage,
): Promise<string[]> {
  const rows = await database.rows<{ id: string }>(
    sql`SELECT pc.id::text AS id FROM (${listedTrends("link", review)}) t
      JOIN preview_cards pc ON pc.id = t.target_id
      ORDER BY t.score DESC, t.target_id DESC OFFSET ${page.offset} LIMIT ${page.limit}`,
  );
  return rows.map((r) => r.id);
}

/** The last days of posts with each card (HISTORY_DAYS, tags.ts), newest day first. */
export function cardHistories(
  database: Database,
  cardIds: readonly string[],
  now = new Date(),
): Promise<Map<string, TagHistoryDay[]>> {
  return dailyHistories(database, "card", cardIds, now);
}

/**
 * Trending statuses as `viewer` may see them, best first: the visibility
 * rules (blocks either way, domain blocks) and the viewer's mutes apply.
 */
export async function trendingStatuses(
  db: Executor,
  viewer: string | null,
  review: boolean,
  page: TrendPage,
): Promise<StatusRow[]> {
  const score = sql`(SELECT ts.score FROM trend_scores ts
    WHERE ts.kind = 'status' AND ts.target_id = ${statuses.id})`;
  return await db.select(getTableColumns(statuses)).from(statuses)
    .where(and(
      sql`${statuses.id} IN (SELECT l.target_id FROM (${listedTrends("status", review)}) l)`,
      visibleStatusFilter(viewer),
      notLimitedFilter(viewer),
      notMutedBy(viewer),
    ))
    .orderBy(sql`${score} DESC`, desc(statuses.id))
    .offset(page.offset).limit(page.limit);
}

/** Every current trend of one kind, reviewed or not, best first (the admin API). */
export async function allTrendIds(
  database: Database,
  kind: TrendKind,
  page: TrendPage,
): Promise<string[]> {
  const rows = await database.rows<{ id: string }>(
    sql`SELECT t.target_id::text AS id FROM trend_scores t WHERE t.kind = ${kind}
      ORDER BY t.score DESC, t.target_id DESC OFFSET ${page.offset} LIMIT ${page.limit}`,
  );
  return rows.map((r) => r.id);
}
