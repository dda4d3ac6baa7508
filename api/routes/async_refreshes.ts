/**
 * GET /api/v1_alpha/async_refreshes/:id (Mastodon 4.4, experimental): how a
 * background refresh announced by a `Mastodon-Async-Refresh` header is doing
 * (the crawl of a remote thread's replies, federation/remote/replies_crawl.ts,
 * and a generated annual report, actors/async_refreshes.ts).
 *
 * Decisions:
 * - A user token is required, with the top-level `read` scope, as Mastodon
 *   asks (`doorkeeper_authorize! :read`): `read:statuses`, the scope of the
 *   context route that hands out the id, is not enough.
 * - Refreshes belong to a thread, not to a user (as Mastodon's): any user
 *   holding the id may ask. The id is random and unguessable.
 * - An unknown id, and a refresh finished more than an hour ago, are 404
 *   (Mastodon keeps finished ones an hour).
 */
import { Hono } from "hono";
import type { ApiEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
import { requireUser } from "../middleware/scopes.ts";
import { findRefresh } from "../../actors/statuses/reply_crawls.ts";
import { findAsyncRefresh } from "../../actors/async_refreshes/refreshes.ts";
import { serializeAsyncRefresh } from "../entities/async_refresh.ts";

/** The async refreshes route, mounted at the root of the app. */
export function asyncRefreshRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get("/api/v1_alpha/async_refreshes/:id", requireUser("read"), async (c) => {
    const { db } = c.get("ctx").database;
    const id = c.req.param("id");
    const refresh = await findRefresh(db, id) ?? await findAsyncRefresh(db, id);
    if (!refresh) throw new ApiError(404, "Not found");
    c.header("Cache-Control", "private, no-store");
    return c.json(serializeAsyncRefresh(refresh));
  });
  return app;
}
