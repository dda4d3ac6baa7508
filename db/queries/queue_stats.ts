/**
 * What waits in the durable queue, by kind (Rookery's job name, or Fedify's
 * message type: inbox, outbox, fanout) and by whether it may run now: one
 * aggregate for the queue gauges (jobs/queue_gauges.ts).
 */
import { sql } from "drizzle-orm";
import type { Database } from "../connection.ts";

export interface QueueStat {
  kind: string;
  state: "ready" | "delayed";
  depth: number;
  /** Seconds since the oldest of them was queued. */
  oldestAge: number;
}

export async function queueStats(database: Database): Promise<QueueStat[]> {
  const rows = await database.rows<
    { kind: string; state: "ready" | "delayed"; depth: number | string; oldest: number | string }
  >(sql`
    SELECT coalesce(message->>'job', message->>'type', 'unknown') AS kind,
      CASE WHEN run_at > now() THEN 'delayed' ELSE 'ready' END AS state,
      count(*)::int AS depth,
      extract(epoch FROM now() - min(created_at))::float8 AS oldest
    FROM federation_queue
    GROUP BY 1, 2`);
  return rows.map((row) => ({
    kind: row.kind,
    state: row.state,
    depth: Number(row.depth),
    oldestAge: Math.max(0, Number(row.oldest)),
  }));
}
