/**
 * Who may see a status: the one place that decides it. Every reader (the
 * REST API, the ActivityPub object dispatcher, timelines, notifications,
 * streaming, push) filters with {@link visibleStatusFilter} or asks
 * {@link canSeeStatus}; a status a viewer may not see is answered exactly
 * like a missing one (404). The home timeline is the one exception, by
 * design: its feed is filled under these rules and kept in step with them,
 * and it is read with {@link feedEntryFilter}.
 *
 * The rules, following Mastodon's StatusPolicy#show?:
 * - Deleted statuses are never visible, nor are statuses of deleted or
 *   suspended accounts.
 * - The author always sees their own statuses.
 * - public and unlisted: everyone, except that a signed-in viewer does not
 *   see statuses of accounts they block, that block them, or whose domain
 *   they blocked.
 * - private: accepted followers of the author and the accounts it mentions
 *   (blocks as above).
 * - direct: the accounts it mentions (blocks as above).
 * - A boost is visible only when the boosted status is visible too.
 * - An anonymous viewer sees public and unlisted statuses only.
 * - A reply or boost waiting for approval (`pending_approval`, issue 34) is
 *   seen only by its author and by the author of the status it replies to
 *   or boosts (who decides), on top of the rules above.
 *
 * The visibility words and the same rule over one status are model/
 * visibility.ts's ({@link maySee} there); tests/statuses/visibility_rule_test.ts
 * checks that this SQL and that rule agree on every case.
 *
 * Limited (silenced) authors are a separate, narrower rule for the lists
 * where strangers discover posts — public, hashtag and link timelines,
 * trends, search: {@link notLimitedFilter} keeps their statuses for the
 * author and the author's followers only, as Mastodon's limit does.
 *
 * The filter is a WHERE fragment over a `statuses` row (by default the table
 * itself; pass an alias when the query names it otherwise). Each relation is
 * its own EXISTS so each uses its own index.
 */
import { and, eq, type Placeholder, type SQL, sql } from "drizzle-orm";
import { anyId } from "./any_id.ts";
import type { Executor } from "../connection.ts";
import { statuses } from "../schema/mod.ts";
import { authorIsLimited } from "./limited_accounts.ts";
import { FOLLOWER_VISIBILITIES, PUBLIC_VISIBILITIES } from "../../model/visibility.ts";

/** A `('a', 'b')` list of constant words, for `visibility IN …`. */
function wordList(words: readonly string[]): SQL {
  return sql.raw(`(${words.map((word) => `'${word}'`).join(", ")})`);
}

/** `visibility IN` this: visible to anyone (model/visibility.ts's PUBLIC_VISIBILITIES). */
export const PUBLIC_VISIBILITY_SQL = wordList(PUBLIC_VISIBILITIES);

/** `visibility IN` this: all but direct, what reaches followers' feeds (FOLLOWER_VISIBILITIES). */
export const FOLLOWER_VISIBILITY_SQL = wordList(FOLLOWER_VISIBILITIES);

/** Names a `statuses` row may go by in a query; always a constant, never input. */
export type StatusAlias = "statuses" | "s" | "st" | "r" | "o" | "q";

/**
 * The viewer as the filters take it: an account id, a placeholder of a
 * prepared query, or an SQL expression naming a column of the surrounding
 * query (streaming checks many viewers of one status in one statement,
 * api/streaming/render.ts), or null for an anonymous viewer.
 */
export type ViewerRef = string | Placeholder | SQL | null;

/** Stand-in alias for the boosted status inside the boost check. */
const ORIGINAL: StatusAlias = "o";

function ident(alias: StatusAlias): SQL {
  return sql.raw(`"${alias}"`);
}

