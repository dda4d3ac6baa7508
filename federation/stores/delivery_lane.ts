/**
 * The slots deliveries run in (sql_queue.ts's delivery lane): apart from
 * inbound activities and jobs, many at once, and a few per host.
 *
 * A delivery is one HTTP request, and a slow peer holds it for as long as it
 * takes to answer (up to FETCH_TIMEOUT). When deliveries shared the eight
 * slots of inbound activities and jobs, twenty servers holding each
 * delivery 3 s held every slot, and the healthy servers' deliveries of the
 * same post waited behind theirs (docs/benchmarks.md, Fan-out). So a worker
 * claims deliveries (rows with a `host`, db/queries/queue_rows.ts) on slots
 * of their own, `DELIVERY_CONCURRENCY` of them, and never more than
 * `DELIVERY_HOST_CONCURRENCY` to one host at once: a claim skips the hosts
 * whose deliveries fill their share, so one host's backlog or slowness
 * leaves the other slots to the other hosts. The limits are per process;
 * several workers each have theirs.
 */
import { type SQL, sql } from "drizzle-orm";
import { TAKEN_OVER } from "./takeovers.ts";

/** Deliveries one worker process runs at once (DELIVERY_CONCURRENCY). */
export const DEFAULT_DELIVERY_CONCURRENCY = 64;
/** Deliveries one worker process runs at once to one host (DELIVERY_HOST_CONCURRENCY). */
export const DEFAULT_HOST_CONCURRENCY = 4;

/** How many deliveries this process is running, per host. */
export class HostSlots {
  readonly #busy = new Map<string, number>();
  readonly perHost: number;

  constructor(perHost: number) {
    this.perHost = perHost;
  }

  /** Runs `work` in one of `host`'s slots. */
  async hold<T>(host: string, work: () => Promise<T>): Promise<T> {
    this.#busy.set(host, (this.#busy.get(host) ?? 0) + 1);
    try {
      return await work();
    } finally {
      const left = (this.#busy.get(host) ?? 1) - 1;
      if (left > 0) this.#busy.set(host, left);
      else this.#busy.delete(host);
    }
  }

  /** The hosts with a delivery running here, and how many (a JSON object). */
  busy(): string {
    return JSON.stringify(Object.fromEntries(this.#busy));
  }
}

/** Deliveries to the hosts with a free slot, `q` being federation_queue. */
export function deliveryRows(slots: HostSlots): SQL {
  return sql`q.ready AND q.host IS NOT NULL
    AND coalesce((${slots.busy()}::jsonb ->> q.host)::int, 0) < ${slots.perHost}`;
}

/**
 * The CTEs (after `readied`, which the caller supplies) that claim up to
 * `free` due deliveries, oldest first, no host beyond its share: `claimed`,
 * with the rows' id, message, ordering_key, host and takeovers. Candidates are locked
 * (SKIP LOCKED) a few more than wanted, so that one host's many deliveries
 * at the head of the line do not make a claim come back with one.
 */
export function claimDeliveries(slots: HostSlots, free: number, leaseMs: number): SQL {
  return sql`candidates AS (
      SELECT q.id, q.host, q.run_at FROM federation_queue q
      WHERE ${deliveryRows(slots)} AND q.run_at <= now()
        AND (q.locked_until IS NULL OR q.locked_until < now())
      ORDER BY q.run_at, q.id
      LIMIT ${free * 4}
      FOR NO KEY UPDATE SKIP LOCKED),
    picked AS (
      SELECT id FROM (
        SELECT id, run_at, row_number() OVER (PARTITION BY host ORDER BY run_at, id)
          + coalesce((${slots.busy()}::jsonb ->> host)::int, 0) AS place
        FROM candidates) c
      WHERE place <= ${slots.perHost}
      ORDER BY run_at, id
      LIMIT ${free}),
    claimed AS (
      UPDATE federation_queue
      SET locked_until = now() + ${leaseMs} * interval '1 millisecond', ${TAKEN_OVER}
      WHERE id IN (SELECT id FROM picked)
      RETURNING id, message, ordering_key, host, takeovers)`;
}
