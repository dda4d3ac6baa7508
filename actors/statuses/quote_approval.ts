/**
 * The approval of quote posts across servers (Mastodon 4.5, FEP-044f):
 * - a remote account asks to quote one of our posts (QuoteRequest): the
 *   quoted post's policy decides ({@link answerQuoteRequest}); an accepted
 *   quote counts in `quotes_count`, gets its stamp IRI and notifies the
 *   author; the Accept (or Reject) is recorded for delivery with the decision;
 * - the other server answers our request, or sends the quote post again
 *   with its stamp ({@link recordQuoteAnswer}).
 * Each is one transaction over the quotes row (locked), so a repeated
 * activity changes nothing twice.
 */
import { and, eq, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { follows, quotes, statuses } from "../../db/schema/mod.ts";
import { notify } from "../notifications/notify.ts";
import { recordDelivery } from "../outbox/deliveries.ts";
import { publishStatusUpdate } from "../timelines/fanout.ts";
import { newId } from "../../db/ids.ts";
import type { Executor } from "../../db/connection.ts";
import type { QuoteRequestAnswer } from "../outbox/statuses.ts";
import { type Quotable, quotePermission } from "../../model/quote_policy.ts";

export type QuoteRow = typeof quotes.$inferSelect;

/** What was decided about a quote request. */
export type QuoteDecision = { accepted: true; quote: QuoteRow } | {
  accepted: false;
  quote: QuoteRow | null;
};

/**
 * Answers a remote account's request to quote a local status with the
 * status that quotes it (`quotingStatusId`, null when the request's quote
 * post could not be had or is not the requester's: a Reject). The policy:
 * public → accepted; followers → accepted when the quoting account follows
 * the author; otherwise (and for private or direct posts) rejected.
 * `stampUri` names the approval. The answer (Accept or Reject) is recorded
 * for delivery in the same transaction as the decision.
 */
export async function answerQuoteRequest(
  ctx: AppContext,
  input: {
    quotingStatusId: string | null;
    stampUri: (quoteId: string) => string;
    request: Omit<QuoteRequestAnswer, "stampUri">;
  },
): Promise<QuoteDecision> {
  return await ctx.database.db.transaction(async (tx) => {
    const decision = input.quotingStatusId
      ? await decide(tx, input.quotingStatusId, input.request.quotedStatusId, input.stampUri)
      : { accepted: false as const, quote: null };
    if (decision.quote) {
      // Our answer quotes the request's id; its Accept or Reject is matched by it.
      await tx.update(quotes).set({ activityUri: input.request.requestUri })
        .where(eq(quotes.id, decision.quote.id));
    }
    await recordDelivery(tx, "quoteRequestAnswered", {
      ...input.request,
      stampUri: decision.accepted ? decision.quote.approvalUri : null,
    });
    return decision;
  });
}

async function decide(
  tx: Executor,
  quotingStatusId: string,
  quotedStatusId: string,
  stampUri: (quoteId: string) => string,
): Promise<QuoteDecision> {
  const [quote] = await tx.select().from(quotes).where(and(
    eq(quotes.statusId, quotingStatusId),
    eq(quotes.quotedStatusId, quotedStatusId),
  )).for("update");
  const [quoted] = await tx.select().from(statuses).where(eq(statuses.id, quotedStatusId));
  if (!quote || !quoted || quoted.deletedAt || !quoted.local) {
    return { accepted: false, quote: quote ?? null };
  }
  if (quote.state === "accepted") return { accepted: true, quote };
  const allowed = await mayQuote(tx, quoted, quote.accountId);
  if (!allowed || quote.state === "revoked") {
    const [row] = await tx.update(quotes).set({ state: "rejected" })
      .where(eq(quotes.id, quote.id)).returning();
    return { accepted: false, quote: row };
  }
  const [row] = await tx.update(quotes)
    .set({ state: "accepted", approvalUri: stampUri(quote.id) })
    .where(eq(quotes.id, quote.id)).returning();
  await tx.update(statuses).set({ quotesCount: sql`${statuses.quotesCount} + 1` })
    .where(eq(statuses.id, quoted.id));
  await notify(tx, {
    type: "quote",
    accountId: quoted.accountId,
    fromAccountId: quote.accountId,
    statusId: quote.statusId,
  });
  return { accepted: true, quote: row };
}

/**
 * Records the quoted author's answer for a quote by one of ours (or a
 * remote quote that arrived with its stamp): accepted with the stamp's IRI,
 * or rejected. Returns the updated row, or null when nothing changed.
 */
export async function recordQuoteAnswer(
  ctx: AppContext,
  input: { quoteId: string; accepted: boolean; approvalUri?: string | null },
): Promise<QuoteRow | null> {
  return await ctx.database.db.transaction(async (tx) => {
    const [quote] = await tx.select().from(quotes).where(eq(quotes.id, input.quoteId))
      .for("update");
    if (!quote) return null;
    if (input.accepted) {
      if (quote.state === "accepted") return null;
      const [row] = await tx.update(quotes)
        .set({ state: "accepted", approvalUri: input.approvalUri ?? null })
        .where(eq(quotes.id, quote.id)).returning();
      if (quote.quotedStatusId) {
        await tx.update(statuses).set({ quotesCount: sql`${statuses.quotesCount} + 1` })
          .where(eq(statuses.id, quote.quotedStatusId));
      }
      // Our quote post now carries its stamp: peers learn it from an Update
      // (the outbox ignores a quoting status that is not ours), the streams
      // from a status.update, as Mastodon distributes an accepted quote.
      await recordDelivery(tx, "statusUpdated", quote.statusId, newId());
      await publishStatusUpdate(tx, quote.statusId);
      return row;
    }
    if (quote.state === "rejected" || quote.state === "revoked") return null;
    const [row] = await tx.update(quotes)
      .set({ state: quote.state === "accepted" ? "revoked" : "rejected" })
      .where(eq(quotes.id, quote.id)).returning();
    if (quote.state === "accepted" && quote.quotedStatusId) {
      await tx.update(statuses)
        .set({ quotesCount: sql`GREATEST(${statuses.quotesCount} - 1, 0)` })
        .where(eq(statuses.id, quote.quotedStatusId));
      // A revoked quote shows differently (a pending one refused does not, in Mastodon).
      await publishStatusUpdate(tx, quote.statusId);
    }
    return row;
  });
}

/**
 * Whether the account `quoterId` may quote `status`: the policy's answer
 * (model/quote_policy.ts), with the follow it may ask for looked up.
 */
export async function mayQuote(db: Executor, status: Quotable, quoterId: string): Promise<boolean> {
  const permission = quotePermission(status, quoterId);
  if (permission !== "if_follower") return permission === "yes";
  const [follow] = await db.select({ id: follows.id }).from(follows).where(and(
    eq(follows.accountId, quoterId),
    eq(follows.targetAccountId, status.accountId),
  )).limit(1);
  return follow != null;
}
