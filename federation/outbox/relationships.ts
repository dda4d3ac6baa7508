/** Delivers relationship activities (Follow, Accept, Reject, Undo, Block). */
import type { AppContext } from "../../context.ts";
import type { RelationshipDeliveries } from "../../actors/outbox/relationships.ts";

export function relationshipDeliveries(_ctx: AppContext): RelationshipDeliveries {
  return {};
}
