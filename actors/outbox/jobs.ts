/**
 * How a command asks for background work: {@link recordJob} writes the job
 * into the durable queue in the command's own transaction, so the job
 * exists exactly when the change that wants it does (a rolled-back write
 * takes its job with it), and a worker runs it once committed: only jobs/
 * runs jobs (jobs/handlers.ts says what each does). The twin of
 * deliveries.ts, which records what federation/ is to deliver.
 *
 * Outside a command (a job queueing its next batch, the December campaign,
 * a federation fetch over its budget) the same function takes the
 * database instead of a transaction.
 */
import { trace } from "@opentelemetry/api";
import type { Executor } from "../../db/connection.ts";
import { queueMessages } from "../../db/queries/queue_rows.ts";
import type { MissingLinks } from "./status_links.ts";

/** The message type that marks a job in the queue (Fedify's own are fanout, outbox and inbox). */
export const JOB_MESSAGE_TYPE = "rookery:job";

/** Every job and its data (which must survive JSON). */
export type Job =
  /** Fetch (or refresh) the preview card of a status's link (jobs/link_cards/). */
  | { job: "link_card"; statusId: string }
  /** Sync a remote account's featured collection (federation/remote/featured_sync.ts). */
  | { job: "featured_collection"; accountId: string }
  /** Fetch what a stored remote status names but lacked (federation/remote/status_links.ts). */
  | { job: "status_links"; statusId: string; missing: MissingLinks }
  /** The local followers of a moved account, from the follow after `afterId` (jobs/move_followers.ts). */
  | { job: "move_followers"; originId: string; targetId: string; afterId: string | null }
  /** Push one notification; a retry names the subscription and the attempt it is (jobs/web_push/). */
  | { job: "web_push"; notificationId: string; subscriptionId?: number; attempt?: number }
  /** The next batch of a CSV import from the settings pages (jobs/data_import.ts). */
  | { job: "data_import"; importId: string }
  /** The replies of a remote status a user opened, for the async refresh `refreshId` (federation/remote/replies_crawl.ts). */
  | { job: "replies_crawl"; statusId: string; refreshId: string }
  /** The build of an archive export from the settings pages (jobs/archive_export.ts). */
  | { job: "archive"; archiveId: string }
  /**
   * One account's annual report for one year (jobs/annual_reports.ts);
   * `refreshId` when a user asked for it (finished when the job ends).
   */
  | { job: "annual_report"; accountId: string; year: number; refreshId?: string }
  /** The digest of an account's new posts to its e-mail subscribers (jobs/email_digests.ts). */
  | { job: "email_digest"; accountId: string }
  /** A member's consent to be in a remote collection, checked at its server (federation/remote/featured_items.ts). */
  | { job: "verify_featured_item"; itemId: string; attempt?: number; ifStale?: boolean }
  /** A remote account whose handle another actor took (federation/remote/account_refresh.ts). */
  | { job: "remote_account_refresh"; accountId: string }
  /** Copies of a remote status's attachments and emoji, or a profile's emoji (actors/media/remote_cache/at_receipt.ts). */
  | { job: "remote_media"; statusId: string }
  | { job: "remote_media"; accountId: string };

/**
 * The span a job was recorded in (W3C trace context fields), when traces are
 * on: the job's own span continues its trace (jobs/queue.ts).
 */
export interface JobTraceContext {
  traceId: string;
  spanId: string;
  traceFlags: number;
}

/** A job as the queue carries it. */
export type JobMessage = Job & {
  type: typeof JOB_MESSAGE_TYPE;
  traceContext?: JobTraceContext;
  /** Runs of it cut off by a lost database connection so far (jobs/queue.ts). */
  lostConnections?: number;
};

/** The active span's context, if a span records (nothing when traces are off). */
function currentTraceContext(): JobTraceContext | undefined {
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return undefined;
  const { traceId, spanId, traceFlags } = span.spanContext();
  return { traceId, spanId, traceFlags };
}

/** Whether a queued message is a job. */
export function isJobMessage(message: unknown): message is JobMessage {
  return typeof message === "object" && message != null &&
    (message as { type?: unknown }).type === JOB_MESSAGE_TYPE;
}

/**
 * The jobs that run one at a time, in order, per subject: one status's card
 * fetches (a post and its quick edits, the latest last), one move's batches,
 * one import's runs… Pushes wait for nothing.
 */
function orderingKeyOf(job: Job): string | null {
  switch (job.job) {
    case "link_card":
      return `link_card:${job.statusId}`;
    case "featured_collection":
      return `featured:${job.accountId}`;
    case "status_links":
      return `status_links:${job.statusId}`;
    case "move_followers":
      return `move:${job.originId}`;
    case "web_push":
      return null;
    case "data_import":
      return `data_import:${job.importId}`;
    case "replies_crawl":
      return `replies_crawl:${job.statusId}`;
    case "archive":
      return `archive:${job.archiveId}`;
    case "annual_report":
      return `annual_report:${job.accountId}`;
    case "email_digest":
      return `email_digest:${job.accountId}`;
    case "verify_featured_item":
      return `featured_item:${job.itemId}`;
    case "remote_account_refresh":
      return `account_refresh:${job.accountId}`;
    case "remote_media":
      return null;
  }
}

/** How {@link recordJobs} queues its jobs. */
export interface RecordOptions {
  /** Not run before this many milliseconds (a retry). */
  delayMs?: number;
  /** Carried in the message: a retry after lost connections (jobs/queue.ts). */
  lostConnections?: number;
}

/**
 * Records `jobs` in `tx` (or on the database outside a transaction), to run
 * once it commits.
 */
export async function recordJobs(
  tx: Executor,
  jobs: readonly Job[],
  options: RecordOptions = {},
): Promise<void> {
  const runAt = new Date(Date.now() + (options.delayMs ?? 0));
  const unordered: JobMessage[] = [];
  const traceContext = currentTraceContext();
  for (const job of jobs) {
    const message: JobMessage = {
      ...job,
      type: JOB_MESSAGE_TYPE,
      ...(traceContext && { traceContext }),
      ...(options.lostConnections && { lostConnections: options.lostConnections }),
    };
    const orderingKey = orderingKeyOf(job);
    if (orderingKey == null) unordered.push(message);
    else await tx.execute(queueMessages([message], { orderingKey, runAt, wake: true }));
  }
  if (unordered.length > 0) {
    await tx.execute(queueMessages(unordered, { runAt, wake: true }));
  }
}

/** {@link recordJobs} for one job. */
export async function recordJob(
  tx: Executor,
  job: Job,
  options: RecordOptions = {},
): Promise<void> {
  await recordJobs(tx, [job], options);
}
