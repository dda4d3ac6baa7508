/**
 * Reading statuses: GET /api/v1/statuses/:id, GET /api/v1/statuses?id[]=,
 * /:id/context, /:id/history and /:id/source. Writing lives in
 * statuses_write.ts.
 *
 * Decisions:
 * - Public routes accept no token; a token that comes along must carry
 *   `read:statuses` (or `read`), as Mastodon's authorize_if_got_token!.
 * - Whatever the viewer may not see (db/queries/visibility.ts) is the same
 *   404 "Record not found" as a missing status.
 * - `id[]` takes at most 40 distinct ids (422 past that); the answer keeps
 *   the order asked and skips what is missing or hidden.
 * - Context: anonymous callers get at most 40 ancestors (the nearest) and 60
 *   descendants within 20 levels; signed-in ones up to 4,096 each. Replies
 *   the viewer may not see are left out, their visible replies stay.
 * - Context asked by a signed-in user: a remote parent missing at the top of
 *   the thread (over the fetch budget of the activity that brought the
 *   status) is fetched then, within a budget (federation/remote/status_links.ts).
 * - Context of a remote status (Mastodon 4.5): the answer is what we have;
 *   a signed-in user's request also starts a crawl of its replies
 *   collection when it is due, and any running crawl is announced with the
 *   `Mastodon-Async-Refresh` header (federation/remote/replies_crawl.ts), which
 *   `GET /api/v1_alpha/async_refreshes/:id` follows (async_refreshes.ts).
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { sql } from "drizzle-orm";
import type { ApiEnv } from "../env.ts";
import { ApiError, validationFailed } from "../errors.ts";
import { params } from "../params.ts";
import { readStringArray } from "../readers.ts";
import { requireScopes } from "../middleware/scopes.ts";
import { scopesIfToken } from "./accounts_access.ts";
import { serializeStatuses, type StatusRow, type Viewer } from "../entities/status.ts";
import { loadStatusHistory } from "../entities/status_edit.ts";
import { isId } from "../../db/ids.ts";
import { findVisibleStatus, visibleStatusFilter } from "../../db/queries/visibility.ts";
import { htmlToText } from "../../actors/formatting/html_to_text.ts";
import { statuses } from "../../db/schema/mod.ts";
import { asyncRefreshHeader } from "../../federation/remote/replies_crawl.ts";
import { readStatus, readThread } from "../reads/statuses.ts";

/** `GET /api/v1/statuses?id[]=` answers at most this many ids. */
export const MAX_STATUS_IDS = 40;

const NOT_FOUND = "Record not found";

/** Who is asking: the token's account, if a user token came along. */
export function viewerOf(c: Context<ApiEnv>): Viewer {
  const user = c.get("user");
  return user && c.get("token")?.userId ? { accountId: user.accountId } : null;
}

/** The status of the `:id` path parameter, if the viewer may see it; 404 otherwise. */
export async function visibleStatusFromPath(c: Context<ApiEnv>): Promise<StatusRow> {
  const id = c.req.param("id");
  if (!isId(id)) throw new ApiError(404, NOT_FOUND);
  const row = await findVisibleStatus(
    c.get("ctx").database.db,
    viewerOf(c)?.accountId ?? null,
    id,
  );
  if (!row) throw new ApiError(404, NOT_FOUND);
  return row;
}

/** Moved to api/reads/statuses.ts; kept here for the public pages' imports. */
export { ancestors, CONTEXT_LIMITS, descendants } from "../reads/statuses.ts";

/** The read routes, mounted at the root of the app. */
export function statusReadRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const readStatuses = scopesIfToken("read:statuses");

  app.get("/api/v1/statuses", readStatuses, async (c) => {
    const ctx = c.get("ctx");
    const requested = [...new Set(readStringArray(await params(c), "id") ?? [])];
    if (requested.length > MAX_STATUS_IDS) {
      throw validationFailed(`Id has too many items (maximum is ${MAX_STATUS_IDS})`);
    }
    const viewer = viewerOf(c);
    const ids = requested.filter(isId);
    if (ids.length === 0) return c.json([]);
    const rows = await ctx.database.db.select().from(statuses).where(
      sql`${statuses.id} IN (${sql.join(ids.map((id) => sql`${id}::bigint`), sql`, `)}) AND ${
        visibleStatusFilter(viewer?.accountId ?? null)
      }`,
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    const ordered = ids.map((id) => byId.get(id)).filter((r): r is StatusRow => r != null);
    return c.json(await serializeStatuses(ctx, ordered, viewer));
  });

  app.get("/api/v1/statuses/:id{[0-9]+}", readStatuses, async (c) => {
    const read = await readStatus(c.get("ctx"), viewerOf(c), c.req.param("id"));
    if (!read) throw new ApiError(404, NOT_FOUND);
    return c.json(read.status);
  });

  app.get("/api/v1/statuses/:id{[0-9]+}/context", readStatuses, async (c) => {
    const thread = await readThread(c.get("ctx"), viewerOf(c), await visibleStatusFromPath(c));
    if (thread.refresh) c.header("Mastodon-Async-Refresh", asyncRefreshHeader(thread.refresh));
    return c.json({ ancestors: thread.ancestors, descendants: thread.descendants });
  });

  app.get("/api/v1/statuses/:id{[0-9]+}/history", readStatuses, async (c) => {
    const status = await visibleStatusFromPath(c);
    if (status.reblogOfId) throw new ApiError(404, NOT_FOUND);
    return c.json(await loadStatusHistory(c.get("ctx"), status));
  });

  app.get("/api/v1/statuses/:id{[0-9]+}/source", requireScopes("read:statuses"), async (c) => {
    const status = await visibleStatusFromPath(c);
    if (status.reblogOfId) throw new ApiError(404, NOT_FOUND);
    return c.json({
      id: status.id,
      text: status.text ?? htmlToText(status.content),
      spoiler_text: status.spoilerText,
    });
  });

  return app;
}
