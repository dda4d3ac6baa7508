/**
 * Making a collection (Mastodon 4.6's CreateCollectionService): the owner's
 * collection with its first members, in one transaction, with its intents
 * (the Add of the collection to the owner's followers, a FeatureRequest per
 * remote member) and an `added_to_collection` notification per local one.
 *
 * Checks, in Mastodon's order: each `account_ids` member must exist (404)
 * and let the owner feature it (403, actors/collections/policy.ts); then the
 * fields (fields.ts), at most 25 members, and the role's collection limit
 * (counted under a lock of the owner's row, so two requests at once cannot
 * both pass it): one 422 with every problem.
 */
import { eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Executor } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import { accounts, collections } from "../../db/schema/mod.ts";
import { countCollectionsOf } from "../../db/queries/collections.ts";
import { NotFoundError, Problems } from "../../model/errors.ts";
import { recordDelivery } from "../outbox/deliveries.ts";
import { NotPermittedError } from "../relationships/follow_rows.ts";
import { settingsOfAccount } from "../roles/role_settings.ts";
import { checkCollectionInput, COLLECTION_LIMITS, type CollectionInput } from "./fields.ts";
import { insertItem } from "./items.ts";
import { featureDecision } from "./policy.ts";

/** A new collection: its fields and its first members. */
export interface NewCollection extends CollectionInput {
  accountIds?: string[];
}

/** Checks that `ownerId` may feature each of `memberIds`; returns whether each is remote. */
async function checkMembers(
  ctx: AppContext,
  tx: Executor,
  ownerId: string,
  memberIds: readonly string[],
): Promise<Map<string, boolean>> {
  const remote = new Map<string, boolean>();
  for (const memberId of memberIds) {
    const decision = await featureDecision(ctx.database, tx, ownerId, memberId);
    if (!decision) throw new NotFoundError();
    if (!decision.allowed) throw new NotPermittedError();
    remote.set(memberId, decision.remote);
  }
  return remote;
}

/** Creates a local collection for `ownerId`; returns its id. */
export async function createCollection(
  ctx: AppContext,
  ownerId: string,
  input: NewCollection,
): Promise<string> {
  const memberIds = [...new Set(input.accountIds ?? [])];
  return await ctx.database.db.transaction(async (tx) => {
    const [owner] = await tx.select({ username: accounts.username }).from(accounts)
      .where(eq(accounts.id, ownerId)).for("update").limit(1);
    if (!owner) throw new NotFoundError();
    const remote = await checkMembers(ctx, tx, ownerId, memberIds);
    const problems = new Problems();
    const columns = await checkCollectionInput(tx, input, true, problems);
    if (memberIds.length > COLLECTION_LIMITS.items) {
      problems.add(
        "collection_items",
        "ERR_INVALID",
        `cannot hold more than ${COLLECTION_LIMITS.items} accounts`,
      );
    }
    const limit = (await settingsOfAccount(tx, ownerId))?.collectionLimit ?? 0;
    if (await countCollectionsOf(tx, ownerId) >= limit) {
      problems.add("base", "ERR_INVALID", `You cannot create more than ${limit} collections`);
    }
    problems.throwIfAny();
    const id = newId();
    await tx.insert(collections).values({
      id,
      accountId: ownerId,
      local: true,
      name: columns.name!,
      description: columns.description ?? null,
      language: columns.language ?? null,
      tagId: columns.tagId ?? null,
      sensitive: columns.sensitive ?? false,
      discoverable: columns.discoverable ?? true,
    });
    await recordDelivery(tx, "collectionCreated", id);
    for (const [position, memberId] of memberIds.entries()) {
      await insertItem(ctx, tx, { id, accountId: ownerId, ownerUsername: owner.username }, {
        memberId,
        remote: remote.get(memberId)!,
        position,
        announce: false,
      });
    }
    return id;
  });
}
