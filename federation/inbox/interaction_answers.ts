/**
 * Answers to our interaction requests (issue 34, design §5.2): the Accept
 * or Reject by a remote author of the ReplyRequest, LikeRequest or
 * AnnounceRequest we sent for one of our accounts. Matched by the request's
 * IRI (`object`, embedded or not), else by the interaction's IRI
 * (GoToSocial's impolite form: `object` is the reply, Like or Announce).
 * Only the author of the status interacted with may answer, and an Accept's
 * `result` (the authorization) must live on that author's server; an
 * Accept without `result` (older GoToSocial) is its own proof.
 *
 * A broadcast Accept of a reply between two other servers that we lack
 * brings the reply (fetchApprovedReply).
 */
import type { InboxContext } from "@fedify/fedify";
import { Accept, type Reject } from "@fedify/vocab";
import { and, eq, isNull, or } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import { accounts, interactionRequests, statuses } from "../../db/schema/mod.ts";
import { recordRemoteAnswer } from "../../actors/interactions/requests.ts";
import { sameOrigin } from "../fetch/trust.ts";
import { FetchBudget } from "../fetch/budget.ts";
import { lookupRemote } from "../fetch/lookup.ts";
import { isStatusObject } from "../objects/remote_status.ts";
import { findStatusByUri, rawJson, storeRemoteStatus } from "../remote/statuses.ts";

const logger = getLogger(["rookery", "federation", "inbox", "interaction_answers"]);

/** Accept or Reject of one of our requests. False when the object is none of ours. */
export async function handleInteractionAnswer(
  ctx: InboxContext<AppContext>,
  answer: Accept | Reject,
): Promise<boolean> {
  const objectId = answer.objectId?.href;
  if (!objectId) return false;
  const [row] = await ctx.data.database.db
    .select({ request: interactionRequests, target: statuses, authorUri: accounts.uri })
    .from(interactionRequests)
    .innerJoin(statuses, eq(statuses.id, interactionRequests.targetStatusId))
    .innerJoin(accounts, eq(accounts.id, interactionRequests.targetAccountId))
    .where(or(
      eq(interactionRequests.requestUri, objectId),
      eq(interactionRequests.interactionUri, objectId),
    )).limit(1);
  if (!row) return answer instanceof Accept && await fetchApprovedReply(ctx, answer);
  // A request about a local status is ours to answer, not to be answered.
  if (row.target.local) return false;
  if (answer.actorId?.href !== row.authorUri) {
    logger.warn("Ignored an answer by {actor} to {request}", {
      actor: answer.actorId?.href,
      request: objectId,
    });
    return true;
  }
  const accepted = answer instanceof Accept;
  const proof = accepted ? answer.resultId?.href ?? answer.id?.href ?? null : null;
  if (accepted && (!proof || !sameOrigin(proof, row.authorUri))) {
    logger.warn("Ignored an Accept of {request} whose proof {proof} is not its author's", {
      request: objectId,
      proof,
    });
    return true;
  }
  await recordRemoteAnswer(ctx.data, row.request.id, {
    accepted,
    authorizationUri: proof,
    responseUri: answer.id?.href ?? null,
  });
  return true;
}

/**
 * A broadcast Accept (GoToSocial's impolite form) by the author of a remote
 * post we have, of a reply to it we lack: `object` the reply, `target` the
 * post, `result` the authorization on the author's server. The reply is
 * fetched and stored with that authorization as its proof: the Accept is
 * signed by the one whose approval it needs. False when it is no such Accept.
 */
async function fetchApprovedReply(ctx: InboxContext<AppContext>, accept: Accept) {
  const replyUri = accept.objectId?.href;
  const targetUri = accept.targetId?.href;
  const result = accept.resultId?.href;
  const actor = accept.actorId?.href;
  if (!replyUri || !targetUri || !result || !actor || !sameOrigin(result, actor)) return false;
  if (sameOrigin(replyUri, ctx.data.config.origin)) return false;
  const [target] = await ctx.data.database.db.select({
    local: statuses.local,
    authorUri: accounts.uri,
  })
    .from(statuses).innerJoin(accounts, eq(accounts.id, statuses.accountId))
    .where(and(eq(statuses.uri, targetUri), isNull(statuses.deletedAt))).limit(1);
  if (!target || target.local || target.authorUri !== actor) return false;
  if (await findStatusByUri(ctx.data, replyUri)) return true;
  const budget = FetchBudget.of(ctx.data);
  const object = await lookupRemote(ctx, replyUri, budget);
  if (!isStatusObject(object) || object.id?.href !== replyUri) return true;
  await storeRemoteStatus(ctx, object, {
    depth: 0,
    raw: await rawJson(object),
    budget,
    approved: { targetUri, authorizationUri: result },
  });
  return true;
}
