/**
 * The viewer's notification requests (filtered senders), as
 * GET /api/v1/notifications/requests reads them: newest first, `dismissed=true`
 * for the dismissed ones instead, paged by request id. Shared by the API
 * route and the web app's /notifications/requests.
 */
import type { AppContext } from "../../context.ts";
import type { Params } from "../params.ts";
import { readBoolean } from "../readers.ts";
import { PAGE_SIZES, pageCursors, type PageRead, readPageParams } from "../pagination.ts";
import {
  type NotificationRequestJson,
  serializeNotificationRequests,
} from "../entities/notification_request.ts";
import { listNotificationRequests } from "../../db/queries/notification_requests.ts";

export async function readNotificationRequests(
  ctx: AppContext,
  viewer: string,
  p: Params,
): Promise<PageRead<NotificationRequestJson>> {
  const page = readPageParams(p, PAGE_SIZES.notificationRequests);
  const rows = await listNotificationRequests(ctx.database.db, viewer, {
    dismissed: readBoolean(p, "dismissed") ?? false,
  }, page);
  return {
    items: await serializeNotificationRequests(ctx, rows, viewer),
    cursors: pageCursors(rows, (r) => r.id),
    rows: rows.length,
  };
}
