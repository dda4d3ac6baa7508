/**
 * Reading notification requests: a page of them, one by id, and the policy
 * summary. Requests from suspended or deleted accounts, or from accounts the
 * recipient has blocked since, are left out (their notifications are not
 * shown either). The last status is given only when the recipient may still
 * see it (the one visibility module decides).
 */
import { and, eq, type SQL, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { Executor } from "../connection.ts";
import { isId } from "../ids.ts";
import { accounts, notificationRequests, statuses } from "../schema/mod.ts";
import { visibleStatusFilter } from "./visibility.ts";
import { type IdWindow, notificationWindow } from "./notifications.ts";
import { newestFirst } from "./id_paging.ts";

/** A request row as the serializer needs it. */
export interface NotificationRequestRow {
  id: string;
  fromAccountId: string;
  /** Null when gone or no longer visible to the recipient. */
  lastStatusId: string | null;
  notificationsCount: number;
  createdAt: Date;
  updatedAt: Date;
}

/** How many requests (and their notifications) the summary counts at most, as Mastodon. */
export const MAX_MEANINGFUL_COUNT = 100;

const r = notificationRequests;
const fa = alias(accounts, "fa");
const s = alias(statuses, "s");

function rowFields(viewer: string) {
  return {
    id: r.id,
    fromAccountId: r.fromAccountId,
    lastStatusId: sql<string | null>`CASE WHEN ${s.id} IS NOT NULL
      AND ${visibleStatusFilter(viewer, "s")} THEN ${s.id} END`.mapWith(
      (v: unknown) => v == null ? null : String(v),
    ),
    notificationsCount: r.notificationsCount,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

/** Requests of `viewer` whose sender is still usable. */
function ownRequests(viewer: string, extra: SQL | undefined) {
  return and(
    eq(r.accountId, viewer),
    sql`${fa.suspendedAt} IS NULL AND ${fa.deletedAt} IS NULL`,
    sql`NOT EXISTS (SELECT 1 FROM blocks rb WHERE rb.account_id = ${r.accountId}
      AND rb.target_account_id = ${r.fromAccountId})`,
    extra,
  );
}

function selectRows(db: Executor, viewer: string) {
  return db.select(rowFields(viewer)).from(r)
    .innerJoin(fa, eq(fa.id, r.fromAccountId))
    .leftJoin(s, eq(s.id, r.lastStatusId));
}

/** One page of `viewer`'s requests, newest first; dismissed ones only when asked. */
export async function listNotificationRequests(
  db: Executor,
  viewer: string,
  options: { dismissed: boolean },
  page: IdWindow,
): Promise<NotificationRequestRow[]> {
  const window = notificationWindow(r.id, page);
  const rows = await selectRows(db, viewer).where(ownRequests(
    viewer,
    and(eq(r.dismissed, options.dismissed), window.where),
  )).orderBy(window.order).limit(page.limit);
  return newestFirst(rows, window.reverse);
}

/** One of `viewer`'s requests (dismissed ones too), or null. */
export async function findNotificationRequest(
  db: Executor,
  viewer: string,
  id: string,
): Promise<NotificationRequestRow | null> {
  if (!isId(id)) return null;
  const [row] = await selectRows(db, viewer).where(ownRequests(viewer, eq(r.id, id))).limit(1);
  return row ?? null;
}

/** The policy's summary: pending (not dismissed) requests and their notifications, capped. */
export async function pendingSummary(
  db: Executor,
  viewer: string,
): Promise<{ pendingRequestsCount: number; pendingNotificationsCount: number }> {
  const pending = db.select({ count: r.notificationsCount }).from(r)
    .innerJoin(fa, eq(fa.id, r.fromAccountId))
    .where(ownRequests(viewer, eq(r.dismissed, false)))
    .limit(MAX_MEANINGFUL_COUNT).as("pending");
  const [row] = await db.select({
    requests: sql<number>`count(*)`.mapWith(Number),
    notifications: sql<number>`coalesce(sum(${pending.count}), 0)`.mapWith(Number),
  }).from(pending);
  return {
    pendingRequestsCount: row?.requests ?? 0,
    pendingNotificationsCount: row?.notifications ?? 0,
  };
}
