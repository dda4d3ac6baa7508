/**
 * Home and list timelines are filled on write: when a status is created (or
 * boosted), one statement (an INSERT … SELECT per feed kind, and the trims)
 * puts it into the feeds of everyone who should see it, inside the creating
 * transaction. The rules
 * (blocks, mutes, replies, boosts, languages, exclusive lists) live in
 * feed_filters.ts and are shared with regeneration and list back-fill.
 *
 * Who receives a status:
 * - the author, when local (every visibility);
 * - local followers of the author: public, unlisted and private statuses, and
 *   direct ones only when they are mentioned (Mastodon's
 *   deliver_to_mentioned_followers);
 * - local followers of its hashtags: public originals only;
 * - lists whose members include the author (public, unlisted, private), when
 *   the owner follows the author or is the author.
 * Direct statuses also update the participants' conversations.
 *
 * Bounding the feeds: each insert trims the feeds it touched with a small
 * probability ({@link TRIM_PROBABILITY}) down to the newest
 * {@link HOME_FEED_LIMIT} entries. A trim reads that many index entries
 * (and, on pages not yet marked all-visible, their heap tuples), so the
 * amortized cost per insert is a few entries, and a feed stays near the
 * limit (it exceeds it by about 1/probability = 200 entries between trims)
 * without a periodic job or a counter column. At 2% the trims were a third
 * of a post's fan-out on a server that had been posting for a while.
 */
import { type SQL, sql } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import type { statuses } from "../../db/schema/mod.ts";
import { BOOST_IS_NEW_IN_LIST, LIST_RULES } from "./feed_filters.ts";
import { addToConversations, removeFromConversations } from "./conversations.ts";
import { executePrepared } from "../../db/queries/prepared.ts";
import { newId } from "../../db/ids.ts";
import {
  ALL_PARTS,
  homeReceiverCtes,
  MAY_REACH_A_FEED,
  type ReceiverParts,
} from "./home_receivers.ts";
import { statementsPipelined } from "../../db/connection.ts";
import { notifyPendingHome, PENDING_FAN_OUT, pendingHomeCtes } from "./pending_home.ts";
import {
  notifyEvent,
  pruneStoredEvents,
  publishStreamEvent,
  publishStreamEvents,
  STORED,
  storeLongEvent,
} from "../streaming/bus.ts";

export type StatusRow = typeof statuses.$inferSelect;

/** How many entries a home (or list) feed keeps. */
export const HOME_FEED_LIMIT = 800;

/** The chance that an insert trims the feeds it touched. */
export const TRIM_PROBABILITY = 0.005;

/**
 * The trim of the feeds returned by `inserted`, sampled (see the module
 * comment). Rows another transaction is already trimming are skipped, not
 * waited for: two posts fanning out to the same followers at once could
 * otherwise each hold some of the old rows the other wants to delete, and
 * deadlock (seen under the posting benchmark). A skipped row goes at a
 * later trim, if the other transaction did not take it.
 */
export function trimInserted(
  table: "home_feed" | "list_feed",
  key: "account_id" | "list_id",
  inserted = "inserted",
) {
  const t = sql.raw(table);
  const k = sql.raw(key);
  return sql`DELETE FROM ${t} h
    WHERE (h.${k}, h.status_id) IN (SELECT o.${k}, o.status_id FROM ${t} o
      JOIN (SELECT DISTINCT ${k} AS owner FROM ${sql.raw(inserted)}
        WHERE random() < ${sql.raw(String(TRIM_PROBABILITY))}) t ON o.${k} = t.owner
      WHERE o.status_id < (SELECT x.status_id FROM ${t} x
        WHERE x.${k} = t.owner ORDER BY x.status_id DESC
        OFFSET ${sql.raw(String(HOME_FEED_LIMIT - 1))} LIMIT 1)
      FOR UPDATE OF o SKIP LOCKED)`;
}

