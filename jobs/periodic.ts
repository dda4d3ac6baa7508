/**
 * The periodic runner of the worker's database-scan jobs (closing polls,
 * publishing scheduled statuses). Everything such a job acts on is in the
 * database, so nothing is lost across restarts: a job simply finds what came
 * due while the process was down on its first run.
 *
 * A run never overlaps the previous one, and {@link PeriodicJob.stop} waits
 * for the run in progress, so the database is not closed under it.
 */
import { getLogger } from "@logtape/logtape";

const logger = getLogger(["rookery", "jobs"]);

/** A started periodic job. */
export interface PeriodicJob {
  /** Stops scheduling runs and waits for the current one. */
  stop(): Promise<void>;
}

/**
 * Runs `job` now and then every `intervalMs`; errors are logged and the next
 * run tries again.
 */
export function runEvery(
  name: string,
  intervalMs: number,
  job: () => Promise<unknown>,
): PeriodicJob {
  let running: Promise<void> | null = null;
  let stopped = false;
  const tick = () => {
    if (running || stopped) return;
    running = job().then(() => {}, (error) => {
      logger.warn("Job {name} failed: {error}", { name, error });
    }).finally(() => {
      running = null;
    });
  };
  const timer = setInterval(tick, intervalMs);
  // The first run waits a moment, so start-up (migrations, federation) is done.
  const first = setTimeout(tick, Math.min(intervalMs, 1_000));
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      clearTimeout(first);
      if (running) await running;
    },
  };
}
