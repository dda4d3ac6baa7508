/**
 * Background work about annual reports: a user asked to generate the
 * current campaign's report (POST /api/v1/annual_reports/:year/generate).
 * Recorded with the refresh that announces it; the implementation
 * (federation/outbox/annual_reports.ts) queues the `annual_report` job,
 * which finishes the refresh when done.
 */
export interface AnnualReportJobs {
  annualReportRequested(accountId: string, year: number, refreshId: string): Promise<void>;
}
