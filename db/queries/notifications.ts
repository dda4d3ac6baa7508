/**
 * Reading notifications: the plain list (v1), unread counts, and pages of
 * groups (v2), all through one "browsable" condition:
 *
 * - the recipient's own notifications;
 * - not from suspended or deleted accounts (Mastodon's without_suspended),
 *   nor from accounts the recipient has blocked since;
 * - whose status, when they have one, the recipient may still see (the one
 *   visibility module decides);
 * - `types[]` ∩ known types, minus `exclude_types[]`, from `account_id`;
 * - filtered ones only with include_filtered (or when asking for one account),
 *   as Mastodon's Notification.browserable.
 *
 * Groups are paged like Mastodon's Notification.paginate_groups: a recursive
 * query walks the notifications newest first (or oldest first for min_id),
 * keeping the first of each group, until it has `limit` groups. Each step is
 * one index probe, so a page costs about as many probes as it has groups
 * plus the notifications it skips.
 */
import { and, asc, type Column, desc, eq, gt, inArray, lt, type SQL, sql } from "drizzle-orm";
import { newestFirst, type Page, pageWindow } from "./id_paging.ts";
import { alias } from "drizzle-orm/pg-core";
import type { Executor } from "../connection.ts";
import { isId } from "../ids.ts";
import { accounts, markers, notifications, statuses } from "../schema/mod.ts";
import { visibleStatusFilter } from "./visibility.ts";
import { NOTIFICATION_TYPES } from "../../model/notification_types.ts";

/** Types grouped when a client does not say (`grouped_types[]` omitted). */
export const DEFAULT_GROUPED_TYPES = ["favourite", "follow", "reblog", "admin.sign_up"] as const;

/** What a client may narrow a list with. */
export interface NotificationFilter {
  types?: readonly string[];
  excludeTypes?: readonly string[];
  /** Only notifications caused by this account. */
  fromAccountId?: string | null;
  includeFiltered?: boolean;
}

/** Paging bounds over notification ids. */
export type IdWindow = Page;

/**
 * A page of notifications (or requests) by id: with both `since_id` and
 * `min_id` it is read downwards, as Mastodon's notification lists read it.
 */
export function notificationWindow(column: Column, page: IdWindow) {
  return pageWindow(column, page, page.minId != null && page.sinceId == null);
}

/** A notification row as the serializers need it. */
export interface NotificationRow {
  id: string;
  type: string;
  createdAt: Date;
  groupKey: string | null;
  fromAccountId: string;
  /** The status shown (for a boost: the boosted status), or null. */
  statusId: string | null;
  /** The report of an `admin.report`, or null. */
  reportId: string | null;
  /** The warning of a `moderation_warning`, or null. */
  accountWarningId: string | null;
  /** The collection of `added_to_collection` and `collection_update`, or null. */
  collectionId: string | null;
}

const n = notifications;
const fa = alias(accounts, "fa");
const s = alias(statuses, "s");

/** The types a filter leaves, or null when it leaves all of them. */
export function requestedTypes(filter: NotificationFilter): string[] | null {
  const known = new Set<string>(NOTIFICATION_TYPES);
  let wanted = filter.types?.length
    ? filter.types.filter((t) => known.has(t))
    : [...NOTIFICATION_TYPES];
  if (filter.excludeTypes?.length) {
    const excluded = new Set(filter.excludeTypes);
    wanted = wanted.filter((t) => !excluded.has(t));
  }
  return wanted.length === NOTIFICATION_TYPES.length ? null : [...new Set(wanted)];
}

/**
 * The browsable condition over `notifications` (joined with `fa`, the
 * sender, and `s`, the status), for `viewer`'s own notifications.
 */