/** The status being fanned out, in the prepared fan-out statements. */
const STATUS = sql.placeholder("status");
/** Its author, in the reach probe (an index lookup each, where a join through `s` was not). */
const AUTHOR = sql.placeholder("author");
/** The id of the outbox intent a large fan-out records (pending_home.ts). */
const INTENT = sql.placeholder("intent");
/** The id of the stream event, when too long to be notified inline (bus.ts). */
const EVENT = sql.placeholder("event");

/**
 * Inserts a new status (or boost) into the home and list feeds that should
 * show it (above PENDING_FAN_OUT home receivers, promises the home rows
 * instead: pending_home.ts), and trims the feeds it touched, in ONE prepared statement (its
 * text is the same for every status, so PostgreSQL plans it once per
 * connection): data-modifying CTEs all run, whether the final statement
 * reads them or not.
 *
 * Only for a status created in the calling transaction (its two callers,
 * posting and boosting): no feed can hold it yet, since no other
 * transaction sees it, so the home insert needs no ON CONFLICT (a
 * speculative insertion costs an extra index probe and WAL record per row).
 *
 * Resolves to `reached` false when it found that the status may enter no
 * feed here (on PGlite: {@link reachOf}), so that no local account follows
 * its author; on PGlite, with the author's local followers who rang its
 * bell (follows.notify), which the same probe reads.
 */
export async function fanOutStatus(tx: Executor, status: StatusRow): Promise<FannedOut> {
  // A reply or boost waiting for approval enters feeds when it is approved.
  if (status.deletedAt || status.pendingApproval) return { reached: true };
  let parts: FanOutParts = FULL_FAN_OUT;
  let subscribers: string[] | undefined;
  if (!statementsPipelined(tx)) {
    const reach = await reachOf(tx, status);
    if (!reach) {
      await afterFanOut(tx, status);
      return { reached: false };
    }
    ({ parts, subscribers } = reach);
  }
  await fanOutToFeeds(tx, status.id, parts);
  await afterFanOut(tx, status);
  return { reached: true, subscribers };
}

/** What {@link fanOutStatus} found. */
export interface FannedOut {
  reached: boolean;
  /** On PGlite: the local followers of the author with its bell rung. */
  subscribers?: string[];
}

/**
 * What a caller adds to the fan-out statement ({@link fanOutToFeeds}): its
 * own CTEs and answer rows, so that work of the same transaction costs no
 * statement of its own. `name` names the prepared variant: its SQL must be
 * the same at every call.
 */
export interface FanOutRider {
  name: string;
  /** CTEs, each followed by a comma, put before the fan-out's own. */
  ctes: SQL;
  /** A SELECT of (kind, id) rows added to the answer; kinds other than the fan-out's. */
  rows: SQL;
  /** The values of the placeholders in `ctes` and `rows`. */
  values: Record<string, unknown>;
}

/**
 * The parts of a fan-out statement: those of its choice (ReceiverParts;
 * without `lists` it has no list feed to fill either) and `large`, whether
 * it may choose more than PENDING_FAN_OUT receivers (without it, no
 * pending_home row is considered).
 */
export type FanOutParts = ReceiverParts & { large: boolean };

/** Every part: the statement PostgreSQL runs (it plans it once per connection). */
export const FULL_FAN_OUT: FanOutParts = Object.freeze({ ...ALL_PARTS, large: true });

/**
 * The fan-out statement of {@link fanOutStatus} alone, with `parts`, for
 * status `statusId` created in the calling transaction, neither held nor
 * deleted nor direct. A caller that knows this before the status's INSERT
 * is answered (a remote status on PostgreSQL: write_status.ts) sends it in
 * the same round trip: it runs after the INSERT, on the same connection.
 * Answers the rider's rows.
 */
export async function fanOutToFeeds(
  tx: Executor,
  statusId: string,
  parts: FanOutParts,
  rider?: FanOutRider,
): Promise<{ kind: string; id: string }[]> {
  const variant = parts === FULL_FAN_OUT ? "" : `:${Object.values(parts).map(Number).join("")}`;
  const notified = await executePrepared<{ kind: string; id: string }>(
    tx,
    `fan_out${variant}${rider ? `_${rider.name}` : ""}`,
    () => fanOutStatement(parts, rider),
    { ...rider?.values, status: statusId, intent: newId(), event: newId() },
  );
  // The statement notified the event itself, inline or (a post to hundreds
  // of followers) stored and by reference: no round trip of its own, and
  // the receivers never leave the database.
  if (notified.some((r) => r.kind === STORED)) await pruneStoredEvents(tx);
  return notified;
}

