/**
 * The members of a collection (Mastodon 4.6's AddAccountToCollectionService,
 * the items controller's destroy and revoke):
 * - the owner adds an account its feature policy allows (403 otherwise,
 *   404 for an unknown one); a local member is accepted at once and
 *   notified (`added_to_collection`), a remote one is pending until its
 *   server accepts the FeatureRequest; 422 when it is already in, or when
 *   the collection holds 25 pending and accepted items;
 * - the owner removes an item: the row goes;
 * - a member takes itself out (revoke): the row stays, revoked, so a
 *   replayed Add does not bring it back; a rejected or revoked member may
 *   be added again (the row is reused).
 * Every change bumps the collection's `updated_at` and records its intents.
 */
import { and, eq, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Executor } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import { collectionItems } from "../../db/schema/mod.ts";
import { type CollectionItemRow, findCollectionItem } from "../../db/queries/collections.ts";
import { collectionItemUri, featureRequestUri } from "../../model/collection_uris.ts";
import { NotFoundError, Problems } from "../../model/errors.ts";
import { notify } from "../notifications/notify.ts";
import { recordDelivery } from "../outbox/deliveries.ts";
import { NotPermittedError } from "../relationships/follow_rows.ts";
import { COLLECTION_LIMITS } from "./fields.ts";
import { featureDecision } from "./policy.ts";
import {
  liveItemCount,
  lockCollection,
  type LockedCollection,
  lockOwnCollection,
  nextPosition,
  touchCollection,
} from "./rows.ts";

/** The collection an item goes into: its id, owner and owner's username. */
type Curation = Pick<LockedCollection, "id" | "accountId" | "ownerUsername">;

/** One member to put in. */
interface Placement {
  memberId: string;
  remote: boolean;
  position: number;
  /** Announce an accepted item to the owner's followers (not on create: the collection's Add carries it). */
  announce: boolean;
}

/**
 * Writes one item (a new row, or the member's rejected or revoked row
 * reused) with its intents and notification; returns its id.
 */
export async function insertItem(
  ctx: AppContext,
  tx: Executor,
  collection: Curation,
  placement: Placement,
): Promise<string> {
  const { memberId, remote } = placement;
  const activityUri = remote
    ? featureRequestUri(ctx.config.origin, collection.ownerUsername, crypto.randomUUID())
    : null;
  const state = remote ? "pending" : "accepted";
  const now = new Date();
  const [row] = await tx.insert(collectionItems).values({
    id: newId(),
    collectionId: collection.id,
    accountId: memberId,
    state,
    position: placement.position,
    activityUri,
  }).onConflictDoUpdate({
    target: [collectionItems.collectionId, collectionItems.accountId],
    // The partial unique index's predicate (collection_items_member_idx).
    targetWhere: sql`${collectionItems.accountId} IS NOT NULL`,
    set: {
      state,
      position: placement.position,
      activityUri,
      approvalUri: null,
      createdAt: now,
      updatedAt: now,
    },
  }).returning({ id: collectionItems.id });
  if (remote) {
    await recordDelivery(tx, "featureRequested", row.id);
  } else {
    await notify(tx, {
      type: "added_to_collection",
      accountId: memberId,
      fromAccountId: collection.accountId,
      collectionId: collection.id,
    });
    if (placement.announce) await recordDelivery(tx, "collectionItemAdded", row.id);
  }
  return row.id;
}

/**
 * The owner adds `memberId` to its collection; returns the item. A member
 * already pending or accepted is a 422 (`account_id` taken), as is a
 * 26th item.
 */
export async function addCollectionItem(
  ctx: AppContext,
  ownerId: string,
  collectionId: string,
  memberId: string,
): Promise<CollectionItemRow> {
  return await ctx.database.db.transaction(async (tx) => {
    const collection = await lockOwnCollection(tx, ownerId, collectionId);
    const decision = await featureDecision(ctx.database, tx, ownerId, memberId);
    if (!decision) throw new NotFoundError();
    if (!decision.allowed) throw new NotPermittedError();
    const problems = new Problems();
    const [existing] = await tx.select({ state: collectionItems.state }).from(collectionItems)
      .where(and(
        eq(collectionItems.collectionId, collectionId),
        eq(collectionItems.accountId, memberId),
      ));
    if (existing?.state === "pending" || existing?.state === "accepted") {
      problems.add("account_id", "ERR_TAKEN", "has already been taken");
    } else if (await liveItemCount(tx, collectionId) >= COLLECTION_LIMITS.items) {
      problems.add(
        "collection_items",
        "ERR_INVALID",
        `cannot hold more than ${COLLECTION_LIMITS.items} accounts`,
      );
    }
    problems.throwIfAny();
    const itemId = await insertItem(ctx, tx, collection, {
      memberId,
      remote: decision.remote,
      position: await nextPosition(tx, collectionId),
      announce: true,
    });
    await touchCollection(tx, collectionId);
    return (await findCollectionItem(tx, collectionId, itemId))!;
  });
}

/** An item of a collection, or NotFoundError. */
async function itemOf(
  tx: Executor,
  collectionId: string,
  itemId: string,
): Promise<CollectionItemRow> {
  const item = await findCollectionItem(tx, collectionId, itemId);
  if (!item) throw new NotFoundError();
  return item;
}

/** The Remove of an accepted item of a local collection, for its owner's followers. */
async function announceRemoval(
  ctx: AppContext,
  tx: Executor,
  collection: LockedCollection,
  item: CollectionItemRow,
): Promise<void> {
  if (!collection.local || item.state !== "accepted") return;
  await recordDelivery(tx, "collectionItemRemoved", {
    itemUri: item.uri ??
      collectionItemUri(ctx.config.origin, collection.ownerUsername, collection.id, item.id),
    collectionId: collection.id,
    ownerId: collection.accountId,
  });
}

/** The owner takes an item out of its collection. */
export async function removeCollectionItem(
  ctx: AppContext,
  ownerId: string,
  collectionId: string,
  itemId: string,
): Promise<void> {
  await ctx.database.db.transaction(async (tx) => {
    const collection = await lockOwnCollection(tx, ownerId, collectionId);
    const item = await itemOf(tx, collectionId, itemId);
    await tx.delete(collectionItems).where(eq(collectionItems.id, item.id));
    await announceRemoval(ctx, tx, collection, item);
    await touchCollection(tx, collectionId);
  });
}

/**
 * A member takes itself out of a collection, local or remote (403 when the
 * item is someone else's). The row stays, revoked; a local collection's
 * followers get the Remove, a remote curator the Delete of our stamp.
 */
export async function revokeCollectionItem(
  ctx: AppContext,
  memberId: string,
  collectionId: string,
  itemId: string,
): Promise<void> {
  await ctx.database.db.transaction(async (tx) => {
    const collection = await lockCollection(tx, collectionId);
    const item = await itemOf(tx, collectionId, itemId);
    if (item.accountId !== memberId) throw new NotPermittedError();
    if (item.state !== "pending" && item.state !== "accepted") throw new NotFoundError();
    await tx.update(collectionItems).set({ state: "revoked", updatedAt: new Date() })
      .where(eq(collectionItems.id, item.id));
    if (collection.local) {
      await announceRemoval(ctx, tx, collection, item);
    } else if (item.state === "accepted") {
      await recordDelivery(tx, "featureAuthorizationRevoked", {
        itemId: item.id,
        memberId,
        collectionUri: collection.uri ?? "",
        curatorId: collection.accountId,
      });
    }
    // A remote collection's dates are its server's.
    if (collection.local) await touchCollection(tx, collectionId);
  });
}
