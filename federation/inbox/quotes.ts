/**
 * The quote approval exchange (FEP-044f, Mastodon 4.5), inbound:
 * - QuoteRequest for one of our posts: the quote post (the instrument) is
 *   stored if needed, the policy decides (actors/statuses/quote_approval.ts)
 *   and records our answer, Accept with a QuoteAuthorization stamp as
 *   `result` or Reject, which the outbox delivers
 *   (federation/outbox/statuses.ts);
 * - Accept or Reject of a QuoteRequest we sent: the quote is marked
 *   accepted (with the stamp's IRI) or rejected, and an accepted quote post
 *   is sent again (Update) carrying its `quoteAuthorization`;
 * - Delete of a stamp that approved one of our quotes: the quote is revoked.
 *
 * Only the quoted post's author can answer or revoke; only the quote post's
 * author can ask.
 */
import type { InboxContext } from "@fedify/fedify";
import { Accept, type Activity, type QuoteRequest, type Reject } from "@fedify/vocab";
import { and, eq } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import { accounts, quotes, statuses } from "../../db/schema/mod.ts";
import { answerQuoteRequest, recordQuoteAnswer } from "../../actors/statuses/quote_approval.ts";
import { accountForActorUri } from "../remote/accounts.ts";
import { findStatusByUri, resolveRemoteStatus } from "../remote/statuses.ts";
import { FetchBudget } from "../fetch/budget.ts";
import { activityIds } from "../../model/uris.ts";

const logger = getLogger(["rookery", "federation", "inbox", "quotes"]);

async function remoteSender(ctx: InboxContext<AppContext>, activity: Activity) {
  if (!activity.actorId) return null;
  const account = await accountForActorUri(ctx, activity.actorId).catch(() => null);
  if (!account || account.domain == null || account.deletedAt || account.suspendedAt) return null;
  return account;
}

/** QuoteRequest: a remote account asks to quote one of our posts. */
export async function onQuoteRequest(
  ctx: InboxContext<AppContext>,
  request: QuoteRequest,
): Promise<void> {
  const sender = await remoteSender(ctx, request);
  if (!sender || !request.id || !request.objectId || !request.instrumentId) return;
  const quoted = await findStatusByUri(ctx.data, request.objectId.href);
  if (!quoted?.local) return;
  const db = ctx.data.database.db;
  const [author] = await db.select().from(accounts).where(eq(accounts.id, quoted.accountId));
  if (!author) return;
  const quoting = await resolveRemoteStatus(
    ctx,
    request.instrumentId.href,
    FetchBudget.of(ctx.data),
  );
  // The decision and its Accept or Reject, in one transaction (the outbox relays the answer).
  await answerQuoteRequest(ctx.data, {
    quotingStatusId: quoting && quoting.accountId === sender.id ? quoting.id : null,
    stampUri: (id) => activityIds.quoteStamp(author.uri, id),
    request: {
      requestUri: request.id.href,
      requesterId: sender.id,
      quotedStatusId: quoted.id,
      instrumentUri: request.instrumentId.href,
    },
  });
}

/**
 * Accept or Reject of a QuoteRequest we sent (matched by its id). Returns
 * false when the object is not one of our QuoteRequests.
 */
export async function handleQuoteAnswer(
  ctx: InboxContext<AppContext>,
  answer: Accept | Reject,
): Promise<boolean> {
  const objectId = answer.objectId?.href;
  if (!objectId) return false;
  const db = ctx.data.database.db;
  const [row] = await db.select({ quote: quotes, quotedAuthor: accounts.uri }).from(quotes)
    .innerJoin(statuses, eq(statuses.id, quotes.quotedStatusId))
    .innerJoin(accounts, eq(accounts.id, statuses.accountId))
    .where(eq(quotes.activityUri, objectId)).limit(1);
  if (!row) return false;
  if (answer.actorId?.href !== row.quotedAuthor) {
    logger.warn("Ignored an answer by {actor} to {request}", {
      actor: answer.actorId?.href,
      request: objectId,
    });
    return true;
  }
  const accepted = answer instanceof Accept;
  const stamp = accepted ? answer.resultId?.href ?? null : null;
  if (accepted && (!stamp || new URL(stamp).origin !== new URL(row.quotedAuthor).origin)) {
    return true;
  }
  // An acceptance also records the Update of the quote post, with its stamp.
  await recordQuoteAnswer(ctx.data, {
    quoteId: row.quote.id,
    accepted,
    approvalUri: stamp,
  });
  return true;
}

/**
 * A stamp that approved a quote arrived in an Update of the quote post, or
 * was deleted (revoked) by the quoted author. Returns false when `uri`
 * names no stamp or quote we know.
 */
export async function applyQuoteStamp(
  ctx: InboxContext<AppContext>,
  input: { quotingStatusId: string; stampUri: string | null },
): Promise<void> {
  if (!input.stampUri) return;
  const db = ctx.data.database.db;
  const [row] = await db.select({ quote: quotes, quotedUri: statuses.uri }).from(quotes)
    .innerJoin(statuses, eq(statuses.id, quotes.quotedStatusId))
    .where(and(eq(quotes.statusId, input.quotingStatusId), eq(quotes.state, "pending")));
  if (!row || new URL(input.stampUri).origin !== new URL(row.quotedUri).origin) return;
  // A stamp of ours must be one we issued.
  if (new URL(input.stampUri).origin === new URL(ctx.data.config.origin).origin) return;
  await recordQuoteAnswer(ctx.data, {
    quoteId: row.quote.id,
    accepted: true,
    approvalUri: input.stampUri,
  });
}

/** Delete of a stamp: the quoted author revokes the approval. False when not a stamp we know. */
export async function handleStampDelete(
  ctx: InboxContext<AppContext>,
  stampUri: string,
  actorUri: string,
): Promise<boolean> {
  const db = ctx.data.database.db;
  const [row] = await db.select({ quote: quotes, quotedAuthor: accounts.uri }).from(quotes)
    .innerJoin(statuses, eq(statuses.id, quotes.quotedStatusId))
    .innerJoin(accounts, eq(accounts.id, statuses.accountId))
    .where(eq(quotes.approvalUri, stampUri)).limit(1);
  if (!row) return false;
  if (row.quotedAuthor !== actorUri) return true;
  await recordQuoteAnswer(ctx.data, { quoteId: row.quote.id, accepted: false });
  return true;
}
