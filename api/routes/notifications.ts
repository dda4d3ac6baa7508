/**
 * Notifications, v1 (user tokens):
 * - GET /api/v1/notifications (read:notifications) → Notification[], Link paging;
 *   max_id/since_id/min_id, limit 40 (max 80), types[], exclude_types[],
 *   account_id, include_filtered
 * - GET /api/v1/notifications/unread_count (read:notifications) → {count};
 *   notifications newer than the notifications marker, limit 100 (max 1000)
 * - GET /api/v1/notifications/:id (read:notifications) → Notification
 * - POST /api/v1/notifications/clear (write:notifications) → {}
 * - POST /api/v1/notifications/:id/dismiss (write:notifications) → {}
 *
 * Decisions:
 * - Someone else's notification, a malformed id, or one whose status the
 *   user can no longer see is 404 "Record not found", like a missing one.
 * - Unknown values in types[] are ignored, as Mastodon (types[]=nonsense alone
 *   matches nothing); an account_id that is not an id matches nothing.
 */
import { supportedTypesOf, withFallbacks } from "../entities/notification_fallback.ts";
import { Hono } from "hono";
import type { Context } from "hono";
import type { ApiEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
import { type Params, params } from "../params.ts";
import { readBoolean, readString, readStringArray } from "../readers.ts";
import { clampLimit, PAGE_SIZES, readPageParams, setPaginationHeaders } from "../pagination.ts";
import { requireUser } from "../middleware/scopes.ts";
import { serializeNotifications } from "../entities/notification.ts";
import {
  countUnread,
  listNotifications,
  type NotificationFilter,
  notificationsByIds,
  notificationsMarker,
} from "../../db/queries/notifications.ts";
import { isId } from "../../db/ids.ts";
import { clearNotifications, dismissNotification } from "../../actors/notifications/dismiss.ts";
import { NotFoundError } from "../../model/errors.ts";

/** The signed-in user's account id. */
export function viewerOf(c: Context<ApiEnv>): string {
  return c.get("user")!.accountId;
}

/** types[], exclude_types[], account_id and include_filtered, as every list reads them. */
export function readNotificationFilter(p: Params): NotificationFilter {
  return {
    types: readStringArray(p, "types"),
    excludeTypes: readStringArray(p, "exclude_types"),
    fromAccountId: readString(p, "account_id") ?? null,
    includeFiltered: readBoolean(p, "include_filtered") ?? false,
  };
}

/** `supported_types[]`: the types the client can show (absent: it did not say, no fallbacks). */
export function readSupportedTypes(p: Params): Set<string> | null {
  return supportedTypesOf(readStringArray(p, "supported_types"));
}

/** The v1 notification routes, mounted at the root of the app. */
export function notificationRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const read = requireUser("read:notifications");
  const write = requireUser("write:notifications");

  app.get("/api/v1/notifications", read, async (c) => {
    const p = await params(c);
    const page = readPageParams(p, PAGE_SIZES.notifications);
    const ctx = c.get("ctx");
    const rows = await listNotifications(
      ctx.database.db,
      viewerOf(c),
      readNotificationFilter(p),
      page,
    );
    setPaginationHeaders(c, rows, (r) => r.id);
    const list = await serializeNotifications(ctx, rows, viewerOf(c));
    return c.json(withFallbacks(ctx.config.origin, readSupportedTypes(p), list));
  });

  app.get("/api/v1/notifications/unread_count", read, async (c) => {
    const p = await params(c);
    const { db } = c.get("ctx").database;
    const marker = await notificationsMarker(db, c.get("user")!.id);
    const count = await countUnread(
      db,
      viewerOf(c),
      readNotificationFilter(p),
      marker,
      clampLimit(p.limit, PAGE_SIZES.unreadCount),
    );
    return c.json({ count });
  });

  app.get("/api/v1/notifications/:id", read, async (c) => {
    const id = c.req.param("id");
    if (!isId(id)) throw new ApiError(404, "Record not found");
    const ctx = c.get("ctx");
    const rows = await notificationsByIds(ctx.database.db, viewerOf(c), [id]);
    // Asked for by id, it is shown even when a hide filter matches its status.
    const [json] = await serializeNotifications(ctx, rows, viewerOf(c), {
      context: "notifications",
      keep: rows[0]?.statusId ?? undefined,
    });
    if (!json) throw new ApiError(404, "Record not found");
    const supported = readSupportedTypes(await params(c));
    return c.json(withFallbacks(ctx.config.origin, supported, [json])[0]);
  });

  app.post("/api/v1/notifications/clear", write, async (c) => {
    await clearNotifications(c.get("ctx").database.db, viewerOf(c));
    return c.json({});
  });

  app.post("/api/v1/notifications/:id/dismiss", write, async (c) => {
    try {
      await dismissNotification(c.get("ctx").database.db, viewerOf(c), c.req.param("id"));
    } catch (error) {
      if (error instanceof NotFoundError) throw new ApiError(404, "Record not found");
      throw error;
    }
    return c.json({});
  });

  return app;
}