/** The fan-out statement with `parts`, and the rider's CTEs and rows. */
function fanOutStatement(parts: FanOutParts, rider?: FanOutRider): SQL {
  const lists = parts.lists
    ? sql`list_inserted AS (
      INSERT INTO list_feed (list_id, status_id)
      SELECT DISTINCT l.id, s.id
        FROM s JOIN list_accounts la ON la.account_id = s.account_id
        JOIN lists l ON l.id = la.list_id
        LEFT JOIN follows f ON f.account_id = l.account_id AND f.target_account_id = s.account_id
        LEFT JOIN boosted o ON o.id = s.reblog_of_id
        WHERE ${LIST_RULES} AND ${BOOST_IS_NEW_IN_LIST}
      ON CONFLICT DO NOTHING
      RETURNING list_id
    ),
    list_trimmed AS (${trimInserted("list_feed", "list_id", "list_inserted")}),`
    : sql`list_inserted AS (SELECT NULL::bigint AS list_id WHERE false),`;
  const large = parts.large
    ? sql`large AS (SELECT count(*) > ${sql.raw(String(PENDING_FAN_OUT))} AS yes FROM chosen),`
    : sql`large AS (SELECT false AS yes),`;
  return sql`WITH ${rider?.ctes ?? sql``} ${homeReceiverCtes(STATUS, undefined, parts)},
    ${large}
    inserted AS (
      INSERT INTO home_feed (account_id, status_id, reblog_of_id)
      SELECT chosen.receiver, s.id, s.reblog_of_id FROM chosen CROSS JOIN s
        WHERE NOT (SELECT yes FROM large)
      RETURNING account_id
    ),
    ${parts.large ? sql`${pendingHomeCtes(INTENT)},` : sql``}
    ${lists}
    home_trimmed AS (${trimInserted("home_feed", "account_id")}),
    -- The streams show what fan-out decided: the feeds this status entered.
    event AS (${updateEventJson(STATUS)}),
    ${storeLongEvent(sql`event`, EVENT)}
    ${notifyEvent(sql`event`)}
    ${parts.large ? sql`UNION ALL ${notifyPendingHome()}` : sql``}
    ${rider ? sql`UNION ALL ${rider.rows}` : sql``}`;
}

/**
 * On PGlite, before the fan-out statement: whether the status may enter any
 * feed here ({@link MAY_REACH_A_FEED}) and, when it may, the parts of the
 * fan-out it needs (ReceiverParts: a boost's, a reply's, hashtags someone
 * here follows, an author some list holds); when not, this statement
 * publishes the `update` event the fan-out statement would (no feed named),
 * and the fan-out is not run (null). The full fan-out statement costs PGlite
 * about 0.7 ms whatever it writes (PostgreSQL in WebAssembly starting and
 * ending its hundred-odd plan nodes), this one a tenth of that; most remote
 * statuses stored reach nobody here (a thread's parents and quoted posts
 * fetched, boosted originals, a relay's posts), and those that do are
 * mostly originals without followed hashtags by authors in no list, whose
 * statement leaves those parts out. On PostgreSQL the fan-out goes out with
 * the bell subscribers' query in one round trip, which this would add to,
 * so it is not asked there. On PGlite it also reads those subscribers
 * (notifySubscribers' query), a statement less.
 */
