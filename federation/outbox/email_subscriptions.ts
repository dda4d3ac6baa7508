/**
 * Digests of e-mail subscriptions (actors/outbox/email_subscriptions.ts):
 * the `email_digest` job on the durable queue, at the time it is due, one
 * account's after another (jobs/email_digests.ts sends it).
 */
import type { AppContext } from "../../context.ts";
import type { EmailDigestJobs } from "../../actors/outbox/email_subscriptions.ts";
import { enqueueJob } from "../../jobs/queue.ts";

export function emailDigestJobs(ctx: AppContext): EmailDigestJobs {
  return {
    async emailDigestDue(accountId, dueAt) {
      const delayMs = Math.max(0, Date.parse(dueAt) - Date.now());
      await enqueueJob(ctx, { job: "email_digest", accountId }, {
        orderingKey: `email_digest:${accountId}`,
        delayMs,
      });
    },
  };
}
