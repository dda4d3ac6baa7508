/**
 * Builds the Outbox (actors/outbox/mod.ts) from each area's implementation.
 */
import type { AppContext } from "../../context.ts";
import type { Outbox } from "../../actors/outbox/mod.ts";
import { accountDeliveries } from "./accounts.ts";
import { relationshipDeliveries } from "./relationships.ts";
import { interactionDeliveries } from "./interactions.ts";
import { pollDeliveries } from "./polls.ts";
import { statusDeliveries } from "./statuses.ts";
import { linkCardJobs } from "./cards.ts";
import { statusLinkJobs } from "./status_links.ts";
import { reportDeliveries } from "./reports.ts";
import { pushJobs } from "./push.ts";
import { collectionDeliveries } from "./collections.ts";
import { annualReportJobs } from "./annual_reports.ts";
import { emailDigestJobs } from "./email_subscriptions.ts";

export function createOutbox(ctx: AppContext): Outbox {
  return {
    ...accountDeliveries(ctx),
    ...relationshipDeliveries(ctx),
    ...interactionDeliveries(ctx),
    ...pollDeliveries(ctx),
    ...statusDeliveries(ctx),
    ...linkCardJobs(ctx),
    ...statusLinkJobs(ctx),
    ...reportDeliveries(ctx),
    ...pushJobs(ctx),
    ...collectionDeliveries(ctx),
    ...annualReportJobs(ctx),
    ...emailDigestJobs(ctx),
  };
}
