/**
 * Filling feeds from statuses that already exist, with the rules fan-out
 * applies to new ones (feed_filters.ts):
 * - rebuilding a home feed that is empty although its owner follows people
 *   (a data set from before feeds existed, a feed cleared by hand);
 * - merging a newly followed account's recent posts into the follower's home
 *   feed (merge.ts, Mastodon's MergeWorker);
 * - back-filling list feeds when accounts join a list, or when the owner
 *   starts following a member, and taking members' posts back out.
 *
 * Each is one bounded INSERT … SELECT: every account concerned contributes at
 * most a fixed number of its newest statuses, read from the
 * (account_id, id) index, so an account with thousands of posts costs what
 * one with a hundred does.
 *
 * A rebuild runs inside the home timeline's request, so the first read of a
 * missing feed already answers the rebuilt posts (200) instead of Mastodon's
 * 206 and an empty page, which most clients show as an empty timeline and
 * never ask again.
 */
import { type SQL, sql } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { FOLLOWER_VISIBILITY_SQL } from "../../db/queries/visibility.ts";
import { boostIsNewInHome, HOME_RULES, LIST_RULES, VIA } from "./feed_filters.ts";
import { HOME_FEED_LIMIT, rowsOf } from "./fanout.ts";

/** How many recent statuses of each followed account a rebuild considers. */
export const REBUILD_PER_ACCOUNT = 100;

/**
 * How many followed accounts a rebuild reads, the most recently active
 * first: with the per-account bound, a rebuild reads at most 20,000 statuses
 * however many accounts are followed.
 */
export const REBUILD_MAX_ACCOUNTS = 200;

/**
 * How many recent statuses of one account a merge (a new follow) or a list
 * back-fill considers, as Mastodon merges a bounded number of them.
 */
export const MERGE_PER_ACCOUNT = 40;

/**
 * A feed with at least this many entries gets only merged statuses newer
 * than its oldest one (Mastodon's rule, at a quarter of the feed's size):
 * older ones would sit below everything the owner has already scrolled past.
 */
const MERGE_FLOOR_MIN_ENTRIES = Math.floor(HOME_FEED_LIMIT / 4);

/**
 * The boosted original of each candidate `s`, as alias `o` (NULLs for an
 * original), looked up by id, row by row. Joined as statuses itself, the
 * planner expected few candidates and hashed the whole table: a rebuild read
 * all 110,000 statuses of a bench seed for 20,000 candidates, a list
 * back-fill of 500 members all of them too (fanout.ts looks its one
 * original up in a CTE for the same reason). The LIMIT keeps the subquery
 * from being flattened back into that join.
 */
const BOOSTED_ORIGINAL = sql`LEFT JOIN LATERAL (SELECT bo.id, bo.account_id, bo.deleted_at
    FROM statuses bo WHERE bo.id = s.reblog_of_id LIMIT 1) o ON true`;

/** Which followed accounts a home-feed fill reads, and how much of each. */
type HomeSource =
  /** Everyone the account follows (the most recently active first) and itself. */
  | { kind: "rebuild" }
  /** One account it now follows. */
  | { kind: "merge"; authorId: string };

/** The candidate authors (alias `c`, the columns feed_filters.ts reads). */
function candidateAuthors(me: SQL, source: HomeSource): SQL {
  if (source.kind === "merge") {
    return sql`SELECT f.target_account_id AS author, ${me} AS receiver, ${VIA.follow} AS via,
        f.show_reblogs, f.languages
      FROM follows f JOIN accounts fa ON fa.id = f.account_id AND fa.domain IS NULL
      WHERE f.account_id = ${me} AND f.target_account_id = ${source.authorId}::bigint`;
  }
  return sql`(SELECT f.target_account_id AS author, ${me} AS receiver, ${VIA.follow} AS via,
        f.show_reblogs, f.languages
      FROM follows f JOIN accounts t ON t.id = f.target_account_id
      WHERE f.account_id = ${me}
      ORDER BY t.last_status_at DESC NULLS LAST
      LIMIT ${sql.raw(String(REBUILD_MAX_ACCOUNTS))})
    UNION ALL
    SELECT ${me}, ${me}, ${VIA.self}, true, NULL::jsonb`;
}

/**
 * The statuses (`id`, `reblog_of_id`) that would enter `accountId`'s home
 * feed from `source`, by the fan-out rules: the newest of each author
 * (above the feed's floor, see {@link MERGE_FLOOR_MIN_ENTRIES}), public,
 * unlisted or followers-only ones of followed accounts (Mastodon merges no
 * direct ones) and everything of one's own, without posts (or boosts of
 * posts) the feed already shows. Boosts of one post are not yet
 * de-duplicated among themselves.
 */
function homeCandidates(accountId: string, source: HomeSource, perAccount: number): SQL {
  const me = sql`${accountId}::bigint`;
  return sql`SELECT s.id, s.reblog_of_id
    FROM (${candidateAuthors(me, source)}) c
    CROSS JOIN (SELECT coalesce((SELECT min(h.status_id) FROM home_feed h
      WHERE h.account_id = ${me}
      HAVING count(*) >= ${sql.raw(String(MERGE_FLOOR_MIN_ENTRIES))}), 0) AS id) floor
    CROSS JOIN LATERAL (SELECT * FROM statuses x
      WHERE x.account_id = c.author AND x.deleted_at IS NULL AND x.id > floor.id
        AND NOT x.pending_approval
        AND (c.via = ${VIA.self} OR x.visibility IN ${FOLLOWER_VISIBILITY_SQL})
      ORDER BY x.id DESC LIMIT ${sql.raw(String(perAccount))}) s
    ${BOOSTED_ORIGINAL}
    WHERE (s.reblog_of_id IS NULL OR o.deleted_at IS NULL) AND ${boostIsNewInHome(me)}
      AND (s.reblog_of_id IS NOT NULL OR NOT EXISTS (SELECT 1 FROM home_feed h
        WHERE h.account_id = ${me} AND h.reblog_of_id = s.id))
      AND ${HOME_RULES}`;
}

