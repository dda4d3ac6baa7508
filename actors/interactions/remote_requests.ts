/**
 * Remote interactions with local statuses that ask for an answer (issue 34,
 * design §5.3): GoToSocial's polite ReplyRequest, LikeRequest and
 * AnnounceRequest. The interaction itself is stored by the usual command
 * (a held one opens its request there: requests.ts); this records how the
 * request was decided and promises the answer:
 *
 * - held: the pending request is marked polite, with the request's IRI, so
 *   the author's decision is answered in the polite form;
 * - stood at once (the policy allows it automatically): an accepted request
 *   with our authorization, answered with Accept at once;
 * - refused (the policy forbids it): a rejected request with nothing
 *   stored, answered with Reject, and remembered so that the same
 *   interaction delivered again is dropped.
 *
 * A plain (impolite) Create, Like or Announce that the policy forbids is
 * refused the same way, answered with the impolite Reject (as GoToSocial
 * does): {@link refuseRemoteInteraction}.
 */
import { and, eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Executor } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import { accounts, interactionRequests } from "../../db/schema/mod.ts";
import { activityIds } from "../../model/uris.ts";
import { answerIfRemote, type RequestType } from "./requests.ts";

/** A remote request, after the command that stores its interaction ran. */
export interface RemoteRequest {
  type: RequestType;
  /** The local status interacted with, and its author. */
  targetStatusId: string;
  targetAccountId: string;
  /** The remote interacter. */
  accountId: string;
  /** The reply Note's, the Like's or the Announce's IRI. */
  interactionUri: string;
  /** The *Request activity's IRI; null for a plain Create, Like or Announce. */
  requestUri: string | null;
  /** What was stored: the reply or boost, or the favourite; null when refused. */
  stored: { statusId?: string; favouriteId?: string } | null;
}

/** Whether the interaction `uri` was refused or rejected before (a re-delivery is dropped). */
export async function wasRejected(db: Executor, uri: string): Promise<boolean> {
  const [row] = await db.select({ id: interactionRequests.id }).from(interactionRequests)
    .where(and(
      eq(interactionRequests.interactionUri, uri),
      eq(interactionRequests.state, "rejected"),
    )).limit(1);
  return row != null;
}

/** Records the outcome of a polite request and promises its answer (see the module comment). */
export async function settleRemoteRequest(app: AppContext, input: RemoteRequest): Promise<void> {
  await app.database.db.transaction(async (tx) => {
    const [row] = await tx.select().from(interactionRequests)
      .where(eq(interactionRequests.interactionUri, input.interactionUri))
      .for("update").limit(1);
    if (row) {
      // A plain interaction already on record was answered then.
      if (input.requestUri == null) return;
      // Held by the command: answered when the author decides. Decided before: answered again.
      const [marked] = await tx.update(interactionRequests)
        .set({ polite: true, requestUri: row.requestUri ?? input.requestUri })
        .where(eq(interactionRequests.id, row.id)).returning();
      if (marked.state !== "pending") await answerIfRemote(tx, marked);
      return;
    }
    const id = newId();
    const [author] = await tx.select({ uri: accounts.uri }).from(accounts)
      .where(eq(accounts.id, input.targetAccountId));
    const [decided] = await tx.insert(interactionRequests).values({
      id,
      type: input.type,
      targetStatusId: input.targetStatusId,
      targetAccountId: input.targetAccountId,
      accountId: input.accountId,
      statusId: input.stored?.statusId ?? null,
      favouriteId: input.stored?.favouriteId ?? null,
      interactionUri: input.interactionUri,
      requestUri: input.requestUri,
      polite: input.requestUri != null,
      state: input.stored ? "accepted" : "rejected",
      authorizationUri: input.stored ? activityIds.authorization(author.uri, id) : null,
      decidedAt: new Date(),
    }).onConflictDoNothing().returning();
    if (decided) await answerIfRemote(tx, decided);
  });
}

/**
 * A plain Create reply, Like or Announce from another server that the
 * policy forbids: nothing is stored, a rejected request remembers it (a
 * re-delivery is dropped) and the impolite Reject goes out.
 */
export async function refuseRemoteInteraction(
  app: AppContext,
  input: Omit<RemoteRequest, "requestUri" | "stored">,
): Promise<void> {
  await settleRemoteRequest(app, { ...input, requestUri: null, stored: null });
}
