/**
 * Deleting a collection (its owner's, local: 403 otherwise). The Remove for
 * the owner's followers is recorded first, with what it needs once the rows
 * are gone; items, notifications about the collection and status links go
 * with it (foreign keys cascade).
 */
import { eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { collections } from "../../db/schema/mod.ts";
import { collectionUri } from "../../model/collection_uris.ts";
import { recordDelivery } from "../outbox/deliveries.ts";
import { lockOwnCollection } from "./rows.ts";

/** Deletes `ownerId`'s collection `id`. */
export async function deleteCollection(
  ctx: AppContext,
  ownerId: string,
  id: string,
): Promise<void> {
  await ctx.database.db.transaction(async (tx) => {
    const collection = await lockOwnCollection(tx, ownerId, id);
    await recordDelivery(tx, "collectionDeleted", {
      collectionId: id,
      ownerId,
      uri: collectionUri(ctx.config.origin, collection.ownerUsername, id),
    });
    await tx.delete(collections).where(eq(collections.id, id));
  });
}
