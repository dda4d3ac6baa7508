/**
 * A Fedify message queue kept in our own database table (federation_queue),
 * on PGlite and on PostgreSQL alike.
 *
 * A message stays in the table until its handler has finished: a worker
 * claims it by setting a lease (locked_until, renewed while the handler runs),
 * so a process killed mid-delivery leaves the message to be taken again when
 * the lease runs out, or at once on PGlite, whose single owner process
 * releases stale leases when it starts. (@fedify/postgres 1.8.7, the release
 * our registry has, deletes a message before handling it and ignores
 * ordering keys, so it is not used for the queue.) Several worker processes
 * can share the table: claims use SKIP LOCKED, and on PostgreSQL a NOTIFY
 * wakes idle workers in other processes.
 *
 * Messages that share an ordering key run one at a time, oldest first: that
 * is what applies one actor's inbound activities in order
 * (federation/inbox/order.ts), and one account's jobs. Only the oldest
 * message of a key is `ready`, and workers claim ready messages only, so the
 * messages waiting behind a busy key cost a claim nothing. The worker that
 * finishes a message readies the next one of its key and takes it itself,
 * in the statement that deletes the finished one; a next message that
 * statement could not see yet is readied by the worker's next claim (the
 * same statement as the claim). How a message is written (here, and by
 * commands recording a job in their transaction) is db/queries/queue_rows.ts.
 * A sweep readies what a process that died in between left waiting.
 *
 * A retry keeps its place: a message handed back through {@link keepPlace}
 * while it is being handled (Fedify's retry of it, same `id`) replaces the
 * row, due later, and the later messages of its key go on waiting for it.
 *
 * Deliveries (rows with a host) are claimed on slots of their own, a few per
 * host (delivery_lane.ts): a slow peer holds its own deliveries, not the
 * other peers' nor inbound activities and jobs, which have the other slots.
 * A message that a crash or a lost lease cut off too often is dropped (takeovers.ts).
 */
import type { MessageQueueEnqueueOptions, MessageQueueListenOptions } from "@fedify/fedify";
import { getLogger } from "@logtape/logtape";
import { type SQL, sql } from "drizzle-orm";
import type { Database } from "../../db/connection.ts";
import { executePrepared } from "../../db/queries/prepared.ts";
import {
  deliveryHost,
  type PreparedStatement,
  queueKeyed,
  queueMessages,
} from "../../db/queries/queue_rows.ts";
import { type InboxMarks, markKeyOf } from "./inbox_marks.ts";
import { finishStatement } from "./queue_finish.ts";
import { GENERAL_ROWS, nextRunMs, readyNextOf } from "./queue_reads.ts";
import {
  claimDeliveries,
  DEFAULT_DELIVERY_CONCURRENCY,
  DEFAULT_HOST_CONCURRENCY,
  deliveryRows,
  HostSlots,
} from "./delivery_lane.ts";
import type {
  Claim,
  Claimed,
  Handling,
  Lane,
  LaneName,
  PlaceKeepingQueue,
  QueueSignal,
  Runner,
  SqlMessageQueueOptions,
} from "./queue_shapes.ts";
import { DEFAULT_MAX_TAKEOVERS, TAKEN_OVER, takenOverTooOften } from "./takeovers.ts";

const logger = getLogger(["rookery", "queue"]);

/**
 * How long a claimed message is held. The worker renews the lease every third
 * of it while the handler runs, so a long delivery keeps its claim (only two
 * failed renewals in a row could lose it); a worker that dies stops renewing,
 * and another takes the message at most this long after.
 */
export const DEFAULT_LEASE_MS = 60_000;

/** How often, at most, an idle worker looks for keys whose next message was not readied. */
export const SWEEP_INTERVAL_MS = 30_000;

export type {
  LaneName,
  PlaceKeepingQueue,
  QueueSignal,
  SqlMessageQueueOptions,
} from "./queue_shapes.ts";

/** Fedify's messages carry a random `id` that their retries keep. */
function messageIdOf(message: unknown): string | null {
  const id = message && typeof message === "object" ? (message as { id?: unknown }).id : null;
  return typeof id === "string" ? id : null;
}

