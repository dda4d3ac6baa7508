/**
 * Approvals claimed by remote interactions (issue 34): a reply, Like or
 * Announce may name the authorization that approved it
 * (`replyAuthorization`, `likeAuthorization`, `announceAuthorization`,
 * else `approvedBy`). One that names an authorization of ours is dropped
 * unless we issued that authorization for that very interaction: a forged
 * approval never makes an interaction stand.
 */
import type { InboxContext } from "@fedify/fedify";
import type { Object as APObject } from "@fedify/vocab";
import { and, eq } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import { interactionRequests } from "../../db/schema/mod.ts";
import { sameOrigin } from "../fetch/trust.ts";
import { claimOf } from "../objects/interaction_policy.ts";

const logger = getLogger(["rookery", "federation", "inbox", "approval_claims"]);

/**
 * Whether `object` claims an authorization of ours that we did not issue
 * for it (then it is dropped). Claims on other servers are not judged here.
 */
export async function forgedClaim(ctx: InboxContext<AppContext>, object: APObject) {
  const claim = claimOf(object);
  if (!claim || !object.id || !sameOrigin(claim, ctx.data.config.origin)) return false;
  const [row] = await ctx.data.database.db.select({ id: interactionRequests.id })
    .from(interactionRequests).where(and(
      eq(interactionRequests.authorizationUri, claim.href),
      eq(interactionRequests.interactionUri, object.id.href),
      eq(interactionRequests.state, "accepted"),
    )).limit(1);
  if (row) return false;
  logger.info("Dropped {id}: it claims {claim}, which we did not issue for it.", {
    id: object.id.href,
    claim: claim.href,
  });
  return true;
}
