/**
 * Changing a collection (Mastodon 4.6's UpdateCollectionService): its
 * owner's local collection only (403 otherwise). Absent fields stay as
 * they are; `updated_at` is bumped by every update. A change of what peers
 * show (name, description, language, flags, hashtag) records the Update for
 * the owner's followers; a new name or description notifies the accepted
 * local members (`collection_update`).
 */
import { and, eq, isNull } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { accounts, collectionItems, collections } from "../../db/schema/mod.ts";
import { Problems } from "../../model/errors.ts";
import { notify } from "../notifications/notify.ts";
import { recordDelivery } from "../outbox/deliveries.ts";
import { checkCollectionInput, type CollectionColumns, type CollectionInput } from "./fields.ts";
import { lockOwnCollection } from "./rows.ts";

type Row = typeof collections.$inferSelect;

/** The columns whose value `columns` changes. */
function changedKeys(row: Row, columns: CollectionColumns): (keyof CollectionColumns)[] {
  return (Object.keys(columns) as (keyof CollectionColumns)[])
    .filter((key) => columns[key] !== row[key]);
}

/** Updates `ownerId`'s collection `id`. */
export async function updateCollection(
  ctx: AppContext,
  ownerId: string,
  id: string,
  input: CollectionInput,
): Promise<void> {
  await ctx.database.db.transaction(async (tx) => {
    await lockOwnCollection(tx, ownerId, id);
    const [row] = await tx.select().from(collections).where(eq(collections.id, id));
    const problems = new Problems();
    const columns = await checkCollectionInput(tx, input, false, problems);
    problems.throwIfAny();
    const changed = changedKeys(row, columns);
    const updatedAt = new Date();
    await tx.update(collections).set({ ...columns, updatedAt }).where(eq(collections.id, id));
    if (changed.length === 0) return;
    await recordDelivery(tx, "collectionUpdated", id, String(updatedAt.getTime()));
    if (!changed.includes("name") && !changed.includes("description")) return;
    const members = await tx.select({ id: collectionItems.accountId }).from(collectionItems)
      .innerJoin(accounts, eq(accounts.id, collectionItems.accountId))
      .where(and(
        eq(collectionItems.collectionId, id),
        eq(collectionItems.state, "accepted"),
        isNull(accounts.domain),
      ));
    for (const member of members) {
      await notify(tx, {
        type: "collection_update",
        accountId: member.id!,
        fromAccountId: ownerId,
        collectionId: id,
      });
    }
  });
}