function browsable(viewer: string, filter: NotificationFilter): SQL {
  const types = requestedTypes(filter);
  const from = filter.fromAccountId;
  return and(
    eq(n.accountId, viewer),
    sql`${fa.suspendedAt} IS NULL AND ${fa.deletedAt} IS NULL`,
    // Blocking someone hides what they caused before (Mastodon's AfterBlockService clears it).
    sql`NOT EXISTS (SELECT 1 FROM blocks xb WHERE xb.account_id = ${n.accountId}
      AND xb.target_account_id = ${n.fromAccountId})`,
    sql`(${n.statusId} IS NULL OR ${visibleStatusFilter(viewer, "s")})`,
    types ? (types.length ? inArray(n.type, types) : sql`false`) : undefined,
    from !== undefined && from !== null
      ? (isId(from) ? eq(n.fromAccountId, from) : sql`false`)
      : undefined,
    filter.includeFiltered || from ? undefined : eq(n.filtered, false),
  )!;
}

const rowFields = {
  id: n.id,
  type: n.type,
  createdAt: n.createdAt,
  groupKey: n.groupKey,
  fromAccountId: n.fromAccountId,
  statusId: sql<string | null>`coalesce(${s.reblogOfId}, ${s.id})`.mapWith(
    (v: unknown) => v == null ? null : String(v),
  ),
  reportId: n.reportId,
  accountWarningId: n.accountWarningId,
  collectionId: n.collectionId,
};

function selectRows(db: Executor) {
  return db.select(rowFields).from(n)
    .innerJoin(fa, eq(fa.id, n.fromAccountId))
    .leftJoin(s, eq(s.id, n.statusId));
}

/** One page of `viewer`'s notifications, newest first. */
export async function listNotifications(
  db: Executor,
  viewer: string,
  filter: NotificationFilter,
  page: IdWindow,
): Promise<NotificationRow[]> {
  const window = notificationWindow(n.id, page);
  const rows = await selectRows(db).where(and(browsable(viewer, filter), window.where))
    .orderBy(window.order).limit(page.limit);
  return newestFirst(rows, window.reverse);
}

/** Notifications of `viewer` by id (browsable ones only), newest first. */
export async function notificationsByIds(
  db: Executor,
  viewer: string,
  ids: readonly string[],
): Promise<NotificationRow[]> {
  const valid = ids.filter((id) => isId(id));
  if (valid.length === 0) return [];
  return await selectRows(db)
    .where(and(browsable(viewer, { includeFiltered: true }), inArray(n.id, valid)))
    .orderBy(desc(n.id));
}

/** The newest browsable notification of `viewer` in a group (`ungrouped-<id>` too). */
export async function newestInGroup(
  db: Executor,
  viewer: string,
  groupKey: string,
): Promise<NotificationRow | null> {
  const [row] = await selectRows(db)
    .where(and(browsable(viewer, { includeFiltered: true }), groupCondition(groupKey)))
    .orderBy(desc(n.id)).limit(1);
  return row ?? null;
}

/**
 * The browsable notifications of `viewer` in a group, newest first, paged by
 * notification id (for GET /api/v2/notifications/:group_key/accounts).
 */
export async function groupMembers(
  db: Executor,
  viewer: string,
  groupKey: string,
  page: IdWindow,
): Promise<NotificationRow[]> {
  const window = notificationWindow(n.id, page);
  const rows = await selectRows(db).where(and(
    browsable(viewer, { includeFiltered: true }),
    groupCondition(groupKey),
    window.where,
  )).orderBy(window.order).limit(page.limit);
  return newestFirst(rows, window.reverse);
}

/** Which notifications a group key names (Mastodon's Notification.by_group_key). */
export function groupCondition(groupKey: string): SQL {
  if (groupKey.startsWith("ungrouped-")) {
    const id = groupKey.slice("ungrouped-".length);
    return isId(id) ? eq(n.id, id) : sql`false`;
  }
  return eq(n.groupKey, groupKey);
}

/** The `last_read_id` of the user's notifications marker, when it is a valid id. */
export async function notificationsMarker(db: Executor, userId: string): Promise<string | null> {
  const [row] = await db.select({ lastReadId: markers.lastReadId }).from(markers)
    .where(and(eq(markers.userId, userId), eq(markers.timeline, "notifications"))).limit(1);
  return row && isId(row.lastReadId) ? row.lastReadId : null;
}