async function reachOf(
  tx: Executor,
  status: StatusRow,
): Promise<{ parts: FanOutParts; subscribers: string[] } | null> {
  const rows = await executePrepared<{ kind: string; id: string }>(
    tx,
    "fan_out_reach",
    () =>
      sql`WITH s AS (
      SELECT id, account_id FROM statuses WHERE id = ${STATUS}::bigint AND deleted_at IS NULL
    ),
    reach AS (SELECT ${MAY_REACH_A_FEED} AS yes),
    chosen AS (SELECT NULL::bigint AS receiver WHERE false),
    list_inserted AS (SELECT NULL::bigint AS list_id WHERE false),
    event AS (SELECT e.payload FROM (${updateEventJson(STATUS)}) e
      WHERE NOT (SELECT yes FROM reach))
    SELECT 'r' AS kind, (CASE WHEN NOT yes THEN '' ELSE
        (EXISTS (SELECT 1 FROM statuses_tags st
          JOIN tag_follows tf ON tf.tag_id = st.tag_id WHERE st.status_id = ${STATUS}::bigint))::int::text
        || (EXISTS (SELECT 1 FROM list_accounts la
          WHERE la.account_id = ${AUTHOR}::bigint))::int::text
        || ((SELECT count(*) FROM (SELECT 1 FROM follows f
          WHERE f.target_account_id = ${AUTHOR}::bigint LIMIT ${
        sql.raw(String(PENDING_FAN_OUT - 1))
      }) few) >= ${sql.raw(String(PENDING_FAN_OUT - 1))})::int::text END) AS id FROM reach
    UNION ALL SELECT 'b', f.account_id::text FROM follows f
      JOIN accounts fa ON fa.id = f.account_id AND fa.domain IS NULL
      WHERE f.target_account_id = ${AUTHOR}::bigint AND f.notify AND (SELECT yes FROM reach)
    UNION ALL ${notifyEvent(sql`event`, { inlineOnly: true })}`,
    { status: status.id, author: status.accountId },
  );
  const reach = rows.find((r) => r.kind === "r")?.id;
  if (!reach) return null;
  const parts = {
    boost: status.reblogOfId != null,
    reply: status.inReplyToId != null || status.inReplyToUri != null,
    tags: reach[0] === "1",
    lists: reach[1] === "1",
    // The author, its followers and its hashtags' followers are all the
    // candidates: fewer than PENDING_FAN_OUT followers and no followed
    // hashtag choose at most PENDING_FAN_OUT.
    large: reach[2] === "1" || reach[0] === "1",
  };
  return { parts, subscribers: rows.filter((r) => r.kind === "b").map((r) => String(r.id)) };
}

/**
 * Writes the home rows a large fan-out promised (pending_home.ts) and
 * deletes its pending row, in one statement: the relay runs it after the
 * posting transaction commits, or after a crash; a second run finds no
 * pending row and writes nothing. The promised receivers are chosen again
 * by the fan-out's own rules (home_receivers.ts), so a block, mute or
 * unfollow made meanwhile, or a boost of the same post that reached the feed
 * first, is obeyed; a status deleted meanwhile enters no feed; a row some
 * other path (a feed's regeneration) wrote meanwhile is kept.
 */
export async function finishHomeFanOut(db: Executor, statusId: string): Promise<void> {
  const promised = (receiver: SQL) =>
    sql`${receiver} IN (SELECT unnest(receivers) FROM pending_home
      WHERE status_id = ${statusId}::bigint)`;
  await db.execute(sql`WITH p AS (
      DELETE FROM pending_home WHERE status_id = ${statusId}::bigint
      RETURNING status_id
    ),
    ${homeReceiverCtes(sql`${statusId}`, promised)},
    inserted AS (
      INSERT INTO home_feed (account_id, status_id, reblog_of_id)
      SELECT chosen.receiver, s.id, s.reblog_of_id FROM p JOIN s ON s.id = p.status_id
        CROSS JOIN chosen
      ON CONFLICT DO NOTHING
      RETURNING account_id
    ),
    home_trimmed AS (${trimInserted("home_feed", "account_id")})
    SELECT count(*) AS n FROM inserted`);
}

/**
 * The `update` stream event of a status fan-out (`chosen`, `list_inserted`)
 * put into feeds, as JSON text (a CTE body): the event
 * {@link publishStreamEvent} would send.
 */
