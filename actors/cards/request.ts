/**
 * When a status asks for a preview card. The status commands (posting,
 * editing, and their remote counterparts) call {@link requestLinkCard} after
 * their transaction commits; nothing is fetched here: a job is queued
 * (ctx.outbox.linkCardRequested) and a worker runs actors/cards/refresh.ts.
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
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import { statuses, statusPreviewCards } from "../../db/schema.ts";
import type { LinkCardJobs } from "../outbox/cards.ts";
import { firstCardLink } from "./links.ts";
import { linkStoredCard } from "./stored.ts";
import type { Executor } from "../../db/connection.ts";

const logger = getLogger(["rookery", "cards"]);

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
 * Queues the fetch of a status's preview card when it may have one; after an
 * edit that leaves none, removes the card. Failures are logged, never thrown:
 * the status is already written.
 */
export async function requestLinkCard(
  ctx: AppContext,
  status: StatusRow,
  request: LinkCardRequest,
): Promise<void> {
  if (request.settled) return;
  try {
    const link = mayHaveCard(status, request.hasMedia)
      ? firstCardLink(status.content, { origin: ctx.config.origin })
      : null;
    if (link) {
      const jobs = ctx.outbox as Partial<LinkCardJobs>;
      await jobs.linkCardRequested?.(status.id);
    } else if (request.edited) {
      await ctx.database.db.delete(statusPreviewCards)
        .where(eq(statusPreviewCards.statusId, status.id));
    }
  } catch (error) {
    logger.warn("Could not request the preview card of {statusId}: {error}", {
      statusId: status.id,
      error,
    });
  }
}
