/**
 * Consent between servers (FEP-7aa9's FeatureRequest and its stamps), as
 * Mastodon 4.6 keeps it. Each command is one transaction that records the
 * answer to send as an intent (actors/outbox/collections.ts):
 *
 * - our member is asked by a remote curator ({@link answerFeatureRequest};
 *   {@link rejectFeatureRequest} when the collection is not the curator's):
 *   the member's feature policy decides (policy.ts, as for a local
 *   curator); an acceptance is an accepted item of that remote collection,
 *   with an `added_to_collection` notification and an Accept carrying our
 *   stamp; a refusal keeps no row and sends a Reject;
 * - a remote member's server answers our request ({@link settleFeatureRequest}):
 *   the pending item becomes accepted (with its server's stamp, announced
 *   to the owner's followers) or rejected;
 * - a remote member takes its consent back, deleting its stamp
 *   ({@link revokeByStamp}): out of our collections (revoked, the Remove
 *   announced), and out of the remote collections we keep.
 */
import { and, eq, inArray } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Executor } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import { accounts, collectionItems, collections } from "../../db/schema/mod.ts";
import { collectionItemUri } from "../../model/collection_uris.ts";
import { notify } from "../notifications/notify.ts";
import { recordDelivery } from "../outbox/deliveries.ts";
import { featureDecision } from "./policy.ts";
import { nextPosition, touchCollection } from "./rows.ts";

/** A remote curator's request to feature one of our members. */
export interface FeatureRequestInput {
  /** The remote collection (stored), which `curatorId` owns. */
  collectionId: string;
  curatorId: string;
  /** Our member. */
  memberId: string;
  /** The request's id, which the answer names. */
  requestUri: string;
}

/** The intent of a Reject of a FeatureRequest, from our member to its curator. */
async function recordRejection(
  tx: Executor,
  input: Omit<FeatureRequestInput, "collectionId">,
): Promise<void> {
  await recordDelivery(tx, "featureRequestAnswered", {
    accepted: false,
    rejectionId: newId(),
    memberId: input.memberId,
    curatorId: input.curatorId,
    requestUri: input.requestUri,
  });
}

/**
 * Rejects a FeatureRequest for our member that names no collection the
 * curator owns (another's, none, or one its server would not give us), as
 * the design of issue 33 answers it: the curator learns that the request
 * is refused rather than waiting on it; nothing else is kept.
 */
export async function rejectFeatureRequest(
  ctx: AppContext,
  input: Omit<FeatureRequestInput, "collectionId">,
): Promise<void> {
  await ctx.database.db.transaction((tx) => recordRejection(tx, input));
}

/**
 * Answers a FeatureRequest for our member (Mastodon's
 * ActivityPub::Activity::FeatureRequest). A repeated request for a member
 * already in is accepted again, without a second notification.
 */
export async function answerFeatureRequest(
  ctx: AppContext,
  input: FeatureRequestInput,
): Promise<"accepted" | "rejected" | "ignored"> {
  return await ctx.database.db.transaction(async (tx) => {
    const [collection] = await tx.select({ id: collections.id }).from(collections).where(and(
      eq(collections.id, input.collectionId),
      eq(collections.accountId, input.curatorId),
      eq(collections.local, false),
    )).for("update").limit(1);
    if (!collection) return "ignored";
    const decision = await featureDecision(ctx.database, tx, input.curatorId, input.memberId);
    if (!decision || decision.remote) return "ignored";
    if (!decision.allowed) {
      await recordRejection(tx, input);
      return "rejected";
    }
    const [known] = await tx.select({ id: collectionItems.id, state: collectionItems.state })
      .from(collectionItems).where(and(
        eq(collectionItems.collectionId, input.collectionId),
        eq(collectionItems.accountId, input.memberId),
      )).limit(1);
    const now = new Date();
    const itemId = known?.id ?? newId();
    if (known) {
      await tx.update(collectionItems).set({
        state: "accepted",
        activityUri: input.requestUri,
        updatedAt: now,
        ...(known.state === "accepted" ? {} : { createdAt: now }),
      }).where(eq(collectionItems.id, itemId));
    } else {
      await tx.insert(collectionItems).values({
        id: itemId,
        collectionId: input.collectionId,
        accountId: input.memberId,
        state: "accepted",
        position: await nextPosition(tx, input.collectionId),
        activityUri: input.requestUri,
      });
    }
    if (known?.state !== "accepted") {
      await notify(tx, {
        type: "added_to_collection",
        accountId: input.memberId,
        fromAccountId: input.curatorId,
        collectionId: input.collectionId,
      });
    }
    await recordDelivery(tx, "featureRequestAnswered", { accepted: true, itemId });
    return "accepted";
  });
}

