/**
 * Rookery's own background jobs, carried by the federation queue.
 *
 * The queue (federation/stores/) is durable, shared by every worker process
 * and already run by each of them; jobs ride along as messages of their own
 * type. {@link JobQueue} wraps the queue Fedify is given: what Fedify queues
 * passes through (inbound activities with their actor as ordering key:
 * federation/inbox/order.ts), and while listening it hands job messages to
 * their handler instead of to Fedify (which would ignore them). A job that
 * fails is logged and dropped, as Mastodon's link crawler does (no retry).
 *
 * Commands reach this through a recorded intent that the outbox relay hands
 * to federation/outbox/cards.ts, which calls {@link enqueueJob}; the handlers
 * (jobs/handlers.ts) call actors/. Syncs of remote actors'
 * featured collections are queued by federation/remote/featured_sync.ts; fetches
 * over an activity's budget by federation/outbox/status_links.ts.
 */
import type {
  MessageQueue,
  MessageQueueDepth,
  MessageQueueEnqueueOptions,
  MessageQueueListenOptions,
} from "@fedify/fedify";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../context.ts";
import { federationRefusedUrl } from "../actors/moderation/domain_rules.ts";
import { productUserAgent } from "../version.ts";
import type { MissingLinks } from "../actors/outbox/status_links.ts";
import type { PlaceKeepingQueue } from "../federation/stores/sql_queue.ts";
import { inboxOrderingKey, isInboxRetry } from "../federation/inbox/order.ts";

const logger = getLogger(["rookery", "jobs"]);

/** The message type that marks a job (Fedify's own are fanout, outbox and inbox). */
export const JOB_MESSAGE_TYPE = "rookery:job";

/** Every job and its data. */
export type Job =
  | { job: "link_card"; statusId: string }
  | { job: "featured_collection"; accountId: string }
  | { job: "status_links"; statusId: string; missing: MissingLinks }
  /** The local followers of a moved account, from the follow after `afterId` (move_followers.ts). */
  | { job: "move_followers"; originId: string; targetId: string; afterId: string | null }
  /** A retry names the subscription and the attempt it is. */
  | { job: "web_push"; notificationId: string; subscriptionId?: number; attempt?: number }
  /** The next batch of a CSV import from the settings pages (data_import_job.ts). */
  | { job: "data_import"; importId: string }
  /** The replies of a remote status a user opened, for the async refresh `refreshId` (replies_crawl.ts). */
  | { job: "replies_crawl"; statusId: string; refreshId: string }
  /** The build of an archive export from the settings pages (archive_job.ts). */
  | { job: "archive"; archiveId: string }
  /**
   * One account's annual report for one year (annual_reports.ts); `refreshId`
   * when a user asked for it (finished when the job ends).
   */
  | { job: "annual_report"; accountId: string; year: number; refreshId?: string }
  /** The digest of an account's new posts to its e-mail subscribers (email_digests.ts). */
  | { job: "email_digest"; accountId: string };

type JobMessage = Job & { type: typeof JOB_MESSAGE_TYPE };

/** How a job is queued. */
export interface JobOptions {
  orderingKey?: string;
  delayMs?: number;
}

/** What runs a job (jobs/handlers.ts); given when the queue is built. */
export type JobRunner = (ctx: AppContext, job: Job, signal?: AbortSignal) => Promise<void>;

function isJobMessage(message: unknown): message is JobMessage {
  return typeof message === "object" && message != null &&
    (message as { type?: unknown }).type === JOB_MESSAGE_TYPE;
}

/** The federation queue, with Rookery's jobs riding along. */
export class JobQueue implements MessageQueue {
  readonly #inner: MessageQueue;
  readonly #ctx: Omit<AppContext, "federation">;
  readonly #run: JobRunner;

  /** `ctx` is the process's context (completed after the federation is built). */
  constructor(inner: MessageQueue, ctx: Omit<AppContext, "federation">, run: JobRunner) {
    this.#inner = inner;
    this.#ctx = ctx;
    this.#run = run;
  }

  get nativeRetrial(): boolean | undefined {
    return this.#inner.nativeRetrial;
  }

  async enqueue(message: any, options?: MessageQueueEnqueueOptions): Promise<void> {
    if (await this.#refusedDelivery(message)) return;
    const inboxKey = inboxOrderingKey(message);
    if (inboxKey != null) return await this.#enqueueInbox(message, inboxKey, options);
    return await this.#inner.enqueue(this.#withUserAgent(message), options);
  }

  /**
   * An inbound activity, queued behind its actor's earlier ones; Fedify's
   * retry of one that failed keeps its place in that line when the queue
   * can (federation/inbox/order.ts).
   */
  async #enqueueInbox(message: unknown, orderingKey: string, options?: MessageQueueEnqueueOptions) {
    const inner = this.#inner as Partial<PlaceKeepingQueue>;
    const delayMs = options?.delay ? Math.max(0, options.delay.total("millisecond")) : 0;
    if (isInboxRetry(message) && inner.keepPlace?.(message, delayMs)) return;
    await this.#inner.enqueue(message, { ...options, orderingKey });
  }

