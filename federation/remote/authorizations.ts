/**
 * Third-server checks of interaction approvals (issue 34, design §5.5):
 * a reply or boost by one remote account of another remote account's post
 * whose policy wants approval for it is stored only with a proof — the
 * `replyAuthorization` / `announceAuthorization` (else `approvedBy`) it
 * names, on the post author's server, fetched (signed, within the
 * activity's budget) and found to be that author's ReplyAuthorization or
 * AnnounceAuthorization for this very interaction and post (or the
 * author's Accept of it, GoToSocial 0.17–0.18's proof). GoToSocial's rule:
 * missing or invalid, the interaction is dropped.
 *
 * What needs no proof: a post whose server states no policy for it, or one
 * that lets anyone do it at once, the post's author, and the actors it
 * lists by IRI (GoToSocial lists the mentioned ones there too). Membership
 * of the author's followers or following is not ours to judge for two
 * other servers, so it needs the proof too.
 *
 * When our fetch budget refuses fetching the proof, the verdict is
 * "deferred": a reply is then stored held, hidden from everyone, and the
 * status_links job verifies it later (status_links.ts).
 */
import type { Context } from "@fedify/fedify";
import { Accept, AnnounceAuthorization, ReplyAuthorization } from "@fedify/vocab";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import { eq } from "drizzle-orm";
import { accounts, statuses } from "../../db/schema/mod.ts";
import { sameOrigin } from "../fetch/trust.ts";
import type { FetchBudget } from "../fetch/budget.ts";
import { lookupRemote } from "../fetch/lookup.ts";

const logger = getLogger(["rookery", "federation", "remote", "authorizations"]);

type StatusRow = typeof statuses.$inferSelect;

/** A remote interaction with a remote post, as far as its approval goes. */
export interface ThirdPartyInteraction {
  kind: "reply" | "reblog";
  /** The reply Note's or the Announce's IRI. */
  uri: string;
  /** Its actor. */
  actorUri: string;
  /**
   * The approval it names (federation/objects/interaction_policy.ts claimOf),
   * or how to read it when only needed (a stored reply's, fetched again:
   * undefined when it could not be read, which defers the verdict).
   */
  claim: string | null | (() => Promise<string | null | undefined>);
}

/** What the interaction's approval comes to. */
export type ApprovalVerdict =
  | { kind: "free" }
  | { kind: "proven"; authorizationUri: string }
  | { kind: "refused" }
  | { kind: "deferred"; claim: string | null };

/** Whether `interaction` with `target` (by `targetAuthorUri`) needs a proof. */
function proofNeeded(
  interaction: ThirdPartyInteraction,
  target: StatusRow,
  targetAuthorUri: string,
): boolean {
  if (target.local) return false;
  const rules = interaction.kind === "reply"
    ? target.interactionPolicy?.can_reply
    : target.interactionPolicy?.can_reblog;
  if (!rules || rules.automatic.includes("public")) return false;
  if (interaction.actorUri === targetAuthorUri) return false;
  return !rules.automatic.includes(interaction.actorUri);
}

/**
 * Whether `proof` (fetched from the claim) approves the interaction with
 * `target`: the typed authorization by the post's author naming both, or
 * that author's Accept whose `object` is the interaction and whose
 * `target`, if any, is the post.
 */
function proves(
  proof: unknown,
  claim: string,
  interaction: ThirdPartyInteraction,
  about: { target: StatusRow; targetAuthorUri: string },
): boolean {
  const { target, targetAuthorUri } = about;
  const Typed = interaction.kind === "reply" ? ReplyAuthorization : AnnounceAuthorization;
  if (proof instanceof Typed) {
    return proof.id?.href === claim &&
      proof.attributionId?.href === targetAuthorUri &&
      proof.interactingObjectId?.href === interaction.uri &&
      (proof.interactionTargetId == null || proof.interactionTargetId.href === target.uri);
  }
  return proof instanceof Accept &&
    proof.id?.href === claim &&
    proof.actorId?.href === targetAuthorUri &&
    proof.objectId?.href === interaction.uri &&
    (proof.targetId == null || proof.targetId.href === target.uri);
}

/**
 * The verdict on `interaction` with `target` (see the module comment);
 * "free" when the target is missing, local or states no policy for it.
 */
export async function judgeApproval(
  ctx: Context<AppContext>,
  interaction: ThirdPartyInteraction,
  target: StatusRow | null,
  budget: FetchBudget,
): Promise<ApprovalVerdict> {
  if (!target || target.local || !target.interactionPolicy) return { kind: "free" };
  const [author] = await ctx.data.database.db.select({ uri: accounts.uri }).from(accounts)
    .where(eq(accounts.id, target.accountId));
  if (!author || !proofNeeded(interaction, target, author.uri)) return { kind: "free" };
  const refuse = (why: string): ApprovalVerdict => {
    logger.info("{kind} {id} of {target} refused: {why}", {
      kind: interaction.kind,
      id: interaction.uri,
      target: target.uri,
      why,
    });
    return { kind: "refused" };
  };
  const claim = typeof interaction.claim === "function"
    ? await interaction.claim()
    : interaction.claim;
  if (claim === undefined) return { kind: "deferred", claim: null };
  if (!claim) return refuse("no approval named");
  if (!sameOrigin(claim, author.uri)) return refuse("approval not on the author's server");
  const { value, refused } = await budget.watch(() => lookupRemote(ctx, claim, budget));
  if (!value && refused) return { kind: "deferred", claim };
  if (!value) return refuse("approval not found");
  if (!proves(value, claim, interaction, { target, targetAuthorUri: author.uri })) {
    return refuse("approval does not match");
  }
  return { kind: "proven", authorizationUri: claim };
}
