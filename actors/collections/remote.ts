/**
 * Remote collections kept here (Mastodon's ProcessFeaturedCollectionService
 * and ProcessFeaturedItemService): the copy of a remote account's
 * collection and of its items, as its server announces them (an Add or
 * Update to its followers, its `featuredCollections`). federation/ reads
 * and checks the documents and calls these; each is one transaction.
 *
 * A remote item is `pending` until its member's consent is verified
 * (federation/remote/featured_items.ts fetches the member server's stamp),
 * then `accepted` with its account. An item of one of our members is never
 * taken on the curator's word: it is accepted only when we accepted that
 * curator's request for this collection (consent.ts), and a member who
 * took itself out (revoked) stays out whatever the curator lists.
 */
import { and, eq, inArray, isNotNull, notInArray, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Executor } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import { collectionItems, collections } from "../../db/schema/mod.ts";
import { findOrCreateTags, isValidTagName, normalizeTagName } from "../../db/queries/tags.ts";
import { countCollectionsOf } from "../../db/queries/collections.ts";
import { nextPosition } from "./rows.ts";

/** Items a remote collection keeps at most (Mastodon's ITEMS_LIMIT). */
export const REMOTE_COLLECTION_ITEMS = 150;
/**
 * Remote collections kept per account at most: Mastodon lets a local
 * account make 10, so more is a server filling our tables.
 */
export const REMOTE_COLLECTIONS_PER_ACCOUNT = 100;

/** A remote collection as its server describes it (already checked and sanitized). */
export interface RemoteCollectionInput {
  uri: string;
  url: string | null;
  name: string;
  /** Sanitized HTML. */
  descriptionHtml: string | null;
  language: string | null;
  sensitive: boolean;
  discoverable: boolean;
  /** A hashtag name (without `#`), or null. */
  tagName: string | null;
  originalNumberOfItems: number | null;
  published: Date | null;
  updated: Date | null;
  /** The ids of the items it lists now: others are forgotten. */
  itemUris: string[];
}

/** The tag a remote collection names, when its name is one we can keep. */
async function tagIdOf(tx: Executor, name: string | null): Promise<string | null> {
  const normalized = name ? normalizeTagName(name) : "";
  if (!normalized || !isValidTagName(normalized)) return null;
  const tag = (await findOrCreateTags(tx, [normalized])).get(normalized.toLowerCase());
  return tag?.id ?? null;
}

/**
 * Stores or refreshes `ownerId`'s collection `input.uri` and forgets the
 * items it no longer lists (items of ours still waiting for their id, and
 * members who revoked, stay). Returns its id; null when that id is another
 * account's collection (or a local one), or the account has too many.
 */
export async function upsertRemoteCollection(
  ctx: AppContext,
  ownerId: string,
  input: RemoteCollectionInput,
): Promise<string | null> {
  return await ctx.database.db.transaction(async (tx) => {
    const [existing] = await tx.select({
      id: collections.id,
      accountId: collections.accountId,
      local: collections.local,
    }).from(collections).where(eq(collections.uri, input.uri)).for("update").limit(1);
    if (existing && (existing.accountId !== ownerId || existing.local)) return null;
    const columns = {
      url: input.url,
      name: input.name,
      descriptionHtml: input.descriptionHtml,
      language: input.language,
      sensitive: input.sensitive,
      discoverable: input.discoverable,
      tagId: await tagIdOf(tx, input.tagName),
      originalNumberOfItems: input.originalNumberOfItems,
      updatedAt: input.updated ?? new Date(),
    };
    let id = existing?.id;
    if (!id && await countCollectionsOf(tx, ownerId) >= REMOTE_COLLECTIONS_PER_ACCOUNT) return null;
    if (id) {
      await tx.update(collections).set(columns).where(eq(collections.id, id));
    } else {
      id = newId();
      await tx.insert(collections).values({
        id,
        accountId: ownerId,
        local: false,
        uri: input.uri,
        ...columns,
        createdAt: input.published ?? new Date(),
      });
    }
    await tx.delete(collectionItems).where(and(
      eq(collectionItems.collectionId, id),
      isNotNull(collectionItems.uri),
      inArray(collectionItems.state, ["pending", "accepted", "rejected"]),
      input.itemUris.length ? notInArray(collectionItems.uri, input.itemUris) : undefined,
    ));
    return id;
  });
}