/** The rules for one status row, without the boost check. */
function ownRules(viewer: ViewerRef, alias: StatusAlias): SQL {
  const s = ident(alias);
  const authorUsable = sql`EXISTS (SELECT 1 FROM accounts va WHERE va.id = ${s}.account_id
    AND va.deleted_at IS NULL AND va.suspended_at IS NULL)`;
  const alive = sql`${s}.deleted_at IS NULL AND ${authorUsable}`;
  if (viewer == null) {
    return sql`(${alive} AND ${s}.visibility IN ${PUBLIC_VISIBILITY_SQL} AND NOT ${s}.pending_approval)`;
  }
  const v = sql`${viewer}::bigint`;
  const mentioned = sql`EXISTS (SELECT 1 FROM mentions vm
    WHERE vm.status_id = ${s}.id AND vm.account_id = ${v})`;
  const follower = sql`EXISTS (SELECT 1 FROM follows vf
    WHERE vf.account_id = ${v} AND vf.target_account_id = ${s}.account_id)`;
  // The mention check is written once for private and direct alike: each
  // EXISTS is a subplan PostgreSQL sets up at every execution.
  const audience = sql`(${s}.visibility IN ${PUBLIC_VISIBILITY_SQL}
    OR (${s}.visibility = 'private' AND ${follower})
    OR (${s}.visibility IN ('private', 'direct') AND ${mentioned}))`;
  const notBlocked = sql`NOT EXISTS (SELECT 1 FROM blocks vb
      WHERE vb.account_id = ${v} AND vb.target_account_id = ${s}.account_id)
    AND NOT EXISTS (SELECT 1 FROM blocks vb
      WHERE vb.account_id = ${s}.account_id AND vb.target_account_id = ${v})
    AND NOT EXISTS (SELECT 1 FROM accounts vd JOIN account_domain_blocks vdb
      ON vdb.account_id = ${v} AND lower(vdb.domain) = lower(vd.domain)
      WHERE vd.id = ${s}.account_id AND vd.domain IS NOT NULL)`;
  // `NOT pending_approval` first: the EXISTS runs for pending rows only.
  const approver = sql`(NOT ${s}.pending_approval OR ${s}.in_reply_to_account_id = ${v}
    OR EXISTS (SELECT 1 FROM statuses vp WHERE vp.id = ${s}.reblog_of_id AND vp.account_id = ${v}))`;
  return sql`(${alive} AND (${s}.account_id = ${v} OR (${audience} AND ${notBlocked} AND ${approver})))`;
}

/**
 * A WHERE fragment that keeps the statuses `viewerAccountId` may see (null:
 * an anonymous viewer). `alias` names the `statuses` row in the surrounding
 * query (default: the table name itself). The viewer may be a placeholder,
 * for queries built once and executed many times (db/queries/prepared.ts).
 */
export function visibleStatusFilter(
  viewerAccountId: ViewerRef,
  alias: StatusAlias = "statuses",
): SQL {
  const s = ident(alias);
  const inner = alias === ORIGINAL ? "q" : ORIGINAL;
  const boosted = sql`(${s}.reblog_of_id IS NULL OR EXISTS (
    SELECT 1 FROM statuses ${ident(inner)} WHERE ${ident(inner)}.id = ${s}.reblog_of_id
      AND ${ownRules(viewerAccountId, inner)}))`;
  return sql`(${ownRules(viewerAccountId, alias)} AND ${boosted})`;
}

/**
 * {@link visibleStatusFilter} for rows that must be originals (a quoted
 * status): a boost never passes, so the boost check (a second copy of the
 * rules, which PostgreSQL sets up at every execution) is left out.
 */
export function visibleOriginalFilter(
  viewerAccountId: ViewerRef,
  alias: StatusAlias = "statuses",
): SQL {
  return sql`(${ident(alias)}.reblog_of_id IS NULL AND ${ownRules(viewerAccountId, alias)})`;
}

/**
 * For discovery lists (public, hashtag and link timelines, trends, search):
 * statuses of limited authors (silenced by a moderator, or on a server an
 * instance domain block silences: db/queries/limited_accounts.ts) are kept
 * only for the author and the author's followers; everyone else does not
 * find them.
 */
export function notLimitedFilter(
  viewerAccountId: ViewerRef,
  alias: StatusAlias = "statuses",
): SQL {
  const s = ident(alias);
  // A moderator's silence or a silenced server (limited_accounts.ts).
  const limited = authorIsLimited(sql`${s}.account_id`);
  if (viewerAccountId == null) return sql`NOT ${limited}`;
  const v = sql`${viewerAccountId}::bigint`;
  return sql`(NOT ${limited} OR ${s}.account_id = ${v} OR EXISTS (SELECT 1 FROM follows lf
    WHERE lf.account_id = ${v} AND lf.target_account_id = ${s}.account_id))`;
}

