/**
 * The reports pages (Mastodon's admin/reports), for staff with
 * manage_reports:
 * - GET /admin/reports: the queue (unresolved, or `?resolved=1`; about one
 *   account with `?target_account_id=`), newest first, paged by
 *   max_id/min_id (`limit` as the API's)
 * - GET /admin/reports/:id: the report in full, with its forms
 * - POST /admin/reports/:id/{assign_to_self,unassign,resolve,reopen}
 * - POST /admin/reports/:id/category (category, rule_ids[])
 * - POST /admin/reports/:id/action (type, text, send_email_notification):
 *   an action against the reported account that resolves the report
 *
 * Every POST calls the command the admin API calls, with the same actor
 * (the staff member's account) and so the same audit rows, then redirects
 * (303) with a notice. A refusal re-renders the report with an alert
 * (page_frame.tsx: 422 for invalid input, 403 where the moderator is
 * outranked); an unknown or malformed id is a 404 page.
 */
import { type Context, Hono } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import { params } from "../../../api/params.ts";
import { PAGE_SIZES, pageParamsFromQuery } from "../../../api/pagination.ts";
import { readBoolean, readString, readStringArray } from "../../../api/readers.ts";
import { NotFoundError } from "../../../model/errors.ts";
import { REPORT_LIST_MAX, type ReportRow } from "../../../actors/moderation/report_filing.ts";
import {
  assignReportToSelf,
  reopenReport,
  requireReport,
  resolveReport,
  unassignReport,
  updateReport,
} from "../../../actors/moderation/reports.ts";
import { performAction } from "../../../actors/moderation/account_actions.ts";
import type { Executor } from "../../../db/connection.ts";
import { registerNotices } from "../../pages/admin/layout.tsx";
import { queueHref, ReportsQueue } from "../../pages/admin/reports.tsx";
import { ReportPage } from "../../pages/admin/report.tsx";
import type { ActionDraft } from "../../pages/admin/components.tsx";
import { staffModerator, staffPage, staffViewer } from "./session.ts";
import { loadQueue, loadReportView } from "./report_views.ts";
import { actionDraftOf, readActionInput } from "./action_form.ts";
import {
  attempt,
  pageLinks,
  redirectWithNotice,
  type Refusal,
  sendFramed,
  sendNotFound,
} from "./page_frame.tsx";

registerNotices({
  report_assigned: "The report is assigned to you.",
  report_unassigned: "The report is no longer assigned.",
  report_resolved: "The report is resolved.",
  report_reopened: "The report is open again.",
  report_updated: "The report's category is changed.",
  report_action_taken: "The action is taken and the account's open reports are resolved.",
  report_warning_sent: "The warning is recorded and the report resolved.",
});

/** The report page; after a refused form, with why and what the form sent. */
async function reportPage(
  c: Context<ApiEnv>,
  id: string,
  refused?: { refusal: Refusal; draft?: ActionDraft },
): Promise<Response> {
  let view;
  try {
    view = await loadReportView(c.get("ctx"), staffModerator(c).accountId, id);
  } catch (error) {
    if (error instanceof NotFoundError) return await sendNotFound(c, "reports");
    throw error;
  }
  return await sendFramed(c, {
    title: `Report #${view.row.id}`,
    section: "reports",
    alert: refused?.refusal.message,
    status: refused?.refusal.status,
    body: <ReportPage view={view} token={staffViewer(c).csrfToken} draft={refused?.draft} />,
  });
}

/**
 * Runs a form's command and answers as a page does: a redirect with
 * `notice` when it went through, else the report again with the refusal
 * (nothing was written: each command is one transaction).
 */
async function submit(
  c: Context<ApiEnv>,
  id: string,
  run: () => Promise<unknown>,
  done: { to: string; notice: string },
  draft?: ActionDraft,
): Promise<Response> {
  const refusal = await attempt(run);
  if (refusal?.status === 404) return await sendNotFound(c, "reports");
  if (refusal) return await reportPage(c, id, { refusal, draft });
  return redirectWithNotice(c, done.to, done.notice);
}

