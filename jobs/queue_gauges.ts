/**
 * The queue's gauges (rookery.queue.depth and rookery.queue.oldest_age, by
 * kind), reported by processes that run the worker: one figure per worker,
 * so dashboards take the max. Both gauges share one query per collection:
 * the depth (read first) runs it, the age reuses its result.
 */
import type { Database } from "../db/connection.ts";
import { type QueueStat, queueStats } from "../db/queries/queue_stats.ts";
import type { GaugeSource, Reading } from "../telemetry/mod.ts";

/** Longer than one collection takes: past it the age reads afresh. */
const SAME_COLLECTION_MS = 1_000;

export function queueGauges(database: Database): GaugeSource[] {
  let kept: { at: number; stats: Promise<QueueStat[]> } | null = null;
  const stats = (fresh: boolean) => {
    if (fresh || !kept || performance.now() - kept.at > SAME_COLLECTION_MS) {
      kept = { at: performance.now(), stats: queueStats(database).catch(() => []) };
    }
    return kept.stats;
  };
  return [{
    name: "rookery.queue.depth",
    description: "Messages and jobs waiting in the queue, by kind and state (ready, delayed).",
    read: async () =>
      (await stats(true)).map((s): Reading => [s.depth, { kind: s.kind, state: s.state }]),
  }, {
    name: "rookery.queue.oldest_age",
    description: "Age of the oldest waiting message of each kind.",
    unit: "s",
    read: async () => {
      const oldest = new Map<string, number>();
      for (const s of await stats(false)) {
        oldest.set(s.kind, Math.max(oldest.get(s.kind) ?? 0, s.oldestAge));
      }
      return [...oldest].map(([kind, age]): Reading => [age, { kind }]);
    },
  }];
}