/**
 * The read-time check of a home feed entry (`statuses` row, by default the
 * table itself): the status, and the original it boosts, are not deleted,
 * and their authors are neither deleted nor suspended.
 *
 * The home feed is filled on write with every rule above applied for its
 * owner (actors/timelines/feed_filters.ts), and every change that would
 * hide an entry from its owner takes the entry out in the same transaction:
 * unfollowing or being removed as a follower, blocking either way, muting,
 * blocking a domain (actors/timelines/fanout.ts, removeAuthorFromHome and
 * removeDomainFromHome), deleting a status (removeFromFeeds) and editing a
 * direct status to drop a mention (actors/statuses/rows.ts, setMentions).
 * Tests: tests/timelines/unmerge_test.ts and fanout_test.ts. This is Mastodon's
 * model too; it reads home feeds without a per-viewer check.
 * What the write side cannot take back cheaply is checked here: statuses
 * marked deleted with their account, and suspension, which can be undone.
 * Reading the whole rule set for each of forty rows cost the home timeline
 * about 0.25 ms of PostgreSQL time per page.
 */
export function feedEntryFilter(alias: StatusAlias = "statuses"): SQL {
  const s = ident(alias);
  const usable = (account: SQL) =>
    sql`EXISTS (SELECT 1 FROM accounts va WHERE va.id = ${account}
      AND va.deleted_at IS NULL AND va.suspended_at IS NULL)`;
  return sql`(${s}.deleted_at IS NULL AND ${usable(sql`${s}.account_id`)}
    AND (${s}.reblog_of_id IS NULL OR EXISTS (SELECT 1 FROM statuses fo
      WHERE fo.id = ${s}.reblog_of_id AND fo.deleted_at IS NULL
        AND ${usable(sql`fo.account_id`)})))`;
}

/**
 * Whether the viewer (null: anonymous) may find the status in a discovery
 * list such as a public stream: they may see it, and its author is not
 * limited, or is followed by them (see {@link notLimitedFilter}).
 */
export async function canSeeInPublic(
  db: Executor,
  viewerAccountId: string | null,
  status: { id: string },
): Promise<boolean> {
  const rows = await db.select({ id: statuses.id }).from(statuses).where(and(
    eq(statuses.id, status.id),
    visibleStatusFilter(viewerAccountId),
    notLimitedFilter(viewerAccountId),
  )).limit(1);
  return rows.length > 0;
}

/** Whether the viewer (null: anonymous) may see the status. */
export async function canSeeStatus(
  db: Executor,
  viewerAccountId: string | null,
  status: { id: string },
): Promise<boolean> {
  const rows = await db.select({ id: statuses.id }).from(statuses)
    .where(and(eq(statuses.id, status.id), visibleStatusFilter(viewerAccountId)))
    .limit(1);
  return rows.length > 0;
}

/** The ids among `ids` the viewer may see, in one query (order not kept). */
export async function visibleStatusIds(
  db: Executor,
  viewerAccountId: string | null,
  ids: readonly string[],
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db.select({ id: statuses.id }).from(statuses)
    .where(and(anyId(statuses.id, [...new Set(ids)]), visibleStatusFilter(viewerAccountId)))
    .prepare("visible_status_ids").execute();
  return new Set(rows.map((r) => r.id));
}

/**
 * The status row behind an id when the viewer may see it, else null (the
 * caller answers 404 either way). Used by every "show one status" reader.
 */
export async function findVisibleStatus(
  db: Executor,
  viewerAccountId: string | null,
  id: string,
): Promise<typeof statuses.$inferSelect | null> {
  const [row] = await db.select().from(statuses)
    .where(and(eq(statuses.id, id), visibleStatusFilter(viewerAccountId))).limit(1);
  return row ?? null;
}

/**
 * Whether the media attachment `id` belongs to a suspended or deleted
 * account: its files are then not served (Mastodon makes them private), and
 * come back when a suspension is lifted.
 */
export async function isMediaOfHiddenAccount(db: Executor, id: string): Promise<boolean> {
  const rows = await db.execute(sql`SELECT 1 FROM media_attachments m
    JOIN accounts a ON a.id = m.account_id
    WHERE m.id = ${id}::bigint AND (a.suspended_at IS NOT NULL OR a.deleted_at IS NOT NULL)`);
  const list = Array.isArray(rows) ? rows : (rows as unknown as { rows: unknown[] }).rows;
  return list.length > 0;
}
