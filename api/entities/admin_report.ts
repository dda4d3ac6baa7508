/**
 * The Admin::Report entity (Mastodon's REST::Admin::ReportSerializer): a
 * report as staff see it, with the reporter, the target, the staff member
 * it is assigned to and the one who resolved it as Admin::Account entities,
 * the reported statuses as Status entities and the cited rules.
 *
 * Decisions:
 * - Staff see every reported status, whatever its visibility and even once
 *   deleted, as Mastodon serializes `Status.with_discarded` there: a report
 *   must keep its evidence. They are serialized for the staff member who
 *   asks (their favourites, bookmarks… as anywhere else), in the order the
 *   reporter attached them; a status whose row is gone is left out.
 * - Rules deleted since the report was filed are left out (Rookery deletes
 *   rules outright; Mastodon keeps discarded ones).
 * - `account` is null when the reporter's account row is gone (Mastodon
 *   always has one; a Flag's sender may be purged here).
 * - A page of reports costs a fixed number of queries: one for all the
 *   accounts (Admin::Account's batch loader), one statuses batch, one rules
 *   query.
 */
import { inArray } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { instanceRules } from "../../db/schema/mod.ts";
import { isId } from "../../db/ids.ts";
import type { ReportRow } from "../../actors/moderation/report_filing.ts";
import { type AdminAccount, loadAdminAccounts } from "./admin_account.ts";
import { serializeStatusIds, type StatusJson, type Viewer } from "./status.ts";
import { type Rule, ruleEntity } from "./rule.ts";
import { reportBasics } from "./report.ts";

/** The Admin::Report entity. */
export interface AdminReportJson {
  id: string;
  action_taken: boolean;
  action_taken_at: string | null;
  category: string;
  comment: string;
  forwarded: boolean;
  created_at: string;
  updated_at: string;
  account: AdminAccount | null;
  target_account: AdminAccount;
  assigned_account: AdminAccount | null;
  action_taken_by_account: AdminAccount | null;
  statuses: StatusJson[];
  rules: Rule[];
}

/**
 * Serializes reports in the order given, for the staff member `viewer`.
 * A report whose target cannot be loaded is left out (the row cascades
 * away with its target, so this only happens in a race with a purge).
 */
export async function serializeAdminReports(
  ctx: AppContext,
  rows: readonly ReportRow[],
  viewer: Viewer,
): Promise<AdminReportJson[]> {
  if (rows.length === 0) return [];
  const { db } = ctx.database;
  const accountIds = rows.flatMap((r) => [
    r.accountId,
    r.targetAccountId,
    r.assignedAccountId,
    r.actionTakenByAccountId,
  ]).filter((id): id is string => id != null);
  const statusIds = [...new Set(rows.flatMap((r) => r.statusIds))].filter(isId);
  const ruleIds = [...new Set(rows.flatMap((r) => r.ruleIds ?? []))].filter(isId);
  const [accounts, statuses, rules] = await Promise.all([
    loadAdminAccounts(db, ctx.config, [...new Set(accountIds)]),
    serializeStatusIds(ctx, statusIds, viewer),
    ruleIds.length
      ? db.select().from(instanceRules).where(inArray(instanceRules.id, ruleIds))
      : Promise.resolve([]),
  ]);
  const accountById = new Map(accounts.map((a) => [a.id, a]));
  const statusById = new Map(statuses.map((s) => [s.id, s]));
  const ruleById = new Map(rules.map((r) => [r.id, ruleEntity(r)]));
  const accountOf = (id: string | null) => (id == null ? null : accountById.get(id) ?? null);

  const out: AdminReportJson[] = [];
  for (const row of rows) {
    const target = accountOf(row.targetAccountId);
    if (!target) continue;
    out.push({
      ...reportBasics(row),
      updated_at: row.updatedAt.toISOString(),
      account: accountOf(row.accountId),
      target_account: target,
      assigned_account: accountOf(row.assignedAccountId),
      action_taken_by_account: accountOf(row.actionTakenByAccountId),
      statuses: row.statusIds.map((id) => statusById.get(id)).filter((s): s is StatusJson =>
        s != null
      ),
      rules: (row.ruleIds ?? []).map((id) => ruleById.get(id)).filter((r): r is Rule => r != null),
    });
  }
  return out;
}

/** Serializes one report (see {@link serializeAdminReports}). */
export async function serializeAdminReport(
  ctx: AppContext,
  row: ReportRow,
  viewer: Viewer,
): Promise<AdminReportJson | null> {
  const [json] = await serializeAdminReports(ctx, [row], viewer);
  return json ?? null;
}
