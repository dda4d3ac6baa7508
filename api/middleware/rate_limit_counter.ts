/**
 * The shared counters behind the rate limits, without a database write per
 * request on the common path, and exact at the limit across processes.
 *
 * A counter row (`rate_limit_counters`, one per bucket and window) counts
 * *grants*: requests admitted plus quota a process has reserved ahead (a
 * lease). The row is only ever raised by a conditional upsert that keeps it
 * at or under the limit, so no more than `limit` requests are ever admitted
 * in a window, whatever the number of processes.
 *
 * - A process's first request for a bucket in a window counts exactly one
 *   (the headers of a quiet client stay exact).
 * - Far from the limit the next trip reserves a lease (up to MAX_LEASE
 *   requests, a quarter of the room left) that the process then admits
 *   locally, without a write: one write per lease instead of per request.
 *   Leases are only granted while the row stays under `limit - syncZone`.
 * - In the last `syncZone` requests of the window every request is a
 *   synchronous, conditional increment by one.
 * - Quota leased by a process but unused could make another process refuse
 *   early at the boundary. Each process therefore polls (a read) the rows it
 *   holds leases on and gives the unused part back as soon as a row enters
 *   the sync zone; a refused request on a shared server waits for one such
 *   round before it is answered 429, and is granted if room was given back.
 *
 * Small limits (media, deletions, sign-ups, sign-ins) are always counted
 * synchronously: they are rare and leases would gain nothing. On PGlite the
 * server is the only process, so there is nobody to wait for.
 */
import { sql } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { Database } from "../../db/connection.ts";

const logger = getLogger(["rookery", "http", "rate-limit"]);

/** One limit: at most `limit` requests per `periodSeconds`. */
export interface RateLimit {
  readonly name: string;
  readonly limit: number;
  readonly periodSeconds: number;
}

/** A bucket a request counts against. */
export interface Bucket {
  rule: RateLimit;
  /** Who is counted (account id, IP, login). */
  subject: string;
}

/** The state of a bucket after counting a request. */
export interface BucketState extends Bucket {
  /** Requests counted in the window, this one included (over the limit when refused). */
  count: number;
  resetAt: Date;
}

/** Limits under this are counted synchronously, request by request. */
const MIN_LEASED_LIMIT = 100;
/** The most a process reserves at once. */
const MAX_LEASE = 50;
/** How often a process checks the rows it holds leases on. */
const POLL_MS = 150;
/** How long a refusal waits for other processes to give back leases. */
const REFUSAL_WAIT_MS = 3 * POLL_MS;

/** End of the epoch-aligned window that contains `now`. */
export function windowEnd(rule: RateLimit, now: Date): Date {
  const periodMs = rule.periodSeconds * 1000;
  return new Date((Math.floor(now.getTime() / periodMs) + 1) * periodMs);
}

/** The last requests of a window, counted one by one. */
export function syncZone(limit: number): number {
  return Math.ceil(limit / 20);
}

/** The grant size to ask for, given the last count this process saw. */
function wanted(rule: RateLimit, known: number): number {
  if (rule.limit < MIN_LEASED_LIMIT) return 1;
  const lease = Math.min(MAX_LEASE, Math.floor((rule.limit - syncZone(rule.limit) - known) / 4));
  return lease >= 2 ? lease : 1;
}

interface KeyState {
  rule: RateLimit;
  resetAt: number;
  /** The row's count as last seen (it includes this process's unused lease). */
  known: number;
  /** Requests this process may still admit without asking. */
  unused: number;
}

interface Trip {
  key: string;
  rule: RateLimit;
  want: number;
  resetAt: Date;
  /** Already refused once and waited for leases to come back. */
  waited?: boolean;
}

function keyOf(bucket: Bucket): string {
  return `${bucket.rule.name}:${bucket.subject}`;
}

/** One process's view of the counters of one database. */
export class RateLimitCounter {
  readonly #database: Database;
  readonly #states = new Map<string, KeyState>();
  /** Trips under way, by key: concurrent requests wait for them, not trip too. */
  readonly #inflight = new Map<string, Promise<void>>();
  #poller: ReturnType<typeof setTimeout> | null = null;
  #closed = false;
  /** Statements that wrote counter rows: for tests and the benchmark. */
  writes = 0;
  /**
   * The limiter's clock. Tests pin it so that a burst of requests does not
   * straddle a window boundary; nothing else should touch it.
   */
  clock: () => Date = () => new Date();
  /** When finished windows were last deleted (rate_limit.ts), in ms. */
  lastPurge: number | null = null;

