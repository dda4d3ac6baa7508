/**
 * The Notification entity (v1), from notification rows, hydrated a page at
 * a time: one batch of accounts (the Account serializer) and one batch of
 * statuses (the Status serializer), never a query per row.
 *
 * Decisions, following Mastodon's REST::NotificationSerializer:
 * - `group_key` is the stored key, or `ungrouped-<id>` for types that are
 *   not grouped, so v1 and v2 clients can correlate.
 * - `status` is present for status types only; a notification of such a
 *   type whose status cannot be shown is left out of the page.
 * - A notification whose sender cannot be loaded is left out too.
 * - `report` is present for `admin.report` (the Report entity),
 *   `moderation_warning` for `moderation_warning` (the AccountWarning entity),
 *   and `collection` for `added_to_collection` and `collection_update` (the
 *   Collection entity as the recipient sees it).
 */
import type { AppContext } from "../../context.ts";
import type { NotificationRow } from "../../db/queries/notifications.ts";
import { type NotificationType, STATUS_TYPES } from "../../actors/notifications/notify.ts";
import { type Account, loadAccountEntities } from "./account.ts";
import { serializeStatusIds, type StatusJson } from "./status.ts";
import type { FilterOptions } from "./status_filters.ts";
import { type ReportJson, reportsById } from "./report.ts";
import { type AccountWarningJson, accountWarningsById } from "./account_warning.ts";
import { type Collection, collectionsById } from "./collection.ts";
import type { NotificationFallback } from "./notification_fallback.ts";

/** The Notification entity. */
export interface NotificationJson {
  id: string;
  type: string;
  created_at: string;
  group_key: string;
  account: Account;
  status?: StatusJson;
  /** The report, for `admin.report`. */
  report?: ReportJson;
  /** The warning, for `moderation_warning`. */
  moderation_warning?: AccountWarningJson;
  /** The collection, for `added_to_collection` and `collection_update`. */
  collection?: Collection;
  /** What to show instead, for a client that does not know the type (notification_fallback.ts). */
  fallback?: NotificationFallback;
}

/** The types that carry a collection. */
export const COLLECTION_TYPES: ReadonlySet<string> = new Set([
  "added_to_collection",
  "collection_update",
]);

/** Whether notifications of this type carry a status. */
export function isStatusType(type: string): boolean {
  return STATUS_TYPES.has(type as NotificationType);
}

/** The group key clients see: the stored one, or `ungrouped-<id>`. */
export function visibleGroupKey(row: Pick<NotificationRow, "id" | "groupKey">): string {
  return row.groupKey ?? `ungrouped-${row.id}`;
}

/**
 * Serializes statuses by id for a viewer, keyed by id (one batch), with the
 * viewer's filters as `filters` says: a status a `hide` filter leaves out is
 * missing from the map, and so its notification from the page.
 */
export async function statusesById(
  ctx: AppContext,
  ids: readonly (string | null)[],
  viewerAccountId: string,
  filters: FilterOptions = {},
): Promise<Map<string, StatusJson>> {
  const wanted = [...new Set(ids.filter((id): id is string => id != null))];
  const list = await serializeStatusIds(ctx, wanted, { accountId: viewerAccountId }, filters);
  return new Map(list.map((s) => [s.id, s]));
}

/**
 * Serializes a page of notifications of `viewerAccountId`, in the order
 * given. The viewer's notifications filters apply: a notification whose
 * status a `hide` filter matches is left out (unless that status is
 * `filters.keep`).
 */
export async function serializeNotifications(
  ctx: AppContext,
  rows: readonly NotificationRow[],
  viewerAccountId: string,
  filters: FilterOptions = { context: "notifications" },
): Promise<NotificationJson[]> {
  if (rows.length === 0) return [];
  const accountList = await loadAccountEntities(
    ctx.database.db,
    ctx.mediaUrls,
    rows.map((r) => r.fromAccountId),
  );
  const accountsById = new Map(accountList.map((a) => [a.id, a]));
  const statuses = await statusesById(
    ctx,
    rows.map((r) => isStatusType(r.type) ? r.statusId : null),
    viewerAccountId,
    filters,
  );
  const reports = await reportsById(ctx, rows.map((r) => r.reportId));
  const warnings = await accountWarningsById(ctx, rows.map((r) => r.accountWarningId));
  const collections = await collectionsById(
    ctx.database.db,
    ctx.config,
    rows.map((r) => r.collectionId),
    viewerAccountId,
  );
  const out: NotificationJson[] = [];
  for (const row of rows) {
    const account = accountsById.get(row.fromAccountId);
    if (!account) continue;
    const json: NotificationJson = {
      id: row.id,
      type: row.type,
      created_at: row.createdAt.toISOString(),
      group_key: visibleGroupKey(row),
      account,
    };
    if (isStatusType(row.type)) {
      const status = row.statusId ? statuses.get(row.statusId) : undefined;
      if (!status) continue;
      json.status = status;
    }
    if (row.type === "admin.report") {
      const report = row.reportId ? reports.get(row.reportId) : undefined;
      if (!report) continue;
      json.report = report;
    }
    if (row.type === "moderation_warning") {
      const warning = row.accountWarningId ? warnings.get(row.accountWarningId) : undefined;
      if (!warning) continue;
      json.moderation_warning = warning;
    }
    if (COLLECTION_TYPES.has(row.type)) {
      const collection = row.collectionId ? collections.get(row.collectionId) : undefined;
      if (!collection) continue;
      json.collection = collection;
    }
    out.push(json);
  }
  return out;
}
