/**
 * Replies under an interaction policy (issue 34): whether a new reply may
 * be written, stands at once or waits for the approval of the author of
 * what it replies to; holding it (the request and the `pending.reply`
 * notification instead of its distribution); and approving it later (the
 * distribution it skipped). Replying to a held reply addressed to oneself
 * approves that reply first (GoToSocial's implicit acceptance).
 */
import { and, eq, isNull, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Executor } from "../../db/connection.ts";
import { accounts, mediaAttachments, mentions, quotes, statuses } from "../../db/schema/mod.ts";
import { decideInteraction, waitsForApproval } from "../interactions/policy.ts";
import { approvingIfHeld, openRequest } from "../interactions/requests.ts";
import type { CreateStatusInput, StatusRow } from "./create.ts";
import { StatusError } from "./errors.ts";
import { announce, type PreparedStatus } from "./write_status.ts";

/** The refusal of a reply the parent's interaction policy does not allow (GoToSocial's words). */
export const REPLY_FORBIDDEN = "You do not have permission to reply to this status";

/**
 * The 403 of a reply the policy forbids: a remote one is answered with a
 * Reject and remembered (actors/interactions/remote_requests.ts).
 */
export class ReplyForbiddenError extends StatusError {
  constructor() {
    super(403, REPLY_FORBIDDEN);
  }
}

/**
 * Whether the new status, a reply, is held for approval; a StatusError 403
 * when the policy does not allow it at all. Runs in the posting transaction.
 */
export async function replyHeld(
  tx: Executor,
  origin: string,
  input: CreateStatusInput,
  p: PreparedStatus,
): Promise<boolean> {
  if (!p.parent) return false;
  const [author] = await tx.select().from(accounts).where(eq(accounts.id, input.accountId));
  const parent = await approvingIfHeld(tx, origin, author.id, p.parent);
  const decision = await decideInteraction(tx, "reply", parent, author);
  if (decision.permission === "forbidden") throw new ReplyForbiddenError();
  return waitsForApproval(decision, parent);
}

/**
 * A held reply, just written: its request, with the `pending.reply`
 * notification to the author of a local parent, or our ReplyRequest to the
 * server of a remote one.
 */
export async function holdReply(tx: Executor, status: StatusRow, parent: StatusRow | null) {
  if (!parent) return;
  await openRequest(tx, {
    type: "reply",
    target: parent,
    accountId: status.accountId,
    statusId: status.id,
    interactionUri: status.uri,
  });
}

/**
 * A held reply approved: it counts on its parent and is distributed as it
 * would have been when written (feeds, the Create of a local one, the
 * mentioned, the bell, the quoted). The approver, who just acted, is not
 * notified of it again.
 */
export async function approveHeldReply(
  tx: Executor,
  origin: string,
  statusId: string,
  proof: string | null,
): Promise<void> {
  const [status] = await tx.update(statuses).set({ pendingApproval: false, approvedByUri: proof })
    .where(
      and(
        eq(statuses.id, statusId),
        eq(statuses.pendingApproval, true),
        isNull(statuses.deletedAt),
      ),
    )
    .returning();
  if (!status) return;
  if (status.inReplyToId) {
    await tx.update(statuses).set({ repliesCount: sql`${statuses.repliesCount} + 1` })
      .where(eq(statuses.id, status.inReplyToId));
  }
  const mentioned = await tx.select({ id: accounts.id }).from(mentions)
    .innerJoin(accounts, eq(accounts.id, mentions.accountId))
    .where(and(eq(mentions.statusId, status.id), isNull(accounts.domain)));
  const [quote] = await tx.select({ quoted: statuses }).from(quotes)
    .innerJoin(statuses, eq(statuses.id, quotes.quotedStatusId))
    .where(eq(quotes.statusId, status.id));
  const [media] = await tx.select({ id: mediaAttachments.id }).from(mediaAttachments)
    .where(eq(mediaAttachments.statusId, status.id)).limit(1);
  await announce(tx, origin, status, {
    hasMedia: media != null,
    notified: mentioned.map((m) => m.id)
      .filter((id) => id !== status.accountId && id !== status.inReplyToAccountId),
    quoted: quote?.quoted ?? null,
  });
}

/**
 * A reply between two other servers, held until its approval was checked
 * (the fetch budget refused it on arrival): checked now, it stands as if
 * stored at once; `proof` is the verified authorization, null when none
 * was needed after all.
 */
export async function approveVerifiedReply(
  app: AppContext,
  statusId: string,
  proof: string | null,
): Promise<void> {
  await app.database.db.transaction((tx) =>
    approveHeldReply(tx, app.config.origin, statusId, proof)
  );
}
