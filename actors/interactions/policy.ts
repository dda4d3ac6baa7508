/**
 * The interaction policy decision with the database's facts: how the one
 * who interacts stands towards the status and its author (follows both
 * ways, mentioned or replied to, thread starter), then
 * model/interaction_policy.ts's `decide`. Every command that favourites,
 * boosts or replies asks here, for local and remote actors alike.
 */
import { sql } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import {
  decide,
  type Decision,
  effectivePolicy,
  type Facts,
  type Interaction,
  type PolicyRules,
  SUB_POLICY,
} from "../../model/interaction_policy.ts";
import { rowsOf } from "../timelines/fanout.ts";
import { type AccountRow, NotPermittedError, type StatusRow } from "./target.ts";

/**
 * A favourite or boost the status's interaction policy forbids (not a block
 * or a visibility refusal): a remote one is answered with a Reject and
 * remembered (actors/interactions/remote_requests.ts).
 */
export class ForbiddenInteractionError extends NotPermittedError {}

/** Whether deciding needs to know how the actor stands (anything but "anyone, at once"). */
function needsFacts(
  interaction: Interaction,
  target: StatusRow,
  rules: PolicyRules | null,
): boolean {
  if (rules == null) return false;
  if (interaction === "reply" && target.pendingApproval) return true;
  return !rules.automatic.includes("public");
}

/**
 * How `actor` stands towards `target` and its author, in one statement.
 * The thread starter is the author of the oldest status of the thread.
 */
export async function interactionFacts(
  tx: Executor,
  target: StatusRow,
  actor: AccountRow,
): Promise<Facts> {
  const [row] = rowsOf<Record<string, boolean>>(
    await tx.execute(sql`SELECT
      EXISTS (SELECT 1 FROM follows WHERE account_id = ${actor.id}::bigint
        AND target_account_id = ${target.accountId}::bigint) AS follows_author,
      EXISTS (SELECT 1 FROM follows WHERE account_id = ${target.accountId}::bigint
        AND target_account_id = ${actor.id}::bigint) AS followed_by_author,
      EXISTS (SELECT 1 FROM mentions WHERE status_id = ${target.id}::bigint
        AND account_id = ${actor.id}::bigint) AS mentioned,
      coalesce((SELECT account_id = ${actor.id}::bigint FROM statuses
        WHERE conversation_id = ${target.conversationId}::bigint ORDER BY id LIMIT 1), false)
        AS started_thread`),
  );
  return {
    isAuthor: false,
    mentionedOrRepliedTo: row.mentioned || target.inReplyToAccountId === actor.id,
    followsAuthor: row.follows_author,
    followedByAuthor: row.followed_by_author,
    actorUri: actor.uri,
    startedThread: row.started_thread,
  };
}

/**
 * Whether `actor` may do `interaction` with `target` (which they may see:
 * the caller checked), under the policy in force for the status.
 */
export async function decideInteraction(
  tx: Executor,
  interaction: Interaction,
  target: StatusRow,
  actor: AccountRow,
): Promise<Decision> {
  // Neither side ours: the target's server judges, and its proofs are not checked here yet.
  if (!target.local && actor.domain != null) return { permission: "automatic", proof: false };
  const rules = effectivePolicy(target)[SUB_POLICY[interaction]];
  const decisionTarget = { visibility: target.visibility, rules, pending: target.pendingApproval };
  const isAuthor = target.accountId === actor.id;
  const facts: Facts = isAuthor || !needsFacts(interaction, target, rules)
    ? {
      isAuthor,
      mentionedOrRepliedTo: target.inReplyToAccountId === actor.id,
      followsAuthor: false,
      followedByAuthor: false,
      actorUri: actor.uri,
      startedThread: false,
    }
    : await interactionFacts(tx, target, actor);
  return decide(interaction, decisionTarget, { ...facts, isAuthor });
}

/**
 * Whether an allowed interaction waits for an answer: manual approval, or
 * (with a remote target) an automatic one its server proves with an
 * authorization, which we must ask for (GoToSocial's "preapproval").
 */
export function waitsForApproval(decision: Decision, target: StatusRow): boolean {
  if (decision.permission === "manual") return true;
  return decision.permission === "automatic" && decision.proof && !target.local;
}
