/**
 * Generating an annual report: each source (one module each, as Mastodon's
 * AnnualReport::SOURCES in 4.5) computes its part of `data` with SQL
 * aggregates over the account's year (./year.ts), and the report is stored
 * once per account and year (schema version 1, Mastodon 4.5's). The
 * annual report job (jobs/annual_reports.ts) calls this.
 *
 * A year in which the account made no status gets no report: the API then
 * gives Mastodon's answer for a user without one (an empty list, and 404
 * for the year). A report once made is kept as it is (Mastodon does not
 * regenerate one either).
 */
import { and, eq, isNull, sql } from "drizzle-orm";
import type { Database } from "../../db/connection.ts";
import { accounts, generatedAnnualReports } from "../../db/schema/mod.ts";
import { newId } from "../../db/ids.ts";
import { type ReportScope, reportStatusesWhere } from "./year.ts";
import { postCounts, typeDistribution } from "./type_distribution.ts";
import { archetype } from "./archetype.ts";
import { topStatuses } from "./top_statuses.ts";
import { mostUsedApps } from "./most_used_apps.ts";
import { commonlyInteractedWithAccounts } from "./commonly_interacted_with_accounts.ts";
import { timeSeries } from "./time_series.ts";
import { topHashtags } from "./top_hashtags.ts";
import { mostRebloggedAccounts } from "./most_reblogged_accounts.ts";
import { type Distributions, percentiles } from "./percentiles.ts";

/** The version of `data`'s layout, as Mastodon 4.5 writes it. */
export const SCHEMA_VERSION = 1;

/** Computes the report's data (in Mastodon's key order). */
export async function reportData(
  database: Database,
  distributions: Distributions,
  scope: ReportScope,
): Promise<Record<string, unknown>> {
  const counts = await postCounts(database, scope);
  return {
    ...archetype(counts),
    ...typeDistribution(counts),
    ...await topStatuses(database, scope),
    ...await mostUsedApps(database, scope),
    ...await commonlyInteractedWithAccounts(database, scope),
    ...await timeSeries(database, scope),
    ...await topHashtags(database, scope),
    ...await mostRebloggedAccounts(database, scope),
    ...await percentiles(database, distributions, scope),
  };
}

/** What {@link generateAnnualReport} did. */
export type GenerateResult = "generated" | "exists" | "no_activity" | "not_local";

/**
 * Makes and stores the report of a local account's year, unless it exists,
 * the account is gone (remote, suspended or deleted), or it made no status
 * that year.
 */
export async function generateAnnualReport(
  { database, core }: {
    readonly database: Database;
    readonly core: { readonly reportDistributions: Distributions };
  },
  scope: ReportScope,
): Promise<GenerateResult> {
  const db = database.db;
  const [account] = await db.select({ id: accounts.id }).from(accounts).where(and(
    eq(accounts.id, scope.accountId),
    isNull(accounts.domain),
    isNull(accounts.suspendedAt),
    isNull(accounts.deletedAt),
  ));
  if (!account) return "not_local";
  const [existing] = await db.select({ id: generatedAnnualReports.id })
    .from(generatedAnnualReports).where(and(
      eq(generatedAnnualReports.accountId, scope.accountId),
      eq(generatedAnnualReports.year, scope.year),
    ));
  if (existing) return "exists";
  const [active] = await database.rows(
    sql`SELECT 1 FROM statuses s WHERE ${reportStatusesWhere(scope)} LIMIT 1`,
  );
  if (!active) return "no_activity";
  const data = await reportData(database, core.reportDistributions, scope);
  // Two jobs for the same year (two workers' campaigns): the first one stays.
  const inserted = await db.insert(generatedAnnualReports).values({
    id: newId(),
    accountId: scope.accountId,
    year: scope.year,
    schemaVersion: SCHEMA_VERSION,
    data,
  }).onConflictDoNothing().returning({ id: generatedAnnualReports.id });
  return inserted.length ? "generated" : "exists";
}
