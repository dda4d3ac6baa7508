/**
 * A Fedify message queue kept in our own database table (federation_queue),
 * on PGlite and on PostgreSQL alike.
 *
 * A message stays in the table until its handler has finished: a worker
 * claims it by setting a lease (locked_until, renewed while the handler runs),
 * so a process killed mid-delivery leaves the message to be taken again when
 * the lease runs out, or at once on PGlite, whose single owner process
 * releases stale leases when it starts. Messages that share an ordering key
 * run one at a time, oldest first: that is what applies one actor's
 * activities in order. (@fedify/postgres 1.8.7, the release our registry
 * has, deletes a message before handling it and ignores ordering keys, so
 * it is not used for the queue.) Several worker processes can share the
 * table: claims use FOR UPDATE SKIP LOCKED, and on PostgreSQL a NOTIFY wakes
 * idle workers in other processes.
 */
import type {
  MessageQueue,
  MessageQueueEnqueueOptions,
  MessageQueueListenOptions,
} from "@fedify/fedify";
import { getLogger } from "@logtape/logtape";
import { sql } from "drizzle-orm";
import type { Database } from "../../db/connection.ts";

const logger = getLogger(["rookery", "queue"]);

/**
 * How long a claimed message is held. The worker renews the lease every third
 * of it while the handler runs, so a long delivery keeps its claim (only two
 * failed renewals in a row could lose it); a worker that dies stops renewing,
 * and another takes the message at most this long after.
 */
export const DEFAULT_LEASE_MS = 60_000;

export interface SqlMessageQueueOptions {
  /** How long a claimed message is held before another worker may retry it ({@link DEFAULT_LEASE_MS}). */
  leaseMs?: number;
  /** Longest wait between polls when nothing wakes the worker. */
  pollMs?: number;
  /** Handlers run at once. */
  concurrency?: number;
  /**
   * Release every lease when listening starts. Right when this process is
   * the only consumer (PGlite): a lease left over is from a killed process.
   */
  releaseLeasesOnStart?: boolean;
  /** Cross-process wake-ups (PostgreSQL LISTEN/NOTIFY); absent on PGlite. */
  signal?: QueueSignal;
}

/** Wakes idle workers in other processes when messages are enqueued. */
export interface QueueSignal {
  notify(): Promise<void>;
  /** Calls `wake` on every notification; resolves to an unsubscribe function. */
  subscribe(wake: () => void): Promise<() => Promise<void>>;
}

export class SqlMessageQueue implements MessageQueue {
  readonly nativeRetrial = false;
  readonly #database: Database;
  readonly #leaseMs: number;
  readonly #pollMs: number;
  readonly #concurrency: number;
  readonly #releaseLeasesOnStart: boolean;
  readonly #signal: QueueSignal | undefined;
  #wake: (() => void) | null = null;

  constructor(database: Database, options: SqlMessageQueueOptions = {}) {
    this.#database = database;
    this.#leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.#pollMs = options.pollMs ?? 1_000;
    this.#concurrency = options.concurrency ?? 8;
    this.#releaseLeasesOnStart = options.releaseLeasesOnStart ?? false;
    this.#signal = options.signal;
  }

  async enqueue(message: unknown, options?: MessageQueueEnqueueOptions): Promise<void> {
    await this.enqueueMany([message], options);
  }

