/**
 * Fetching, after the fact, the parent or quoted post a stored remote status
 * names but lacks, and linking it (actors/statuses/link_remote.ts):
 *
 * - {@link fetchStatusLinks} is the job an inbound activity leaves behind
 *   when its fetch budget (federation/fetch/budget.ts) refused them
 *   (recorded with the status: actors/outbox/status_links.ts). It has a
 *   budget of its own; what that refuses in turn is recorded with the
 *   statuses it stores, so a long thread arrives over several jobs, never
 *   deeper than MAX_DEPTH levels from the status that started it.
 * - {@link fetchMissingAncestor} is what opening a thread does (GET
 *   /api/v1/statuses/:id/context by a signed-in user): the parent missing at
 *   the top of the stored thread is fetched then, within a budget.
 *
 * What is fetched is stored with the same trust rules as at once
 * (fetch_status.ts): an object is stored only as its own server's author's,
 * and a reply is linked to a parent that arrived later only with the
 * approval the parent's policy wants (authorizations.ts), as at once. The
 * job also checks the approval of a reply held because the budget refused
 * checking it on arrival.
 */
import type { Context } from "@fedify/fedify";
import { eq, sql } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import { accounts, statuses } from "../../db/schema/mod.ts";
import type { MissingLinks } from "../../actors/outbox/status_links.ts";
import { linkRemoteParent, linkRemoteQuote } from "../../actors/statuses/link_remote.ts";
import { FetchBudget } from "../fetch/budget.ts";
import { findStatusByUri, quoteStateOf, resolveRemoteStatus } from "./statuses.ts";
import { instanceContext, lookupRemote } from "../fetch/lookup.ts";
import { deleteStatus } from "../../actors/statuses/delete.ts";
import { approveVerifiedReply } from "../../actors/statuses/held_replies.ts";
import { approveVerifiedBoost, unreblog } from "../../actors/interactions/reblogs.ts";
import { claimOf } from "../objects/interaction_policy.ts";
import {
  type ApprovalVerdict,
  judgeApproval,
  type ThirdPartyInteraction,
} from "./authorizations.ts";
import { sameOrigin } from "../fetch/trust.ts";

const logger = getLogger(["rookery", "federation", "status-links"]);

type StatusRow = typeof statuses.$inferSelect;

/** How long a parent asked for from a thread view is not asked for again (by this process). */
const ASK_AGAIN_MS = 10 * 60_000;
/** Parents this process asked for lately, oldest first; bounded (the process core holds it). */
export class RecentAsks {
  readonly #askedAt = new Map<string, number>();

