/**
 * Admin::Cohort figures (POST /api/v1/admin/retention): users grouped by the
 * day or month they signed up, and for each later period how many of them
 * were still active at or after it, as Mastodon reads users'
 * current_sign_in_at. Our "last active" is the later of the last sign-in and
 * the account's last status. One grouped statement over the users created in
 * the window (by id range); the cohort arithmetic is done here.
 */
import { sql } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { minIdAt } from "../../db/ids.ts";
import { MetricInputError, rowsOf, type Window } from "./window.ts";

/** The most cohorts one request may ask for (each has up to as many points). */
export const MAX_COHORTS = 100;

export type Frequency = "day" | "month";

export interface Cohort {
  period: Date;
  frequency: Frequency;
  data: { date: Date; rate: number; value: number }[];
}

function truncate(d: Date, frequency: Frequency): Date {
  return frequency === "day"
    ? new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()))
    : new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
}

function next(d: Date, frequency: Frequency): Date {
  return frequency === "day"
    ? new Date(d.getTime() + 86_400_000)
    : new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));
}

/** The cohorts of the periods of `w` (months: the months it touches). */
export async function computeRetention(
  db: Executor,
  w: Window,
  frequency: Frequency,
): Promise<Cohort[]> {
  if (w.days === 0) return [];
  const from = truncate(w.from, frequency);
  const to = next(truncate(new Date(w.to.getTime() - 1), frequency), frequency);
  let count = 0;
  for (let p = from; p < to && count <= MAX_COHORTS; p = next(p, frequency)) count++;
  if (count > MAX_COHORTS) {
    throw new MetricInputError(`The period may hold at most ${MAX_COHORTS} cohorts`);
  }
  const unit = sql.raw(`'${frequency}'`);
  const result = await db.execute(sql`
    SELECT to_char(date_trunc(${unit}, u.created_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS cohort,
           to_char(date_trunc(${unit}, greatest(u.last_sign_in_at, a.last_status_at)
             AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS active,
           count(*)::text AS n
      FROM users u JOIN accounts a ON a.id = u.account_id
     WHERE u.id >= ${minIdAt(from)}::bigint AND u.id < ${minIdAt(to)}::bigint
     GROUP BY 1, 2`);
  const rows = rowsOf<{ cohort: string; active: string | null; n: string }>(result);
  const periods: Date[] = [];
  for (let p = from; p < to; p = next(p, frequency)) periods.push(p);
  return periods.map((period, i) => {
    const key = period.toISOString().slice(0, 10);
    const mine = rows.filter((r) => r.cohort === key);
    const size = mine.reduce((sum, r) => sum + Number(r.n), 0);
    const data = periods.slice(i).map((date) => {
      const day = date.toISOString().slice(0, 10);
      const value = mine.filter((r) => r.active !== null && r.active >= day)
        .reduce((sum, r) => sum + Number(r.n), 0);
      return { date, rate: size === 0 ? 0 : value / size, value };
    });
    return { period, frequency, data };
  });
}
