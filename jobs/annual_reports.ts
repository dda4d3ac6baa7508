/**
 * The annual report job and its campaign (issue 21). One job makes one
 * account's report for one year (actors/annual_reports/generate.ts); the
 * jobs ride on the durable queue, so whichever worker (ROLE=worker or all)
 * takes them computes, and the web processes only read what was stored.
 *
 * Who gets one: {@link queueAnnualReports} queues a job for every local
 * account that posted in the year and has no report yet. The admin command
 * (`annual-report generate`) calls it for a year it names; with
 * ANNUAL_REPORTS on, each worker calls it for the current year once a day
 * from the 10th to the 31st of December, when Mastodon offers the report.
 * A job whose report exists does nothing, so a campaign run twice (two
 * workers, a restart) costs only the check.
 */
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../context.ts";
import { generateAnnualReport } from "../actors/annual_reports/generate.ts";
import { accountsDueForReport, campaignYear } from "../actors/annual_reports/campaign.ts";
import { finishAsyncRefresh } from "../actors/async_refreshes/refreshes.ts";
import { recordJob } from "../actors/outbox/jobs.ts";

const logger = getLogger(["rookery", "jobs", "annual_report"]);

/** Accounts looked up per query while queueing a campaign. */
const BATCH = 500;

/** Queues one job per account; all of them when `accountIds` is absent. Returns how many. */
export async function queueAnnualReports(
  ctx: AppContext,
  year: number,
  accountIds?: readonly string[],
): Promise<number> {
  const queue = (accountId: string) =>
    recordJob(ctx.database.db, { job: "annual_report", accountId, year });
  if (accountIds) {
    for (const id of accountIds) await queue(id);
    return accountIds.length;
  }
  let queued = 0;
  let after: string | null = null;
  for (;;) {
    const ids = await accountsDueForReport(ctx.database, year, after, BATCH);
    for (const id of ids) await queue(id);
    queued += ids.length;
    if (ids.length < BATCH) return queued;
    after = ids[ids.length - 1];
  }
}

/** Runs one job. */
export async function runAnnualReportJob(
  ctx: AppContext,
  job: { accountId: string; year: number; refreshId?: string },
): Promise<void> {
  const scope = { accountId: job.accountId, year: job.year };
  try {
    const result = await generateAnnualReport(ctx, scope);
    logger.debug("Annual report {year} of account {accountId}: {result}", { ...scope, result });
  } finally {
    // The user's refresh ends either way: the state route then says what came of it.
    if (job.refreshId) await finishAsyncRefresh(ctx.database.db, job.refreshId, 0);
  }
}

/**
 * One look at the calendar at `now`: in December's window with
 * ANNUAL_REPORTS on, queues that year's due reports and returns how many;
 * otherwise null.
 */
export async function runAnnualReportCampaign(
  ctx: AppContext,
  now: Date,
): Promise<number | null> {
  const year = campaignYear(now);
  if (!ctx.config.annualReports || year == null) return null;
  const queued = await queueAnnualReports(ctx, year);
  if (queued) logger.info("Queued {queued} annual reports for {year}.", { queued, year });
  return queued;
}

/**
 * The December campaign's check (ANNUAL_REPORTS), for the periodic runner
 * to call now and then (jobs/periodic.ts): the campaign runs once a day,
 * whatever the number of checks.
 */
export function annualReportCampaign(ctx: AppContext): () => Promise<void> {
  let lastRunDay = "";
  return async () => {
    const now = new Date();
    const day = now.toISOString().slice(0, 10);
    if (day === lastRunDay) return;
    if (await runAnnualReportCampaign(ctx, now) != null) lastRunDay = day;
  };
}
