/**
 * The queries streaming asks about MANY viewers of ONE event at once
 * (api/streaming/render.ts): a status posted by an account with a thousand
 * connected followers must not cost a thousand queries. Each function is one
 * statement whatever the number of viewers; the viewers travel as one
 * bigint[] parameter and are joined as `v(id)`, which the one visibility
 * module's filters take as their viewer (db/queries/visibility.ts).
 */
import { sql } from "drizzle-orm";
import type { Database } from "../connection.ts";
import { notLimitedFilter, visibleOriginalFilter, visibleStatusFilter } from "./visibility.ts";
import { notMutedBy } from "./timelines.ts";

/** One bigint[] parameter of snowflake ids. */
function idArray(ids: readonly string[]) {
  return sql`${sql.param([...ids])}::bigint[]`;
}

/**
 * The viewers (account ids) among `viewerIds` to whom a public or hashtag
 * stream shows `statusId`: they may see it (visibility.ts: blocks either
 * way, domain blocks; a limited author only to its followers), mute neither its author nor the author it boosts
 * (timelines.ts, as the public timelines), and block or mute none of the
 * accounts it mentions (Mastodon's streaming server drops those too).
 */
export async function viewersSeeingInPublic(
  database: Database,
  statusId: string,
  viewerIds: readonly string[],
): Promise<Set<string>> {
  if (viewerIds.length === 0) return new Set();
  const v = sql`v.id`;
  const rows = await database.rows<{ id: string }>(sql`SELECT v.id::text AS id
    FROM unnest(${idArray(viewerIds)}) AS v(id)
    WHERE EXISTS (SELECT 1 FROM statuses WHERE statuses.id = ${statusId}::bigint
      AND ${visibleStatusFilter(v)} AND ${notLimitedFilter(v)} AND ${notMutedBy(v)}
      AND NOT EXISTS (SELECT 1 FROM mentions sm JOIN blocks sb
        ON sb.target_account_id = sm.account_id AND sb.account_id = v.id
        WHERE sm.status_id = statuses.id)
      AND NOT EXISTS (SELECT 1 FROM mentions sm JOIN mutes su
        ON su.target_account_id = sm.account_id AND su.account_id = v.id
          AND (su.expires_at IS NULL OR su.expires_at > now())
        WHERE sm.status_id = statuses.id))`);
  return new Set(rows.map((r) => String(r.id)));
}

/**
 * One row of {@link viewerFlags}: `k` is the kind, `x` the value, `vs` the
 * viewers (or statuses, for Q and A) it holds for, joined by commas: a flag
 * most viewers share (o, after a post to its author's followers) comes back
 * as one row, not one per viewer.
 * - f, r, b, p: the viewer favourited, boosted, bookmarked, pinned status x
 * - m: the viewer muted conversation x
 * - F: the policies of author x's shown statuses ask whether the viewer follows x (quote
 *   approval, interaction policies, private statuses); with it, for each such author,
 * - O: the viewers who do NOT follow author x: the complement, as nearly every viewer of
 *   an event follows its author (10,000 ids aggregated and read back per post otherwise);
 *   render.ts turns the two into each viewer's `o` (follows x). An anti join (NOT EXISTS,
 *   planned as a hash of the author's followers): EXCEPT hashed both sides as a set
 *   operation, 11 ms against 5 to 7 for 10,000 viewers (viewers are distinct already)
 * - w: author x follows the viewer (for interaction policies)
 * - u: the viewer's actor IRI is x, when a shown status's interaction policy names it
 *   (for everyone else the IRI changes nothing in the entity, and leaving it out lets
 *   render.ts serialize a status once for all of them, not once per viewer)
 * - n: the viewer voted option (x = "poll:choice")
 * - q: the viewer may see quoted status x
 * - Q: status v quotes (x = "state:quoted id"), the same for every viewer
 * - A: status v is by account x (the shown statuses' authors)
 */
export interface ViewerFlagRow {
  k: string;
  x: string;
  vs: string;
}

/**
 * What the Status entity shows per viewer (status_hydration.ts's viewer
 * statement), for the shown statuses `statusIds` (with the statuses they
 * boost and quote) and every viewer in `viewerIds`, in ONE statement. Tables
 * indexed by status (favourites, boosts, poll votes, follows by target) are
 * read from the status side, so a new status costs nothing there; those
 * keyed only by (account, status) (bookmarks, conversation mutes) are
 * probed once per viewer through that key (LATERAL, kept apart from the
 * outer query by OFFSET 0): joined as sets, or even flattened from the
 * LATERAL form, PostgreSQL read all of bookmarks (45 ms for 200,000 rows).
 * Pins are probed for the shown statuses' authors only: nobody else can pin
 * a status (actors/interactions/pins.ts).
 *
 * `newIds`: statuses the event itself created. A new local status that
 * replies to nothing cannot have been bookmarked before it was posted (it
 * was never held for approval) and starts a conversation of its own that
 * nobody can have muted yet, so neither is probed for it: a post to 10,000
 * followers costs no 20,000 probes. The actor IRIs (`u`) are looked up by
 * the IRIs the shown statuses' policies name, not by testing each viewer's.
 */