export class SqlMessageQueue implements PlaceKeepingQueue {
  readonly nativeRetrial = false;
  readonly #database: Database;
  readonly #leaseMs: number;
  readonly #pollMs: number;
  readonly #concurrency: number;
  readonly #deliveryConcurrency: number;
  readonly #hostSlots: HostSlots;
  readonly #releaseLeasesOnStart: boolean;
  readonly #maxTakeovers: number;
  readonly #signal: QueueSignal | undefined;
  readonly #inboxMarks: InboxMarks | undefined;
  /**
   * Whether a finish statement sees every message of its key queued before
   * it: on PGlite, whose one connection runs one statement (or transaction)
   * at a time. See {@link #finish}.
   */
  readonly #seesEveryEnqueue: boolean;
  /** What this process is handling, by the messages' own `id`. */
  readonly #handling = new Map<string, Handling>();
  /** Keys of the messages this process finished since its last claim (which readies their next). */
  readonly #finishedKeys = new Set<string>();
  /** Wakes the idle loop of `lane`, or of every lane. */
  #wake: ((lane?: string) => void) | null = null;
  #runner: Runner | null = null;
  #sweptAt = 0;

  constructor(database: Database, options: SqlMessageQueueOptions = {}) {
    this.#database = database;
    this.#leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.#pollMs = options.pollMs ?? 1_000;
    this.#concurrency = options.concurrency ?? 8;
    this.#deliveryConcurrency = options.deliveryConcurrency ?? DEFAULT_DELIVERY_CONCURRENCY;
    this.#hostSlots = new HostSlots(options.hostConcurrency ?? DEFAULT_HOST_CONCURRENCY);
    this.#releaseLeasesOnStart = options.releaseLeasesOnStart ?? false;
    this.#maxTakeovers = options.maxTakeovers ?? DEFAULT_MAX_TAKEOVERS;
    this.#signal = options.signal;
    this.#inboxMarks = options.marks;
    this.#seesEveryEnqueue = database.kind === "pglite";
  }

