/**
 * Revoking a quote (Mastodon 4.5's RevokeQuoteService): the author of a
 * quoted status withdraws the approval of one quote of it. An accepted
 * quote becomes `revoked` (and no longer counts in `quotes_count`); one not
 * yet accepted becomes `rejected`; a revoked one stays revoked.
 */
import { and, eq, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { quotes, statuses } from "../../db/schema/mod.ts";
import { NotFoundError } from "../../model/errors.ts";
import { NotPermittedError, type StatusRow, visibleStatus } from "./target.ts";
import { recordDelivery } from "../outbox/deliveries.ts";
import { publishStatusUpdate } from "../timelines/fanout.ts";

/**
 * `accountId` revokes the quote of `quotedStatusId` by `quotingStatusId`.
 * Returns the quoting status.
 *
 * @throws NotFoundError when the quoted status is hidden or missing, or no such quote exists
 * @throws NotPermittedError when `accountId` is not the quoted author
 */
export async function revokeQuote(
  app: AppContext,
  accountId: string,
  quotedStatusId: string,
  quotingStatusId: string,
): Promise<StatusRow> {
  return await app.database.db.transaction(async (tx) => {
    const quoted = await visibleStatus(tx, accountId, quotedStatusId);
    const [quote] = await tx.select().from(quotes).where(and(
      eq(quotes.quotedStatusId, quoted.id),
      eq(quotes.statusId, quotingStatusId),
    )).limit(1).for("update");
    if (!quote) throw new NotFoundError();
    if (quote.quotedAccountId !== accountId) throw new NotPermittedError();
    if (quote.state === "accepted") {
      await tx.update(quotes).set({ state: "revoked" }).where(eq(quotes.id, quote.id));
      await tx.update(statuses)
        .set({ quotesCount: sql`GREATEST(${statuses.quotesCount} - 1, 0)` })
        .where(eq(statuses.id, quoted.id));
    } else if (quote.state !== "revoked") {
      await tx.update(quotes).set({ state: "rejected" }).where(eq(quotes.id, quote.id));
    }
    const [quoting] = await tx.select().from(statuses).where(eq(statuses.id, quotingStatusId));
    if (!quoting) throw new NotFoundError();
    // A remote quote loses its stamp: Delete of the stamp (federation/outbox/statuses.ts).
    if (quote.state === "accepted") {
      // The quote post now shows the quote revoked (Mastodon distributes it as an edit).
      await publishStatusUpdate(tx, quote.statusId);
      await recordDelivery(tx, "quoteRevoked", {
        id: quote.id,
        quotedStatusId: quote.quotedStatusId!,
        statusId: quote.statusId,
        approvalUri: quote.approvalUri,
      });
    }
    return quoting;
  });
}