/** How many browsable notifications are newer than `afterId`, counting at most `limit`. */
export async function countUnread(
  db: Executor,
  viewer: string,
  filter: NotificationFilter,
  afterId: string | null,
  limit: number,
): Promise<number> {
  const page = db.select({ id: n.id }).from(n)
    .innerJoin(fa, eq(fa.id, n.fromAccountId))
    .leftJoin(s, eq(s.id, n.statusId))
    .where(and(browsable(viewer, filter), afterId ? gt(n.id, afterId) : undefined))
    .orderBy(asc(n.id)).limit(limit).as("page");
  const [row] = await db.select({ count: sql<number>`count(*)`.mapWith(Number) }).from(page);
  return row?.count ?? 0;
}

/** The key a notification is grouped under, given the types that group. */
function effectiveKey(groupedTypes: readonly string[]): SQL {
  const ungrouped = sql`'ungrouped-' || ${n.id}::text`;
  if (groupedTypes.length === 0) return ungrouped;
  return sql`(CASE WHEN ${n.groupKey} IS NOT NULL AND ${inArray(n.type, [...groupedTypes])}
    THEN ${n.groupKey} ELSE ${ungrouped} END)`;
}

/** The representative (first met) notification of each group on a page. */
export interface GroupHead {
  id: string;
  /** The group key as the API shows it. */
  key: string;
  /** Whether it is a real group (false: `ungrouped-<id>`). */
  grouped: boolean;
}

/**
 * One page of groups: the newest notification of each group within the
 * window, newest first (or, with `min_id`, the groups just above it).
 */
export async function pageOfGroups(
  db: Executor,
  viewer: string,
  filter: NotificationFilter,
  groupedTypes: readonly string[],
  page: IdWindow,
): Promise<GroupHead[]> {
  const ascending = page.minId != null;
  const key = effectiveKey(groupedTypes);
  const bounds = and(
    browsable(viewer, filter),
    page.maxId ? lt(n.id, page.maxId) : undefined,
    !ascending && page.sinceId ? gt(n.id, page.sinceId) : undefined,
    ascending ? gt(n.id, page.minId!) : undefined,
  );
  const order = ascending ? sql`ASC` : sql`DESC`;
  const step = ascending ? sql`${n.id} > wt.id` : sql`${n.id} < wt.id`;
  // The same joins as selectRows, spelled out: raw SQL does not render drizzle's aliases.
  const from = sql`notifications INNER JOIN accounts fa ON ${fa.id} = ${n.fromAccountId}
    LEFT JOIN statuses s ON ${s.id} = ${n.statusId}`;
  const query = sql`WITH RECURSIVE grouped(id, gkey, groups) AS (
      (SELECT ${n.id}, ${key}, ARRAY[${key}] FROM ${from} WHERE ${bounds}
        ORDER BY ${n.id} ${order} LIMIT 1)
      UNION ALL
      SELECT x.id, x.gkey, wt.groups || x.gkey
      FROM (SELECT id, groups FROM grouped
        WHERE array_length(groups, 1) < ${page.limit}) wt,
      LATERAL (SELECT ${n.id} AS id, ${key} AS gkey FROM ${from}
        WHERE ${bounds} AND ${step} AND NOT (${key} = ANY(wt.groups))
        ORDER BY ${n.id} ${order} LIMIT 1) x
    )
    SELECT id::text AS id, gkey FROM grouped ORDER BY id ${order} LIMIT ${page.limit}`;
  const result = await db.execute(query);
  const list =
    (Array.isArray(result) ? result : (result as unknown as { rows: unknown[] }).rows) as {
      id: string | number;
      gkey: string;
    }[];
  const heads = list.map((r) => ({
    id: String(r.id),
    key: r.gkey,
    grouped: !r.gkey.startsWith("ungrouped-"),
  }));
  return ascending ? heads.reverse() : heads;
}

/** What a group looks like within a page's range. */
export interface GroupData {
  mostRecentId: string;
  /** Newest first, at most 8, distinct. */
  sampleAccountIds: string[];
  count: number;
  /** Oldest notification of the group within the range (null without a range). */
  pageMinId: string | null;
  latestAt: Date | null;
}

