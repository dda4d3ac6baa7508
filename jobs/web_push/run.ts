/**
 * Runs a Web Push job: delivers the notification (jobs/web_push/deliver.ts)
 * and queues the retries it asks for, each after its delay, on the same
 * durable queue (so a retry survives a restart and any worker may run it).
 */
import type { AppContext } from "../../context.ts";
import { deliverPush } from "./deliver.ts";
import { recordJob } from "../../actors/outbox/jobs.ts";

export async function runPushJob(
  ctx: AppContext,
  job: { notificationId: string; subscriptionId?: number; attempt?: number },
): Promise<void> {
  const retries = await deliverPush(ctx, job.notificationId, {
    subscriptionId: job.subscriptionId,
    attempt: job.attempt,
  });
  for (const retry of retries) {
    await recordJob(ctx.database.db, {
      job: "web_push",
      notificationId: job.notificationId,
      subscriptionId: retry.subscriptionId,
      attempt: retry.attempt,
    }, { delayMs: retry.delayMs });
  }
}
