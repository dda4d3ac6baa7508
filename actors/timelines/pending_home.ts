/**
 * Large fan-outs publish before they write (issue 36: one post to 10,000
 * `user` sockets). Writing 10,000 home rows takes the posting transaction
 * some 50 ms, and the post's `update` reached the sockets only after them.
 * Above {@link PENDING_FAN_OUT} receivers the fan-out statement
 * (fanout.ts) writes no home row: it stores the receivers, chosen by the
 * same rules, in one `pending_home` row with the status, and publishes the
 * event. The pending row is the durable intent of the rows: an outbox
 * intent recorded in the same statement has the relay
 * (federation/outbox/relay.ts) run finishHomeFanOut (fanout.ts) right after the
 * commit (its fast path), or after a crash (its sweep), and that single
 * statement writes the rows and deletes the pending row at once. The home
 * page reads the viewer's pending rows besides home_feed
 * (db/queries/timelines.ts), so a client reading home on the frame finds
 * the post in either state.
 *
 * The rules hold for the whole window, not only at the post: the rows are
 * written to the promised receivers the fan-out's rules still choose
 * (home_receivers.ts: a block, mute or unfollow since the post is obeyed),
 * the home page shows a pending row only to a viewer still chosen whose
 * home_feed does not hold the status already (a regeneration meanwhile),
 * and a boost of a post promised to a feed counts as one in the feed
 * (feed_filters.ts, boostIsNewInHome).
 *
 * Smaller fan-outs stay on the one-statement path (rows written in the
 * posting transaction): at a hundred receivers the rows cost about a
 * millisecond, less than the intent and its relay (three more statements
 * after the commit), and an inbound note, which has no intent of its own,
 * would pay one more transaction.
 */
import { type Placeholder, type SQL, sql } from "drizzle-orm";
import { OUTBOX_CHANNEL, PROCESS_TOKEN } from "../outbox/deliveries.ts";

/** Receivers above which a fan-out's home rows are written after the commit. */
export const PENDING_FAN_OUT = 300;

/** The Outbox method the intent names (actors/outbox/timelines.ts). */
const METHOD = "finishHomeFanOut";

/**
 * The CTEs of the fan-out statement (after `s` and `chosen`, the receivers,
 * and `large`) that store a large fan-out's receivers (`pending`) and record
 * the intent that finishes it (`intent`, with id `intent`).
 */
export function pendingHomeCtes(intent: Placeholder): SQL {
  return sql`pending AS (
      INSERT INTO pending_home (status_id, reblog_of_id, receivers)
      SELECT s.id, s.reblog_of_id, (SELECT array_agg(receiver) FROM chosen) FROM s
        WHERE (SELECT yes FROM large)
      RETURNING status_id
    ),
    intent AS (
      INSERT INTO outbox_intents (id, method, args)
      SELECT ${intent}::bigint, ${sql.raw(`'${METHOD}'`)}, jsonb_build_array(status_id::text)
        FROM pending
      RETURNING id
    )`;
}

/**
 * A SELECT (for the fan-out's UNION ALL: columns `kind`, `id`) that wakes
 * this process's relay at commit when an intent was recorded, as
 * recordDelivery does (a row of kind `o`).
 */
export function notifyPendingHome(): SQL {
  const channel = sql.raw(`'${OUTBOX_CHANNEL}'`);
  const token = sql.raw(`'${PROCESS_TOKEN}'`);
  return sql`SELECT 'o', pg_notify(${channel}, ${token})::text FROM intent`;
}
