/**
 * Rebuilding a home feed that is empty although its owner follows people
 * (a data set from before feeds existed, a feed cleared by hand), and
 * back-filling a list feed when accounts join the list. Both select recent
 * statuses of the accounts concerned and apply the same rules as fan-out
 * (feed_filters.ts).
 *
 * Regeneration runs in the background, as Mastodon's RegenerationWorker: the
 * home timeline answers 206 while it runs. One process never runs two
 * rebuilds of the same feed; two processes may, harmlessly (ON CONFLICT).
 */
import { type SQL, sql } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { Database, Executor } from "../../db/connection.ts";
import { FOLLOWER_VISIBILITIES, HOME_RULES, LIST_RULES, VIA } from "./feed_filters.ts";
import { HOME_FEED_LIMIT } from "./fanout.ts";

const logger = getLogger(["rookery", "timelines"]);

/** How many recent statuses of each followed account a rebuild considers. */
export const REBUILD_PER_ACCOUNT = 100;

/** How many recent statuses of an account joining a list are back-filled. */
export const LIST_BACKFILL_PER_ACCOUNT = 40;

/** How long an account's rebuild is remembered, so an empty result is not redone at once. */
const REMEMBER_MS = 10 * 60_000;

const running = new Map<string, Promise<void>>();
const finished = new Map<string, number>();

/**
 * The statuses (`id`, `reblog_of_id`) that `accountId`'s home feed would hold
 * when rebuilt: recent posts of the accounts it follows and its own, by the
 * fan-out rules; boosts of the same post not yet de-duplicated.
 */
function homeCandidates(accountId: string): SQL {
  const me = sql`${accountId}::bigint`;
  return sql`SELECT s.id, s.reblog_of_id
    FROM (
      SELECT f.target_account_id AS author, ${me} AS receiver, ${VIA.follow} AS via,
          f.show_reblogs, f.languages
        FROM follows f WHERE f.account_id = ${me}
      UNION ALL
      SELECT ${me}, ${me}, ${VIA.self}, true, NULL::jsonb
    ) c
    CROSS JOIN LATERAL (SELECT * FROM statuses x
      WHERE x.account_id = c.author AND x.deleted_at IS NULL
      ORDER BY x.id DESC LIMIT ${sql.raw(String(REBUILD_PER_ACCOUNT))}) s
    LEFT JOIN statuses o ON o.id = s.reblog_of_id
    WHERE (c.via = ${VIA.self} OR s.visibility IN ${FOLLOWER_VISIBILITIES}
        OR (s.visibility = 'direct' AND EXISTS (SELECT 1 FROM mentions m
          WHERE m.status_id = s.id AND m.account_id = ${me})))
      AND (s.reblog_of_id IS NULL OR (o.id IS NOT NULL AND o.deleted_at IS NULL
        AND o.account_id <> ${me}))
      AND ${HOME_RULES}`;
}

/** Rebuilds `accountId`'s home feed from the recent statuses of the accounts it follows. */
export async function rebuildHomeFeed(db: Executor, accountId: string): Promise<void> {
  await db.execute(sql`INSERT INTO home_feed (account_id, status_id, reblog_of_id)
    SELECT ${accountId}::bigint, picked.id, picked.reblog_of_id FROM (
      -- The oldest entry of each post wins: the original when present, else its first boost.
      SELECT DISTINCT ON (coalesce(cand.reblog_of_id, cand.id)) cand.id, cand.reblog_of_id
      FROM (${homeCandidates(accountId)}) cand
      ORDER BY coalesce(cand.reblog_of_id, cand.id), cand.id
    ) picked
    ORDER BY picked.id DESC LIMIT ${sql.raw(String(HOME_FEED_LIMIT))}
    ON CONFLICT DO NOTHING`);
}

/** Whether a rebuild of this account's home feed is running in this process. */
export function isRebuilding(accountId: string): boolean {
  return running.has(accountId);
}

/**
 * Called when an account's home feed is empty: if a rebuild would put
 * something in it (the feed is missing, not merely quiet), starts one in the
 * background and returns true; returns false when there is nothing to
 * rebuild or this feed was rebuilt a few minutes ago.
 */
export async function rebuildHomeFeedIfMissing(
  database: Database,
  accountId: string,
): Promise<boolean> {
  if (running.has(accountId)) return true;
  const done = finished.get(accountId);
  if (done != null && Date.now() - done < REMEMBER_MS) return false;
  const [row] = await database.rows<{ missing: boolean }>(
    sql`SELECT EXISTS (${homeCandidates(accountId)}) AS missing`,
  );
  if (!row?.missing) return false;
  if (running.has(accountId)) return true;
  const job = rebuildHomeFeed(database.db, accountId)
    .catch((error) =>
      logger.error("Home feed rebuild of {accountId} failed: {error}", { accountId, error })
    )
    .finally(() => {
      running.delete(accountId);
      finished.set(accountId, Date.now());
      if (finished.size > 10_000) finished.clear();
    });
  running.set(accountId, job);
  return true;
}

/** Waits for a running rebuild of the account, if any (tests, shutdown). */
export async function waitForRebuild(accountId: string): Promise<void> {
  await running.get(accountId);
}

/**
 * Puts the recent statuses of accounts that just joined a list into its feed
 * (Mastodon merges them in the same way), with the list's rules.
 */
export async function backfillListFeed(
  tx: Executor,
  listId: string,
  accountIds: readonly string[],
): Promise<void> {
  if (accountIds.length === 0) return;
  const ids = sql.join(accountIds.map((id) => sql`${id}::bigint`), sql`, `);
  await tx.execute(sql`INSERT INTO list_feed (list_id, status_id)
    SELECT DISTINCT ON (coalesce(s.reblog_of_id, s.id)) l.id, s.id
    FROM lists l
    CROSS JOIN LATERAL unnest(ARRAY[${ids}]) AS member(id)
    CROSS JOIN LATERAL (SELECT * FROM statuses x
      WHERE x.account_id = member.id AND x.deleted_at IS NULL
      ORDER BY x.id DESC LIMIT ${sql.raw(String(LIST_BACKFILL_PER_ACCOUNT))}) s
    LEFT JOIN follows f ON f.account_id = l.account_id AND f.target_account_id = s.account_id
    LEFT JOIN statuses o ON o.id = s.reblog_of_id
    WHERE l.id = ${listId}::bigint AND ${LIST_RULES}
      AND (s.reblog_of_id IS NULL OR (o.id IS NOT NULL AND o.account_id <> l.account_id))
    ORDER BY coalesce(s.reblog_of_id, s.id), s.id
    ON CONFLICT DO NOTHING`);
}

/** Takes the statuses of accounts that left a list out of its feed. */
export async function unmergeFromListFeed(
  tx: Executor,
  listId: string,
  accountIds: readonly string[],
): Promise<void> {
  if (accountIds.length === 0) return;
  const ids = sql.join(accountIds.map((id) => sql`${id}::bigint`), sql`, `);
  await tx.execute(sql`DELETE FROM list_feed lf USING statuses s
    WHERE lf.list_id = ${listId}::bigint AND s.id = lf.status_id AND s.account_id IN (${ids})`);
}
