/**
 * Where Rookery's own background jobs run: on the durable queue the workers
 * already run for Fedify (federation/stores/). Commands record a job in
 * their own transaction (actors/outbox/jobs.ts, `recordJob`); this wrapper
 * of the queue Fedify is given hands job messages to their runner
 * (jobs/handlers.ts) instead of to Fedify, which would ignore them, and
 * passes everything else through. rookery.ts puts it in place.
 *
 * A job that fails is logged and dropped, as Mastodon's link crawler does
 * (no retry); jobs that want one queue it themselves (jobs/web_push/run.ts).
 * One whose database connection was lost is queued again, up to
 * {@link MAX_CONNECTION_LOSSES} times: a job that loses it every time (not a
 * restart or a failover, which cost each job they cut off one) is then
 * logged and dropped like a failing one.
 */
import type {
  MessageQueue,
  MessageQueueDepth,
  MessageQueueEnqueueOptions,
  MessageQueueListenOptions,
} from "@fedify/fedify";
import { getLogger } from "@logtape/logtape";
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { AppContext } from "../context.ts";
import { isJobMessage, type Job, type JobMessage, recordJob } from "../actors/outbox/jobs.ts";
import { isConnectionLoss } from "../db/postgres_transactions.ts";

const logger = getLogger(["rookery", "jobs"]);

/** How long a job cut off by a lost database connection waits before it runs again. */
const RETRY_AFTER_LOSS_MS = 5_000;

/**
 * Runs of one job cut off by a lost connection before it is dropped: as
 * many as the queue lets a message be taken over (federation/stores/takeovers.ts).
 */
export const MAX_CONNECTION_LOSSES = 5;

/** What runs a job (jobs/handlers.ts); `signal` is aborted when the worker stops. */
export type JobRunner = (ctx: AppContext, job: Job, signal?: AbortSignal) => Promise<void>;

/** The federation queue, with Rookery's jobs run as they come. */
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

  enqueue(message: any, options?: MessageQueueEnqueueOptions): Promise<void> {
    return this.#inner.enqueue(message, options);
  }

  enqueueMany(messages: readonly any[], options?: MessageQueueEnqueueOptions): Promise<void> {
    if (this.#inner.enqueueMany) return this.#inner.enqueueMany(messages, options);
    return Promise.all(messages.map((m) => this.#inner.enqueue(m, options))).then(() => {});
  }

  getDepth(): Promise<MessageQueueDepth> {
    return this.#inner.getDepth?.() ?? Promise.resolve({ queued: 0 });
  }

  /**
   * Runs a job inside a consumer span `job <name>`, in the trace of the span
   * that recorded it (Fedify makes its own messages' spans).
   */
  #traced(job: JobMessage, run: () => Promise<void>): Promise<void> {
    const options = { kind: SpanKind.CONSUMER, attributes: { "rookery.job": job.job } };
    const parent = job.traceContext
      ? trace.setSpanContext(ROOT_CONTEXT, { ...job.traceContext, isRemote: true })
      : ROOT_CONTEXT;
    const tracer = this.#ctx.telemetry.tracer;
    return tracer.startActiveSpan(`job ${job.job}`, options, parent, async (span) => {
      try {
        await run();
      } catch (error) {
        span.recordException(error as Error);
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    });
  }

  /**
   * Queues a job again that lost its database connection (a PostgreSQL
   * restart, a failover): its transaction was rolled back, and it runs once
   * the pool has reconnected, as Mastodon retries such jobs.
   */
  async #again(message: JobMessage, error: unknown): Promise<void> {
    const lostConnections = (message.lostConnections ?? 0) + 1;
    if (lostConnections >= MAX_CONNECTION_LOSSES) {
      logger.error(
        "Job {job} lost its database connection {lostConnections} times, dropped: {error}",
        {
          job: message.job,
          lostConnections,
          error,
        },
      );
      return;
    }
    logger.warn("Job {job} lost its database connection, queued again: {error}", {
      job: message.job,
      error,
    });
    const { type: _type, traceContext: _trace, lostConnections: _lost, ...job } = message;
    await recordJob(this.#ctx.database.db, job as Job, {
      delayMs: RETRY_AFTER_LOSS_MS,
      lostConnections,
    })
      .catch((error) =>
        logger.error("Job {job} could not be queued again: {error}", { job: message.job, error })
      );
  }

  listen(
    handler: (message: any) => Promise<void> | void,
    options?: MessageQueueListenOptions,
  ): Promise<void> {
    const signal = options?.signal;
    return this.#inner.listen(async (message) => {
      try {
        if (!isJobMessage(message)) return await handler(message);
        await this.#traced(message, () => this.#run(this.#ctx as AppContext, message, signal));
      } catch (error) {
        if (!isJobMessage(message)) throw error;
        if (signal?.aborted) return;
        if (isConnectionLoss(error)) return await this.#again(message, error);
        logger.warn("Job {job} failed: {error}", { job: message.job, error });
      } finally {
        // Jobs and activities write; this process's next read waits for their cache invalidations.
        this.#ctx.core.writes.mark();
      }
    }, options);
  }
}
