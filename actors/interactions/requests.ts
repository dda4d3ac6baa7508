/**
 * Interactions held for the approval of the status's author (issue 34):
 * opening a request when a favourite, boost or reply of a local status
 * needs approval, accepting it (the interaction then counts, enters feeds
 * and is shown to everyone who may see it), rejecting it (the interaction is
 * discarded; the row is kept so the same interaction is refused when it
 * comes back) and withdrawing it (the interacter took it back).
 *
 * Each command is one transaction that locks the request row first, then
 * the interaction. A request is the user's to decide when they wrote the
 * status interacted with; anyone else's, or an already decided one, is
 * NotFoundError (the API's 404).
 */
import { and, eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Executor } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import { accounts, favourites, interactionRequests, statuses } from "../../db/schema/mod.ts";
import { NotFoundError } from "../../model/errors.ts";
import { activityIds } from "../../model/uris.ts";
import { notify, retractNotifications } from "../notifications/notify.ts";
import { approveHeldFavourite } from "./favourites.ts";
import { approveHeldBoost } from "./reblogs.ts";
import { approveHeldReply } from "../statuses/held_replies.ts";
import { removeStatusIn } from "../statuses/delete.ts";
import { flushDiscardedMedia } from "../media/discarded.ts";
import { recordDelivery } from "../outbox/deliveries.ts";
import { publishStreamEvent } from "../streaming/bus.ts";
import type { StatusRow } from "./target.ts";

export type InteractionRequestRow = typeof interactionRequests.$inferSelect;

/** The interactions a request is about, in the API's words. */
export type RequestType = "favourite" | "reply" | "reblog";

/** A held interaction with a local status. */
export interface HeldInteraction {
  type: RequestType;
  /** The status interacted with (local). */
  target: StatusRow;
  /** Who interacts. */
  accountId: string;
  /** The held reply or boost. */
  statusId?: string;
  /** The held favourite. */
  favouriteId?: string;
  /** The reply Note's, the Announce's or the Like's IRI. */
  interactionUri: string;
}

/** The status a `pending.*` notification names: the liked status, the held reply or boost. */
function notifiedStatusId(
  row: Pick<InteractionRequestRow, "type" | "targetStatusId" | "statusId">,
) {
  return row.type === "favourite" ? row.targetStatusId : row.statusId;
}

/**
 * Records a request for `held` (written held by the caller, in the same
 * transaction) and tells the target's author (`pending.<type>`).
 */
export async function openInboundRequest(
  tx: Executor,
  held: HeldInteraction,
): Promise<InteractionRequestRow> {
  const [row] = await tx.insert(interactionRequests).values({
    id: newId(),
    type: held.type,
    targetStatusId: held.target.id,
    targetAccountId: held.target.accountId,
    accountId: held.accountId,
    statusId: held.statusId ?? null,
    favouriteId: held.favouriteId ?? null,
    interactionUri: held.interactionUri,
  }).returning();
  await notify(tx, {
    type: `pending.${held.type}`,
    accountId: held.target.accountId,
    fromAccountId: held.accountId,
    statusId: notifiedStatusId(row),
  });
  return row;
}

/**
 * Records a request for `held`, held by the caller in the same transaction:
 * for a local status, the author is told ({@link openInboundRequest}); for a
 * remote one, we ask its server (`interactionRequested`: a polite request).
 */
export async function openRequest(tx: Executor, held: HeldInteraction): Promise<void> {
  if (held.target.local) {
    await openInboundRequest(tx, held);
    return;
  }
  const [actor] = await tx.select({ uri: accounts.uri }).from(accounts)
    .where(eq(accounts.id, held.accountId));
  const requestUri = held.type === "reply"
    ? activityIds.replyRequest(held.interactionUri)
    : held.type === "favourite"
    ? activityIds.likeRequest(actor.uri, held.favouriteId!)
    : activityIds.announceRequest(actor.uri, held.statusId!);
  const [row] = await tx.insert(interactionRequests).values({
    id: newId(),
    type: held.type,
    targetStatusId: held.target.id,
    targetAccountId: held.target.accountId,
    accountId: held.accountId,
    statusId: held.statusId ?? null,
    favouriteId: held.favouriteId ?? null,
    interactionUri: held.interactionUri,
    requestUri,
    polite: true,
  }).returning();
  await recordDelivery(tx, "interactionRequested", row.id);
}

