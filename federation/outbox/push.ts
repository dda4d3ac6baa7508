/**
 * Web Push jobs (actors/outbox/push.ts): one queued job per notification,
 * run by whichever worker takes it (jobs/web_push/run.ts). No ordering
 * key: pushes of different notifications do not wait for each other.
 */
import type { AppContext } from "../../context.ts";
import type { PushJobs } from "../../actors/outbox/push.ts";
import { enqueueJob } from "../../jobs/queue.ts";

export function pushJobs(ctx: AppContext): PushJobs {
  return {
    async pushRequested(notificationIds) {
      for (const notificationId of notificationIds) {
        await enqueueJob(ctx, { job: "web_push", notificationId });
      }
    },
  };
}