  /** Fedify's activity marks, once their table may be named (inbox_marks.ts). */
  get #marks(): InboxMarks | null {
    return this.#inboxMarks?.enabled ? this.#inboxMarks : null;
  }

  async enqueue(message: unknown, options?: MessageQueueEnqueueOptions): Promise<void> {
    await this.enqueueMany([message], options);
  }

  async enqueueMany(messages: readonly unknown[], options?: MessageQueueEnqueueOptions) {
    if (messages.length === 0) return;
    const delayMs = options?.delay ? Math.max(0, options.delay.total("millisecond")) : 0;
    const runAt = new Date(Date.now() + delayMs);
    const orderingKey = options?.orderingKey ?? null;
    let ready = orderingKey == null;
    if (orderingKey == null) {
      await this.#database.rows(queueMessages(messages, { runAt }));
    } else {
      // One at a time, so each finds the ones before it.
      for (const message of messages) {
        const [row] = await this.#execute<{ ready: boolean }>(
          queueKeyed(message, { orderingKey, runAt }),
        );
        if (row?.ready) ready = true;
      }
    }
    // A message behind others of its key is readied by whoever finishes them.
    if (!ready) return;
    const lane: LaneName = messages.every((m) => deliveryHost(m) != null)
      ? "deliveries"
      : "general";
    this.#wake?.(lane);
    // Workers in other processes sleep until polled or notified; delayed
    // messages are found by polling when they fall due.
    if (this.#signal && delayMs === 0) {
      await this.#signal.notify(lane).catch((error) =>
        logger.warn("Could not notify other workers: {error}", { error })
      );
    }
  }

  /**
   * Queues `message` under `orderingKey` and, when this process runs the
   * queue with a slot of the general lane free and nothing of that key is
   * queued before it, claims it in the same statement and runs it here at
   * once: no wake-up, no claim, no wait for a poll. It is a claimed row
   * like any other: the key's later messages wait for it, a retry keeps its
   * place ({@link keepPlace}), and should this process die its lease runs
   * out and another worker takes it. Otherwise it is queued as
   * {@link enqueue} does. Resolves once the message is stored; its handling
   * goes on meanwhile.
   */
  async enqueueHere(message: unknown, orderingKey: string): Promise<void> {
    const runner = this.#runner;
    const running = runner?.lane.running;
    if (!runner || !running || runner.signal?.aborted || running.size >= runner.lane.limit) {
      return await this.enqueue(message, { orderingKey });
    }
    // A slot is held from now on (so that requests at the same time do not
    // overfill the lane) until the message's handling ends.
    let release = () => {};
    const slot = new Promise<void>((resolve) => release = resolve);
    const done = () => {
      running.delete(slot);
      release();
      // A claim readies what the finish could not (#finish). The free slot
      // alone needs none: the lane claims when a slot frees only if it was
      // full, and then it waits on `running`, which holds this slot.
      if (this.#finishedKeys.size > 0) this.#wake?.(runner.lane.name);
    };
    running.add(slot);
    let row: { id: number | string; claimed: boolean; marked?: boolean | null } | undefined;
    const marks = this.#marks;
    const markKey = marks && markKeyOf(message);
    try {
      [row] = await this.#execute<{ id: number | string; claimed: boolean }>(
        queueKeyed(
          message,
          { orderingKey, runAt: new Date(), claimForMs: this.#leaseMs },
          markKey
            ? { name: marks!.table, sql: marks!.markedKey(), values: marks!.keyValues(markKey) }
            : undefined,
        ),
      );
    } catch (error) {
      done();
      throw error;
    }
    // Behind its key's earlier messages: whoever finishes those readies it.
    if (!row?.claimed) return done();
    if (row.marked != null) marks?.expect(message, row.marked);
    const claimed = { id: Number(row.id), message, key: orderingKey };
    this.#work(claimed, runner.handler, runner.signal).finally(done);
  }

  /**
   * Puts `message` back in the place of the message with the same `id` that
   * this process is handling now (a retry of it), due in `delayMs`: the
   * later messages of its ordering key go on waiting for it. False when no
   * such message is being handled here (the caller then queues it anew).
   */
  keepPlace(message: unknown, delayMs: number): boolean {
    const id = messageIdOf(message);
    const handling = id == null ? undefined : this.#handling.get(id);
    if (!handling) return false;
    handling.retry = { message, runAt: new Date(Date.now() + delayMs) };
    return true;
  }

  /** Runs one of the queue's prepared statements (db/queries/prepared.ts). */
  #execute<T>(statement: PreparedStatement): Promise<T[]> {
    return executePrepared<T>(this.#database.db, statement.name, statement.build, statement.values);
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

  /**
   * Readies the next message of each key this process finished a message
   * of, then claims the next runnable message that is not a delivery, if
   * any: one statement. It
   * runs after the finished messages' deletes were committed, so an enqueue
   * that saw one of them before it went (KEY SHARE) is committed too, and its
   * message is seen. What it readied is claimable from the next claim on.
   */
  async #claim(): Promise<Claim> {
    const keys = [...this.#finishedKeys];
    const marks = this.#marks;
    // NO KEY UPDATE: an enqueue's KEY SHARE read of the same row does not make us skip it.
    const [row] = await this.#database.rows<{
      id: number | string | null;
      message: unknown;
      ordering_key: string | null;
      takeovers: number;
      readied: number;
      marked: boolean | null;
      next_ms: number | null;
    }>(sql`
      WITH readied AS (${readyNextOf(keys)}),
      claimed AS (
        UPDATE federation_queue
        SET locked_until = now() + ${this.#leaseMs} * interval '1 millisecond', ${TAKEN_OVER}
        WHERE id = (
          SELECT id FROM federation_queue
          WHERE ready AND run_at <= now() AND (locked_until IS NULL OR locked_until < now())
            AND host IS NULL
          ORDER BY run_at, id
          LIMIT 1
          FOR NO KEY UPDATE SKIP LOCKED)
        RETURNING id, message, ordering_key, takeovers)
      SELECT c.id, c.message, c.ordering_key, c.takeovers,
        (SELECT count(*) FROM readied)::int AS readied,
        ${marks ? marks.markedOf(sql`c.message`) : sql`NULL::boolean`} AS marked,
        (${nextRunMs(GENERAL_ROWS)}) AS next_ms
      FROM (SELECT 1) AS one LEFT JOIN claimed c ON true`);
    for (const key of keys) this.#finishedKeys.delete(key);
    if (row?.id != null && row.marked != null) marks?.expect(row.message, row.marked);
    const claimed = row?.id == null ? [] : [{
      id: Number(row.id),
      message: row.message,
      key: row.ordering_key,
      takeovers: row.takeovers,
    }];
    // When it claimed nothing, the lane sleeps until the next message falls
    // due, which the same statement told (a round trip less when idle).
    return { claimed, readied: row?.readied ?? 0, nextMs: row?.next_ms ?? null };
  }

  /**
   * Readies as {@link #claim} does, and claims up to `free` due deliveries,
   * no host beyond its share of the slots (delivery_lane.ts).
   */
  async #claimDeliveries(free: number): Promise<Claim> {
    const keys = [...this.#finishedKeys];
    const rows = await this.#database.rows<{
      id: number | string | null;
      message: unknown;
      ordering_key: string | null;
      host: string | null;
      takeovers: number;
      readied: number;
    }>(sql`
      WITH readied AS (${readyNextOf(keys)}),
      ${claimDeliveries(this.#hostSlots, free, this.#leaseMs)}
      SELECT c.id, c.message, c.ordering_key, c.host, c.takeovers,
        (SELECT count(*) FROM readied)::int AS readied
      FROM (SELECT 1) AS one LEFT JOIN claimed c ON true`);
    for (const key of keys) this.#finishedKeys.delete(key);
    const claimed = rows.filter((r) => r.id != null).map((r) => ({
      id: Number(r.id),
      message: r.message,
      key: r.ordering_key,
      host: r.host,
      takeovers: r.takeovers,
    }));
    return { claimed, readied: rows[0]?.readied ?? 0 };
  }

  /**
   * Ends a handled message: keeps its place for a retry, or deletes it.
   * With `handOff`, the next message of its key is readied and, when due
   * and no older message waits (the claim's order), claimed in the same
   * statement and returned, for this worker to handle next: a busy actor's
   * activities cost one statement each between them.
   * When that statement sees no next message (none, or one whose enqueue
   * was committed meanwhile), the next claim readies it. On PGlite it
   * cannot miss one: an enqueue ran either before it, and is seen, or
   * after it, and found the key free (queued ready); so no claim is asked
   * for there, which was two statements more for every inbound activity
   * (the claim and the idle lane's look at the next due message).
   */
  async #finish(handling: Handling, handOff: boolean): Promise<Claimed | null> {
    const { id, key, retry, mark } = handling;
    const marks = this.#marks;
    if (retry) {
      await this.#database.rows(sql`
        UPDATE federation_queue SET message = ${JSON.stringify(retry.message)}::jsonb,
          run_at = ${retry.runAt.toISOString()}::timestamptz, locked_until = NULL
        WHERE id = ${id}`);
      // Due later, in its place: the lanes wait for it.
      this.#wake?.();
      return null;
    }
    if (key == null || !handOff) {
      await this.#execute(finishStatement({ id, key: null, leaseMs: this.#leaseMs, mark, marks }));
      if (key != null) this.#finishedKeys.add(key);
      return null;
    }
    const [next] = await this.#execute<
      { id: number | string; message: unknown; claimed: boolean; marked: boolean | null }
    >(finishStatement({ id, key, leaseMs: this.#leaseMs, mark, marks }));
    if (!next && !this.#seesEveryEnqueue) this.#finishedKeys.add(key);
    if (!next?.claimed) {
      // Readied, not due yet or behind older ready messages: the lanes claim it.
      if (next) this.#wake?.();
      return null;
    }
    if (next.marked != null) marks?.expect(next.message, next.marked, mark);
    return { id: Number(next.id), message: next.message, key };
  }

  /** Readies what this process finished last, when it stops claiming. */
  async #readyFinished(): Promise<void> {
    const keys = [...this.#finishedKeys];
    if (keys.length === 0) return;
    await this.#database.rows(sql`WITH readied AS (${readyNextOf(keys)}) SELECT 1`)
      .then(() => keys.forEach((key) => this.#finishedKeys.delete(key)))
      .catch((error) => logger.warn("Could not ready queued messages: {error}", { error }));
  }

  /**
   * Readies the oldest message of every key that has none ready (a process
   * died between finishing a message and readying the next), and messages
   * without a key that an older process queued.
   */
  async #sweep(): Promise<void> {
    this.#sweptAt = Date.now();
    await this.#database.rows(sql`
      UPDATE federation_queue q SET ready = true
      WHERE NOT q.ready AND (q.ordering_key IS NULL OR (
        NOT EXISTS (SELECT 1 FROM federation_queue p
          WHERE p.ordering_key = q.ordering_key AND p.id < q.id)
        AND NOT EXISTS (SELECT 1 FROM federation_queue r
          WHERE r.ordering_key = q.ordering_key AND r.ready)))`).catch((error) =>
      logger.warn("Could not sweep the queue: {error}", { error })
    );
  }

  /** How long until one of `rows` (a lane's) may be claimed, at most the poll interval. */
  async #nextRunDelay(rows: SQL): Promise<number> {
    const [row] = await this.#database.rows<{ ms: number | null }>(sql`${nextRunMs(rows)}`);
    return this.#delayOf(row?.ms ?? null);
  }

  /** A wait of `ms` (null: nothing queued), within the poll interval. */
  #delayOf(ms: number | null): number {
    if (ms == null) return this.#pollMs;
    return Math.min(this.#pollMs, Math.max(10, Math.ceil(ms)));
  }

  /**
   * Handles a claimed message, then the next of its key while they are
   * handed over (#finish), until the worker stops.
   */
  async #work(
    first: Claimed,
    handler: (message: any) => Promise<void> | void,
    signal?: AbortSignal,
  ): Promise<void> {
    let claimed: Claimed | null = first;
    while (claimed) {
      const handling = await this.#run(claimed, handler);
      claimed = await this.#finish(handling, !signal?.aborted).catch((error) => {
        logger.error("Could not finish queued message {id}: {error}", { id: handling.id, error });
        // Left claimed until its lease runs out: the lanes look again then.
        this.#wake?.();
        return null;
      });
    }
  }

  /** Runs the handler on a claimed message, holding its lease meanwhile. */
  async #run(
    claimed: Claimed,
    handler: (message: any) => Promise<void> | void,
  ): Promise<Handling> {
    const { id, message, key } = claimed;
    const handling: Handling = { id, key };
    // Cut off too often: not run again (#finish deletes it).
    if (takenOverTooOften(claimed, this.#maxTakeovers)) return handling;
    const messageId = messageIdOf(message);
    if (messageId != null) this.#handling.set(messageId, handling);
    // Renew the lease while the handler runs, so a slow delivery is not
    // taken over by another worker.
    const renew = setInterval(() => {
      this.#database.rows(sql`UPDATE federation_queue
        SET locked_until = now() + ${this.#leaseMs} * interval '1 millisecond'
        WHERE id = ${id}`).catch((error) =>
        logger.warn("Could not renew the lease of queued message {id}: {error}", { id, error })
      );
    }, Math.max(1_000, this.#leaseMs / 3));
    try {
      await handler(message);
    } catch (error) {
      // Fedify retries by enqueueing again; a throw here is a bug to log.
      logger.error("Queued message {id} failed: {error}", { id, error });
    } finally {
      clearInterval(renew);
      handling.mark = this.#inboxMarks?.settle(message) ?? null;
      if (messageId != null && this.#handling.get(messageId) === handling) {
        this.#handling.delete(messageId);
      }
    }
    return handling;
  }

  /**
   * Claims and handles messages until `options.signal` is aborted, in two
   * lanes with slots of their own: inbound activities and jobs
   * (`concurrency`), and deliveries (`deliveryConcurrency`, at most
   * `hostConcurrency` to one host; delivery_lane.ts).
   */
  async listen(
    handler: (message: any) => Promise<void> | void,
    options: MessageQueueListenOptions = {},
  ): Promise<void> {
    const signal = options.signal;
    await this.#inboxMarks?.prepare();
    if (this.#releaseLeasesOnStart) {
      // Each was cut off by this process's predecessor: one takeover (the claim counts no more).
      await this.#database.rows(sql`UPDATE federation_queue
        SET locked_until = NULL, takeovers = takeovers + 1
        WHERE locked_until IS NOT NULL`);
    }
    await this.#sweep();
    const slots = this.#hostSlots;
    const lanes: Lane[] = [{
      name: "general",
      limit: this.#concurrency,
      claim: () => this.#claim(),
      run: (_, work) => work(),
      rows: () => GENERAL_ROWS,
      running: new Set(),
    }, {
      name: "deliveries",
      limit: this.#deliveryConcurrency,
      claim: (free) => this.#claimDeliveries(free),
      run: (claimed, work) => slots.hold(claimed.host ?? "", work),
      rows: () => deliveryRows(slots),
      running: new Set(),
    }];
    this.#runner = { handler, signal, lane: lanes[0] };
    const wakers = new Map<LaneName, () => void>();
    this.#wake = (lane) => {
      for (const [name, wake] of wakers) if (!lane || lane === name) wake();
    };
    const onAbort = () => this.#wake?.();
    signal?.addEventListener("abort", onAbort);
    const unsubscribe = this.#signal
      ? await this.#signal.subscribe((payload) => this.#wake?.(payload))
      : null;
    try {
      await Promise.all(lanes.map((lane) => this.#serve(lane, handler, wakers, signal)));
      await this.#readyFinished();
    } finally {
      signal?.removeEventListener("abort", onAbort);
      await unsubscribe?.().catch(() => {});
      this.#wake = null;
      this.#runner = null;
    }
  }

  /** One lane's loop: claims while it has free slots, sleeps until woken or due. */
  async #serve(
    lane: Lane,
    handler: (message: any) => Promise<void> | void,
    wakers: Map<LaneName, () => void>,
    signal?: AbortSignal,
  ): Promise<void> {
    const running = lane.running;
    let wakeResolve: (() => void) | null = null;
    const wake = () => wakeResolve?.();
    wakers.set(lane.name, wake);
    try {
      while (!signal?.aborted) {
        if (running.size >= lane.limit) {
          await Promise.race(running);
          // The other handlers finishing in this turn of the event loop free
          // their slots too, so one claim fills several (a busy lane's
          // deliveries end by the dozen).
          await new Promise((resolve) => setTimeout(resolve, 0));
          continue;
        }
        let claim: Claim = { claimed: [], readied: 0 };
        try {
          claim = await lane.claim(lane.limit - running.size);
        } catch (error) {
          if (signal?.aborted) break;
          logger.error("Could not claim a queued message: {error}", { error });
        }
        for (const claimed of claim.claimed) {
          const task = lane.run(claimed, () => this.#work(claimed, handler, signal));
          running.add(task);
          // A slot is free (and a finished key's next message may want readying).
          task.finally(() => {
            running.delete(task);
            wake();
          });
        }
        // What it readied is claimable from this claim on, by either lane.
        if (claim.readied > 0) this.#wake?.();
        if (claim.claimed.length > 0 || claim.readied > 0) continue;
        let swept = false;
        if (Date.now() - this.#sweptAt >= SWEEP_INTERVAL_MS) {
          await this.#sweep();
          swept = true;
        }
        // What a sweep readied is not in the claim's look: asked again then.
        const wait = claim.nextMs !== undefined && !swept
          ? this.#delayOf(claim.nextMs)
          : await this.#nextRunDelay(lane.rows()).catch(() => this.#pollMs);
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
      wakers.delete(lane.name);
    }
  }
}
