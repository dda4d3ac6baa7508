/**
 * The NotificationRequest entity (REST::NotificationRequestSerializer):
 * `{id, created_at, updated_at, account, notifications_count (a string),
 * last_status}`, hydrated a page at a time — one batch of accounts, one of
 * statuses. A request whose sender cannot be loaded is left out; a last
 * status that is gone or hidden is null.
 */
import type { AppContext } from "../../context.ts";
import type { NotificationRequestRow } from "../../db/queries/notification_requests.ts";
import { type Account, loadAccountEntities } from "./account.ts";
import type { StatusJson } from "./status.ts";
import { statusesById } from "./notification.ts";

/** The NotificationRequest entity. */
export interface NotificationRequestJson {
  id: string;
  created_at: string;
  updated_at: string;
  account: Account;
  notifications_count: string;
  last_status: StatusJson | null;
}

/** Serializes `viewer`'s requests, in the order given. */
export async function serializeNotificationRequests(
  ctx: AppContext,
  rows: readonly NotificationRequestRow[],
  viewerAccountId: string,
): Promise<NotificationRequestJson[]> {
  if (rows.length === 0) return [];
  const [accountList, statuses] = await Promise.all([
    loadAccountEntities(ctx.database.db, ctx.mediaUrls, rows.map((r) => r.fromAccountId)),
    statusesById(ctx, rows.map((r) => r.lastStatusId), viewerAccountId),
  ]);
  const accountsById = new Map(accountList.map((a) => [a.id, a]));
  const out: NotificationRequestJson[] = [];
  for (const row of rows) {
    const account = accountsById.get(row.fromAccountId);
    if (!account) continue;
    out.push({
      id: row.id,
      created_at: row.createdAt.toISOString(),
      updated_at: row.updatedAt.toISOString(),
      account,
      notifications_count: String(row.notificationsCount),
      last_status: (row.lastStatusId && statuses.get(row.lastStatusId)) || null,
    });
  }
  return out;
}