  constructor(database: Database) {
    this.#database = database;
  }

  /** Counts one request in every bucket and returns their states. */
  async count(buckets: Bucket[], now: Date): Promise<BucketState[]> {
    // Without this, 32 concurrent requests of one client that find no quota
    // left would each reserve a lease of their own.
    for (;;) {
      const pending = buckets.map(keyOf).filter((key) =>
        this.#inflight.has(key) && !((this.#states.get(key)?.unused ?? 0) > 0)
      );
      if (pending.length === 0) break;
      await Promise.all(pending.map((key) => this.#inflight.get(key)));
    }
    const results = new Map<string, BucketState>();
    const trips: Trip[] = [];
    for (const bucket of buckets) {
      const key = keyOf(bucket);
      const resetAt = windowEnd(bucket.rule, now);
      let state = this.#states.get(key);
      if (state && state.resetAt !== resetAt.getTime()) {
        this.#states.delete(key);
        state = undefined;
      }
      if (state && state.unused > 0) {
        state.unused--;
        results.set(key, { ...bucket, count: state.known - state.unused, resetAt });
      } else {
        const want = state ? wanted(bucket.rule, state.known) : 1;
        trips.push({ key, rule: bucket.rule, want, resetAt });
      }
    }
    const answer = () => buckets.map((b) => ({ ...results.get(keyOf(b))!, subject: b.subject }));
    if (trips.length === 0) return answer();
    let done = () => {};
    const inflight = new Promise<void>((resolve) => done = resolve);
    const mine = trips.map((t) => t.key);
    for (const key of mine) this.#inflight.set(key, inflight);
    try {
      await this.#travel(trips, results);
    } finally {
      for (const key of mine) if (this.#inflight.get(key) === inflight) this.#inflight.delete(key);
      done();
    }
    this.#schedulePoll();
    return answer();
  }

  /** Asks the database for the grants the local quota could not give. */
  async #travel(trips: Trip[], results: Map<string, BucketState>): Promise<void> {
    // A lease refused for want of room is asked again as a single request;
    // a single request refused waits once for leases to come back.
    while (trips.length > 0) {
      const granted = await this.#grant(trips);
      const retry: Trip[] = [];
      let wait = false;
      for (const trip of trips) {
        const count = granted.get(trip.key);
        if (count !== undefined) {
          // Concurrent requests of this process may have leased too: their
          // unused quota adds up, it must not be forgotten (it would be lost
          // to every process until the window ends).
          const held = this.#states.get(trip.key);
          const state = held?.resetAt === trip.resetAt.getTime()
            ? held
            : { rule: trip.rule, resetAt: trip.resetAt.getTime(), known: 0, unused: 0 };
          state.known = Math.max(state.known, count);
          state.unused += trip.want - 1;
          this.#states.set(trip.key, state);
          results.set(trip.key, {
            rule: trip.rule,
            subject: "",
            count: Math.min(trip.rule.limit, state.known - state.unused),
            resetAt: trip.resetAt,
          });
        } else if (trip.want > 1) {
          retry.push({ ...trip, want: 1 });
        } else if (!trip.waited && this.#database.kind === "postgres") {
          retry.push({ ...trip, waited: true });
          wait = true;
        } else {
          const held = this.#states.get(trip.key);
          if (held?.resetAt === trip.resetAt.getTime()) held.known = trip.rule.limit;
          results.set(trip.key, {
            rule: trip.rule,
            subject: "",
            count: trip.rule.limit + 1,
            resetAt: trip.resetAt,
          });
        }
      }
      if (wait) await new Promise((resolve) => setTimeout(resolve, REFUSAL_WAIT_MS));
      trips = retry;
    }
  }

  /**
   * Raises each row by its trip's grant where that keeps it within its cap
   * (the limit; for a lease, the limit less the sync zone), in one
   * statement. Returns the new counts of the rows that were raised.
   */
  async #grant(trips: Trip[]): Promise<Map<string, number>> {
    const values = sql.join(
      trips.map((t) => sql`(${t.key}, ${t.want}, ${t.resetAt.toISOString()}::timestamptz)`),
      sql`, `,
    );
    const caps = sql.join(
      trips.map((t) =>
        sql`WHEN ${t.key} THEN ${
          t.want > 1 ? t.rule.limit - syncZone(t.rule.limit) : t.rule.limit
        }::int`
      ),
      sql` `,
    );
    this.writes++;
    // A stored window that ends before the current one is over: start again.
    const rows = await this.#database.rows<{ key: string; count: number | string }>(
      sql`INSERT INTO rate_limit_counters (key, count, reset_at) VALUES ${values}
        ON CONFLICT (key) DO UPDATE SET
          count = CASE WHEN rate_limit_counters.reset_at < excluded.reset_at
            THEN excluded.count ELSE rate_limit_counters.count + excluded.count END,
          reset_at = GREATEST(rate_limit_counters.reset_at, excluded.reset_at)
        WHERE rate_limit_counters.reset_at < excluded.reset_at
          OR rate_limit_counters.count + excluded.count <= CASE excluded.key ${caps} END
        RETURNING key, count`,
    );
    return new Map(rows.map((r) => [r.key, Number(r.count)]));
  }

