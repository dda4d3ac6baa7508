/**
 * What the reports pages show, read through the admin API's own readers:
 * listReports for the queue, the Admin::Account and Admin::Report
 * serializers for the accounts and the report, so a page and the API never
 * disagree about a report.
 */
import { and, count, eq, isNull, ne } from "drizzle-orm";
import type { AppContext } from "../../../context.ts";
import { reports } from "../../../db/schema/mod.ts";
import { isId } from "../../../db/ids.ts";
import { loadAdminAccounts } from "../../../api/entities/admin_account.ts";
import { serializeAdminReport } from "../../../api/entities/admin_report.ts";
import { listRules } from "../../../actors/moderation/instance_rules.ts";
import { NotFoundError } from "../../../model/errors.ts";
import {
  listReports,
  type ReportFilter,
  type ReportPage,
  requireReport,
} from "../../../actors/moderation/reports.ts";
import type { QueueRow } from "../../pages/admin/reports.tsx";
import type { ReportedCollection, ReportView } from "../../pages/admin/report.tsx";
import { collectionsByIds } from "../../../db/queries/collections.ts";
import { collectionLinks } from "../../../api/entities/collection.ts";
import type { AdminAccount } from "../../../api/entities/admin_account.ts";

/** A page of the queue with its accounts (a fixed number of queries whatever the page size). */
export async function loadQueue(
  ctx: AppContext,
  filter: ReportFilter,
  page: ReportPage,
): Promise<{ rows: QueueRow[]; target: AdminAccount | null }> {
  const { db } = ctx.database;
  const found = await listReports(db, filter, page);
  const ids = new Set<string>();
  for (const r of found) {
    for (const id of [r.accountId, r.targetAccountId, r.assignedAccountId]) if (id) ids.add(id);
  }
  if (filter.targetAccountId && isId(filter.targetAccountId)) ids.add(filter.targetAccountId);
  const accounts = new Map(
    (await loadAdminAccounts(db, ctx.config, [...ids])).map((a) => [a.id, a]),
  );
  const of = (id: string | null) => (id ? accounts.get(id) ?? null : null);
  return {
    rows: found.map((report) => ({
      report,
      target: of(report.targetAccountId),
      reporter: of(report.accountId),
      assigned: of(report.assignedAccountId),
    })),
    target: filter.targetAccountId ? of(filter.targetAccountId) : null,
  };
}

/** How many unresolved reports about `targetId` there are besides `reportId`. */
async function otherOpenReports(
  ctx: AppContext,
  targetId: string,
  reportId: string,
): Promise<number> {
  const [row] = await ctx.database.db.select({ n: count() }).from(reports).where(and(
    eq(reports.targetAccountId, targetId),
    isNull(reports.actionTakenAt),
    ne(reports.id, reportId),
  ));
  return Number(row?.n ?? 0);
}

/** The collections a report names (`collection_ids`, Mastodon 4.6), those still kept. */
async function namedCollections(
  ctx: AppContext,
  ids: readonly string[] | null,
): Promise<ReportedCollection[]> {
  const rows = await collectionsByIds(ctx.database.db, ids ?? []);
  return rows.map((r) => ({ id: r.id, name: r.name, ...collectionLinks(ctx.config.origin, r) }));
}

/**
 * A report as its page shows it, serialized for the staff member
 * `staffAccountId` (as the API does). NotFoundError for an unknown or
 * malformed id, or a report whose target is gone.
 */
export async function loadReportView(
  ctx: AppContext,
  staffAccountId: string,
  id: string,
): Promise<ReportView> {
  const row = await requireReport(ctx.database.db, id);
  const [report, others, rules, collections] = await Promise.all([
    serializeAdminReport(ctx, row, { accountId: staffAccountId }),
    otherOpenReports(ctx, row.targetAccountId, row.id),
    listRules(ctx.database.db),
    namedCollections(ctx, row.collectionIds),
  ]);
  if (!report) throw new NotFoundError();
  return { row, report, otherOpenReports: others, rules, collections };
}
