/**
 * What a status and its thread read (api/routes/statuses.ts answers them as
 * JSON; the web app's thread page and the public thread page render them):
 * the visible ancestors and descendants within the limits, serialized with
 * the viewer's `thread` filters, and the async refresh of a remote thread's
 * replies.
 *
 * Decisions (kept from the route):
 * - The thread of a boost is the boosted status's thread.
 * - A signed-in reader's thread first fetches a missing parent
 *   (fetchMissingAncestor), and may start a crawl of remote replies
 *   (requestRepliesRefresh), as Mastodon does only for signed-in users.
 * - A hide filter of the thread context leaves statuses out: the answer is
 *   split by id, not by position; the status asked for is never hidden.
 */
import { sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import {
  serializeStatuses,
  type StatusJson,
  type StatusRow,
  type Viewer,
} from "../entities/status.ts";
import { findVisibleStatus, visibleStatusFilter } from "../../db/queries/visibility.ts";
import { isId } from "../../db/ids.ts";
import { statuses } from "../../db/schema/mod.ts";
import type { Database } from "../../db/connection.ts";
import { fetchMissingAncestor } from "../../federation/remote/status_links.ts";
import { requestRepliesRefresh } from "../../federation/remote/replies_crawl.ts";
import type { AsyncRefresh } from "../../actors/statuses/reply_crawls.ts";

/** Context limits (Mastodon's StatusesController / ContextController). */
export const CONTEXT_LIMITS = {
  anonymous: { ancestors: 40, descendants: 60, depth: 20 },
  signedIn: { ancestors: 4096, descendants: 4096, depth: 4096 },
} as const;

/** The nearest visible ancestors of a status, oldest first. */
export async function ancestors(
  database: Database,
  status: StatusRow,
  viewer: string | null,
  limit: number,
): Promise<StatusRow[]> {
  if (!status.inReplyToId) return [];
  const rows = await database.rows<{ id: string | number }>(sql`
    WITH RECURSIVE up(id, parent, depth) AS (
      SELECT s.id, s.in_reply_to_id, 1 FROM statuses s WHERE s.id = ${status.inReplyToId}::bigint
      UNION ALL
      SELECT s.id, s.in_reply_to_id, up.depth + 1 FROM statuses s JOIN up ON s.id = up.parent
      WHERE up.depth < ${limit}
    )
    SELECT statuses.id FROM up JOIN statuses ON statuses.id = up.id
    WHERE ${visibleStatusFilter(viewer)}
    ORDER BY up.depth ASC LIMIT ${limit}`);
  return (await byIds(database, rows.map((r) => String(r.id)))).reverse();
}

/** Visible replies of a status, depth first (thread order), within the limits. */
export async function descendants(
  database: Database,
  status: StatusRow,
  viewer: string | null,
  limit: number,
  depth: number,
): Promise<StatusRow[]> {
  const rows = await database.rows<{ id: string | number }>(sql`
    WITH RECURSIVE down(id, depth, path) AS (
      SELECT s.id, 1, ARRAY[s.id] FROM statuses s WHERE s.in_reply_to_id = ${status.id}::bigint
      UNION ALL
      SELECT s.id, down.depth + 1, down.path || s.id FROM statuses s
        JOIN down ON s.in_reply_to_id = down.id
      WHERE down.depth < ${depth}
    )
    SELECT statuses.id FROM down JOIN statuses ON statuses.id = down.id
    WHERE ${visibleStatusFilter(viewer)}
    ORDER BY down.path ASC LIMIT ${limit}`);
  return await byIds(database, rows.map((r) => String(r.id)));
}

export async function byIds(database: Database, ids: string[]): Promise<StatusRow[]> {
  if (ids.length === 0) return [];
  const rows = await database.db.select().from(statuses)
    .where(sql`${statuses.id} IN (${sql.join(ids.map((id) => sql`${id}::bigint`), sql`, `)})`);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => byId.get(id)).filter((r): r is StatusRow => r != null);
}

/** A status in its thread, as `viewer` may see it. */
export interface ThreadRead {
  /** The status itself (the boosted one, for a boost); null if a filter or the serializer drops it. */
  status: StatusJson | null;
  ancestors: StatusJson[];
  descendants: StatusJson[];
  /** The refresh of a remote thread's replies under way, if any. */
  refresh: AsyncRefresh | null;
}

/** The thread of `status`, a row `viewer` may see (findVisibleStatus). */
export async function readThread(
  ctx: AppContext,
  viewer: Viewer,
  status: StatusRow,
): Promise<ThreadRead> {
  const limits = viewer ? CONTEXT_LIMITS.signedIn : CONTEXT_LIMITS.anonymous;
  const viewerId = viewer?.accountId ?? null;
  let [proper] = status.reblogOfId ? await byIds(ctx.database, [status.reblogOfId]) : [status];
  if (viewer && await fetchMissingAncestor(ctx, proper.id)) {
    [proper] = await byIds(ctx.database, [proper.id]);
  }
  const up = await ancestors(ctx.database, proper, viewerId, limits.ancestors);
  const down = await descendants(ctx.database, proper, viewerId, limits.descendants, limits.depth);
  const all = await serializeStatuses(ctx, [...up, proper, ...down], viewer, undefined, {
    context: "thread",
    keep: proper.id,
  });
  const above = new Set(up.map((s) => s.id));
  const below = new Set(down.map((s) => s.id));
  const refresh = await requestRepliesRefresh(ctx, proper, viewer != null);
  return {
    status: all.find((s) => s.id === proper.id) ?? null,
    ancestors: all.filter((s) => above.has(s.id)),
    descendants: all.filter((s) => below.has(s.id)),
    refresh,
  };
}

/**
 * One status as `viewer` may see it, shown in its thread: filters apply,
 * but a hide filter never hides the status asked for. Null when it does not
 * exist or the viewer may not see it.
 */
export async function readStatus(
  ctx: AppContext,
  viewer: Viewer,
  id: string,
): Promise<{ row: StatusRow; status: StatusJson } | null> {
  if (!isId(id)) return null;
  const row = await findVisibleStatus(ctx.database.db, viewer?.accountId ?? null, id);
  if (!row) return null;
  const [status] = await serializeStatuses(ctx, [row], viewer, undefined, {
    context: "thread",
    keep: row.id,
  });
  return status ? { row, status } : null;
}
