/**
 * The rules that decide whether a status enters someone's home or list feed,
 * as SQL fragments, so that fan-out on write (fanout.ts), list back-fill and
 * home-feed regeneration (regenerate.ts) apply exactly the same ones.
 *
 * Every fragment reads fixed aliases:
 * - `s`: the status being placed (an original or a boost),
 * - `o`: the boosted original (LEFT JOINed on `s.reblog_of_id`; all NULL for originals),
 * - `c`: the candidate receiver, with columns `receiver` (account id), `via`
 *   ({@link VIA}), `show_reblogs` and `languages` (of the follow that brings it).
 *
 * The rules follow Mastodon's FeedManager#filter_from_home and
 * #filter_from_list; where they say "receiver", the author's own feed is
 * exempt (you always see what you post).
 */
import { type SQL, sql } from "drizzle-orm";
import { FOLLOWER_VISIBILITY_SQL } from "../../db/queries/visibility.ts";

/** How a candidate receiver came to be one (the `c.via` column). */
export const VIA = {
  /** The author, into their own home feed. */
  self: 0,
  /** A local follower of the author. */
  follow: 1,
  /** A local follower of one of the status's hashtags. */
  tag: 2,
} as const;

/**
 * Neither the receiver nor the people in the status are at odds: the receiver
 * blocks or mutes none of the author, the boosted author or the accounts
 * mentioned; blocks no reply target; is not blocked by the authors; and has
 * not blocked the authors' domains.
 */
export function noBlocksOrMutes(receiver: SQL): SQL {
  return sql`NOT EXISTS (SELECT 1 FROM blocks b WHERE b.account_id = ${receiver}
      AND b.target_account_id IN (s.account_id, o.account_id, s.in_reply_to_account_id))
    AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.target_account_id = ${receiver}
      AND b.account_id IN (s.account_id, o.account_id))
    AND NOT EXISTS (SELECT 1 FROM mutes mu WHERE mu.account_id = ${receiver}
      AND mu.target_account_id IN (s.account_id, o.account_id)
      AND (mu.expires_at IS NULL OR mu.expires_at > now()))
    AND NOT EXISTS (SELECT 1 FROM mentions m
      JOIN blocks b ON b.account_id = ${receiver} AND b.target_account_id = m.account_id
      WHERE m.status_id = coalesce(s.reblog_of_id, s.id))
    AND NOT EXISTS (SELECT 1 FROM account_domain_blocks d
      JOIN accounts x ON x.domain IS NOT NULL AND lower(x.domain) = lower(d.domain)
      WHERE d.account_id = ${receiver} AND x.id IN (s.account_id, o.account_id))`;
}

/**
 * The accounts {@link noBlocksOrMutes} may refuse status `s` to: every
 * receiver it refuses is among them (a superset: mutes however expired).
 * A SELECT of one column `id` over the one-row `s` and `o`, read once per
 * status, where noBlocksOrMutes is a probe per receiver: a fan-out to
 * 10,000 followers runs noBlocksOrMutes only for the few in this set
 * (home_receivers.ts). Keep the two together: a rule added there adds its accounts here.
 */
export const AT_ODDS = sql`SELECT b.account_id AS id FROM blocks b
    WHERE b.target_account_id IN (s.account_id, o.account_id, s.in_reply_to_account_id)
  UNION SELECT b.target_account_id FROM blocks b WHERE b.account_id IN (s.account_id, o.account_id)
  UNION SELECT mu.account_id FROM mutes mu
    WHERE mu.target_account_id IN (s.account_id, o.account_id)
  UNION SELECT b.account_id FROM mentions m JOIN blocks b ON b.target_account_id = m.account_id
    WHERE m.status_id = coalesce(s.reblog_of_id, s.id)
  UNION SELECT d.account_id FROM accounts x JOIN account_domain_blocks d
    ON lower(d.domain) = lower(x.domain)
    WHERE x.id IN (s.account_id, o.account_id) AND x.domain IS NOT NULL`;

/** The follow's language filter (`follows.languages`) lets the status through. */
export function languageAllowed(languages: SQL): SQL {
  return sql`(${languages} IS NULL OR jsonb_typeof(${languages}) <> 'array'
    OR ${languages} = '[]'::jsonb OR s.language IS NULL
    OR ${languages} @> jsonb_build_array(s.language))`;
}

/** `s` is not a reply to anyone but its author (threads count as originals). */
const NOT_A_REPLY = sql`((s.in_reply_to_id IS NULL AND s.in_reply_to_uri IS NULL)
  OR s.in_reply_to_account_id = s.account_id)`;

/**
 * Mastodon's reply rule for home: a reply reaches a follower only when it
 * answers the author themselves, the receiver, or someone the receiver
 * follows. A reply to a status we do not know is left out.
 */
export function replyAllowedInHome(receiver: SQL): SQL {
  return sql`(${NOT_A_REPLY} OR s.in_reply_to_account_id = ${receiver}
    OR EXISTS (SELECT 1 FROM follows rf WHERE rf.account_id = ${receiver}
      AND rf.target_account_id = s.in_reply_to_account_id))`;
}

/**
 * A list's `replies_policy` (alias `l` for the list): `followed` shows replies
 * to anyone the owner follows, `list` replies to members of the list, `none`
 * only replies to the owner (and self-replies, as everywhere).
 */