function updateEventJson(statusId: SQL | typeof STATUS): SQL {
  return sql`SELECT json_build_object('event', 'update', 'statusId', ${statusId}::bigint::text,
      'home', coalesce((SELECT json_agg(receiver::text) FROM chosen), '[]'::json),
      'lists', coalesce((SELECT json_agg(list_id::text) FROM list_inserted), '[]'::json)
    )::text AS payload`;
}

/** A direct status's conversations follow its fan-out. */
async function afterFanOut(tx: Executor, status: StatusRow): Promise<void> {
  if (status.visibility === "direct" && status.reblogOfId == null) {
    await addToConversations(tx, status);
  }
}

/**
 * Trims one account's home feed to its newest `keep` entries now (fan-out
 * does it by sampling; this is the deterministic form, for maintenance and tests).
 */
export async function trimHomeFeed(
  tx: Executor,
  accountId: string,
  keep = HOME_FEED_LIMIT,
): Promise<void> {
  await tx.execute(sql`DELETE FROM home_feed WHERE account_id = ${accountId}::bigint
    AND status_id < (SELECT x.status_id FROM home_feed x WHERE x.account_id = ${accountId}::bigint
      ORDER BY x.status_id DESC OFFSET ${sql.raw(String(Math.max(0, Math.trunc(keep) - 1)))}
      LIMIT 1)`);
}

/** The rows of a raw statement: postgres.js answers an array, PGlite a result with `rows`. */
export function rowsOf<T>(result: unknown): T[] {
  return Array.isArray(result) ? result as T[] : (result as { rows: T[] }).rows;
}

/** The feeds one status (or boost) was taken out of. */
export interface FeedRemoval {
  statusId: string;
  /** Local accounts whose home feed held it. */
  home: string[];
  /** Lists that held it. */
  lists: string[];
}

/**
 * Removes a deleted status (and boosts of it) from every feed, moves the
 * conversations it ended back to their previous status, and publishes a
 * `delete` event for the status and each boost of it, naming the feeds the
 * DELETEs took it out of (the streams follow the rows, as for `update`).
 * Call it once the status (and its boosts) are gone or marked deleted.
 *
 * home_feed and list_feed are keyed by their owner, so the delete names the
 * owners that can hold the status: the local followers of the author and of
 * each booster, the authors and boosters themselves, followers of its tags,
 * the accounts it mentions, and the lists containing any of those authors.
 * (home_feed has no index by status alone, which would make this one exact
 * delete but cost every fan-out; the readers also drop deleted statuses
 * through the visibility filter; a tag follower's entry whose tag an edit
 * removed is not found, and left to them.) One statement deletes from both
 * feeds and returns what it deleted.
 */
