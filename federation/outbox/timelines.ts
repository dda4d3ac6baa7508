/**
 * The home rows a large fan-out promised, written when its intent is relayed
 * (actors/outbox/timelines.ts, actors/timelines/pending_home.ts).
 */
import type { AppContext } from "../../context.ts";
import type { TimelineDeliveries } from "../../actors/outbox/timelines.ts";
import { finishHomeFanOut } from "../../actors/timelines/fanout.ts";

/**
 * How long the home rows wait for this process's streams to send what they
 * have heard (the post's own `update` among it). The relay runs them right
 * after the commit, when the hub renders and sends the same post: the
 * statement is some 100 ms of PostgreSQL's CPU at 10,000 receivers, taken
 * from the cores the frames go out on. The home page reads pending rows
 * meanwhile (pending_home.ts), so nothing shows later for the wait.
 */
export const STREAMS_FIRST_MS = 1_000;

export function timelineDeliveries(app: AppContext): TimelineDeliveries {
  return {
    async finishHomeFanOut(statusId) {
      await app.core.streamBus.quiet(STREAMS_FIRST_MS);
      await finishHomeFanOut(app.database.db, statusId);
    },
  };
}
