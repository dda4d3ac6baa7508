/**
 * The trends job: recomputes every trend score (db/queries/trends.ts) into
 * `trend_scores`, which the API reads with one query per page.
 *
 * A refresh replaces the table's rows in one transaction, so readers (in
 * this process or in `ROLE=web` processes) see the old set or the new one,
 * never a mix. It holds a transaction-scoped advisory lock: when several
 * workers share a PostgreSQL database, the periodic runs of the others skip
 * while one computes, and a run that waits (the admin command, tests) goes
 * after it.
 */
import { sql } from "drizzle-orm";
import type { Database, Executor } from "../db/connection.ts";
import { trendScores } from "../db/schema/mod.ts";
import {
  addTrendPublishers,
  scoreLinks,
  scoreStatuses,
  scoreTags,
  type TrendKind,
  type TrendScore,
} from "../db/queries/trends.ts";

/** Arbitrary, constant: "rookery trends" (migrations use another key). */
export const TRENDS_LOCK_KEY = 7_205_211_999;
/** The best this many items of each kind are kept; no client pages further. */
export const MAX_TRENDS_PER_KIND = 1_000;
/** Rows per INSERT statement. */
const INSERT_BATCH = 500;

/** Options of {@link refreshTrends}. */
export interface RefreshOptions {
  /** The time to score at (default: now); tests move it to watch scores decay. */
  now?: Date;
  /** Wait for another process's refresh instead of skipping (default false). */
  wait?: boolean;
}

/** How many items of each kind trend after a refresh; null when another process was refreshing. */
export type RefreshResult = Record<TrendKind, number> | null;

function best(scores: TrendScore[]): TrendScore[] {
  return scores.sort((a, b) => b.score - a.score).slice(0, MAX_TRENDS_PER_KIND);
}

/** Every kind's scores at `now`, best first (the scans run one after the other). */
async function computeScores(
  database: Database,
  now: Date,
  executor?: Executor,
): Promise<[TrendKind, TrendScore[]][]> {
  return [
    ["tag", best(await scoreTags(database, now, executor))],
    ["status", best(await scoreStatuses(database, now, executor))],
    ["link", best(await scoreLinks(database, now, executor))],
  ];
}

/** Recomputes all trend scores at once. */
export async function refreshTrends(
  database: Database,
  options: RefreshOptions = {},
): Promise<RefreshResult> {
  const now = options.now ?? new Date();
  // PGlite's one connection serves the whole process and a transaction holds
  // it: score first, so requests wait only for the short write. PGlite has
  // one process, so nobody else refreshes in between.
  const early = database.kind === "pglite" ? await computeScores(database, now) : null;
  return await database.db.transaction(async (tx) => {
    if (options.wait) {
      await tx.execute(sql`SELECT pg_advisory_xact_lock(${TRENDS_LOCK_KEY})`);
    } else {
      const [lock] = await database.rows<{ locked: boolean }>(
        sql`SELECT pg_try_advisory_xact_lock(${TRENDS_LOCK_KEY}) AS locked`,
        tx,
      );
      if (!lock?.locked) return null;
    }
    // On PostgreSQL the scans run under the lock, so two workers never do the work twice.
    const byKind = early ?? await computeScores(database, now, tx);
    await tx.delete(trendScores);
    const rows = byKind.flatMap(([kind, scores]) =>
      scores.map((s) => ({
        kind,
        targetId: s.targetId,
        score: s.score,
        accounts: s.accounts,
        computedAt: now,
      }))
    );
    for (let i = 0; i < rows.length; i += INSERT_BATCH) {
      await tx.insert(trendScores).values(rows.slice(i, i + INSERT_BATCH));
    }
    await addTrendPublishers(tx);
    return Object.fromEntries(byKind.map(([kind, s]) => [kind, s.length])) as Record<
      TrendKind,
      number
    >;
  });
}
