/**
 * Whether a user's report for a year can be had (Mastodon 4.6's
 * `/api/v1/annual_reports/:year/state` and `generate`):
 * - `available`: the report exists;
 * - `generating`: a refresh making it is running;
 * - `eligible`: the year is the current campaign's (ANNUAL_REPORTS, 10–31
 *   December) and the user posted in it, so it may be generated now;
 * - `ineligible`: anything else (another year, no posts, campaigns off).
 * Generating records the refresh and its job in one transaction;
 * the job (jobs/annual_reports.ts) finishes the refresh.
 */
import { and, eq, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { generatedAnnualReports } from "../../db/schema/mod.ts";
import { recordJob } from "../outbox/jobs.ts";
import { runningAsyncRefresh, startAsyncRefresh } from "../async_refreshes/refreshes.ts";
import type { AsyncRefresh } from "../statuses/reply_crawls.ts";
import { campaignYear } from "./campaign.ts";
import { type ReportScope, reportStatusesWhere } from "./year.ts";

/** What the state route answers. */
export type ReportState = "available" | "generating" | "eligible" | "ineligible";

/** The refresh kind of a report's generation. */
const KIND = "annual_report";

function subjectOf(scope: ReportScope): string {
  return `${scope.accountId}:${scope.year}`;
}

/** The year reports are offered for now, or null (campaigns off, or not December). */
export function currentCampaign(ctx: AppContext, now: Date): number | null {
  return ctx.config.annualReports ? campaignYear(now) : null;
}

/** The state of `scope`'s report, with the running refresh when generating. */
export async function reportState(
  ctx: AppContext,
  scope: ReportScope,
  now: Date,
): Promise<{ state: ReportState; refresh: AsyncRefresh | null }> {
  const { database } = ctx;
  const [report] = await database.db.select({ id: generatedAnnualReports.id })
    .from(generatedAnnualReports).where(and(
      eq(generatedAnnualReports.accountId, scope.accountId),
      eq(generatedAnnualReports.year, scope.year),
    ));
  if (report) return { state: "available", refresh: null };
  const refresh = await runningAsyncRefresh(database.db, KIND, subjectOf(scope));
  if (refresh) return { state: "generating", refresh };
  if (currentCampaign(ctx, now) !== scope.year) return { state: "ineligible", refresh: null };
  const [posted] = await database.rows(
    sql`SELECT 1 FROM statuses s WHERE ${reportStatusesWhere(scope)} LIMIT 1`,
  );
  return { state: posted ? "eligible" : "ineligible", refresh: null };
}

/**
 * Starts generating `scope`'s report when it is eligible; returns the
 * refresh making it (new or already running), or null when there is
 * nothing to generate (available or ineligible).
 */
export async function requestReport(
  ctx: AppContext,
  scope: ReportScope,
  now: Date,
): Promise<AsyncRefresh | null> {
  const { state, refresh } = await reportState(ctx, scope, now);
  if (state === "generating") return refresh;
  if (state !== "eligible") return null;
  return await ctx.database.db.transaction(async (tx) => {
    const { refresh, started } = await startAsyncRefresh(tx, KIND, subjectOf(scope));
    if (started) {
      await recordJob(tx, {
        job: "annual_report",
        accountId: scope.accountId,
        year: scope.year,
        refreshId: refresh.id,
      });
    }
    return refresh;
  });
}