/** Forgets `ownerId`'s remote collection `uri` (its owner removed it); false when unknown. */
export async function removeRemoteCollection(
  ctx: AppContext,
  ownerId: string,
  uri: string,
): Promise<boolean> {
  const gone = await ctx.database.db.delete(collections).where(and(
    eq(collections.uri, uri),
    eq(collections.accountId, ownerId),
    eq(collections.local, false),
  )).returning({ id: collections.id });
  return gone.length > 0;
}

/** Forgets the remote collections of `ownerId` not in `keptUris` (its list no longer names them). */
export async function forgetUnlistedCollections(
  ctx: AppContext,
  ownerId: string,
  keptUris: readonly string[],
): Promise<number> {
  const gone = await ctx.database.db.delete(collections).where(and(
    eq(collections.accountId, ownerId),
    eq(collections.local, false),
    keptUris.length ? notInArray(collections.uri, [...keptUris]) : undefined,
  )).returning({ id: collections.id });
  return gone.length;
}

/** An item a remote collection lists. */
export interface RemoteItemInput {
  uri: string;
  /** The featured actor. */
  objectUri: string;
  /** Its server's stamp. */
  approvalUri: string | null;
  /** 1-based place in the list; null: after the others. */
  position: number | null;
  published: Date | null;
  /** The featured actor is one of ours: this local account. */
  localMemberId: string | null;
}

/** What became of a listed item. */
export type PlacedItem =
  | { itemId: string; state: "accepted" | "pending" | "rejected" | "revoked" }
  | null;

/**
 * Records an item of remote collection `collectionId` (Mastodon's
 * ProcessFeaturedItemService): the known item by its id, else our member's
 * row (which takes the item's id when we accepted the request), else a
 * new pending row for the verification job. Null when there is nothing to
 * record: our member never consented, or the collection is full.
 */
export async function placeRemoteItem(
  ctx: AppContext,
  collectionId: string,
  input: RemoteItemInput,
): Promise<PlacedItem> {
  return await ctx.database.db.transaction(async (tx) => {
    const [collection] = await tx.select({ id: collections.id }).from(collections)
      .where(and(eq(collections.id, collectionId), eq(collections.local, false)))
      .for("update").limit(1);
    if (!collection) return null;
    const position = input.position ?? await nextPosition(tx, collectionId);
    const [known] = await tx.select().from(collectionItems).where(and(
      eq(collectionItems.collectionId, collectionId),
      input.localMemberId
        ? eq(collectionItems.accountId, input.localMemberId)
        : eq(collectionItems.uri, input.uri),
    )).limit(1);
    if (known) {
      // Our member's consent decides, not the curator's list: only an accepted row takes the item.
      if (input.localMemberId && known.state !== "accepted") return null;
      // Another stamp (or another member) than the one checked: checked again before it shows.
      const changed = !input.localMemberId && known.state !== "revoked" &&
        (known.approvalUri !== input.approvalUri || known.objectUri !== input.objectUri);
      await tx.update(collectionItems).set({
        uri: input.uri,
        objectUri: input.objectUri,
        position,
        updatedAt: new Date(),
        ...(changed ? { approvalUri: input.approvalUri, state: "pending" as const } : {}),
      }).where(eq(collectionItems.id, known.id));
      return { itemId: known.id, state: changed ? "pending" : known.state };
    }
    if (input.localMemberId) return null;
    const [{ n }] = await tx.select({ n: sql<number>`count(*)`.mapWith(Number) })
      .from(collectionItems).where(eq(collectionItems.collectionId, collectionId));
    if (n >= REMOTE_COLLECTION_ITEMS) return null;
    const id = newId();
    const inserted = await tx.insert(collectionItems).values({
      id,
      collectionId,
      accountId: null,
      state: "pending",
      position,
      uri: input.uri,
      objectUri: input.objectUri,
      approvalUri: input.approvalUri,
      createdAt: input.published ?? new Date(),
    }).onConflictDoNothing({ target: collectionItems.uri }).returning({ id: collectionItems.id });
    // An id another collection already lists is not taken over.
    return inserted.length ? { itemId: id, state: "pending" } : null;
  });
}