/** Inclusive bounds of a page (null: open); absent for a single group. */
export interface PageRange {
  start: string | null;
  end: string | null;
}

/** How many sample accounts a group shows (Mastodon's SAMPLE_ACCOUNTS_SIZE). */
export const SAMPLE_ACCOUNTS_SIZE = 8;

/**
 * Counts, samples and bounds of real groups of `viewer` (one query for all
 * keys), as Mastodon's NotificationGroup.load_groups_data. Counts and
 * samples stop at the page's upper bound, so older pages do not show newer
 * members.
 */
export async function loadGroupsData(
  db: Executor,
  viewer: string,
  keys: readonly string[],
  range: PageRange | null,
): Promise<Map<string, GroupData>> {
  const out = new Map<string, GroupData>();
  if (keys.length === 0) return out;
  const v = sql`${viewer}::bigint`;
  const upper = range?.end ? sql`AND gn.id <= ${range.end}::bigint` : sql``;
  const lower = range?.start ? sql`AND gn.id >= ${range.start}::bigint` : sql``;
  const mine = sql`gn.account_id = ${v} AND gn.group_key = g.key`;
  const keyList = sql.join(keys.map((k) => sql`${k}`), sql`, `);
  const query = sql`SELECT g.key,
      (SELECT gn.id::text FROM notifications gn WHERE ${mine} ${upper}
        ORDER BY gn.id DESC LIMIT 1) AS most_recent_id,
      array(SELECT gn.from_account_id::text FROM notifications gn WHERE ${mine} ${upper}
        ORDER BY gn.id DESC LIMIT ${SAMPLE_ACCOUNTS_SIZE * 4}) AS sample_ids,
      (SELECT count(*) FROM notifications gn WHERE ${mine} ${upper})::int AS count,
      (SELECT gn.id::text FROM notifications gn WHERE ${mine} ${lower}
        ORDER BY gn.id ASC LIMIT 1) AS page_min_id,
      (SELECT to_char(gn.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
        FROM notifications gn WHERE ${mine} ${upper}
        ORDER BY gn.id DESC LIMIT 1) AS latest_at
    FROM unnest(ARRAY[${keyList}]::text[]) AS g(key)`;
  const result = await db.execute(query);
  const list =
    (Array.isArray(result) ? result : (result as unknown as { rows: unknown[] }).rows) as {
      key: string;
      most_recent_id: string | null;
      sample_ids: string[] | string | null;
      count: number | string;
      page_min_id: string | null;
      latest_at: string | null;
    }[];
  for (const r of list) {
    if (!r.most_recent_id) continue;
    out.set(r.key, {
      mostRecentId: r.most_recent_id,
      sampleAccountIds: [...new Set(parseTextArray(r.sample_ids))].slice(0, SAMPLE_ACCOUNTS_SIZE),
      count: Number(r.count),
      pageMinId: range ? r.page_min_id : null,
      latestAt: range && r.latest_at ? new Date(r.latest_at) : null,
    });
  }
  return out;
}

/** A text[] value as either driver returns it (an array, or PostgreSQL's `{a,b}` literal). */
function parseTextArray(value: string[] | string | null): string[] {
  if (value == null) return [];
  if (Array.isArray(value)) return value.map(String);
  const inner = value.replace(/^\{|\}$/g, "");
  return inner ? inner.split(",").map((x) => x.replace(/^"|"$/g, "")) : [];
}

/** How many groups are newer than `afterId`, counting at most `limit`. */
export async function countUnreadGroups(
  db: Executor,
  viewer: string,
  filter: NotificationFilter,
  groupedTypes: readonly string[],
  afterId: string | null,
  limit: number,
): Promise<number> {
  // No marker: count from the oldest notification, as Mastodon's paginate_groups_by_min_id.
  const heads = await pageOfGroups(db, viewer, filter, groupedTypes, {
    maxId: null,
    sinceId: null,
    minId: afterId ?? "0",
    limit,
  });
  return heads.length;
}
