/**
 * Third-server checks of interaction approvals (issue 34, design §5.5):
 * a reply by one remote account to another remote account's post whose
 * policy wants approval for it is stored only with a proof — the
 * `replyAuthorization` (else `approvedBy`) it names, on the post author's
 * server, fetched (signed, within the activity's budget) and found to be a
 * ReplyAuthorization by that author for this very reply and post (or the
 * author's Accept of it, GoToSocial 0.17–0.18's proof).
 * GoToSocial's rule: missing or invalid, the reply is dropped.
 *
 * What needs no proof: a post whose server states no reply policy, or one
 * that lets anyone reply at once, the post's author, and the actors it
 * lists by IRI (GoToSocial lists the mentioned ones there too). Membership
 * of the author's followers or following is not ours to judge for two
 * other servers, so it needs the proof too.
 */
import type { Context } from "@fedify/fedify";
import { Accept, ReplyAuthorization } from "@fedify/vocab";
import type { Object as APObject } from "@fedify/vocab";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import { eq } from "drizzle-orm";
import { accounts, statuses } from "../../db/schema/mod.ts";
import { claimOf } from "../objects/interaction_policy.ts";
import { sameOrigin } from "../fetch/trust.ts";
import type { FetchBudget } from "../fetch/budget.ts";
import { lookupRemote } from "../fetch/lookup.ts";

const logger = getLogger(["rookery", "federation", "remote", "authorizations"]);

type StatusRow = typeof statuses.$inferSelect;

/** The outcome: no proof needed, a verified proof, or refused (drop the reply). */
export type ReplyProof =
  | { needed: false }
  | { needed: true; authorizationUri: string }
  | { needed: true; authorizationUri: null; refusedByBudget: boolean };

/** Whether `authorUri` may reply to `parent` without a proof. */
function proofNeeded(parent: StatusRow, parentAuthorUri: string, authorUri: string): boolean {
  if (parent.local) return false;
  const rules = parent.interactionPolicy?.can_reply;
  if (!rules || rules.automatic.includes("public")) return false;
  if (authorUri === parentAuthorUri) return false;
  return !rules.automatic.includes(authorUri);
}

/**
 * Whether `proof` (fetched from `claim`) approves this reply to this post:
 * a ReplyAuthorization by the post's author naming both, or, as GoToSocial
 * 0.17 and 0.18 proved approvals (and still accepts), the author's Accept
 * whose `object` is the reply and whose `target`, if any, is the post.
 */
function provesReply(
  proof: unknown,
  claim: string,
  about: { reply: APObject; parent: StatusRow; parentAuthorUri: string },
): boolean {
  const { reply, parent, parentAuthorUri } = about;
  if (proof instanceof ReplyAuthorization) {
    return proof.id?.href === claim &&
      proof.attributionId?.href === parentAuthorUri &&
      proof.interactingObjectId?.href === reply.id?.href &&
      (proof.interactionTargetId == null || proof.interactionTargetId.href === parent.uri);
  }
  return proof instanceof Accept &&
    proof.id?.href === claim &&
    proof.actorId?.href === parentAuthorUri &&
    proof.objectId?.href === reply.id?.href &&
    (proof.targetId == null || proof.targetId.href === parent.uri);
}

/**
 * Checks the approval of `reply` (by `authorUri`) to the remote `parent`
 * (by `parentAuthorUri`); see the module comment.
 */
export async function checkReplyProof(
  ctx: Context<AppContext>,
  reply: APObject,
  authorUri: string,
  parent: StatusRow,
  parentAuthorUri: string,
  budget: FetchBudget,
): Promise<ReplyProof> {
  if (!proofNeeded(parent, parentAuthorUri, authorUri)) return { needed: false };
  const refuse = (why: string, refusedByBudget = false): ReplyProof => {
    logger.info("Reply {id} to {parent} refused: {why}", {
      id: reply.id?.href,
      parent: parent.uri,
      why,
    });
    return { needed: true, authorizationUri: null, refusedByBudget };
  };
  const claim = claimOf(reply);
  if (!claim) return refuse("no approval named");
  if (!sameOrigin(claim, parentAuthorUri)) return refuse("approval not on the author's server");
  const { value, refused } = await budget.watch(() => lookupRemote(ctx, claim.href, budget));
  if (!value) return refuse("approval not found", refused);
  if (!provesReply(value, claim.href, { reply, parent, parentAuthorUri })) {
    return refuse("approval does not match");
  }
  return { needed: true, authorizationUri: claim.href };
}

/**
 * The proof a remote reply needs to be stored (see the module comment):
 * null when none is needed, or when our fetch budget refused the check
 * (stored unverified, as before; a later check is not done yet), the
 * verified authorization's IRI, or "refused".
 */
export async function replyApproval(
  ctx: Context<AppContext>,
  reply: APObject,
  authorUri: string,
  parent: StatusRow | null,
  budget: FetchBudget,
): Promise<string | null | "refused"> {
  if (!parent || parent.local || !parent.interactionPolicy?.can_reply) return null;
  const [parentAuthor] = await ctx.data.database.db.select({ uri: accounts.uri }).from(accounts)
    .where(eq(accounts.id, parent.accountId));
  if (!parentAuthor) return null;
  const proof = await checkReplyProof(ctx, reply, authorUri, parent, parentAuthor.uri, budget);
  if (!proof.needed) return null;
  if ("refusedByBudget" in proof) return proof.refusedByBudget ? null : "refused";
  return proof.authorizationUri;
}

/** Records the verified proof on the stored reply. */
export async function recordApproval(
  ctx: Context<AppContext>,
  statusId: string,
  authorizationUri: string,
): Promise<void> {
  await ctx.data.database.db.update(statuses).set({ approvedByUri: authorizationUri })
    .where(eq(statuses.id, statusId));
}
