/**
 * The admin reports API (Mastodon's Api::V1::Admin::ReportsController), for
 * staff whose role has `manage_reports` (moderators, admins, the owner):
 * - GET /api/v1/admin/reports (admin:read:reports) → Admin::Report[]:
 *   unresolved reports unless `resolved` is true, optionally only those
 *   filed by `account_id` or about `target_account_id`; newest first, 100
 *   by default and 200 at most, Link headers (max_id / min_id)
 * - GET /api/v1/admin/reports/:id (admin:read:reports) → Admin::Report
 * - PUT /api/v1/admin/reports/:id (admin:write:reports; category,
 *   rule_ids[]) → Admin::Report, 422 for an unknown category or rules
 * - POST /api/v1/admin/reports/:id/{assign_to_self,unassign,resolve,reopen}
 *   (admin:write:reports) → Admin::Report
 * An unknown or malformed id is 404 "Record not found"; every write leaves
 * an audit row (actors/moderation/reports.ts).
 */
import { type Context, Hono } from "hono";
import type { ApiEnv } from "../../env.ts";
import { ApiError } from "../../errors.ts";
import { params } from "../../params.ts";
import { PAGE_SIZES, readPageParams, setPaginationHeaders } from "../../pagination.ts";
import { readBoolean, readString, readStringArray } from "../../readers.ts";
import { requireStaff } from "../../middleware/staff.ts";
import { withValidation } from "../../validation_errors.ts";
import { serializeAdminReport, serializeAdminReports } from "../../entities/admin_report.ts";
import { NotFoundError } from "../../../model/errors.ts";
import { REPORT_LIST_MAX, type ReportRow } from "../../../actors/moderation/report_filing.ts";
import {
  assignReportToSelf,
  listReports,
  reopenReport,
  requireReport,
  resolveReport,
  unassignReport,
  updateReport,
} from "../../../actors/moderation/reports.ts";
import type { Executor } from "../../../db/connection.ts";

/** Runs a command, answering an unknown report with Mastodon's 404. */
async function command(run: () => Promise<ReportRow>): Promise<ReportRow> {
  try {
    return await withValidation(run);
  } catch (error) {
    if (error instanceof NotFoundError) throw new ApiError(404, "Record not found");
    throw error;
  }
}

function staffId(c: Context<ApiEnv>): string {
  return c.get("user")!.accountId;
}

async function one(c: Context<ApiEnv>, row: ReportRow): Promise<Response> {
  const json = await serializeAdminReport(c.get("ctx"), row, { accountId: staffId(c) });
  if (!json) throw new ApiError(404, "Record not found");
  return c.json(json);
}

/** The admin report routes, mounted at the root of the app. */
export function adminReportRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const read = requireStaff("manage_reports", "admin:read:reports");
  const write = requireStaff("manage_reports", "admin:write:reports");

  app.get("/api/v1/admin/reports", read, async (c) => {
    const p = await params(c);
    const page = readPageParams(p, PAGE_SIZES.admin);
    const filter = {
      resolved: readBoolean(p, "resolved") ?? false,
      accountId: readString(p, "account_id", { maxLength: 64 }),
      targetAccountId: readString(p, "target_account_id", { maxLength: 64 }),
    };
    const ctx = c.get("ctx");
    const rows = await listReports(ctx.database.db, filter, page);
    // Links come from the rows read, so a report left out stays paged over.
    setPaginationHeaders(c, rows, (r) => r.id, { hasMore: rows.length >= page.limit });
    return c.json(await serializeAdminReports(ctx, rows, { accountId: staffId(c) }));
  });

  app.get("/api/v1/admin/reports/:id", read, async (c) => {
    const db = c.get("ctx").database.db;
    return await one(c, await command(() => requireReport(db, c.req.param("id"))));
  });

  app.on(["PUT", "PATCH"], "/api/v1/admin/reports/:id", write, async (c) => {
    const db = c.get("ctx").database.db;
    // An unknown report is a 404 whatever the body, as Mastodon finds the report first.
    await command(() => requireReport(db, c.req.param("id")));
    const p = await params(c);
    const changes = {
      category: readString(p, "category", { maxLength: 64 }),
      ruleIds: readStringArray(p, "rule_ids", { maxItems: REPORT_LIST_MAX }),
    };
    return await one(
      c,
      await command(() => updateReport(db, staffId(c), c.req.param("id"), changes)),
    );
  });

  const actions: Record<string, (db: Executor, staff: string, id: string) => Promise<ReportRow>> = {
    assign_to_self: assignReportToSelf,
    unassign: unassignReport,
    resolve: resolveReport,
    reopen: reopenReport,
  };
  for (const [name, run] of Object.entries(actions)) {
    app.post(`/api/v1/admin/reports/:id/${name}`, write, async (c) => {
      const db = c.get("ctx").database.db;
      return await one(c, await command(() => run(db, staffId(c), c.req.param("id"))));
    });
  }
  return app;
}
