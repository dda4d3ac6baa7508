/**
 * The relay of the transactional outbox: hands the intents commands recorded
 * (actors/outbox/deliveries.ts) to the Outbox, which builds each activity from the
 * stored rows and queues it on Fedify's queue, then deletes the intent.
 *
 * Delivery is at least once: an intent is deleted only after its method
 * returned, so a crash after the enqueue and before the delete relays it
 * again; activity ids are stable (built from stored rows and recorded ids),
 * so receivers drop the copy. Two paths run it:
 * - the fast path: every process listens for the NOTIFY an intent sends at
 *   commit and relays at once when the intent is its own (PROCESS_TOKEN),
 *   so deliveries are not delayed;
 * - the sweep: worker processes relay at start-up, and then whenever an
 *   intent falls due, whatever a crash, a failed enqueue (retried with
 *   backoff) or a process without a worker left behind.
 * Claims set a lease (locked_until) with FOR UPDATE SKIP LOCKED, as the
 * queue does (federation/stores/sql_queue.ts), so two processes never relay
 * the same intent at once. The lease is short and renewed while a batch is
 * relayed, so what a process that died held is taken again within
 * {@link LEASE_MS}; on PGlite, whose single owner process is the only relay,
 * leases left over are released at start.
 */
import { sql } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { Database } from "../../db/connection.ts";
import type { ChannelListener } from "../../db/channel_listener.ts";
import type { Outbox } from "../../actors/outbox/mod.ts";
import { OUTBOX_CHANNEL, PROCESS_TOKEN } from "../../actors/outbox/deliveries.ts";

const logger = getLogger(["rookery", "federation", "outbox", "relay"]);

/** How long a claim holds; renewed every third of it while the batch is relayed. */
export const LEASE_MS = 15_000;
/** Intents claimed at once. */
const BATCH = 50;
/** Longest wait between sweeps when nothing falls due sooner. */
const SWEEP_MS = 30_000;
/** Backoff after a failure: 2 s, 4 s, 8 s… up to this. */
const MAX_BACKOFF_S = 600;

interface IntentRow {
  id: string;
  method: string;
  args: unknown;
  attempts: number;
}

export interface OutboxRelay {
  /** Relays what is due now; resolves when this pass is done. */
  relay(): Promise<void>;
  /** Runs the sweep (worker processes): now, then whenever an intent falls due. */
  startSweep(): void;
  stop(): Promise<void>;
}

/** Calls the Outbox method an intent names, with its recorded arguments. */
async function call(outbox: Outbox, intent: IntentRow): Promise<void> {
  if (!Object.hasOwn(outbox, intent.method)) {
    throw new Error(`Unknown outbox method ${intent.method}`);
  }
  const method = outbox[intent.method as keyof Outbox] as (...args: unknown[]) => Promise<void>;
  const args = Array.isArray(intent.args) ? intent.args : [];
  await method.apply(outbox, args);
}

/** Creates the relay of a process and starts its fast path (listening for its own intents). */
export function createOutboxRelay(
  database: Database,
  listener: ChannelListener,
  outbox: Outbox,
  options: { releaseLeasesOnStart?: boolean } = {},
): OutboxRelay {
  return new ProcessRelay(database, listener, outbox, options.releaseLeasesOnStart ?? false);
}

/** A process's relay: the fast path from its construction, the sweep once started. */
class ProcessRelay implements OutboxRelay {
  readonly #database: Database;
  readonly #outbox: Outbox;
  #running: Promise<void> | null = null;
  #again = false;
  #stopped = false;
  #sweepTimer: ReturnType<typeof setTimeout> | null = null;
  #sweepAt = 0;
  #sweeping = false;
  #stopListening: (() => Promise<void>) | null = null;
  /** Settles once leases a dead owner left are released (PGlite only). */
  readonly #released: Promise<void>;
  /** Settles once the fast path listens (or could not). */
  readonly #listening: Promise<void>;