/**
 * A remote member's server answered the request for item `itemId` of one of
 * our collections: `approvalUri` (its stamp) accepts it, null rejects it.
 * False when the item is not a pending request to `senderId`.
 */
export async function settleFeatureRequest(
  ctx: AppContext,
  input: { itemId: string; senderId: string; approvalUri: string | null },
): Promise<boolean> {
  return await ctx.database.db.transaction(async (tx) => {
    const [item] = await tx.select({
      id: collectionItems.id,
      collectionId: collectionItems.collectionId,
      accountId: collectionItems.accountId,
      state: collectionItems.state,
      local: collections.local,
    }).from(collectionItems)
      .innerJoin(collections, eq(collections.id, collectionItems.collectionId))
      .where(eq(collectionItems.id, input.itemId))
      .for("update", { of: collectionItems }).limit(1);
    if (!item?.local || item.accountId !== input.senderId || item.state !== "pending") {
      return false;
    }
    const now = new Date();
    await tx.update(collectionItems).set(
      input.approvalUri
        ? {
          state: "accepted",
          approvalUri: input.approvalUri,
          approvalLastVerifiedAt: now,
          updatedAt: now,
        }
        : { state: "rejected", updatedAt: now },
    ).where(eq(collectionItems.id, item.id));
    await touchCollection(tx, item.collectionId);
    if (input.approvalUri) await recordDelivery(tx, "collectionItemAdded", item.id);
    return true;
  });
}

/**
 * A remote member deleted its stamp `stampUri`: the items it approved are
 * revoked in our collections (the Remove announced) and forgotten in the
 * remote ones we keep. Returns how many items it concerned.
 */
export async function revokeByStamp(
  ctx: AppContext,
  memberId: string,
  stampUri: string,
): Promise<number> {
  return await ctx.database.db.transaction(async (tx) => {
    const items = await tx.select({
      id: collectionItems.id,
      state: collectionItems.state,
      collectionId: collections.id,
      local: collections.local,
      ownerId: collections.accountId,
      ownerUsername: accounts.username,
    }).from(collectionItems)
      .innerJoin(collections, eq(collections.id, collectionItems.collectionId))
      .innerJoin(accounts, eq(accounts.id, collections.accountId))
      .where(and(
        eq(collectionItems.approvalUri, stampUri),
        eq(collectionItems.accountId, memberId),
        inArray(collectionItems.state, ["pending", "accepted"]),
      ))
      .for("update", { of: collectionItems });
    for (const item of items) {
      if (!item.local) {
        await tx.delete(collectionItems).where(eq(collectionItems.id, item.id));
        continue;
      }
      await tx.update(collectionItems).set({ state: "revoked", updatedAt: new Date() })
        .where(eq(collectionItems.id, item.id));
      await touchCollection(tx, item.collectionId);
      if (item.state !== "accepted") continue;
      await recordDelivery(tx, "collectionItemRemoved", {
        itemUri: collectionItemUri(
          ctx.config.origin,
          item.ownerUsername,
          item.collectionId,
          item.id,
        ),
        collectionId: item.collectionId,
        ownerId: item.ownerId,
      });
    }
    return items.length;
  });
}