  /**
   * Whether `uri` was asked for lately; notes it otherwise. A peer that
   * stalls or fails then costs a thread's viewers one wait per ten minutes,
   * not one per view.
   */
  askedLately(uri: string): boolean {
    const at = this.#askedAt.get(uri);
    if (at != null && Date.now() - at < ASK_AGAIN_MS) return true;
    this.#askedAt.delete(uri);
    if (this.#askedAt.size >= 10_000) this.#askedAt.delete(this.#askedAt.keys().next().value!);
    this.#askedAt.set(uri, Date.now());
    return false;
  }
}

/** The job: fetches the missing parent and quoted post of a stored remote status, and links them. */
export async function fetchStatusLinks(
  app: AppContext,
  statusId: string,
  missing: MissingLinks,
): Promise<void> {
  const [status] = await app.database.db.select().from(statuses)
    .where(eq(statuses.id, statusId)).limit(1);
  if (!status || status.local || status.deletedAt) return;
  const ctx = instanceContext(app);
  const budget = FetchBudget.of(app);
  if (missing.verify && status.pendingApproval) {
    await verifyHeld(ctx, status, missing.claimUri ?? null, budget);
  }
  if (missing.parent && status.inReplyToUri && !status.inReplyToId) {
    const parent = await resolveRemoteStatus(ctx, status.inReplyToUri, budget, missing.depth);
    // Jobs recorded before claims were kept with them read the claim again.
    const claim = missing.claimUri !== undefined
      ? missing.claimUri
      : claimReadAgain(ctx, status, budget);
    if (parent) await linkCheckedParent(ctx, status, parent, budget, claim);
  }
  if (missing.quoteUri && !status.quotedStatusId) {
    const quoted = await resolveRemoteStatus(ctx, missing.quoteUri, budget, missing.depth);
    if (quoted) {
      await linkRemoteQuote(app, {
        statusId,
        quotedStatusId: quoted.id,
        stamped: quoteStateOf(missing.stampUri, quoted) === "accepted",
      });
    }
  }
  logger.debug("Fetched the links of {uri} ({spent} fetches, {refused} refused).", {
    uri: status.uri,
    spent: budget.spent,
    refused: budget.refusals,
  });
}

/**
 * Fetches (within a budget) and links the parent missing at the top of the
 * stored thread of `statusId`: a remote status that names a parent we do not
 * have. A parent we have (stored since) is linked without a fetch; a deleted
 * or local one is not fetched, nor one this process asked for in the last
 * ten minutes. Returns whether a parent was linked. Never throws: the thread
 * is shown as it is when this fails.
 */
export async function fetchMissingAncestor(app: AppContext, statusId: string): Promise<boolean> {
  try {
    const [top] = await app.database.rows<{ id: string | number }>(sql`
      WITH RECURSIVE up(id, parent, depth) AS (
        SELECT id, in_reply_to_id, 0 FROM statuses WHERE id = ${statusId}::bigint
        UNION ALL
        SELECT s.id, s.in_reply_to_id, up.depth + 1 FROM statuses s JOIN up ON s.id = up.parent
        WHERE up.depth < 4096)
      SELECT id FROM up ORDER BY depth DESC LIMIT 1`);
    if (!top) return false;
    const [status] = await app.database.db.select().from(statuses)
      .where(eq(statuses.id, String(top.id))).limit(1);
    const uri = status?.inReplyToUri;
    if (!status || status.local || status.deletedAt || status.inReplyToId || !uri) return false;
    if (sameOrigin(uri, app.config.origin)) return false;
    // Stored since (and not linked): link it. Deleted: there is nothing to fetch.
    const [stored] = await app.database.db.select({ id: statuses.id }).from(statuses)
      .where(eq(statuses.uri, uri)).limit(1);
    if (!stored && app.core.statusLinkAsks.askedLately(uri)) return false;
    const ctx = instanceContext(app);
    const budget = FetchBudget.of(app);
    const parent = stored
      ? await findStatusByUri(app, uri)
      : await resolveRemoteStatus(ctx, uri, budget, 1);
    if (!parent) return false;
    return await linkCheckedParent(
      ctx,
      status,
      parent,
      budget,
      claimReadAgain(ctx, status, budget),
    );
  } catch (error) {
    logger.warn("Could not fetch the parent of a thread of {id}: {error}", { id: statusId, error });
    return false;
  }
}

/**
 * The approval a stored reply claims, read again from its server when a
 * proof turns out to be needed (it is not kept with the row); undefined
 * when it cannot be read, which leaves the reply unlinked, as when the
 * parent could not be fetched.
 */
function claimReadAgain(
  ctx: Context<AppContext>,
  reply: StatusRow,
  budget: FetchBudget,
): () => Promise<string | null | undefined> {
  return async () => {
    const object = await lookupRemote(ctx, reply.uri, budget);
    return object ? claimOf(object)?.href ?? null : undefined;
  };
}

/** The verdict on a stored remote reply or boost (by its author) of `target`: authorizations.ts. */
async function storedVerdict(
  ctx: Context<AppContext>,
  interaction: StatusRow,
  target: StatusRow,
  budget: FetchBudget,
  claim: ThirdPartyInteraction["claim"],
): Promise<ApprovalVerdict> {
  const [author] = await ctx.data.database.db.select({ uri: accounts.uri }).from(accounts)
    .where(eq(accounts.id, interaction.accountId));
  if (!author) return { kind: "refused" };
  return await judgeApproval(
    ctx,
    {
      kind: interaction.reblogOfId ? "reblog" : "reply",
      uri: interaction.uri,
      actorUri: author.uri,
      claim,
    },
    target,
    budget,
  );
}

/**
 * Links a stored reply to the parent that arrived after it, under the same
 * checks as a reply whose parent is there at once: when the parent's policy
 * wants a proof, only a valid one links it; without one the reply is
 * discarded (GoToSocial drops it on dereference). A proof the budget
 * refused leaves it unlinked, to be tried again.
 */
async function linkCheckedParent(
  ctx: Context<AppContext>,
  reply: StatusRow,
  parent: StatusRow,
  budget: FetchBudget,
  claim: ThirdPartyInteraction["claim"],
): Promise<boolean> {
  const app = ctx.data;
  const verdict = await storedVerdict(ctx, reply, parent, budget, claim);
  if (verdict.kind === "refused") {
    await deleteStatus(app, reply.accountId, reply.id);
    return false;
  }
  if (verdict.kind === "deferred") return false;
  return await linkRemoteParent(app, {
    statusId: reply.id,
    parentId: parent.id,
    approvedByUri: verdict.kind === "proven" ? verdict.authorizationUri : undefined,
  });
}

/**
 * A reply or boost held because the fetch budget refused checking its
 * approval on arrival: checked now, it stands or is discarded; refused
 * again, it stays held (hidden).
 */
async function verifyHeld(
  ctx: Context<AppContext>,
  held: StatusRow,
  claim: string | null,
  budget: FetchBudget,
): Promise<void> {
  const app = ctx.data;
  const targetId = held.reblogOfId ?? held.inReplyToId;
  if (!targetId) return;
  const [target] = await app.database.db.select().from(statuses)
    .where(eq(statuses.id, targetId));
  if (!target) return;
  const verdict = await storedVerdict(ctx, held, target, budget, claim);
  if (verdict.kind === "deferred") {
    logger.info("The approval of {uri} is still unchecked.", { uri: held.uri });
    return;
  }
  const proof = verdict.kind === "proven" ? verdict.authorizationUri : null;
  if (held.reblogOfId) {
    if (verdict.kind === "refused") await unreblog(app, held.accountId, held.id);
    else await approveVerifiedBoost(app, held.id, proof);
  } else if (verdict.kind === "refused") await deleteStatus(app, held.accountId, held.id);
  else await approveVerifiedReply(app, held.id, proof);
}
