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
import { reportDeliveries } from "./reports.ts";
import { collectionDeliveries } from "./collections.ts";
import { interactionRequestDeliveries } from "./interaction_requests.ts";
import { timelineDeliveries } from "./timelines.ts";

export function createOutbox(ctx: AppContext): Outbox {
  return {
    ...accountDeliveries(ctx),
    ...relationshipDeliveries(ctx),
    ...interactionDeliveries(ctx),
    ...pollDeliveries(ctx),
    ...statusDeliveries(ctx),
    ...reportDeliveries(ctx),
    ...collectionDeliveries(ctx),
    ...interactionRequestDeliveries(ctx),
    ...timelineDeliveries(ctx),
  };
}
