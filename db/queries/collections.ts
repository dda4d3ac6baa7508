/**
 * Reads of collections (Mastodon 4.6, FEP-7aa9) shared by the API, the web
 * page and federation: one collection, an account's collections, the
 * collections an account is in, and the items a viewer may see.
 *
 * Rules (Mastodon's `Collection#items_for`):
 * - the owner sees pending and accepted items, everyone else accepted ones;
 * - a signed-in viewer never sees the accounts they block;
 * - rejected and revoked items are never shown, nor items whose account is
 *   not stored yet, suspended or deleted;
 * - `itemCount` counts pending and accepted items (what the 25-item limit
 *   counts), whoever looks.
 * Who may look at a collection at all (its owner suspended, or blocking the
 * viewer) is the caller's decision; rows carry the owner's state for it.
 */
import { and, asc, desc, eq, inArray, isNull, or, type SQL, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { Executor } from "../connection.ts";
import { accounts, collectionItems, collections, tags } from "../schema/mod.ts";
import { anyId } from "./any_id.ts";

/** A collection row with what its entity needs of its owner and tag. */
export interface CollectionRow {
  id: string;
  accountId: string;
  local: boolean;
  uri: string | null;
  url: string | null;
  name: string;
  description: string | null;
  descriptionHtml: string | null;
  language: string | null;
  sensitive: boolean;
  discoverable: boolean;
  tagName: string | null;
  itemCount: number;
  createdAt: Date;
  updatedAt: Date;
  /** The owner's username (the URI of a local collection is derived from it). */
  ownerUsername: string;
  ownerDomain: string | null;
  /** The owner is suspended or deleted: the collection is not to be shown. */
  ownerUnavailable: boolean;
}

/** An item a viewer may see. */
export interface VisibleItemRow {
  id: string;
  collectionId: string;
  accountId: string;
  state: "pending" | "accepted";
  createdAt: Date;
}

/** The states counted by `item_count` and the 25-item limit. */
export const LIVE_ITEM_STATES = ["pending", "accepted"] as const;

const itemCount = sql<number>`(SELECT count(*) FROM collection_items ci
  WHERE ci.collection_id = ${collections.id} AND ci.state IN ('pending', 'accepted'))`
  .mapWith(Number);

function selectCollections(db: Executor) {
  return db.select({
    id: collections.id,
    accountId: collections.accountId,
    local: collections.local,
    uri: collections.uri,
    url: collections.url,
    name: collections.name,
    description: collections.description,
    descriptionHtml: collections.descriptionHtml,
    language: collections.language,
    sensitive: collections.sensitive,
    discoverable: collections.discoverable,
    tagName: sql<string | null>`coalesce(${tags.displayName}, ${tags.name})`,
    itemCount,
    createdAt: collections.createdAt,
    updatedAt: collections.updatedAt,
    ownerUsername: accounts.username,
    ownerDomain: accounts.domain,
    ownerUnavailable: sql<boolean>`(${accounts.suspendedAt} IS NOT NULL
      OR ${accounts.deletedAt} IS NOT NULL)`.mapWith(Boolean),
  }).from(collections)
    .innerJoin(accounts, eq(accounts.id, collections.accountId))
    .leftJoin(tags, eq(tags.id, collections.tagId));
}

/** Owners that may be shown: neither suspended nor deleted. */
const ownerAvailable: SQL = sql`${accounts.suspendedAt} IS NULL AND ${accounts.deletedAt} IS NULL`;

/** One collection by id, whoever owns it (null when unknown). */
export async function findCollection(db: Executor, id: string): Promise<CollectionRow | null> {
  const [row] = await selectCollections(db).where(eq(collections.id, id)).limit(1);
  return row ?? null;
}

/** Collections by id, in the order given (unknown ids skipped). */
export async function collectionsByIds(
  db: Executor,
  ids: readonly string[],
): Promise<CollectionRow[]> {
  if (ids.length === 0) return [];
  const rows = await selectCollections(db).where(anyId(collections.id, ids));
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => byId.get(id)).filter((r): r is CollectionRow => r != null);
}

/** Paging of the lists below. */
export interface OffsetPage {
  offset: number;
  limit: number;
}

/**
 * An account's collections, newest first: all of them for the owner itself,
 * the discoverable ones for anyone else.
 */
