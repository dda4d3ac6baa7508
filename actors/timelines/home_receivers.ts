/**
 * Who receives a status in their home feed, as the CTEs `s` (the status),
 * `boosted` (its original), `c` (the candidates) and `chosen` (those the
 * rules of feed_filters.ts let through, boosts de-duplicated): the one
 * choice behind the three places that decide it. The fan-out statement
 * chooses among everyone (fanout.ts); a large fan-out's rows, written after
 * the commit, choose again among the receivers it promised, so that a block,
 * mute or unfollow made in between is obeyed (finishHomeFanOut); and the
 * home page shows a pending row only to a viewer still chosen
 * ({@link stillChosen}).
 */
import { type Placeholder, type SQL, sql } from "drizzle-orm";
import { FOLLOWER_VISIBILITY_SQL } from "../../db/queries/visibility.ts";
import { AT_ODDS, boostIsNewInHome, homeRules, noBlocksOrMutes, VIA } from "./feed_filters.ts";

/**
 * Which parts of the choice a status needs. Each part left out is one that
 * cannot change the choice for that status, so the choice is the same
 * without it: `boost`, the boosted original and the boost rules (for an
 * original they let everyone through); `reply`, the reply rule (the same
 * for a status that replies to nothing); `tags`, the followers of its
 * hashtags (none when nobody here follows one of them); `lists`, the
 * exclusive lists' rule (it refuses only an author some list holds). A
 * smaller statement has a smaller plan, which PGlite starts and ends for
 * every status (fanout.ts).
 */
export interface ReceiverParts {
  boost: boolean;
  reply: boolean;
  tags: boolean;
  lists: boolean;
}

export const ALL_PARTS: ReceiverParts = { boost: true, reply: true, tags: true, lists: true };

/**
 * The CTEs `s`, `boosted`, `c` and `chosen` for status `status` (an id
 * expression). `only`, when given, narrows every kind of candidate to some
 * receivers (an index lookup each, not a filter of all the followers).
 */
export function homeReceiverCtes(
  status: SQL | Placeholder,
  only?: (receiver: SQL) => SQL,
  parts: ReceiverParts = ALL_PARTS,
): SQL {
  const narrow = (receiver: SQL) => only ? sql`AND ${only(receiver)}` : sql``;
  // The boosted original, looked up once. Joined as statuses itself, it was
  // hashed whole (the planner cannot know s is one row): 100,000 statuses
  // read for every post, a quarter of a 10,000-follower fan-out.
  const boosted = parts.boost
    ? sql`SELECT id, account_id FROM statuses WHERE id = (SELECT reblog_of_id FROM s)`
    : sql`SELECT NULL::bigint AS id, NULL::bigint AS account_id WHERE false`;
  const tagFollowers = parts.tags
    ? sql`UNION ALL
      SELECT DISTINCT tf.account_id, ${VIA.tag}, true, NULL::jsonb
        FROM s JOIN statuses_tags st ON st.status_id = s.id
        JOIN tag_follows tf ON tf.tag_id = st.tag_id AND tf.account_id <> s.account_id
        JOIN accounts ta ON ta.id = tf.account_id AND ta.domain IS NULL AND ta.deleted_at IS NULL
        WHERE s.visibility = 'public' AND s.reblog_of_id IS NULL ${narrow(sql`tf.account_id`)}`
    : sql``;
  const boostIsNew = parts.boost ? boostIsNewInHome(sql`c.receiver`) : sql`s.reblog_of_id IS NULL`;
  return sql`s AS (
      SELECT * FROM statuses WHERE id = ${status}::bigint AND deleted_at IS NULL
    ),
    boosted AS (${boosted}),
    c AS (
      SELECT s.account_id AS receiver, ${VIA.self} AS via, true AS show_reblogs,
          NULL::jsonb AS languages
        FROM s JOIN accounts a ON a.id = s.account_id AND a.domain IS NULL
        WHERE true ${narrow(sql`s.account_id`)}
      UNION ALL
      SELECT f.account_id, ${VIA.follow}, f.show_reblogs, f.languages
        FROM s JOIN follows f ON f.target_account_id = s.account_id
        JOIN accounts fa ON fa.id = f.account_id AND fa.domain IS NULL AND fa.deleted_at IS NULL
        WHERE (s.visibility IN ${FOLLOWER_VISIBILITY_SQL}
          OR (s.visibility = 'direct' AND EXISTS (SELECT 1 FROM mentions m
            WHERE m.status_id = s.id AND m.account_id = f.account_id)))
          ${narrow(sql`f.account_id`)}
      ${tagFollowers}
    ),
    -- The few receivers the status may be refused to by blocks and mutes,
    -- read once: the others skip five probes each (feed_filters.ts, AT_ODDS).
    at_odds AS (SELECT a.id FROM s LEFT JOIN boosted o ON o.id = s.reblog_of_id,
      LATERAL (${AT_ODDS}) a WHERE a.id IS NOT NULL),
    chosen AS (
      SELECT DISTINCT c.receiver
        FROM c CROSS JOIN s LEFT JOIN boosted o ON o.id = s.reblog_of_id
        WHERE ${boostIsNew} AND ${
    homeRules(
      sql`(c.receiver NOT IN (SELECT id FROM at_odds)
          OR ${noBlocksOrMutes(sql`c.receiver`)})`,
      parts,
    )
  }
    )`;
}

/**
 * Whether status `s` (a CTE of one row, or none) may enter any local feed
 * at all, as one boolean: its author is local, has a local follower, or
 * it has a hashtag someone follows. A superset of {@link homeReceiverCtes}'
 * candidates and of the list feeds fan-out fills (a list's owner is the
 * author or follows the author): when it is false, fan-out chooses nobody.
 * A kind of candidate added there adds its test here.
 */
export const MAY_REACH_A_FEED = sql`(EXISTS (SELECT 1 FROM s
    JOIN accounts a ON a.id = s.account_id AND a.domain IS NULL)
  OR EXISTS (SELECT 1 FROM s JOIN follows f ON f.target_account_id = s.account_id
    JOIN accounts fa ON fa.id = f.account_id AND fa.domain IS NULL)
  OR EXISTS (SELECT 1 FROM s JOIN statuses_tags st ON st.status_id = s.id
    JOIN tag_follows tf ON tf.tag_id = st.tag_id))`;

/**
 * Whether `viewer` would still be chosen for status `status` (both SQL
 * expressions): the home page's test of a pending row (db/queries/timelines.ts),
 * the same choice the rows will be written by.
 */
export function stillChosen(viewer: SQL, status: SQL): SQL {
  return sql`EXISTS (WITH ${homeReceiverCtes(status, (r) => sql`${r} = ${viewer}`)}
    SELECT 1 FROM chosen)`;
}