  async enqueueMany(messages: readonly any[], options?: MessageQueueEnqueueOptions): Promise<void> {
    // Inbound activities each have their own key (Fedify queues them one by one anyway).
    if (messages.some((m) => inboxOrderingKey(m) != null)) {
      for (const message of messages) await this.enqueue(message, options);
      return;
    }
    const kept: any[] = [];
    for (const message of messages) {
      if (!await this.#refusedDelivery(message)) kept.push(this.#withUserAgent(message));
    }
    if (kept.length === 0) return;
    if (this.#inner.enqueueMany) return await this.#inner.enqueueMany(kept, options);
    await Promise.all(kept.map((m) => this.#inner.enqueue(m, options)));
  }

  /**
   * Whether `message` is a delivery (Fedify's `outbox` message, one per
   * inbox) to a server we do not federate with: suspended by a domain
   * block, or not allowed in allowlist mode (actors/moderation/domain_rules.ts). Such
   * deliveries are dropped when queued, and again when their turn comes
   * (a block made after they were queued, or a retry). So are deliveries to
   * our own origin's inboxes, for every activity type: local accounts are
   * never delivered to over HTTP.
   */
  async #refusedDelivery(message: unknown): Promise<boolean> {
    if (!message || typeof message !== "object") return false;
    const { type, inbox } = message as { type?: unknown; inbox?: unknown };
    if (type !== "outbox" || typeof inbox !== "string") return false;
    if (this.#isOwnInbox(inbox)) {
      // Local recipients have it already (fan-out, notifications); a POST to
      // our own inbox would be taken as a remote server's delivery.
      logger.debug("Dropped a delivery to our own inbox {inbox}.", { inbox });
      return true;
    }
    if (!await federationRefusedUrl(this.#ctx, inbox)) return false;
    logger.info("Dropped a delivery to {inbox}: this server does not federate with it.", {
      inbox,
    });
    return true;
  }

  /** Whether `inbox` is on this server's own origin (whatever activity is sent there). */
  #isOwnInbox(inbox: string): boolean {
    try {
      return new URL(inbox).origin === this.#ctx.config.origin;
    } catch {
      return false;
    }
  }

  /**
   * A delivery (Fedify's `outbox` message) with our User-Agent among its
   * headers: Fedify sends the headers a message carries and adds no
   * User-Agent of its own, so deliveries went out as `Deno/…`. Added here
   * rather than in the process's fetch because several instances may share
   * one process (tests) and each speaks for its own origin.
   */
  #withUserAgent(message: unknown): unknown {
    if (!message || typeof message !== "object") return message;
    const { type, headers } = message as { type?: unknown; headers?: unknown };
    if (type !== "outbox") return message;
    const current = headers && typeof headers === "object" ? headers as Record<string, string> : {};
    if (Object.keys(current).some((name) => name.toLowerCase() === "user-agent")) return message;
    const userAgent = productUserAgent(this.#ctx.config.origin);
    return { ...message, headers: { ...current, "User-Agent": userAgent } };
  }

  getDepth(): Promise<MessageQueueDepth> {
    return this.#inner.getDepth?.() ?? Promise.resolve({ queued: 0 });
  }

  /**
   * Queues a job; jobs with the same `orderingKey` run one at a time, in
   * order; `delayMs` holds it back that long (a retry).
   */
  enqueueJob(job: Job, options: JobOptions = {}): Promise<void> {
    const message: JobMessage = { ...job, type: JOB_MESSAGE_TYPE };
    return this.#inner.enqueue(message, {
      orderingKey: options.orderingKey,
      delay: options.delayMs
        ? Temporal.Duration.from({ milliseconds: options.delayMs })
        : undefined,
    });
  }

  listen(
    handler: (message: any) => Promise<void> | void,
    options?: MessageQueueListenOptions,
  ): Promise<void> {
    const signal = options?.signal;
    return this.#inner.listen(async (message) => {
      try {
        if (!isJobMessage(message)) {
          if (await this.#refusedDelivery(message)) return;
          // Deliveries queued before the header was added get it too.
          return await handler(this.#withUserAgent(message));
        }
        await this.#run(this.#ctx as AppContext, message, signal);
      } catch (error) {
        if (!isJobMessage(message)) throw error;
        if (signal?.aborted) return;
        logger.warn("Job {job} failed: {error}", { job: message.job, error });
      } finally {
        // Jobs write; this process's next read waits for their cache invalidations.
        this.#ctx.core.writes.mark();
      }
    }, options);
  }
}

/** Wraps the process's queue for jobs; federation/mod.ts calls it once, the core keeps it. */
export function jobQueueFor(
  ctx: Omit<AppContext, "federation">,
  inner: MessageQueue,
  run: JobRunner,
): JobQueue {
  return new JobQueue(inner, ctx, run);
}

/** Queues a job on the process's queue (see {@link jobQueueFor}). */
export async function enqueueJob(
  ctx: AppContext,
  job: Job,
  options?: JobOptions,
): Promise<void> {
  await ctx.core.jobQueue.enqueueJob(job, options);
}
