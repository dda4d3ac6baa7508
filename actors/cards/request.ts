/**
 * When a status asks for a preview card. The status commands (posting,
 * editing, and their remote counterparts) call {@link requestLinkCard} inside
 * their transaction; nothing is fetched here: the `link_card` job is
 * recorded with the status (actors/outbox/jobs.ts), and once committed a
 * worker runs it (jobs/link_cards/refresh.ts).
 *
 * A status may have a card when it has no media and no poll (Mastodon shows
 * one or the other) and, when remote, no content warning (Mastodon does not
 * crawl links hidden behind one). A job is queued only when the HTML has a
 * link that may get a card; the worker decides exactly (it also knows the
 * mentioned accounts). An edit that leaves no such link, or adds media or a
 * poll, unlinks the card at once.
 *
 * A new local status without a quote needs no worker when its link is
 * already known (stored.ts): its HTML is our formatter's, whose mention and
 * hashtag links are marked, so the link chosen here is exact, and
 * {@link linkKnownCard} links a fresh card inside the posting transaction.
 */
import { eq } from "drizzle-orm";
import { statuses, statusPreviewCards } from "../../db/schema/mod.ts";
import { firstCardLink, statusCardLink } from "./links.ts";
import { linkStoredCard } from "./stored.ts";
import type { Executor } from "../../db/connection.ts";
import { recordJob } from "../outbox/jobs.ts";

type StatusRow = typeof statuses.$inferSelect;

/** Whether a status may carry a preview card (the rules above; media known by the caller). */
export function mayHaveCard(
  status: Pick<StatusRow, "local" | "pollId" | "spoilerText" | "reblogOfId">,
  hasMedia: boolean,
): boolean {
  if (hasMedia || status.pollId != null || status.reblogOfId != null) return false;
  return status.local || status.spoilerText === "";
}

export interface LinkCardRequest {
  /** Whether the status now has media attachments. */
  hasMedia: boolean;
  /** An edit: a card that no longer applies is removed. */
  edited?: boolean;
  /** {@link linkKnownCard} already settled the card: nothing to queue. */
  settled?: boolean;
}

/**
 * For a new local status without a quote, in its posting transaction: links
 * the stored card of its link when that settles it (a fresh card, or a
 * recent failure), and answers whether it did. Any other status answers
 * false and goes to the worker.
 */
export async function linkKnownCard(
  tx: Executor,
  origin: string,
  status: StatusRow,
  hasMedia: boolean,
): Promise<boolean> {
  if (!status.local || status.quotedStatusId != null) return false;
  if (!mayHaveCard(status, hasMedia)) return true;
  const link = firstCardLink(status.content, { origin });
  return link == null || await linkStoredCard(tx, status.id, link);
}

/**
 * In the status's transaction: records the fetch of its preview card when it
 * may have one; after an edit that leaves none, removes the card.
 */
export async function requestLinkCard(
  tx: Executor,
  origin: string,
  status: StatusRow,
  request: LinkCardRequest,
): Promise<void> {
  if (request.settled) return;
  const link = mayHaveCard(status, request.hasMedia) ? statusCardLink(status, { origin }) : null;
  if (link) {
    await recordJob(tx, { job: "link_card", statusId: status.id });
  } else if (request.edited) {
    await tx.delete(statusPreviewCards).where(eq(statusPreviewCards.statusId, status.id));
  }
}