export async function removeFromFeeds(tx: Executor, statusId: string): Promise<FeedRemoval[]> {
  const rows = await tx.execute(sql`WITH gone AS (
      SELECT id, account_id FROM statuses WHERE id = ${statusId}::bigint
      UNION ALL
      SELECT id, account_id FROM statuses WHERE reblog_of_id = ${statusId}::bigint
    ),
    owners AS (
      SELECT account_id FROM gone
      UNION SELECT f.account_id FROM follows f JOIN gone g ON f.target_account_id = g.account_id
      UNION SELECT tf.account_id FROM statuses_tags st JOIN tag_follows tf ON tf.tag_id = st.tag_id
        WHERE st.status_id = ${statusId}::bigint
      UNION SELECT m.account_id FROM mentions m WHERE m.status_id = ${statusId}::bigint
    ),
    home_removed AS (
      DELETE FROM home_feed h USING owners
      WHERE h.account_id = owners.account_id
        AND (h.status_id IN (SELECT id FROM gone) OR h.reblog_of_id = ${statusId}::bigint)
      RETURNING h.account_id, h.status_id
    ),
    list_removed AS (
      DELETE FROM list_feed lf USING list_accounts la, gone g
      WHERE la.account_id = g.account_id AND lf.list_id = la.list_id AND lf.status_id = g.id
      RETURNING lf.list_id, lf.status_id
    ),
    -- A large fan-out whose rows are not written yet (pending_home.ts).
    pending_removed AS (
      DELETE FROM pending_home p USING gone g WHERE p.status_id = g.id
      RETURNING p.status_id, p.receivers
    )
    SELECT 's' AS kind, id::text AS status_id, NULL AS owner FROM gone
    UNION ALL SELECT 'h', status_id::text, account_id::text FROM home_removed
    UNION ALL SELECT 'h', status_id::text, unnest(receivers)::text FROM pending_removed
    UNION ALL SELECT 'l', status_id::text, list_id::text FROM list_removed`);
  const removals = new Map<string, FeedRemoval>();
  const removal = (id: string) => {
    let r = removals.get(id);
    if (!r) removals.set(id, r = { statusId: id, home: [], lists: [] });
    return r;
  };
  const found = rowsOf<{ kind: string; status_id: string; owner: string | null }>(rows);
  // The status and its boosts first, in that order; then the feeds.
  for (const row of found) if (row.kind === "s") removal(String(row.status_id));
  for (const row of found) {
    if (row.kind === "s") continue;
    const r = removal(String(row.status_id));
    (row.kind === "h" ? r.home : r.lists).push(String(row.owner));
  }
  const result = [...removals.values()];
  await publishStreamEvents(tx, result.map((r) => ({ event: "delete", ...r })));
  await removeFromConversations(tx, statusId);
  return result;
}

/**
 * The feeds that hold a status now: the local accounts whose home feed has
 * it and the lists that have it, for the `status.update` of an edit. Fan-out
 * decides who holds a status, so this asks the rows, not the rules: it names
 * the owners fan-out could have chosen (the author, followers of the author,
 * followers of its tags, lists of the author) and keeps those whose feed row
 * exists, each a primary-key lookup (home_feed has no index by status alone,
 * see removeFromFeeds), and the receivers of its pending rows (pending_home.ts).
 * Tags an earlier edit removed are not asked.
 */
export async function feedsHolding(
  tx: Executor,
  statusId: string,
): Promise<{ home: string[]; lists: string[] }> {
  const rows = await tx.execute(sql`WITH s AS (
      SELECT id, account_id FROM statuses WHERE id = ${statusId}::bigint
    ),
    owners AS (
      SELECT account_id FROM s
      UNION SELECT f.account_id FROM s JOIN follows f ON f.target_account_id = s.account_id
      UNION SELECT tf.account_id FROM statuses_tags st JOIN tag_follows tf ON tf.tag_id = st.tag_id
        WHERE st.status_id = ${statusId}::bigint
    )
    SELECT 'h' AS kind, h.account_id::text AS id FROM owners o
      JOIN home_feed h ON h.account_id = o.account_id AND h.status_id = ${statusId}::bigint
    UNION ALL
    SELECT 'h', unnest(p.receivers)::text FROM pending_home p WHERE p.status_id = ${statusId}::bigint
    UNION ALL
    SELECT 'l', lf.list_id::text FROM s JOIN list_accounts la ON la.account_id = s.account_id
      JOIN list_feed lf ON lf.list_id = la.list_id AND lf.status_id = s.id`);
  const home: string[] = [];
  const lists: string[] = [];
  for (const r of rowsOf<{ kind: string; id: string }>(rows)) {
    (r.kind === "h" ? home : lists).push(String(r.id));
  }
  return { home, lists };
}

/**
 * Publishes `status.update` for an edited status to the feeds that hold it
 * ({@link feedsHolding}). Call it in the edit's transaction, before the
 * edit replaces the status's tags (the tags it entered feeds by).
 */
export async function publishStatusUpdate(tx: Executor, statusId: string): Promise<void> {
  const { home, lists } = await feedsHolding(tx, statusId);
  await publishStreamEvent(tx, { event: "status.update", statusId, home, lists });
}

