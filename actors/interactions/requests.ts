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

/**
 * Makes a held favourite or boost stand (favourites.ts, reblogs.ts).
 * Replies are approved by the status commands' distribution.
 */
async function approveInteraction(tx: Executor, row: InteractionRequestRow, proof: string) {
  if (row.type === "favourite" && row.favouriteId) {
    await approveHeldFavourite(tx, row.favouriteId, proof);
  } else if (row.type === "reblog" && row.statusId) {
    await approveHeldBoost(tx, row.statusId, proof);
  } else if (row.statusId || row.favouriteId) {
    throw new Error(`no approval for a ${row.type} request`);
  }
}

/** Discards a held interaction: it never counted, so only its row goes. */
async function discardInteraction(tx: Executor, row: InteractionRequestRow): Promise<void> {
  if (row.type === "favourite" && row.favouriteId) {
    await tx.delete(favourites).where(eq(favourites.id, row.favouriteId));
  } else if (row.type === "reblog" && row.statusId) {
    await tx.delete(statuses).where(eq(statuses.id, row.statusId));
  } else if (row.statusId) {
    throw new Error(`no discarding of a ${row.type} request`);
  }
}

/**
 * The author of the status accepts a held interaction (from the API, the
 * settings page, or implicitly by interacting with a held reply to them).
 * Returns the decided row.
 */
export async function acceptRequestIn(tx: Executor, accountId: string, requestId: string) {
  const row = await pendingRequest(tx, accountId, requestId);
  const [author] = await tx.select({ uri: accounts.uri }).from(accounts)
    .where(eq(accounts.id, row.targetAccountId));
  const proof = activityIds.authorization(author.uri, row.id);
  await approveInteraction(tx, row, proof);
  await retractPending(tx, row);
  const [decided] = await tx.update(interactionRequests).set({
    state: "accepted",
    authorizationUri: proof,
    decidedAt: new Date(),
  }).where(eq(interactionRequests.id, row.id)).returning();
  return decided;
}

/** {@link acceptRequestIn} in its own transaction. */
export async function acceptRequest(
  app: AppContext,
  accountId: string,
  requestId: string,
): Promise<InteractionRequestRow> {
  return await app.database.db.transaction((tx) => acceptRequestIn(tx, accountId, requestId));
}

/** The author of the status rejects a held interaction, which is discarded. */
export async function rejectRequest(
  app: AppContext,
  accountId: string,
  requestId: string,
): Promise<InteractionRequestRow> {
  return await app.database.db.transaction(async (tx) => {
    const row = await pendingRequest(tx, accountId, requestId);
    await retractPending(tx, row);
    const [decided] = await tx.update(interactionRequests).set({
      state: "rejected",
      decidedAt: new Date(),
    }).where(eq(interactionRequests.id, row.id)).returning();
    await discardInteraction(tx, row);
    return decided;
  });
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