/** GET /admin/reports: the queue, read leniently from the query string. */
async function queuePage(c: Context<ApiEnv>): Promise<Response> {
  // The query string alone, read leniently: a link's odd parameter is a
  // default, never an error page.
  const q = new URL(c.req.url).searchParams;
  const pageParams = pageParamsFromQuery(c, PAGE_SIZES.admin);
  const resolved = readBoolean({ resolved: q.get("resolved") }, "resolved") ?? false;
  const rawTarget = q.get("target_account_id") ?? "";
  // Anything but an id names no account: an empty queue, as the API answers.
  const targetAccountId = rawTarget ? rawTarget.slice(0, 64) : undefined;
  const filter = { resolved, targetAccountId };
  const { rows, target } = await loadQueue(c.get("ctx"), filter, pageParams);
  const { newer, older } = pageLinks(
    pageParams,
    PAGE_SIZES.admin,
    rows.map((r) => r.report.id),
    (cursor) => queueHref(filter, cursor),
  );
  return await sendFramed(c, {
    title: resolved ? "Resolved reports" : "Reports",
    section: "reports",
    body: (
      <ReportsQueue
        rows={rows}
        resolved={resolved}
        targetAccountId={targetAccountId}
        target={target}
        newer={newer}
        older={older}
      />
    ),
  });
}

/** The report's state changes, each a form without fields. */
const COMMANDS: Record<
  string,
  { run: (db: Executor, staff: string, id: string) => Promise<ReportRow>; notice: string }
> = {
  assign_to_self: { run: assignReportToSelf, notice: "report_assigned" },
  unassign: { run: unassignReport, notice: "report_unassigned" },
  resolve: { run: resolveReport, notice: "report_resolved" },
  reopen: { run: reopenReport, notice: "report_reopened" },
};

/** POST /admin/reports/:id/category: category and rules. */
async function postCategory(c: Context<ApiEnv>): Promise<Response> {
  const id = c.req.param("id") ?? "";
  const db = c.get("ctx").database.db;
  return await submit(c, id, async () => {
    // An unknown report is a 404 whatever the form says, as in the API.
    await requireReport(db, id);
    const p = await params(c);
    const changes = {
      category: readString(p, "category", { maxLength: 64 }),
      ruleIds: readStringArray(p, "rule_ids", { maxItems: REPORT_LIST_MAX }),
    };
    return await updateReport(db, staffModerator(c).accountId, id, changes);
  }, { to: `/admin/reports/${id}`, notice: "report_updated" });
}

/** POST /admin/reports/:id/action: an action against the reported account, resolving the report. */
async function postAction(c: Context<ApiEnv>): Promise<Response> {
  const id = c.req.param("id") ?? "";
  const ctx = c.get("ctx");
  const p = await params(c);
  const draft = actionDraftOf(p);
  return await submit(c, id, async () => {
    const report = await requireReport(ctx.database.db, id);
    return await performAction(
      ctx.database.db,
      ctx,
      staffModerator(c),
      report.targetAccountId,
      { ...readActionInput(p), reportId: report.id },
    );
  }, {
    to: draft.type === "none" ? `/admin/reports/${id}` : "/admin/reports",
    notice: draft.type === "none" ? "report_warning_sent" : "report_action_taken",
  }, draft);
}

/** The reports pages, mounted at the root of the app. */
export function reportPages(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const gate = staffPage("manage_reports");
  app.get("/admin/reports", gate, queuePage);
  app.get("/admin/reports/:id", gate, (c) => reportPage(c, c.req.param("id")));
  for (const [name, { run, notice }] of Object.entries(COMMANDS)) {
    app.post(`/admin/reports/:id/${name}`, gate, async (c) => {
      const id = c.req.param("id");
      const db = c.get("ctx").database.db;
      return await submit(c, id, () => run(db, staffModerator(c).accountId, id), {
        to: `/admin/reports/${id}`,
        notice,
      });
    });
  }
  app.post("/admin/reports/:id/category", gate, postCategory);
  app.post("/admin/reports/:id/action", gate, postAction);
  return app;
}
