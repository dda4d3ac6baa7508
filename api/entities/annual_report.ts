/**
 * The AnnualReport entity and the WrappedAnnualReports answer of
 * /api/v1/annual_reports: the reports, plus the accounts and statuses their
 * data names (most boosted and most replied-to accounts, top statuses) as
 * full entities, as Mastodon's AnnualReportsPresenter includes them.
 *
 * AnnualReport is Mastodon 4.5's: `year`, `data`, `schema_version` (1);
 * `share_url` and `account_id` came with 4.6 and schema version 2. The
 * statuses are shown to the report's owner with the visibility rules and
 * viewer fields of every other status answer; an account or status that is
 * gone since the report was made is left out.
 */
import type { AppContext } from "../../context.ts";
import { type Account, loadAccountEntities } from "./account.ts";
import { serializeStatusIds, type StatusJson } from "./status.ts";
import { visibleStatusIds } from "../../db/queries/visibility.ts";
import {
  type AnnualReportRow,
  reportAccountIds,
  reportStatusIds,
} from "../../actors/annual_reports/reports.ts";

export interface AnnualReportJson {
  year: number;
  data: Record<string, unknown>;
  schema_version: number;
}

export interface WrappedAnnualReportsJson {
  annual_reports: AnnualReportJson[];
  accounts: Account[];
  statuses: StatusJson[];
}

/** Serializes one stored report. */
export function annualReportEntity(row: AnnualReportRow): AnnualReportJson {
  return { year: row.year, data: row.data, schema_version: row.schemaVersion };
}

/** The reports with what they name, for their owner `viewerAccountId`. */
export async function wrappedAnnualReports(
  ctx: AppContext,
  rows: readonly AnnualReportRow[],
  viewerAccountId: string,
): Promise<WrappedAnnualReportsJson> {
  const accountIds = [...new Set(rows.flatMap(reportAccountIds))];
  const statusIds = [...new Set(rows.flatMap(reportStatusIds))];
  const db = ctx.database.db;
  const visible = await visibleStatusIds(db, viewerAccountId, statusIds);
  const [accounts, statuses] = await Promise.all([
    loadAccountEntities(db, ctx.mediaUrls, accountIds),
    serializeStatusIds(ctx, statusIds.filter((id) => visible.has(id)), {
      accountId: viewerAccountId,
    }),
  ]);
  return { annual_reports: rows.map(annualReportEntity), accounts, statuses };
}
