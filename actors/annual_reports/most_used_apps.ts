/**
 * `most_used_apps`: the ten applications the account posted from most
 * during the year, by name, as Mastodon's AnnualReport::MostUsedApps
 * (statuses without an application, such as federated or imported ones,
 * are not counted).
 */
import { sql } from "drizzle-orm";
import { type ReportScope, reportStatusesWhere, type SourceDb } from "./year.ts";

const SET_SIZE = 10;

/** The source's part of the report. */
export async function mostUsedApps(
  db: SourceDb,
  scope: ReportScope,
): Promise<Record<string, unknown>> {
  const rows = await db.rows<{ name: string; count: number }>(sql`SELECT a.name,
      count(*)::int AS count
    FROM statuses s JOIN oauth_applications a ON a.id = s.application_id
    WHERE ${reportStatusesWhere(scope)}
    GROUP BY a.name ORDER BY count(*) DESC, a.name ASC LIMIT ${SET_SIZE}`);
  return { most_used_apps: rows.map((r) => ({ name: r.name, count: Number(r.count) })) };
}