export async function collectionsOf(
  db: Executor,
  ownerId: string,
  viewerId: string | null,
  page: OffsetPage,
): Promise<CollectionRow[]> {
  const mine = viewerId === ownerId;
  return await selectCollections(db)
    .where(and(
      eq(collections.accountId, ownerId),
      ownerAvailable,
      mine ? undefined : eq(collections.discoverable, true),
    ))
    .orderBy(desc(collections.createdAt), desc(collections.id))
    .offset(page.offset).limit(page.limit);
}

/** How many collections an account owns (the role's limit counts them all). */
export async function countCollectionsOf(db: Executor, ownerId: string): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(collections).where(eq(collections.accountId, ownerId));
  return row?.n ?? 0;
}

/**
 * The collections, local and cached remote, in which an account is an
 * accepted member, newest membership first; owners suspended or deleted
 * left out.
 */
export async function collectionsFeaturing(
  db: Executor,
  accountId: string,
  page: OffsetPage,
): Promise<CollectionRow[]> {
  return await selectCollections(db)
    .innerJoin(collectionItems, eq(collectionItems.collectionId, collections.id))
    .where(and(
      eq(collectionItems.accountId, accountId),
      eq(collectionItems.state, "accepted"),
      ownerAvailable,
    ))
    .orderBy(desc(collectionItems.id))
    .offset(page.offset).limit(page.limit);
}

/**
 * The items `viewerId` may see of each collection (keyed by collection id,
 * in position order): one query for a whole page of collections.
 */
export async function visibleItems(
  db: Executor,
  rows: readonly Pick<CollectionRow, "id" | "accountId">[],
  viewerId: string | null,
): Promise<Map<string, VisibleItemRow[]>> {
  const result = new Map<string, VisibleItemRow[]>(rows.map((r) => [r.id, []]));
  if (rows.length === 0) return result;
  const owned = viewerId ? rows.filter((r) => r.accountId === viewerId).map((r) => r.id) : [];
  const member = alias(accounts, "member");
  const stateRule = owned.length
    ? or(
      eq(collectionItems.state, "accepted"),
      and(eq(collectionItems.state, "pending"), inArray(collectionItems.collectionId, owned)),
    )
    : eq(collectionItems.state, "accepted");
  const items = await db.select({
    id: collectionItems.id,
    collectionId: collectionItems.collectionId,
    accountId: sql<string>`${collectionItems.accountId}::text`,
    state: sql<"pending" | "accepted">`${collectionItems.state}`,
    createdAt: collectionItems.createdAt,
  }).from(collectionItems)
    .innerJoin(member, eq(member.id, collectionItems.accountId))
    .where(and(
      anyId(collectionItems.collectionId, rows.map((r) => r.id)),
      stateRule,
      isNull(member.suspendedAt),
      isNull(member.deletedAt),
      viewerId
        ? sql`NOT EXISTS (SELECT 1 FROM blocks b WHERE b.account_id = ${viewerId}
            AND b.target_account_id = ${collectionItems.accountId})`
        : undefined,
    ))
    .orderBy(asc(collectionItems.position), asc(collectionItems.id));
  for (const item of items) result.get(item.collectionId)?.push(item);
  return result;
}

/** An item of a collection, with what the item commands check. */
export interface CollectionItemRow {
  id: string;
  collectionId: string;
  accountId: string | null;
  state: "pending" | "accepted" | "rejected" | "revoked";
  position: number;
  uri: string | null;
  activityUri: string | null;
  approvalUri: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** One item of one collection (null when the item is not that collection's). */
export async function findCollectionItem(
  db: Executor,
  collectionId: string,
  itemId: string,
): Promise<CollectionItemRow | null> {
  const [row] = await db.select({
    id: collectionItems.id,
    collectionId: collectionItems.collectionId,
    accountId: collectionItems.accountId,
    state: collectionItems.state,
    position: collectionItems.position,
    uri: collectionItems.uri,
    activityUri: collectionItems.activityUri,
    approvalUri: collectionItems.approvalUri,
    createdAt: collectionItems.createdAt,
    updatedAt: collectionItems.updatedAt,
  }).from(collectionItems)
    .where(and(eq(collectionItems.id, itemId), eq(collectionItems.collectionId, collectionId)))
    .limit(1);
  return row ?? null;
}