/**
 * Takes an author out of one account's home feed (Mastodon's unmerge on
 * unfollow, and its clear_from_home on block and mute), for the
 * relationship commands to call inside their transaction: the author's
 * statuses and boosts, and others' boosts of the author's statuses. With
 * `mentions` (the blocker's side of a block), statuses mentioning the
 * author go too, as fan-out leaves them out (feed_filters.ts). The home
 * timeline does not check these rules again when read (visibility.ts,
 * feedEntryFilter), so each must take its entries out here.
 *
 * With `announce` (block and mute: Mastodon's clear_from_home unpushes each
 * entry and streams a `delete`; its unmerge on unfollow does not), each entry
 * taken out is published as a `delete` to that account's home.
 */
export async function removeAuthorFromHome(
  tx: Executor,
  accountId: string,
  authorId: string,
  options: { mentions?: boolean; announce?: boolean } = {},
): Promise<void> {
  const mentioned = options.mentions
    ? sql`OR EXISTS (SELECT 1 FROM mentions m WHERE m.account_id = ${authorId}::bigint
        AND m.status_id = coalesce(h.reblog_of_id, h.status_id))`
    : sql``;
  const removed = await tx.execute(sql`DELETE FROM home_feed h
    WHERE h.account_id = ${accountId}::bigint AND (
      EXISTS (SELECT 1 FROM statuses s WHERE s.id = h.status_id
        AND s.account_id = ${authorId}::bigint)
      OR EXISTS (SELECT 1 FROM statuses o WHERE o.id = h.reblog_of_id
        AND o.account_id = ${authorId}::bigint)
      ${mentioned})
    RETURNING h.status_id::text AS status_id`);
  if (!options.announce) return;
  await publishStreamEvents(
    tx,
    rowsOf<{ status_id: string }>(removed).map((r) => ({
      event: "delete",
      statusId: String(r.status_id),
      home: [accountId],
      lists: [],
      feedsOnly: true,
    })),
  );
}

/**
 * Takes an author out of the list feeds `ownerId` owns (Mastodon's
 * clear_from_lists on block and mute): the author's statuses and boosts,
 * others' boosts of the author's statuses and, with `mentions`, statuses
 * mentioning the author. Each entry taken out is published as a `delete` to
 * its list's streams, as the home feed's are.
 */
export async function removeAuthorFromLists(
  tx: Executor,
  ownerId: string,
  authorId: string,
  options: { mentions?: boolean } = {},
): Promise<void> {
  const mentioned = options.mentions
    ? sql`OR EXISTS (SELECT 1 FROM mentions m WHERE m.account_id = ${authorId}::bigint
        AND m.status_id = coalesce(s.reblog_of_id, s.id))`
    : sql``;
  const removed = await tx.execute(sql`DELETE FROM list_feed lf
    USING lists l, statuses s
    WHERE l.account_id = ${ownerId}::bigint AND lf.list_id = l.id AND s.id = lf.status_id
      AND (s.account_id = ${authorId}::bigint
        OR EXISTS (SELECT 1 FROM statuses o WHERE o.id = s.reblog_of_id
          AND o.account_id = ${authorId}::bigint)
        ${mentioned})
    RETURNING lf.list_id::text AS list_id, lf.status_id::text AS status_id`);
  await publishStreamEvents(
    tx,
    rowsOf<{ list_id: string; status_id: string }>(removed).map((r) => ({
      event: "delete",
      statusId: String(r.status_id),
      home: [],
      lists: [String(r.list_id)],
      feedsOnly: true,
    })),
  );
}

/**
 * Takes the statuses of a domain's accounts, and boosts of them, out of one
 * account's home feed, when that account blocks the domain.
 */
export async function removeDomainFromHome(
  tx: Executor,
  accountId: string,
  domain: string,
): Promise<void> {
  await tx.execute(sql`DELETE FROM home_feed h
    WHERE h.account_id = ${accountId}::bigint AND EXISTS (
      SELECT 1 FROM statuses s JOIN accounts a ON a.id = s.account_id
      WHERE s.id IN (h.status_id, h.reblog_of_id)
        AND a.domain IS NOT NULL AND lower(a.domain) = lower(${domain}))`);
}
