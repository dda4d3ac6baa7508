/**
 * The home rows a large fan-out promised, written when its intent is relayed
 * (actors/outbox/timelines.ts, actors/timelines/pending_home.ts).
 */
import type { AppContext } from "../../context.ts";
import type { TimelineDeliveries } from "../../actors/outbox/timelines.ts";
import { finishHomeFanOut } from "../../actors/timelines/fanout.ts";

export function timelineDeliveries(app: AppContext): TimelineDeliveries {
  return {
    async finishHomeFanOut(statusId) {
      await finishHomeFanOut(app.database.db, statusId);
    },
  };
}