/**
 * Inserts the candidates into the home feed, the oldest entry of each post
 * winning (the original when present, else its first boost), at most a
 * feed's worth; returns how many entries were added.
 */
async function fillHomeFeed(
  db: Executor,
  accountId: string,
  source: HomeSource,
  perAccount: number,
  onlyIfEmpty: boolean,
): Promise<number> {
  const guard = onlyIfEmpty
    ? sql`WHERE NOT EXISTS (SELECT 1 FROM home_feed e WHERE e.account_id = ${accountId}::bigint)`
    : sql``;
  const inserted = await db.execute(sql`INSERT INTO home_feed (account_id, status_id, reblog_of_id)
    SELECT ${accountId}::bigint, picked.id, picked.reblog_of_id FROM (
      SELECT DISTINCT ON (coalesce(cand.reblog_of_id, cand.id)) cand.id, cand.reblog_of_id
      FROM (${homeCandidates(accountId, source, perAccount)}) cand
      ${guard}
      ORDER BY coalesce(cand.reblog_of_id, cand.id), cand.id
    ) picked
    ORDER BY picked.id DESC LIMIT ${sql.raw(String(HOME_FEED_LIMIT))}
    ON CONFLICT DO NOTHING
    RETURNING status_id`);
  return rowsOf(inserted).length;
}

/**
 * Rebuilds `accountId`'s home feed from the recent statuses of the accounts
 * it follows and its own, when the feed has no entry at all (a feed that has
 * some is left alone, so this is safe to call on every empty page). Returns
 * how many entries it added: 0 for a feed that exists, or that has nothing
 * to show.
 */
export async function rebuildHomeFeedIfEmpty(db: Executor, accountId: string): Promise<number> {
  return await fillHomeFeed(db, accountId, { kind: "rebuild" }, REBUILD_PER_ACCOUNT, true);
}

/**
 * Puts the recent statuses of `authorId`, whom local `accountId` now
 * follows, into its home feed (see {@link homeCandidates}). Returns how many
 * entries were added. Call it in the transaction that wrote the follow.
 */
export async function mergeIntoHomeFeed(
  tx: Executor,
  accountId: string,
  authorId: string,
): Promise<number> {
  return await fillHomeFeed(tx, accountId, { kind: "merge", authorId }, MERGE_PER_ACCOUNT, false);
}

/**
 * Puts the recent statuses of `accountIds` into the list feeds `lists`
 * selects (a condition on alias `l`; the accounts must be members of each),
 * with each list's rules: what accounts joining a list, or a list member
 * newly followed, bring.
 */
export async function backfillListFeeds(
  tx: Executor,
  lists: SQL,
  accountIds: readonly string[],
): Promise<void> {
  if (accountIds.length === 0) return;
  const ids = sql.join(accountIds.map((id) => sql`${id}::bigint`), sql`, `);
  await tx.execute(sql`INSERT INTO list_feed (list_id, status_id)
    SELECT DISTINCT ON (l.id, coalesce(s.reblog_of_id, s.id)) l.id, s.id
    FROM lists l
    CROSS JOIN LATERAL unnest(ARRAY[${ids}]) AS member(id)
    CROSS JOIN LATERAL (SELECT * FROM statuses x
      WHERE x.account_id = member.id AND x.deleted_at IS NULL AND NOT x.pending_approval
      ORDER BY x.id DESC LIMIT ${sql.raw(String(MERGE_PER_ACCOUNT))}) s
    LEFT JOIN follows f ON f.account_id = l.account_id AND f.target_account_id = s.account_id
    ${BOOSTED_ORIGINAL}
    WHERE ${lists} AND ${LIST_RULES}
      AND (s.reblog_of_id IS NULL OR (o.id IS NOT NULL AND o.account_id <> l.account_id))
    ORDER BY l.id, coalesce(s.reblog_of_id, s.id), s.id
    ON CONFLICT DO NOTHING`);
}

/** Takes the statuses (and boosts) of `accountIds` out of the list feeds `lists` selects. */
export async function unmergeFromListFeeds(
  tx: Executor,
  lists: SQL,
  accountIds: readonly string[],
): Promise<void> {
  if (accountIds.length === 0) return;
  const ids = sql.join(accountIds.map((id) => sql`${id}::bigint`), sql`, `);
  await tx.execute(sql`DELETE FROM list_feed lf USING lists l, statuses s
    WHERE lf.list_id = l.id AND ${lists} AND s.id = lf.status_id
      AND s.account_id IN (${ids})`);
}

/** The one list `listId`, as the `lists` condition of the functions above. */
export function theList(listId: string): SQL {
  return sql`l.id = ${listId}::bigint`;
}

/** The lists `ownerId` owns that contain `memberId`. */
export function listsOfOwnerWith(ownerId: string, memberId: string): SQL {
  return sql`l.account_id = ${ownerId}::bigint AND EXISTS (SELECT 1 FROM list_accounts lm
    WHERE lm.list_id = l.id AND lm.account_id = ${memberId}::bigint)`;
}