  constructor(
    database: Database,
    listener: ChannelListener,
    outbox: Outbox,
    releaseLeasesOnStart: boolean,
  ) {
    this.#database = database;
    this.#outbox = outbox;
    // Leases a dead owner left (PGlite only: this process is the only relay).
    this.#released = releaseLeasesOnStart
      ? database.rows(sql`UPDATE outbox_intents SET locked_until = NULL
          WHERE locked_until IS NOT NULL`).then(() => {}, () => {})
      : Promise.resolve();
    const onNotify = (payload: string) => {
      if (payload === PROCESS_TOKEN && !this.#stopped) this.relay();
    };
    this.#listening = this.#released.then(() => listener.listen(OUTBOX_CHANNEL, onNotify)).then(
      async (unlisten) => {
        if (this.#stopped) return await unlisten();
        this.#stopListening = unlisten;
        // Intents written before the listener was ready are this process's too.
        this.relay();
      },
    ).catch((error) => logger.warn("Outbox relay cannot listen: {error}", { error }));
  }

  relay(): Promise<void> {
    if (this.#running) {
      // A pass is under way; the intent just committed may have been missed.
      this.#again = true;
      return this.#running;
    }
    this.#running = (async () => {
      do {
        this.#again = false;
        try {
          await this.#pass();
        } catch (error) {
          if (!this.#stopped) logger.warn("Outbox relay failed: {error}", { error });
        }
      } while (this.#again && !this.#stopped);
    })().finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  startSweep(): void {
    if (this.#sweeping) return;
    this.#sweeping = true;
    this.#released.then(() => this.#sweep());
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#sweepTimer) clearTimeout(this.#sweepTimer);
    // A listen still being set up is closed when it completes (bounded wait).
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([this.#listening, new Promise((r) => timer = setTimeout(r, 5_000))]);
    clearTimeout(timer);
    await this.#running;
    await this.#stopListening?.().catch(() => {});
  }

  /** Brings the next sweep forward to at most `ms` from now (a retry fell due sooner). */
  #sweepWithin(ms: number): void {
    if (!this.#sweeping || this.#stopped || !this.#sweepTimer) return;
    if (this.#sweepAt <= Date.now() + ms) return;
    clearTimeout(this.#sweepTimer);
    this.#sweepAt = Date.now() + ms;
    this.#sweepTimer = setTimeout(() => this.#sweep(), ms);
  }

  async #claim(): Promise<IntentRow[]> {
    return await this.#database.rows<IntentRow>(sql`
      UPDATE outbox_intents SET locked_until = now() + ${LEASE_MS} * interval '1 millisecond'
      WHERE id IN (
        SELECT id FROM outbox_intents
        WHERE next_attempt_at <= now() AND (locked_until IS NULL OR locked_until < now())
        ORDER BY id
        LIMIT ${BATCH}
        FOR UPDATE SKIP LOCKED)
      RETURNING id::text AS id, method, args, attempts`);
  }

  /** One pass: claims and relays batches until none is left or one fails. */
  async #pass(): Promise<void> {
    while (!this.#stopped) {
      const claimed = (await this.#claim()).sort((x, y) => (BigInt(x.id) < BigInt(y.id) ? -1 : 1));
      if (claimed.length === 0) return;
      let next = 0;
      // A large fan-out can take a while: keep the rest of the batch ours.
      const renew = setInterval(() => {
        const held = claimed.slice(next).map((r) => sql`${r.id}::bigint`);
        if (held.length === 0) return;
        this.#database.rows(sql`UPDATE outbox_intents
          SET locked_until = now() + ${LEASE_MS} * interval '1 millisecond'
          WHERE id IN (${sql.join(held, sql`, `)})`).catch((error) =>
          logger.warn("Could not renew outbox leases: {error}", { error })
        );
      }, LEASE_MS / 3);
      try {
        if (!await this.#relayBatch(claimed, (i) => next = i)) return;
      } finally {
        clearInterval(renew);
      }
      if (claimed.length < BATCH) return;
    }
  }

  /** Relays a claimed batch in order; false when one failed (the rest was released). */
  async #relayBatch(claimed: IntentRow[], at: (i: number) => void): Promise<boolean> {
    for (let i = 0; i < claimed.length; i++) {
      at(i);
      const intent = claimed[i];
      try {
        await call(this.#outbox, intent);
      } catch (error) {
        await this.#retryLater(intent, claimed.slice(i + 1), error);
        return false;
      }
      await this.#database.rows(sql`DELETE FROM outbox_intents WHERE id = ${intent.id}`);
    }
    return true;
  }

  /**
   * Keeps the order of what follows a failed intent (a Delete must not
   * overtake its Create): the intent is retried after a backoff and the rest
   * of its batch released.
   */
  async #retryLater(intent: IntentRow, rest: IntentRow[], error: unknown): Promise<void> {
    const attempts = intent.attempts + 1;
    const backoff = Math.min(MAX_BACKOFF_S, 2 ** attempts);
    logger.warn(
      "Could not relay {method} (intent {id}, attempt {attempts}); retrying in {backoff} s: {error}",
      { method: intent.method, id: intent.id, attempts, backoff, error },
    );
    await this.#database.rows(sql`UPDATE outbox_intents
        SET attempts = ${attempts}, locked_until = NULL,
          next_attempt_at = now() + ${backoff} * interval '1 second'
        WHERE id = ${intent.id}`);
    this.#sweepWithin(backoff * 1000);
    const ids = rest.map((r) => sql`${r.id}::bigint`);
    if (ids.length) {
      await this.#database.rows(sql`UPDATE outbox_intents SET locked_until = NULL
          WHERE id IN (${sql.join(ids, sql`, `)})`);
    }
  }

  /** Milliseconds until the next intent falls due (or its lease ends), capped. */
  async #nextDue(): Promise<number> {
    const [row] = await this.#database.rows<{ ms: number | null }>(sql`
      SELECT (extract(epoch FROM min(greatest(next_attempt_at, coalesce(locked_until,
        next_attempt_at)) - now())) * 1000)::float8 AS ms
      FROM outbox_intents`);
    if (row?.ms == null) return SWEEP_MS;
    return Math.min(SWEEP_MS, Math.max(100, Math.ceil(row.ms)));
  }

  async #sweep(): Promise<void> {
    this.#sweepTimer = null;
    if (this.#stopped) return;
    await this.relay();
    const wait = await this.#nextDue().catch(() => SWEEP_MS);
    if (this.#stopped) return;
    this.#sweepAt = Date.now() + wait;
    this.#sweepTimer = setTimeout(() => this.#sweep(), wait);
  }
}