/** The pending request `requestId` of `accountId`'s status, locked; else NotFoundError. */
async function pendingRequest(tx: Executor, accountId: string, requestId: string) {
  const [row] = await tx.select().from(interactionRequests).where(and(
    eq(interactionRequests.id, requestId),
    eq(interactionRequests.targetAccountId, accountId),
    eq(interactionRequests.state, "pending"),
  )).for("update").limit(1);
  if (!row) throw new NotFoundError();
  return row;
}

async function retractPending(tx: Executor, row: InteractionRequestRow): Promise<void> {
  const statusId = notifiedStatusId(row);
  await retractNotifications(tx, {
    types: [`pending.${row.type}` as `pending.${RequestType}`],
    accountId: row.targetAccountId,
    fromAccountId: row.accountId,
    ...(statusId ? { statusId } : {}),
  });
}

/** Makes a held interaction stand (favourites.ts, reblogs.ts, statuses/held_replies.ts). */
async function approveInteraction(
  tx: Executor,
  origin: string,
  row: InteractionRequestRow,
  proof: string,
) {
  if (row.type === "favourite" && row.favouriteId) {
    await approveHeldFavourite(tx, row.favouriteId, proof);
  } else if (row.type === "reblog" && row.statusId) {
    await approveHeldBoost(tx, row.statusId, proof);
  } else if (row.type === "reply" && row.statusId) {
    await approveHeldReply(tx, origin, row.statusId, proof);
  }
}

/**
 * Discards a held interaction: a favourite or boost never counted, so only
 * its row goes; a reply is deleted as its author would delete it (no Delete
 * sent: it was never sent). Returns the media files to flush after commit.
 */
async function discardInteraction(tx: Executor, row: InteractionRequestRow): Promise<number> {
  if (row.type === "favourite" && row.favouriteId) {
    await tx.delete(favourites).where(eq(favourites.id, row.favouriteId));
  } else if (row.type === "reblog" && row.statusId) {
    const [boost] = await tx.delete(statuses).where(eq(statuses.id, row.statusId))
      .returning({ id: statuses.id, accountId: statuses.accountId });
    // The booster's apps drop the boost they were shown (it never reached any feed).
    if (boost) {
      await publishStreamEvent(tx, {
        event: "delete",
        statusId: boost.id,
        home: [boost.accountId],
        lists: [],
      });
    }
  } else if (row.type === "reply" && row.statusId) {
    const [reply] = await tx.select().from(statuses).where(eq(statuses.id, row.statusId));
    if (reply) return await removeStatusIn(tx, reply, { deleteMedia: true });
  }
  return 0;
}

/**
 * The author of the status accepts a held interaction (from the API, the
 * settings page, or implicitly by interacting with a held reply to them).
 * Returns the decided row.
 */
async function acceptLocked(tx: Executor, origin: string, row: InteractionRequestRow) {
  const [author] = await tx.select({ uri: accounts.uri }).from(accounts)
    .where(eq(accounts.id, row.targetAccountId));
  const proof = activityIds.authorization(author.uri, row.id);
  await approveInteraction(tx, origin, row, proof);
  await retractPending(tx, row);
  const [decided] = await tx.update(interactionRequests).set({
    state: "accepted",
    authorizationUri: proof,
    decidedAt: new Date(),
  }).where(eq(interactionRequests.id, row.id)).returning();
  await answerIfRemote(tx, decided);
  return decided;
}

/**
 * A decided request of a remote interacter is answered (Accept with the
 * authorization, or Reject: federation/outbox/interaction_requests.ts).
 */
export async function answerIfRemote(tx: Executor, row: InteractionRequestRow): Promise<void> {
  const [interacter] = await tx.select({ domain: accounts.domain }).from(accounts)
    .where(eq(accounts.id, row.accountId));
  if (interacter?.domain != null) await recordDelivery(tx, "interactionAnswered", row.id);
}

/** The author of the status accepts the held interaction `requestId`. */
export async function acceptRequest(
  app: AppContext,
  accountId: string,
  requestId: string,
): Promise<InteractionRequestRow> {
  return await app.database.db.transaction(async (tx) =>
    await acceptLocked(tx, app.config.origin, await pendingRequest(tx, accountId, requestId))
  );
}

