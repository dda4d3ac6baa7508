/**
 * When a poll's counts may be seen, the one rule every place that shows a
 * poll reads (the Poll entity for the API, streams and pages; the Question
 * we federate): with `hide_totals`, no option's count is shown to anyone,
 * its author included, until the poll ends (Mastodon's
 * `Poll#show_totals_now?`, which its ActivityPub serializer follows too).
 */
import type { polls } from "../../db/schema/mod.ts";

type PollTiming = Pick<typeof polls.$inferSelect, "expiresAt" | "hideTotals">;

/** Whether a poll has ended. */
export function pollExpired(poll: Pick<PollTiming, "expiresAt">, now = new Date()): boolean {
  return poll.expiresAt != null && poll.expiresAt.getTime() <= now.getTime();
}

/** Whether the counts of each option may be shown now. */
export function pollShowsTotals(poll: PollTiming, now = new Date()): boolean {
  return !poll.hideTotals || pollExpired(poll, now);
}
