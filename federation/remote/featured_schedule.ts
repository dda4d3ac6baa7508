/**
 * Queuing syncs of remote actors' featured collections (the sync itself is
 * federation/remote/featured_sync.ts, run as a job by a worker). Kept apart from the
 * sync so that what stores actors (remote_accounts.ts) can queue one without
 * importing what the sync imports (fetching statuses stores their authors:
 * a cycle).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import { recordJob } from "../../actors/outbox/jobs.ts";

const logger = getLogger(["rookery", "federation", "featured"]);

/** Set while a sync runs: actors it discovers do not schedule syncs themselves. */
const insideSync = new AsyncLocalStorage<true>();

/** Runs `sync` marked as a sync, so that what it discovers schedules no syncs of its own. */
export function duringSync<T>(sync: () => Promise<T>): Promise<T> {
  return insideSync.run(true, sync);
}

/**
 * Queues a sync of the remote account's pins from its featured collection
 * (a job, run by a worker: actors/outbox/jobs.ts).
 * Does nothing when called from inside another sync. Never throws: the
 * caller's own work is done, and a sync that is not queued waits for the
 * next refresh of the actor.
 */
export async function scheduleFeaturedSync(app: AppContext, accountId: string): Promise<void> {
  if (insideSync.getStore()) return;
  try {
    // One sync of an account at a time, in order.
    await recordJob(app.database.db, { job: "featured_collection", accountId });
  } catch (error) {
    logger.warn("Could not queue the featured collection sync of {accountId}: {error}", {
      accountId,
      error,
    });
  }
}
