/**
 * `percentiles`: where the account stands among this server's accounts for
 * followers gained and statuses made during the year, as Mastodon's
 * AnnualReport::Percentiles computes it: the share (0–100) of local
 * accounts that gained at least one follower (made at least one status)
 * that year and gained (made) fewer than this account, over their number
 * plus one.
 *
 * The server's side is one aggregate per figure over the year's local
 * follows (statuses, through the (local, created_at) index), giving one
 * count per active account. A campaign makes a report per account, so the
 * sorted counts are kept for a few minutes per database and year, as
 * Mastodon prepares its figures once per campaign (AnnualReport.prepare):
 * a report then costs a binary search, not a scan of the server's year.
 */
import { type SQL, sql } from "drizzle-orm";
import {
  followsInYearWhere,
  type ReportScope,
  reportStatusesWhere,
  type SourceDb,
  yearBounds,
} from "./year.ts";

/** How long the server's counts of a year are reused. */
const DISTRIBUTION_TTL_MS = 10 * 60 * 1000;

/** The year's per-account counts, ascending. */
interface Distribution {
  at: number;
  followers: number[];
  statuses: number[];
}

async function sortedCounts(db: SourceDb, perAccount: SQL): Promise<number[]> {
  const rows = await db.rows<{ n: number }>(sql`SELECT c.n::int AS n FROM (${perAccount}) c
    ORDER BY c.n`);
  return rows.map((r) => Number(r.n));
}

async function computeDistribution(db: SourceDb, year: number): Promise<Distribution> {
  const { start, end } = yearBounds(year);
  const [followers, statuses] = await Promise.all([
    sortedCounts(
      db,
      sql`SELECT count(*) AS n FROM follows f JOIN accounts a ON a.id = f.target_account_id
        WHERE a.domain IS NULL AND ${followsInYearWhere(year)}
        GROUP BY f.target_account_id`,
    ),
    sortedCounts(
      db,
      sql`SELECT count(*) AS n FROM statuses s
        WHERE s.local AND s.created_at >= ${start.toISOString()}::timestamptz
          AND s.created_at < ${end.toISOString()}::timestamptz AND s.deleted_at IS NULL
        GROUP BY s.account_id`,
    ),
  ]);
  return { at: Date.now(), followers, statuses };
}

/**
 * The server's counts of each year, computed at most once per
 * {@link DISTRIBUTION_TTL_MS} by this process (the process core holds them).
 */
export class Distributions {
  readonly #byYear = new Map<number, Promise<Distribution>>();

  /** The year's counts, from the copy while it is fresh. */
  of(db: SourceDb, year: number): Promise<Distribution> {
    const cached = this.#byYear.get(year);
    const now = Date.now();
    if (cached) {
      return cached.then((d) => now - d.at < DISTRIBUTION_TTL_MS ? d : this.#refresh(db, year));
    }
    return this.#refresh(db, year);
  }

  #refresh(db: SourceDb, year: number): Promise<Distribution> {
    const pending = computeDistribution(db, year);
    this.#byYear.set(year, pending);
    // A failed computation is not kept.
    pending.catch(() => {
      if (this.#byYear.get(year) === pending) this.#byYear.delete(year);
    });
    return pending;
  }
}

/** How many of the ascending `counts` are below `mine`. */
function countBelow(counts: readonly number[], mine: number): number {
  let low = 0;
  let high = counts.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (counts[mid] < mine) low = mid + 1;
    else high = mid;
  }
  return low;
}

function percentile(counts: readonly number[], mine: number): number {
  return (countBelow(counts, mine) / (counts.length + 1)) * 100;
}

/** The source's part of the report. */
export async function percentiles(
  db: SourceDb,
  distributions: Distributions,
  scope: ReportScope,
): Promise<Record<string, unknown>> {
  const [[followersGained], [statusesMade], year] = await Promise.all([
    db.rows<{ n: number }>(sql`SELECT count(*)::int AS n FROM follows f
      WHERE f.target_account_id = ${scope.accountId}::bigint
        AND ${followsInYearWhere(scope.year)}`),
    db.rows<{ n: number }>(sql`SELECT count(*)::int AS n FROM statuses s
      WHERE ${reportStatusesWhere(scope)}`),
    distributions.of(db, scope.year),
  ]);
  return {
    percentiles: {
      followers: percentile(year.followers, Number(followersGained?.n ?? 0)),
      statuses: percentile(year.statuses, Number(statusesMade?.n ?? 0)),
    },
  };
}
