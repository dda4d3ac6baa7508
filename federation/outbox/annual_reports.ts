/**
 * Annual reports asked for through the API (actors/outbox/annual_reports.ts):
 * the `annual_report` job on the durable queue, one account's after another
 * (jobs/annual_reports.ts runs it and finishes the refresh).
 */
import type { AppContext } from "../../context.ts";
import type { AnnualReportJobs } from "../../actors/outbox/annual_reports.ts";
import { enqueueJob } from "../../jobs/queue.ts";

export function annualReportJobs(ctx: AppContext): AnnualReportJobs {
  return {
    async annualReportRequested(accountId, year, refreshId) {
      await enqueueJob(ctx, { job: "annual_report", accountId, year, refreshId }, {
        orderingKey: `annual_report:${accountId}`,
      });
    },
  };
}