export async function viewerFlags(
  database: Database,
  statusIds: readonly string[],
  viewerIds: readonly string[],
  newIds: readonly string[] = [],
): Promise<ViewerFlagRow[]> {
  const ids = idArray(statusIds);
  const viewers = idArray(viewerIds);
  return await database.rows<ViewerFlagRow>(sql`WITH
    base AS (SELECT id FROM statuses WHERE id = ANY(${ids})
      UNION SELECT reblog_of_id FROM statuses WHERE id = ANY(${ids}) AND reblog_of_id IS NOT NULL),
    hq AS (SELECT status_id, state, quoted_status_id FROM quotes
      WHERE status_id IN (SELECT id FROM base)),
    hs AS (SELECT id, account_id, poll_id, conversation_id, quote_approval_policy, visibility,
        interaction_policy, local, in_reply_to_id, in_reply_to_uri FROM statuses
      -- One IN over a UNION: two INs joined by OR are planned as a
      -- sequential scan of statuses (600 ms on a million rows).
      WHERE id IN (SELECT id FROM base
        UNION SELECT quoted_status_id FROM hq WHERE state = 'accepted')),
    vw AS (SELECT unnest(${viewers}) AS id),
    asked AS (SELECT DISTINCT account_id FROM hs WHERE quote_approval_policy = 'followers'
      OR visibility = 'private' OR interaction_policy IS NOT NULL),
    probed AS (SELECT id, conversation_id FROM hs WHERE NOT (id = ANY(${idArray(newIds)})
      AND local AND in_reply_to_id IS NULL AND in_reply_to_uri IS NULL)),
    flags AS (SELECT 'f' AS k, f.account_id::text AS v, f.status_id::text AS x FROM favourites f
      WHERE f.status_id IN (SELECT id FROM hs) AND f.account_id IN (SELECT id FROM vw)
    UNION ALL SELECT 'r', r.account_id::text, r.reblog_of_id::text FROM statuses r
      WHERE r.reblog_of_id IN (SELECT id FROM hs) AND r.account_id IN (SELECT id FROM vw)
        AND r.deleted_at IS NULL
    UNION ALL SELECT 'b', vw.id::text, b.status_id::text FROM vw CROSS JOIN LATERAL (
      SELECT b.status_id FROM bookmarks b
      WHERE b.account_id = vw.id AND b.status_id = ANY(ARRAY(SELECT id FROM probed)) OFFSET 0) b
      WHERE EXISTS (SELECT 1 FROM probed)
    UNION ALL SELECT 'p', p.account_id::text, p.status_id::text FROM status_pins p
      WHERE (p.account_id, p.status_id) IN (SELECT account_id, id FROM hs)
        AND p.account_id IN (SELECT id FROM vw)
    UNION ALL SELECT 'm', vw.id::text, m.conversation_id::text FROM vw CROSS JOIN LATERAL (
      SELECT m.conversation_id FROM conversation_mutes m WHERE m.account_id = vw.id
        AND m.conversation_id = ANY(ARRAY(SELECT conversation_id FROM probed)) OFFSET 0) m
      WHERE EXISTS (SELECT 1 FROM probed)
    UNION ALL SELECT 'F', '', a.account_id::text FROM asked a
    UNION ALL SELECT 'O', v.id::text, a.account_id::text FROM asked a
      CROSS JOIN LATERAL (SELECT vw.id FROM vw WHERE NOT EXISTS (SELECT 1 FROM follows f
        WHERE f.target_account_id = a.account_id AND f.account_id = vw.id)) v
    UNION ALL SELECT 'w', f.target_account_id::text, f.account_id::text FROM follows f
      WHERE f.account_id IN (SELECT account_id FROM hs WHERE interaction_policy IS NOT NULL)
        AND f.target_account_id IN (SELECT id FROM vw)
    UNION ALL SELECT 'u', a.id::text, a.uri FROM accounts a
      WHERE a.uri IN (SELECT jsonb_path_query(interaction_policy, '$.** ? (@.type() == "string")')
          #>> '{}' FROM hs WHERE interaction_policy IS NOT NULL)
        AND a.id IN (SELECT id FROM vw)
    UNION ALL SELECT 'n', pv.account_id::text, pv.poll_id::text || ':' || pv.choice::text
      FROM poll_votes pv
      WHERE pv.poll_id IN (SELECT poll_id FROM hs) AND pv.account_id IN (SELECT id FROM vw)
    UNION ALL SELECT 'q', vw.id::text, q.id::text FROM vw
      JOIN statuses q ON q.id IN (SELECT quoted_status_id FROM hq WHERE state = 'accepted')
      WHERE ${visibleOriginalFilter(sql`vw.id`, "q")}
    UNION ALL SELECT 'A', hs.id::text, hs.account_id::text FROM hs
    UNION ALL SELECT 'Q', hq.status_id::text,
      hq.state || ':' || coalesce(hq.quoted_status_id::text, '') FROM hq)
    SELECT k, x, string_agg(v, ',') AS vs FROM flags GROUP BY k, x`);
}

/**
 * Which of `tokenIds` are still live: not revoked, and their user (if any)
 * neither disabled nor suspended, and a web token's session not idle past
 * `sessionIdleMs` (deleted sessions take their tokens by cascade). One
 * statement for every held token.
 */
export async function liveTokenIds(
  database: Database,
  tokenIds: readonly string[],
  sessionIdleMs: number,
): Promise<Set<string>> {
  if (tokenIds.length === 0) return new Set();
  const rows = await database.rows<{ id: string }>(sql`SELECT t.id::text AS id
    FROM oauth_access_tokens t
    LEFT JOIN users u ON u.id = t.user_id
    LEFT JOIN accounts a ON a.id = u.account_id
    WHERE t.id = ANY(${idArray(tokenIds)}) AND t.revoked_at IS NULL
      AND (u.id IS NULL OR (NOT u.disabled AND a.suspended_at IS NULL))
      AND (t.web_session_id IS NULL OR EXISTS (SELECT 1 FROM web_sessions s
        WHERE s.id = t.web_session_id
          AND s.last_seen_at > now() - ${sessionIdleMs} * interval '1 millisecond'))`);
  return new Set(rows.map((r) => String(r.id)));
}
