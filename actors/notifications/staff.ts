/**
 * Notifications for staff (Mastodon's `admin.report` and `admin.sign_up`):
 * every local user whose role has the permission the event needs
 * (model/permissions.ts) and who can use their account (Mastodon's
 * `functional?`: confirmed, approved, not disabled, account not suspended).
 * Each goes through {@link notify}, so the usual rules still apply (nobody
 * is told of their own report or sign-up; a block of the sender drops it).
 */
import { and, eq, inArray, isNotNull, isNull, ne } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { accounts, users } from "../../db/schema/mod.ts";
import {
  ADMIN_NOTIFICATION_PERMISSIONS,
  type Permission,
  rolesWith,
} from "../../model/permissions.ts";
import { notify } from "./notify.ts";

/** The account ids of the functional local users holding `permission`. */
export async function staffWith(db: Executor, permission: Permission): Promise<string[]> {
  const roles = rolesWith(permission);
  if (roles.length === 0) return [];
  const rows = await db.select({ id: users.accountId }).from(users)
    .innerJoin(accounts, eq(accounts.id, users.accountId))
    .where(and(
      inArray(users.role, roles),
      eq(users.disabled, false),
      eq(users.approved, true),
      isNotNull(users.confirmedAt),
      isNull(accounts.suspendedAt),
      isNull(accounts.deletedAt),
      ne(accounts.memorial, true),
    ));
  return rows.map((r) => r.id);
}

/**
 * `admin.report` to the report handlers (manage_reports), except the
 * reporter and the reported account. `fromAccountId` is the account the
 * notification shows: the reporter (for a received Flag, its sender).
 */
export async function notifyStaffOfReport(
  tx: Executor,
  report: { id: string; fromAccountId: string; targetAccountId: string },
): Promise<string[]> {
  const notified: string[] = [];
  for (const staffId of await staffWith(tx, ADMIN_NOTIFICATION_PERMISSIONS["admin.report"])) {
    if (staffId === report.targetAccountId) continue;
    const id = await notify(tx, {
      type: "admin.report",
      accountId: staffId,
      fromAccountId: report.fromAccountId,
      reportId: report.id,
    });
    if (id) notified.push(staffId);
  }
  return notified;
}

/** `admin.sign_up` to the account managers (manage_users) for a new local account. */
export async function notifyStaffOfSignUp(tx: Executor, accountId: string): Promise<string[]> {
  const notified: string[] = [];
  for (const staffId of await staffWith(tx, ADMIN_NOTIFICATION_PERMISSIONS["admin.sign_up"])) {
    const id = await notify(tx, {
      type: "admin.sign_up",
      accountId: staffId,
      fromAccountId: accountId,
    });
    if (id) notified.push(staffId);
  }
  return notified;
}
