/**
 * Grouped notifications (user tokens), under /api/v2 and, for clients of
 * the 4.3 betas, the same under /api/v2_alpha:
 * - GET …/notifications (read:notifications) → GroupedNotificationsResults,
 *   Link paging by notification id; limit 40 groups (max 80); types[],
 *   exclude_types[], account_id, include_filtered, grouped_types[] (default
 *   favourite, follow, reblog, admin.sign_up), expand_accounts (full or
 *   partial_avatars)
 * - GET …/notifications/unread_count (read:notifications) → {count} of
 *   groups newer than the notifications marker, limit 100 (max 1000)
 * - GET …/notifications/:group_key (read:notifications) → the result with one group
 * - GET …/notifications/:group_key/accounts (read:notifications, 4.3) → Account[]:
 *   who caused the group's notifications, newest first, each once; 40 by
 *   default, 80 at most, Link paging by notification id
 * - POST …/notifications/:group_key/dismiss (write:notifications) → {}
 * - POST …/notifications/clear (write:notifications) → {} (routed, undocumented)
 * (…/notifications/policy lives in ./notification_policy.ts, mounted before these.)
 *
 * Paging follows Mastodon's Api::V2::NotificationsController: `next` is
 * `max_id` of the oldest group head on the page, `prev` is `min_id` of the
 * newest; a group's page_min_id/page_max_id tell which of its members fall
 * on this page, so a client can merge a group that continues on the next one.
 */
import { withGroupFallbacks } from "../entities/notification_fallback.ts";
import { type Context, Hono } from "hono";
import type { ApiEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
import { params } from "../params.ts";
import {
  clampLimit,
  PAGE_SIZES,
  readPageParams,
  setLinkHeader,
  setPaginationHeaders,
} from "../pagination.ts";
import { requireUser } from "../middleware/scopes.ts";
import { loadAccountEntities } from "../entities/account.ts";
import { serializeNotificationGroups } from "../entities/notification_group.ts";
import {
  countUnreadGroups,
  DEFAULT_GROUPED_TYPES,
  type GroupHead,
  groupMembers,
  newestInGroup,
  notificationsMarker,
} from "../../db/queries/notifications.ts";
import type { AppContext } from "../../context.ts";
import { clearNotifications, dismissGroup } from "../../actors/notifications/dismiss.ts";
import { readNotificationFilter, readSupportedTypes, viewerOf } from "./notifications.ts";
import { groupInputs, readGroupedTypes, readNotificationGroups } from "../reads/notifications.ts";

/** Longest group key we look up (real keys are well under it). */
const MAX_GROUP_KEY_LENGTH = 200;

/**
 * Whether `key` can be a group key: ours are letters, digits, `_`, `.` and `-`
 * (`favourite-123-456`, `admin.sign_up-789`, `ungrouped-123`). Anything else (a NUL, which
 * PostgreSQL text cannot hold, or a 50 KB string) names no group.
 */
export function isGroupKey(key: string): boolean {
  return key.length <= MAX_GROUP_KEY_LENGTH && /^[\w.-]+$/.test(key);
}

/** The path's group key, 404 when it cannot be one. */
function groupKeyOf(c: Context<ApiEnv>): string {
  const key = c.req.param("group_key") ?? "";
  if (!isGroupKey(key)) throw new ApiError(404, "Record not found");
  return key;
}

/** GET …/notifications: a page of groups. */
async function listGroups(c: Context<ApiEnv>): Promise<Response> {
  const p = await params(c);
  const ctx: AppContext = c.get("ctx");
  const read = await readNotificationGroups(ctx, viewerOf(c), p);
  setLinkHeader(c, read.cursors);
  return c.json(withGroupFallbacks(ctx.config.origin, readSupportedTypes(p), read.result));
}

/** GET …/notifications/unread_count: groups newer than the marker. */
async function unreadCount(c: Context<ApiEnv>): Promise<Response> {
  const p = await params(c);
  const { db } = c.get("ctx").database;
  const marker = await notificationsMarker(db, c.get("user")!.id);
  const count = await countUnreadGroups(
    db,
    viewerOf(c),
    readNotificationFilter(p),
    readGroupedTypes(p),
    marker,
    clampLimit(p.limit, PAGE_SIZES.unreadCount),
  );
  return c.json({ count });
}

/** GET …/notifications/:group_key: the result with that one group. */
async function showGroup(c: Context<ApiEnv>): Promise<Response> {
  const key = groupKeyOf(c);
  const ctx: AppContext = c.get("ctx");
  const { db } = ctx.database;
  const viewer = viewerOf(c);
  const row = await newestInGroup(db, viewer, key);
  if (!row) throw new ApiError(404, "Record not found");
  const grouped = row.groupKey != null &&
    (DEFAULT_GROUPED_TYPES as readonly string[]).includes(row.type);
  const head: GroupHead = grouped
    ? { id: row.id, key: row.groupKey!, grouped: true }
    : { id: row.id, key: `ungrouped-${row.id}`, grouped: false };
  const inputs = await groupInputs(db, viewer, [head], null);
  const result = await serializeNotificationGroups(ctx, inputs, viewer, {
    keepStatus: row.statusId ?? undefined,
  });
  if (result.notification_groups.length === 0) throw new ApiError(404, "Record not found");
  const supported = readSupportedTypes(await params(c));
  return c.json(withGroupFallbacks(ctx.config.origin, supported, result));
}

/** GET …/notifications/:group_key/accounts: who caused the group, newest first. */
async function groupAccounts(c: Context<ApiEnv>): Promise<Response> {
  const key = groupKeyOf(c);
  const ctx: AppContext = c.get("ctx");
  const page = readPageParams(await params(c), PAGE_SIZES.accounts);
  const rows = await groupMembers(ctx.database.db, viewerOf(c), key, page);
  // An unknown group (or someone else's) is a 404; a later page past the end is [].
  if (rows.length === 0 && page.maxId == null && page.minId == null && page.sinceId == null) {
    throw new ApiError(404, "Record not found");
  }
  setPaginationHeaders(c, rows, (row) => row.id);
  const ids = [...new Set(rows.map((row) => row.fromAccountId))];
  return c.json(await loadAccountEntities(ctx.database.db, ctx.mediaUrls, ids));
}

/** The grouped notification routes under one prefix (`/api/v2` or `/api/v2_alpha`). */
function groupedRoutesAt(prefix: string): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const read = requireUser("read:notifications");
  const write = requireUser("write:notifications");
  const base = `${prefix}/notifications`;
  app.get(base, read, listGroups);
  app.get(`${base}/unread_count`, read, unreadCount);
  app.post(`${base}/clear`, write, async (c) => {
    await clearNotifications(c.get("ctx").database.db, viewerOf(c));
    return c.json({});
  });
  app.get(`${base}/:group_key`, read, showGroup);
  app.get(`${base}/:group_key/accounts`, read, groupAccounts);
  app.post(`${base}/:group_key/dismiss`, write, async (c) => {
    const key = c.req.param("group_key");
    if (isGroupKey(key)) {
      await dismissGroup(c.get("ctx").database.db, viewerOf(c), key);
    }
    return c.json({});
  });
  return app;
}

/** The grouped notification routes, under /api/v2 and /api/v2_alpha. */
export function groupedNotificationRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.route("/", groupedRoutesAt("/api/v2"));
  app.route("/", groupedRoutesAt("/api/v2_alpha"));
  return app;
}
