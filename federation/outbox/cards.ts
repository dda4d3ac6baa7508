/**
 * Preview-card jobs (actors/outbox/cards.ts): queued on the federation
 * queue (jobs/queue.ts) and run by whichever worker takes them. The
 * status id is the ordering key, so the jobs of one status (a post and its
 * quick edits) run one after another, the latest last.
 */
import type { AppContext } from "../../context.ts";
import type { LinkCardJobs } from "../../actors/outbox/cards.ts";
import { enqueueJob } from "../../jobs/queue.ts";

export function linkCardJobs(ctx: AppContext): LinkCardJobs {
  return {
    async linkCardRequested(statusId) {
      await enqueueJob(ctx, { job: "link_card", statusId }, {
        orderingKey: `link_card:${statusId}`,
      });
    },
  };
}