/** Forgets the item `uri` of `ownerId`'s remote collection `collectionUri`; false when unknown. */
export async function removeRemoteItem(
  ctx: AppContext,
  ownerId: string,
  collectionUri: string,
  uri: string,
): Promise<boolean> {
  const gone = await ctx.database.db.delete(collectionItems).where(and(
    eq(collectionItems.uri, uri),
    sql`${collectionItems.collectionId} = (SELECT id FROM collections
      WHERE uri = ${collectionUri} AND account_id = ${ownerId} AND NOT local)`,
  )).returning({ id: collectionItems.id });
  return gone.length > 0;
}

/** A remote item whose consent we must check, with its collection's id. */
export interface ItemToVerify {
  itemId: string;
  collectionUri: string;
  objectUri: string;
  approvalUri: string;
  state: string;
  approvalLastVerifiedAt: Date | null;
}

/** The item `itemId` of a remote collection, with what its verification needs; null when gone. */
export async function itemToVerify(ctx: AppContext, itemId: string): Promise<ItemToVerify | null> {
  const [row] = await ctx.database.db.select({
    itemId: collectionItems.id,
    collectionUri: collections.uri,
    objectUri: collectionItems.objectUri,
    approvalUri: collectionItems.approvalUri,
    state: collectionItems.state,
    approvalLastVerifiedAt: collectionItems.approvalLastVerifiedAt,
  }).from(collectionItems)
    .innerJoin(collections, eq(collections.id, collectionItems.collectionId))
    .where(and(eq(collectionItems.id, itemId), eq(collections.local, false))).limit(1);
  if (!row?.collectionUri || !row.objectUri || !row.approvalUri) return null;
  return row as ItemToVerify;
}

/**
 * The member's server vouched for the item: it is accepted, with the
 * member's account. A second item of the same member in the collection
 * (listed under another id) is dropped instead.
 */
export async function acceptVerifiedItem(
  ctx: AppContext,
  itemId: string,
  memberId: string,
): Promise<void> {
  await ctx.database.db.transaction(async (tx) => {
    const [item] = await tx.select().from(collectionItems)
      .where(eq(collectionItems.id, itemId)).for("update").limit(1);
    if (!item || item.state === "revoked") return;
    const [other] = await tx.select({ id: collectionItems.id }).from(collectionItems).where(and(
      eq(collectionItems.collectionId, item.collectionId),
      eq(collectionItems.accountId, memberId),
    )).limit(1);
    if (other && other.id !== item.id) {
      await tx.delete(collectionItems).where(eq(collectionItems.id, item.id));
      return;
    }
    const now = new Date();
    await tx.update(collectionItems).set({
      accountId: memberId,
      state: "accepted",
      approvalLastVerifiedAt: now,
      updatedAt: now,
    }).where(eq(collectionItems.id, item.id));
  });
}

/** The member's server does not vouch for the item (its stamp is gone): rejected, never shown. */
export async function rejectUnverifiedItem(ctx: AppContext, itemId: string): Promise<void> {
  await ctx.database.db.update(collectionItems)
    .set({ state: "rejected", updatedAt: new Date() })
    .where(and(
      eq(collectionItems.id, itemId),
      inArray(collectionItems.state, ["pending", "accepted"]),
    ));
}
