/**
 * The grouped notifications result of the v2 API (GroupedNotificationsResults):
 * `accounts`, `partial_accounts` (with `expand_accounts=partial_avatars`),
 * `statuses` and `notification_groups`, as Mastodon's
 * REST::DedupNotificationGroupSerializer: each account and status appears
 * once, however many groups refer to it.
 *
 * - A real group shows its count, newest notification and up to eight sample
 *   accounts (newest first).
 * - Anything else is a group of one, `ungrouped-<id>`.
 * - On a page (the list, not one group by its key) every group, a group of
 *   one included, shows `page_min_id`, `page_max_id` and
 *   `latest_page_notification_at`, as Mastodon's NotificationGroup does:
 *   clients (Phanpy) date each entry by the last of these.
 * - With partial avatars, `accounts` holds each group's first sample account
 *   and `partial_accounts` the others, stripped to what an avatar row needs.
 */
import type { AppContext } from "../../context.ts";
import type { GroupData, NotificationRow } from "../../db/queries/notifications.ts";
import type { Account } from "./account.ts";
import { loadAccountEntities } from "./account.ts";
import { COLLECTION_TYPES, isStatusType, statusesById } from "./notification.ts";
import { type Collection, collectionsById } from "./collection.ts";
import type { NotificationFallback } from "./notification_fallback.ts";
import type { StatusJson } from "./status.ts";
import { type ReportJson, reportsById } from "./report.ts";
import { type AccountWarningJson, accountWarningsById } from "./account_warning.ts";

/** One notification group. */
export interface NotificationGroupJson {
  group_key: string;
  notifications_count: number;
  type: string;
  most_recent_notification_id: string;
  page_min_id?: string;
  page_max_id?: string;
  latest_page_notification_at?: string;
  sample_account_ids: string[];
  status_id?: string;
  /** The report, for `admin.report`. */
  report?: ReportJson;
  /** The warning, for `moderation_warning`. */
  moderation_warning?: AccountWarningJson;
  /** The collection, for `added_to_collection` and `collection_update`. */
  collection?: Collection;
  /** What to show instead, for a client that does not know the type (notification_fallback.ts). */
  fallback?: NotificationFallback;
}

/** An account reduced to its avatar (Mastodon's PartialAccountSerializer). */
export interface PartialAccountJson {
  id: string;
  acct: string;
  locked: boolean;
  bot: boolean;
  url: string | null;
  avatar: string;
  avatar_static: string;
  avatar_description: string;
}

/** The whole result. */
export interface GroupedNotificationsJson {
  accounts: Account[];
  partial_accounts?: PartialAccountJson[];
  statuses: StatusJson[];
  notification_groups: NotificationGroupJson[];
}

/** A group on a page: its newest notification there, and its data when it is a real group. */
export interface GroupInput {
  key: string;
  row: NotificationRow;
  /** Present for real groups; absent for `ungrouped-<id>`. */
  data?: GroupData;
}

/**
 * The bounds of a group on a page: its oldest and newest notification there
 * and the newest one's date. A group of one is its own bounds.
 */
function pageFields(group: GroupInput): Pick<
  NotificationGroupJson,
  "page_min_id" | "page_max_id" | "latest_page_notification_at"
> {
  const { row, data } = group;
  return {
    page_min_id: data?.pageMinId ?? row.id,
    page_max_id: data ? data.mostRecentId : row.id,
    latest_page_notification_at: (data?.latestAt ?? row.createdAt).toISOString(),
  };
}

function partial(account: Account): PartialAccountJson {
  return {
    id: account.id,
    acct: account.acct,
    locked: account.locked,
    bot: account.bot,
    url: account.url,
    avatar: account.avatar,
    avatar_static: account.avatar_static,
    avatar_description: account.avatar_description,
  };
}

/**
 * Serializes groups for `viewerAccountId`; `partialAvatars` selects the
 * partial form, `paged` adds each group's page bounds (the list does, one
 * group shown by its key does not).
 */
export async function serializeNotificationGroups(
  ctx: AppContext,
  groups: readonly GroupInput[],
  viewerAccountId: string,
  options: { partialAvatars?: boolean; keepStatus?: string; paged?: boolean } = {},
): Promise<GroupedNotificationsJson> {
  const samples = groups.map((g) => g.data ? g.data.sampleAccountIds : [g.row.fromAccountId]);
  const accountList = await loadAccountEntities(ctx.database.db, ctx.mediaUrls, samples.flat());
  const accountsById = new Map(accountList.map((a) => [a.id, a]));
  const statuses = await statusesById(
    ctx,
    groups.map((g) => isStatusType(g.row.type) ? g.row.statusId : null),
    viewerAccountId,
    // A group whose status a hide filter matches is left out, as in v1
    // (except the status of a group asked for by its key).
    { context: "notifications", keep: options.keepStatus },
  );

  const reports = await reportsById(ctx, groups.map((g) => g.row.reportId));
  const warnings = await accountWarningsById(ctx, groups.map((g) => g.row.accountWarningId));
  const collections = await collectionsById(
    ctx.database.db,
    ctx.config,
    groups.map((g) => g.row.collectionId),
    viewerAccountId,
  );
  const notificationGroups: NotificationGroupJson[] = [];
  const shownSamples: string[][] = [];
  const shownStatuses = new Map<string, StatusJson>();
  groups.forEach((group, i) => {
    const { row, data } = group;
    const sampleIds = samples[i].filter((id) => accountsById.has(id));
    if (sampleIds.length === 0) return;
    const json: NotificationGroupJson = {
      group_key: group.key,
      notifications_count: data ? data.count : 1,
      type: row.type,
      most_recent_notification_id: data ? data.mostRecentId : row.id,
      ...(options.paged ? pageFields(group) : {}),
      sample_account_ids: sampleIds,
    };
    if (isStatusType(row.type)) {
      const status = row.statusId ? statuses.get(row.statusId) : undefined;
      if (!status) return;
      json.status_id = status.id;
      shownStatuses.set(status.id, status);
    }
    if (row.type === "admin.report") {
      const report = row.reportId ? reports.get(row.reportId) : undefined;
      if (!report) return;
      json.report = report;
    }
    if (row.type === "moderation_warning") {
      const warning = row.accountWarningId ? warnings.get(row.accountWarningId) : undefined;
      if (!warning) return;
      json.moderation_warning = warning;
    }
    if (COLLECTION_TYPES.has(row.type)) {
      const collection = row.collectionId ? collections.get(row.collectionId) : undefined;
      if (!collection) return;
      json.collection = collection;
    }
    notificationGroups.push(json);
    shownSamples.push(sampleIds);
  });

  const main = new Set<string>();
  const rest = new Set<string>();
  for (const ids of shownSamples) {
    if (options.partialAvatars) {
      main.add(ids[0]);
      for (const id of ids.slice(1)) rest.add(id);
    } else {
      for (const id of ids) main.add(id);
    }
  }
  const result: GroupedNotificationsJson = {
    accounts: [...main].map((id) => accountsById.get(id)!),
    statuses: [...shownStatuses.values()],
    notification_groups: notificationGroups,
  };
  if (options.partialAvatars) {
    result.partial_accounts = [...rest].filter((id) => !main.has(id))
      .map((id) => partial(accountsById.get(id)!));
  }
  // Mastodon's key order: accounts, partial_accounts, statuses, notification_groups.
  return result.partial_accounts
    ? {
      accounts: result.accounts,
      partial_accounts: result.partial_accounts,
      statuses: result.statuses,
      notification_groups: result.notification_groups,
    }
    : result;
}