/**
 * `status` as `accountId` interacts with it: a held reply addressed to them
 * is approved first ({@link acceptHeldInteraction}) and returned as it now is.
 */
export async function approvingIfHeld(
  tx: Executor,
  origin: string,
  accountId: string,
  status: StatusRow,
): Promise<StatusRow> {
  if (!status.pendingApproval || status.inReplyToAccountId !== accountId) return status;
  await acceptHeldInteraction(tx, origin, accountId, { statusId: status.id });
  const [fresh] = await tx.select().from(statuses).where(eq(statuses.id, status.id));
  return fresh ?? status;
}

/**
 * Implicit acceptance (GoToSocial's): `accountId` favourites, boosts or
 * replies to a held reply or boost addressed to them, which approves it
 * first, in the same transaction. Nothing happens when it is not held.
 */
export async function acceptHeldInteraction(
  tx: Executor,
  origin: string,
  accountId: string,
  interaction: { statusId: string },
): Promise<void> {
  const [row] = await tx.select().from(interactionRequests).where(and(
    eq(interactionRequests.statusId, interaction.statusId),
    eq(interactionRequests.targetAccountId, accountId),
    eq(interactionRequests.state, "pending"),
  )).for("update").limit(1);
  if (row) await acceptLocked(tx, origin, row);
}

/** The author of the status rejects a held interaction, which is discarded. */
export async function rejectRequest(
  app: AppContext,
  accountId: string,
  requestId: string,
): Promise<InteractionRequestRow> {
  const db = app.database.db;
  const { decided, files } = await db.transaction(async (tx) => {
    const row = await pendingRequest(tx, accountId, requestId);
    await retractPending(tx, row);
    const [decided] = await tx.update(interactionRequests).set({
      state: "rejected",
      decidedAt: new Date(),
    }).where(eq(interactionRequests.id, row.id)).returning();
    await answerIfRemote(tx, decided);
    return { decided, files: await discardInteraction(tx, row) };
  });
  if (files > 0) await flushDiscardedMedia(db, app.media);
  return decided;
}

/** The remote author's answer to one of our requests, as received. */
export interface RemoteAnswer {
  accepted: boolean;
  /** The authorization IRI (`result`), for an Accept. */
  authorizationUri: string | null;
  /** The Accept's or Reject's IRI. */
  responseUri: string | null;
}

/**
 * The remote author answered our request `requestId` (still pending, else
 * nothing happens): accepted, the held interaction stands with the
 * authorization as its proof and goes out as it would have at once (the
 * reply's Create, the boost's Announce); rejected, it is discarded
 * (GoToSocial deletes it silently; it was never sent to anyone else).
 */
export async function recordRemoteAnswer(
  app: AppContext,
  requestId: string,
  answer: RemoteAnswer,
): Promise<void> {
  const db = app.database.db;
  const files = await db.transaction(async (tx) => {
    const [row] = await tx.select().from(interactionRequests).where(and(
      eq(interactionRequests.id, requestId),
      eq(interactionRequests.state, "pending"),
    )).for("update").limit(1);
    if (!row) return 0;
    await tx.update(interactionRequests).set({
      state: answer.accepted ? "accepted" : "rejected",
      authorizationUri: answer.accepted ? answer.authorizationUri : null,
      responseUri: answer.responseUri,
      decidedAt: new Date(),
    }).where(eq(interactionRequests.id, row.id));
    if (!answer.accepted || !answer.authorizationUri) return await discardInteraction(tx, row);
    await approveInteraction(tx, app.config.origin, row, answer.authorizationUri);
    return 0;
  });
  if (files > 0) await flushDiscardedMedia(db, app.media);
}

/**
 * The interacter took back a held interaction (unfavourite, unboost, delete
 * of the reply): its request goes, with the `pending.*` notification.
 * Nothing happens for an interaction that is not held.
 */
export async function withdrawRequest(
  tx: Executor,
  interaction: { statusId: string } | { favouriteId: string },
): Promise<void> {
  const [row] = await tx.delete(interactionRequests).where(and(
    "statusId" in interaction
      ? eq(interactionRequests.statusId, interaction.statusId)
      : eq(interactionRequests.favouriteId, interaction.favouriteId),
    eq(interactionRequests.state, "pending"),
  )).returning();
  if (row) await retractPending(tx, row);
}