export const REPLY_ALLOWED_IN_LIST = sql`(${NOT_A_REPLY}
  OR s.in_reply_to_account_id = l.account_id
  OR (l.replies_policy = 'followed' AND EXISTS (SELECT 1 FROM follows rf
    WHERE rf.account_id = l.account_id AND rf.target_account_id = s.in_reply_to_account_id))
  OR (l.replies_policy = 'list' AND EXISTS (SELECT 1 FROM list_accounts rl
    WHERE rl.list_id = l.id AND rl.account_id = s.in_reply_to_account_id)))`;

/** The author is not a member of one of the receiver's exclusive lists. */
export function notInExclusiveList(receiver: SQL): SQL {
  return sql`NOT EXISTS (SELECT 1 FROM list_accounts xa JOIN lists xl ON xl.id = xa.list_id
    WHERE xa.account_id = s.account_id AND xl.account_id = ${receiver} AND xl.exclusive)`;
}

/**
 * How near the top of a home feed an earlier copy of a post hides a new
 * boost of it (Mastodon 4.7: the newest 80 entries); below that, the boost
 * shows again.
 */
export const BOOST_WINDOW = 80;

/** Whether home feed entry `entry` of `receiver` is among its newest BOOST_WINDOW (reads at most that many). */
function inBoostWindow(receiver: SQL, entry: SQL): SQL {
  return sql`(SELECT count(*) FROM (SELECT 1 FROM home_feed w
    WHERE w.account_id = ${receiver} AND w.status_id > ${entry}
    LIMIT ${sql.raw(String(BOOST_WINDOW))}) newer) < ${sql.raw(String(BOOST_WINDOW))}`;
}

/**
 * For boosts: the original exists and is not the receiver's own, and neither
 * the original nor another boost of it is among the newest entries of the
 * receiver's home feed (BOOST_WINDOW), nor promised to the receiver by a
 * large fan-out whose rows are not written yet (pending_home.ts: a pending
 * copy is the newest entry of the feed it will enter). Each probe is an
 * index lookup; the window is counted only when an earlier copy is found;
 * the pending rows are a few, and a receiver list is searched only for a
 * copy of this very post.
 */
export function boostIsNewInHome(receiver: SQL): SQL {
  return sql`(s.reblog_of_id IS NULL OR (o.id IS NOT NULL AND o.account_id <> ${receiver}
    AND NOT EXISTS (SELECT 1 FROM home_feed h
      WHERE h.account_id = ${receiver} AND h.status_id = s.reblog_of_id
        AND ${inBoostWindow(receiver, sql`h.status_id`)})
    AND NOT EXISTS (SELECT 1 FROM home_feed h
      WHERE h.account_id = ${receiver} AND h.reblog_of_id = s.reblog_of_id
        AND ${inBoostWindow(receiver, sql`h.status_id`)})
    AND NOT EXISTS (SELECT 1 FROM pending_home ph
      WHERE (ph.status_id = s.reblog_of_id OR ph.reblog_of_id = s.reblog_of_id)
        AND ph.status_id <> s.id AND ${receiver} = ANY(ph.receivers))))`;
}

/** The same for a list feed (alias `l`), which has no reblog column: boosts are joined. */
export const BOOST_IS_NEW_IN_LIST = sql`(s.reblog_of_id IS NULL
  OR (o.id IS NOT NULL AND o.account_id <> l.account_id
    AND NOT EXISTS (SELECT 1 FROM list_feed lf
      WHERE lf.list_id = l.id AND lf.status_id = s.reblog_of_id)
    AND NOT EXISTS (SELECT 1 FROM statuses rb JOIN list_feed lf
      ON lf.list_id = l.id AND lf.status_id = rb.id
      WHERE rb.reblog_of_id = s.reblog_of_id AND rb.id <> s.id)))`;

/**
 * Whether candidate `c` gets status `s` in their home feed, apart from the
 * boost de-duplication (which fan-out adds, and regeneration does in bulk).
 */
export const HOME_RULES = homeRules(noBlocksOrMutes(sql`c.receiver`));

/**
 * {@link HOME_RULES} with `atPeace` for noBlocksOrMutes: fan-out's form
 * (home_receivers.ts) asks it only of the receivers among {@link AT_ODDS}.
 * Fan-out may leave out two rules that cannot refuse its status: the
 * exclusive lists' when `lists` is false (its author is in no list), the
 * replies' when `reply` is false (it replies to nothing).
 */
export function homeRules(atPeace: SQL, { lists = true, reply = true } = {}): SQL {
  const exclusive = lists ? notInExclusiveList(sql`c.receiver`) : sql`true`;
  const replies = reply ? replyAllowedInHome(sql`c.receiver`) : NOT_A_REPLY;
  return sql`(c.via = ${VIA.self} OR (
  ${atPeace} AND ${exclusive}
  AND (c.via = ${VIA.tag} OR (
    ${languageAllowed(sql`c.languages`)}
    AND (s.reblog_of_id IS NULL OR c.show_reblogs)
    AND ${replies}))))`;
}

/**
 * Whether list `l` (of owner `l.account_id`, with the owner's follow of the
 * author as `f`, possibly NULL) gets status `s`, apart from boost de-duplication.
 */
export const LIST_RULES = sql`s.visibility IN ${FOLLOWER_VISIBILITY_SQL}
  AND (l.account_id = s.account_id OR (f.id IS NOT NULL
    AND ${noBlocksOrMutes(sql`l.account_id`)} AND ${languageAllowed(sql`f.languages`)}
    AND (s.reblog_of_id IS NULL OR f.show_reblogs)))
  AND ${REPLY_ALLOWED_IN_LIST}`;
