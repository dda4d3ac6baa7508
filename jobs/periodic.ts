/**
 * The periodic runner: what a worker process does now and then, and when.
 * {@link PERIODIC_JOBS} is the one table (closing polls, publishing
 * scheduled statuses, trends, purges, media, the annual report campaign…);
 * rookery.ts starts it with the worker ({@link startPeriodicJobs}) and
 * stops it on close. The work itself is in actors/ and jobs/; this module
 * only decides when.
 *
 * Everything such a job acts on is in the database, so nothing is lost
 * across restarts: a job simply finds what came due while the process was
 * down on its first run. A run never overlaps the previous one of the same
 * job, errors are logged and the next run tries again, and stopping waits
 * for the runs in progress, so the database is not closed under them.
 */
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../context.ts";
import { closeDuePolls } from "../actors/polls/close.ts";
import { publishDueScheduledStatuses } from "../actors/statuses/scheduled_statuses.ts";
import { purgeExpiredSuspensions } from "../actors/moderation/suspension.ts";
import { cleanUpMedia, processPendingMedia } from "../actors/media/processing.ts";
import { pruneCardFailures } from "../actors/cards/stored.ts";
import { purgeArchives } from "../actors/import_export/archive.ts";
import { purgeEarlyDeletes } from "../federation/inbox/early_deletes.ts";
import { purgePendingSubscriptions } from "../actors/email_subscriptions/purge.ts";
import { refreshTrends } from "./trends.ts";
import { pruneMediaCache } from "./maintenance/media_cache_retention.ts";
import { annualReportCampaign } from "./annual_reports.ts";

const logger = getLogger(["rookery", "jobs"]);

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** What the periodic jobs are given besides the process's context. */
export interface PeriodicEnv {
  ctx: AppContext;
  /** Clean-up of the federation's own store (expired KV entries: federation/mod.ts). */
  maintainFederationStore(): Promise<void>;
}

/** One line of the table. */
export interface PeriodicJobSpec {
  name: string;
  /** How often it runs (the configuration may say). */
  every(ctx: AppContext): number;
  /** The first run, after start (default: a second, or `every` when shorter). */
  firstAfterMs?: number;
  /** Makes the run function; called once per start (a job may keep what it saw between runs). */
  start(env: PeriodicEnv): () => Promise<unknown>;
}

/** Every periodic job of a worker. */
export const PERIODIC_JOBS: readonly PeriodicJobSpec[] = [
  // Database scans whose results users wait for.
  { name: "close polls", every: () => 5 * SECOND, start: ({ ctx }) => () => closeDuePolls(ctx) },
  {
    name: "publish scheduled statuses",
    every: () => 5 * SECOND,
    start: ({ ctx }) => () => publishDueScheduledStatuses(ctx),
  },
  // Uploads left unfinished (the upload starts its own processing in a worker process).
  {
    name: "media processing",
    every: () => 15 * SECOND,
    firstAfterMs: 0,
    start: ({ ctx }) => () => processPendingMedia(ctx),
  },
  // Trend scores, recomputed every TRENDS_INTERVAL (one worker at a time).
  {
    name: "trends",
    every: (ctx) => ctx.config.trends.intervalMs,
    start: ({ ctx }) => () => refreshTrends(ctx.database),
  },
  // Data of accounts suspended longer than SUSPENSION_GRACE_DAYS.
  {
    name: "suspension-purge",
    every: () => HOUR,
    start: ({ ctx }) => () =>
      purgeExpiredSuspensions(ctx.database.db, ctx.config.suspensionGraceDays, ctx.media),
  },
  // Uploads never attached, past their day.
  {
    name: "media cleanup",
    every: () => HOUR,
    firstAfterMs: HOUR,
    start: ({ ctx }) => () => cleanUpMedia(ctx),
  },
  // Copies of remote media past MEDIA_CACHE_RETENTION_PERIOD (when set).
  {
    name: "media cache retention",
    every: () => HOUR,
    start: ({ ctx }) => () => pruneMediaCache(ctx),
  },
  // December's annual reports, when ANNUAL_REPORTS is on: a look at the calendar every hour.
  {
    name: "annual_report_campaign",
    every: () => HOUR,
    start: ({ ctx }) => annualReportCampaign(ctx),
  },
  // Housekeeping, every ten minutes from ten minutes after start.
  {
    name: "federation store",
    every: () => 10 * MINUTE,
    firstAfterMs: 10 * MINUTE,
    start: (env) => () => env.maintainFederationStore(),
  },
  {
    name: "card failures",
    every: () => 10 * MINUTE,
    firstAfterMs: 10 * MINUTE,
    start: ({ ctx }) => () => pruneCardFailures(ctx.database.db),
  },
  // Archive exports past their week go with their files (actors/import_export/archive.ts).
  {
    name: "archive purge",
    every: () => 10 * MINUTE,
    firstAfterMs: 10 * MINUTE,
    start: ({ ctx }) => () => purgeArchives(ctx.database.db, ctx.media),
  },
  // E-mail subscriptions never confirmed, once their link has expired.
  {
    name: "pending e-mail subscriptions",
    every: () => HOUR,
    firstAfterMs: 10 * MINUTE,
    start: ({ ctx }) => () => purgePendingSubscriptions(ctx.database.db),
  },
  {
    name: "early deletes",
    every: () => 10 * MINUTE,
    firstAfterMs: 10 * MINUTE,
    start: ({ ctx }) => () => purgeEarlyDeletes(ctx.database.db),
  },
];

/** Started periodic jobs. */
export interface PeriodicJobs {
  /** Stops scheduling runs and waits for the ones in progress. */
  stop(): Promise<void>;
}

/** Starts every job of `jobs` (default: the whole table) for this process. */
export function startPeriodicJobs(
  env: PeriodicEnv,
  jobs: readonly PeriodicJobSpec[] = PERIODIC_JOBS,
): PeriodicJobs {
  const started = jobs.map((spec) => {
    const intervalMs = spec.every(env.ctx);
    return runEvery(spec.name, intervalMs, spec.start(env), spec.firstAfterMs);
  });
  return {
    async stop() {
      await Promise.all(started.map((job) => job.stop()));
    },
  };
}

/**
 * Runs `job` after `firstAfterMs` (default: a second, so start-up is done,
 * or `intervalMs` when shorter) and then every `intervalMs`.
 */
function runEvery(
  name: string,
  intervalMs: number,
  job: () => Promise<unknown>,
  firstAfterMs = Math.min(intervalMs, SECOND),
): PeriodicJobs {
  let running: Promise<void> | null = null;
  let stopped = false;
  const tick = () => {
    if (running || stopped) return;
    running = job().then(() => {}, (error) => {
      logger.warn("Job {name} failed: {error}", { name, error });
    }).finally(() => {
      running = null;
    });
  };
  const timer = setInterval(tick, intervalMs);
  const first = setTimeout(tick, firstAfterMs);
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      clearTimeout(first);
      if (running) await running;
    },
  };
}
