/**
 * What the grouped notifications read (api/routes/notifications_grouped.ts
 * answers it as JSON; the web app's notifications page renders it).
 *
 * Decisions (kept from the route): paging follows Mastodon's
 * Api::V2::NotificationsController: `next` is `max_id` of the oldest group
 * head on the page, `prev` is `min_id` of the newest; a group's
 * page_min_id/page_max_id tell which of its members fall on this page.
 */
import type { Params } from "../params.ts";
import { readString, readStringArray } from "../readers.ts";
import {
  PAGE_SIZES,
  pageCursors,
  type PageParams,
  type PageRead,
  readPageParams,
} from "../pagination.ts";
import {
  type GroupedNotificationsJson,
  type GroupInput,
  type NotificationGroupJson,
  serializeNotificationGroups,
} from "../entities/notification_group.ts";
import {
  countUnread,
  DEFAULT_GROUPED_TYPES,
  type GroupHead,
  loadGroupsData,
  notificationsByIds,
  notificationsMarker,
  pageOfGroups,
  type PageRange,
} from "../../db/queries/notifications.ts";
import type { Executor } from "../../db/connection.ts";
import { NOTIFICATION_TYPES } from "../../model/notification_types.ts";
import type { AppContext } from "../../context.ts";
import { readNotificationFilter } from "../routes/notifications.ts";

/** grouped_types[]: the types that group (unknown ones dropped); omitted → the default. */
export function readGroupedTypes(p: Params): string[] {
  const given = readStringArray(p, "grouped_types");
  if (!given?.length) return [...DEFAULT_GROUPED_TYPES];
  const known = new Set<string>(NOTIFICATION_TYPES);
  return [...new Set(given.filter((t) => known.has(t)))];
}

/** expand_accounts: `full` (default) or `partial_avatars`. */
function readPartialAvatars(p: Params): boolean {
  return readString(p, "expand_accounts") === "partial_avatars";
}

/**
 * The ids a page covers, for the groups' page data (Mastodon's
 * load_grouped_notifications): the span of the heads, opened to the end of
 * the list on a short page.
 */
function pageRange(heads: readonly GroupHead[], page: PageParams): PageRange {
  const range: PageRange = { start: heads[heads.length - 1].id, end: heads[0].id };
  if (heads.length < page.limit) {
    if (page.minId != null) {
      range.end = page.maxId ? (BigInt(page.maxId) - 1n).toString() : null;
    } else {
      range.start = page.sinceId ? (BigInt(page.sinceId) + 1n).toString() : null;
    }
  }
  return range;
}

/** Loads the rows and group data for heads and builds the serializer's input. */
export async function groupInputs(
  db: Executor,
  viewer: string,
  heads: readonly GroupHead[],
  range: PageRange | null,
): Promise<GroupInput[]> {
  const rows = await notificationsByIds(db, viewer, heads.map((h) => h.id));
  const rowsById = new Map(rows.map((r) => [r.id, r]));
  const data = await loadGroupsData(
    db,
    viewer,
    heads.filter((h) => h.grouped).map((h) => h.key),
    range,
  );
  const inputs: GroupInput[] = [];
  for (const head of heads) {
    const row = rowsById.get(head.id);
    if (!row) continue;
    const groupData = head.grouped ? data.get(head.key) : undefined;
    if (head.grouped && !groupData) continue;
    inputs.push({ key: head.key, row, data: groupData });
  }
  return inputs;
}

/**
 * A page of notification groups as GET /api/v2/notifications answers it
 * (`result`), its groups as the page's items, and the cursors of its heads.
 */
export async function readNotificationGroups(
  ctx: AppContext,
  viewer: string,
  p: Params,
): Promise<PageRead<NotificationGroupJson> & { result: GroupedNotificationsJson }> {
  const page = readPageParams(p, PAGE_SIZES.groupedNotifications);
  const { db } = ctx.database;
  const heads = await pageOfGroups(
    db,
    viewer,
    readNotificationFilter(p),
    readGroupedTypes(p),
    page,
  );
  const inputs = heads.length ? await groupInputs(db, viewer, heads, pageRange(heads, page)) : [];
  const result = await serializeNotificationGroups(ctx, inputs, viewer, {
    partialAvatars: readPartialAvatars(p),
    paged: true,
  });
  return {
    result,
    items: result.notification_groups,
    cursors: pageCursors(heads, (h) => h.id),
    rows: heads.length,
  };
}

/**
 * Whether the user has notifications newer than their notifications marker
 * (GET /api/v1/markers; unread_count's condition, counting to one): the web
 * app's mark on "Notifications". No marker yet: any notification is unread.
 */
export async function hasUnreadNotifications(
  db: Executor,
  user: { userId: string; accountId: string },
): Promise<boolean> {
  const marker = await notificationsMarker(db, user.userId);
  return await countUnread(db, user.accountId, {}, marker, 1) > 0;
}
