/**
 * Follow-ups of remote statuses stored without a parent or quoted post that
 * was over budget (actors/outbox/status_links.ts): queued on the federation
 * queue (jobs/queue.ts), run by federation/remote/status_links.ts. One status's
 * jobs run one after another (its id is the ordering key).
 */
import type { AppContext } from "../../context.ts";
import type { StatusLinkJobs } from "../../actors/outbox/status_links.ts";
import { enqueueJob } from "../../jobs/queue.ts";

export function statusLinkJobs(ctx: AppContext): StatusLinkJobs {
  return {
    async statusLinksRequested(statusId, missing) {
      await enqueueJob(ctx, { job: "status_links", statusId, missing }, {
        orderingKey: `status_links:${statusId}`,
      });
    },
  };
}