  async enqueueMany(messages: readonly unknown[], options?: MessageQueueEnqueueOptions) {
    if (messages.length === 0) return;
    const delayMs = options?.delay ? Math.max(0, options.delay.total("millisecond")) : 0;
    const runAt = new Date(Date.now() + delayMs);
    const key = options?.orderingKey ?? null;
    const values = messages.map((m) =>
      sql`(${JSON.stringify(m)}::jsonb, ${key}, ${runAt.toISOString()}::timestamptz)`
    );
    await this.#database.rows(sql`
      INSERT INTO federation_queue (message, ordering_key, run_at)
      VALUES ${sql.join(values, sql`, `)}`);
    this.#wake?.();
    // Workers in other processes sleep until polled or notified; delayed
    // messages are found by polling when they fall due.
    if (this.#signal && delayMs === 0) {
      await this.#signal.notify().catch((error) =>
        logger.warn("Could not notify other workers: {error}", { error })
      );
    }
  }

  async getDepth() {
    const [row] = await this.#database.rows<{ queued: number; ready: number; delayed: number }>(
      sql`SELECT count(*)::int AS queued,
        count(*) FILTER (WHERE run_at <= now())::int AS ready,
        count(*) FILTER (WHERE run_at > now())::int AS delayed
      FROM federation_queue`,
    );
    return row;
  }

  /** Claims the next runnable message, if any. */
  async #claim(): Promise<{ id: number; message: unknown } | null> {
    const rows = await this.#database.rows<{ id: number | string; message: unknown }>(sql`
      UPDATE federation_queue SET locked_until = now() + ${this.#leaseMs} * interval '1 millisecond'
      WHERE id = (
        SELECT q.id FROM federation_queue q
        WHERE q.run_at <= now() AND (q.locked_until IS NULL OR q.locked_until < now())
          AND (q.ordering_key IS NULL OR NOT EXISTS (
            SELECT 1 FROM federation_queue p
            WHERE p.ordering_key = q.ordering_key AND p.id < q.id))
        ORDER BY q.run_at, q.id
        LIMIT 1
        FOR UPDATE SKIP LOCKED)
      RETURNING id, message`);
    if (rows.length === 0) return null;
    return { id: Number(rows[0].id), message: rows[0].message };
  }

  async #nextRunDelay(): Promise<number> {
    const [row] = await this.#database.rows<{ ms: number | null }>(sql`
      SELECT (extract(epoch FROM min(greatest(run_at, coalesce(locked_until, run_at)) - now()))
        * 1000)::float8 AS ms
      FROM federation_queue`);
    if (row?.ms == null) return this.#pollMs;
    return Math.min(this.#pollMs, Math.max(10, Math.ceil(row.ms)));
  }

  async listen(
    handler: (message: any) => Promise<void> | void,
    options: MessageQueueListenOptions = {},
  ): Promise<void> {
    const signal = options.signal;
    if (this.#releaseLeasesOnStart) {
      await this.#database.rows(sql`UPDATE federation_queue SET locked_until = NULL
        WHERE locked_until IS NOT NULL`);
    }
    const running = new Set<Promise<void>>();
    let wakeResolve: (() => void) | null = null;
    this.#wake = () => wakeResolve?.();
    const onAbort = () => wakeResolve?.();
    signal?.addEventListener("abort", onAbort);
    const unsubscribe = this.#signal ? await this.#signal.subscribe(() => wakeResolve?.()) : null;
    try {
      while (!signal?.aborted) {
        if (running.size >= this.#concurrency) {
          await Promise.race(running);
          continue;
        }
        let claimed: { id: number; message: unknown } | null = null;
        try {
          claimed = await this.#claim();
        } catch (error) {
          if (signal?.aborted) break;
          logger.error("Could not claim a queued message: {error}", { error });
        }
        if (claimed) {
          const { id, message } = claimed;
          const task = (async () => {
            // Renew the lease while the handler runs, so a slow delivery is
            // not taken over by another worker.
            const renew = setInterval(() => {
              this.#database.rows(sql`UPDATE federation_queue
                SET locked_until = now() + ${this.#leaseMs} * interval '1 millisecond'
                WHERE id = ${id}`).catch((error) =>
                logger.warn("Could not renew the lease of queued message {id}: {error}", {
                  id,
                  error,
                })
              );
            }, Math.max(1_000, this.#leaseMs / 3));
            try {
              await handler(message);
            } catch (error) {
              // Fedify retries by enqueueing again; a throw here is a bug to log.
              logger.error("Queued message {id} failed: {error}", { id, error });
            } finally {
              clearInterval(renew);
            }
            try {
              await this.#database.rows(sql`DELETE FROM federation_queue WHERE id = ${id}`);
            } catch (error) {
              logger.error("Could not remove queued message {id}: {error}", { id, error });
            }
            this.#wake?.();
          })();
          running.add(task);
          task.finally(() => running.delete(task));
          continue;
        }
        const wait = await this.#nextRunDelay().catch(() => this.#pollMs);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, wait);
          wakeResolve = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wakeResolve = null;
      }
      await Promise.allSettled(running);
    } finally {
      signal?.removeEventListener("abort", onAbort);
      await unsubscribe?.().catch(() => {});
      this.#wake = null;
    }
  }
}
