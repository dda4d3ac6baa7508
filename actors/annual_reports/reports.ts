/**
 * Reading and marking the stored annual reports of one account (the API's
 * side; ./generate.ts writes them). Every lookup is by the caller's own
 * account, so someone else's report is never found.
 */
import { and, asc, eq, isNull } from "drizzle-orm";
import type { Db } from "../../db/connection.ts";
import { generatedAnnualReports } from "../../db/schema/mod.ts";
import { NotFoundError } from "../../model/errors.ts";

/** A stored report. */
export type AnnualReportRow = typeof generatedAnnualReports.$inferSelect;

/**
 * Years a report can be asked for: anything else (a word, a negative or
 * huge number) names no report. Mastodon's year is an integer column.
 */
const YEAR = /^\d{1,6}$/;

/** The year in a path segment, or null when it cannot name a report. */
export function parseReportYear(raw: string): number | null {
  return YEAR.test(raw) ? Number(raw) : null;
}

/** The account's reports not yet marked read, oldest year first (Mastodon's `pending`). */
export async function pendingReports(db: Db, accountId: string): Promise<AnnualReportRow[]> {
  return await db.select().from(generatedAnnualReports).where(and(
    eq(generatedAnnualReports.accountId, accountId),
    isNull(generatedAnnualReports.viewedAt),
  )).orderBy(asc(generatedAnnualReports.year));
}

/** The account's report for `year` (read or not). @throws NotFoundError when there is none */
export async function findReport(
  db: Db,
  accountId: string,
  year: number,
): Promise<AnnualReportRow> {
  const [row] = await db.select().from(generatedAnnualReports).where(and(
    eq(generatedAnnualReports.accountId, accountId),
    eq(generatedAnnualReports.year, year),
  ));
  if (!row) throw new NotFoundError();
  return row;
}

/** Marks the account's report for `year` read (again: the time moves). @throws NotFoundError */
export async function markReportViewed(db: Db, accountId: string, year: number): Promise<void> {
  const updated = await db.update(generatedAnnualReports).set({ viewedAt: new Date() })
    .where(and(
      eq(generatedAnnualReports.accountId, accountId),
      eq(generatedAnnualReports.year, year),
    )).returning({ id: generatedAnnualReports.id });
  if (!updated.length) throw new NotFoundError();
}

function idsIn(list: unknown): string[] {
  if (!Array.isArray(list)) return [];
  return list.map((entry) => (entry as { account_id?: unknown })?.account_id)
    .filter((id) => id != null).map(String);
}

/** The accounts a report names (most boosted, most replied to), as Mastodon includes them. */
export function reportAccountIds(row: AnnualReportRow): string[] {
  return [
    ...idsIn(row.data.most_reblogged_accounts),
    ...idsIn(row.data.commonly_interacted_with_accounts),
  ];
}

/** The statuses a report names (its top statuses). */
export function reportStatusIds(row: AnnualReportRow): string[] {
  const top = row.data.top_statuses;
  if (!top || typeof top !== "object") return [];
  return Object.values(top as Record<string, unknown>).filter((id) => id != null).map(String);
}