  #leased(): [string, KeyState][] {
    const now = Date.now();
    for (const [key, state] of this.#states) {
      // A state of a window long past is of no use any more.
      if (state.resetAt + state.rule.periodSeconds * 1000 < now) this.#states.delete(key);
    }
    return [...this.#states].filter(([, s]) => s.unused > 0);
  }

  #schedulePoll(): void {
    if (this.#closed || this.#poller !== null || this.#database.kind !== "postgres") return;
    if (this.#leased().length === 0) return;
    const timer = setTimeout(async () => {
      try {
        await this.#poll();
      } catch (error) {
        logger.warn("Could not check rate limit leases: {error}", { error });
      }
      this.#poller = null;
      this.#schedulePoll();
    }, POLL_MS);
    // Polling must not keep a stopping process alive.
    Deno.unrefTimer(timer as unknown as number);
    this.#poller = timer;
  }

  /** Gives back the unused leases of rows that entered their sync zone. */
  async #poll(): Promise<void> {
    const leased = this.#leased();
    if (leased.length === 0) return;
    const rows = await this.#database.rows<
      { key: string; count: number | string; reset_at: unknown }
    >(
      sql`SELECT key, count, reset_at FROM rate_limit_counters
        WHERE key IN (${sql.join(leased.map(([key]) => sql`${key}`), sql`, `)})`,
    );
    const byKey = new Map(rows.map((r) => [r.key, r]));
    const back = leased.filter(([key, state]) => {
      const row = byKey.get(key);
      if (!row) return false;
      state.known = Number(row.count);
      return new Date(row.reset_at as string | Date).getTime() === state.resetAt &&
        state.known > state.rule.limit - syncZone(state.rule.limit);
    });
    await this.#giveBack(back);
  }

  async #giveBack(leases: [string, KeyState][]): Promise<void> {
    if (leases.length === 0) return;
    const values = sql.join(
      leases.map(([key, s]) =>
        sql`(${key}, ${s.unused}::int, ${new Date(s.resetAt).toISOString()}::timestamptz)`
      ),
      sql`, `,
    );
    for (const [, state] of leases) {
      state.known -= state.unused;
      state.unused = 0;
    }
    this.writes++;
    await this.#database.rows(
      sql`UPDATE rate_limit_counters SET count = rate_limit_counters.count - back.n
        FROM (VALUES ${values}) AS back(key, n, reset_at)
        WHERE rate_limit_counters.key = back.key AND rate_limit_counters.reset_at = back.reset_at`,
    );
  }

  /** Stops polling and gives every unused lease back (the process is stopping). */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#poller !== null) clearTimeout(this.#poller);
    this.#poller = null;
    try {
      await this.#giveBack(this.#leased());
    } catch (error) {
      logger.warn("Could not give back rate limit leases: {error}", { error });
    }
  }
}
