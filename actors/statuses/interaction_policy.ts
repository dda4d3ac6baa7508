/**
 * Changing who may quote a status without editing it (Mastodon 4.5's PUT
 * /api/v1/statuses/:id/interaction_policy, and the same change arriving in a
 * peer's Update).
 *
 * As in Mastodon this is not an edit: no new version in the history, no
 * `edited_at`. A local change federates as an Update of the Note (its
 * `interactionPolicy` carries the new rule), recorded in the same
 * transaction; an unchanged policy sends nothing. A private or direct status
 * can only be quoted by its author, whatever is asked, as when posting.
 */
import { eq } from "drizzle-orm";
import type { Db } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import { statuses } from "../../db/schema/mod.ts";
import { recordDelivery } from "../outbox/deliveries.ts";
import type { StatusRow } from "./create.ts";
import { authoredStatus } from "./rows.ts";
import { StatusError } from "./errors.ts";
import { effectiveQuotePolicy, type QuotePolicy } from "../../model/quote_policy.ts";

/**
 * Sets the quote approval policy of one's own local status and returns the
 * row. Someone else's, a deleted or a missing status is a 404 StatusError.
 */
export async function setQuotePolicy(
  db: Db,
  accountId: string,
  statusId: string,
  policy: QuotePolicy,
): Promise<StatusRow> {
  return await db.transaction(async (tx) => {
    const status = await authoredStatus(tx, accountId, statusId, { lock: true });
    const next = effectiveQuotePolicy(status.visibility, policy);
    if (next === status.quoteApprovalPolicy) return status;
    const [row] = await tx.update(statuses).set({ quoteApprovalPolicy: next })
      .where(eq(statuses.id, status.id)).returning();
    if (status.local) await recordDelivery(tx, "statusUpdated", row.id, newId());
    return row;
  });
}

/**
 * Applies the policy a peer's Update states for its author's own status
 * (edit or not, as Mastodon's implicit update does). Anything that is not
 * the author's live remote status is ignored.
 */
export async function applyRemoteQuotePolicy(
  db: Db,
  accountId: string,
  statusId: string,
  policy: QuotePolicy,
): Promise<void> {
  try {
    await db.transaction(async (tx) => {
      const status = await authoredStatus(tx, accountId, statusId, { lock: true, remote: true });
      const next = effectiveQuotePolicy(status.visibility, policy);
      if (next === status.quoteApprovalPolicy) return;
      await tx.update(statuses).set({ quoteApprovalPolicy: next })
        .where(eq(statuses.id, status.id));
    });
  } catch (error) {
    if (error instanceof StatusError && error.status === 404) return;
    throw error;
  }
}
