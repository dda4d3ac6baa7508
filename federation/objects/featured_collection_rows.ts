/**
 * What the FEP-7aa9 documents of our collections say, read from the rows:
 * a local collection with its accepted members (featured_collections.ts
 * builds the JSON), a page of an account's collections, and a local
 * member's stamp. Shared by the dispatchers (what we serve) and the outbox
 * (what we send), so a peer reads the same document either way.
 */
import { and, asc, desc, eq, inArray, isNull } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { accounts, collectionItems, collections } from "../../db/schema/mod.ts";
import { anyId } from "../../db/queries/any_id.ts";
import {
  type CollectionRow,
  collectionsByIds,
  countCollectionsOf,
  findCollection,
} from "../../db/queries/collections.ts";
import {
  collectionItemUri,
  collectionUri,
  collectionUrl,
  featureAuthorizationUri,
} from "../../model/collection_uris.ts";
import type { FeaturedCollectionData, FeaturedItemData } from "./featured_collections.ts";

/** The accepted, visible items of these collections, in order, keyed by collection id. */
async function acceptedItems(
  db: Executor,
  origin: string,
  rows: readonly CollectionRow[],
): Promise<Map<string, FeaturedItemData[]>> {
  const result = new Map<string, FeaturedItemData[]>(rows.map((r) => [r.id, []]));
  if (rows.length === 0) return result;
  const byId = new Map(rows.map((r) => [r.id, r]));
  const items = await db.select({
    id: collectionItems.id,
    collectionId: collectionItems.collectionId,
    approvalUri: collectionItems.approvalUri,
    createdAt: collectionItems.createdAt,
    memberUri: accounts.uri,
    memberType: accounts.actorType,
    memberDomain: accounts.domain,
    memberUsername: accounts.username,
  }).from(collectionItems)
    .innerJoin(accounts, eq(accounts.id, collectionItems.accountId))
    .where(and(
      anyId(collectionItems.collectionId, rows.map((r) => r.id)),
      eq(collectionItems.state, "accepted"),
      isNull(accounts.suspendedAt),
      isNull(accounts.deletedAt),
    ))
    .orderBy(asc(collectionItems.position), asc(collectionItems.id));
  for (const item of items) {
    const collection = byId.get(item.collectionId)!;
    // A remote member's consent is its server's stamp; without one it is not shown.
    const stampUri = item.memberDomain == null
      ? featureAuthorizationUri(origin, item.memberUsername, item.id)
      : item.approvalUri;
    if (!stampUri) continue;
    result.get(item.collectionId)!.push({
      id: collectionItemUri(origin, collection.ownerUsername, collection.id, item.id),
      memberUri: item.memberUri,
      memberType: item.memberType,
      stampUri,
      createdAt: item.createdAt,
    });
  }
  return result;
}

/** The documents' data for local collections with available owners (others skipped). */
async function describe(
  db: Executor,
  origin: string,
  rows: readonly CollectionRow[],
): Promise<FeaturedCollectionData[]> {
  const local = rows.filter((r) => r.local && r.ownerDomain == null && !r.ownerUnavailable);
  const items = await acceptedItems(db, origin, local);
  return local.map((row) => ({
    id: collectionUri(origin, row.ownerUsername, row.id),
    url: collectionUrl(origin, row.ownerUsername, row.id),
    ownerUri: `${origin}/users/${row.ownerUsername}`,
    name: row.name,
    description: row.description,
    language: row.language,
    sensitive: row.sensitive,
    discoverable: row.discoverable,
    tag: row.tagName
      ? { name: row.tagName, url: `${origin}/tags/${encodeURIComponent(row.tagName)}` }
      : null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    items: items.get(row.id) ?? [],
  }));
}

/** A local collection as its FeaturedCollection says it; null when unknown, remote or hidden. */
export async function loadFeaturedCollection(
  db: Executor,
  origin: string,
  collectionId: string,
): Promise<FeaturedCollectionData | null> {
  const row = await findCollection(db, collectionId);
  if (!row) return null;
  const [data] = await describe(db, origin, [row]);
  return data ?? null;
}

/** Collections per page of `featuredCollections` (Mastodon's). */
export const FEATURED_COLLECTIONS_PAGE_SIZE = 5;

/**
 * A page (1-based) of a local account's collections, newest first, all of
 * them (discoverable or not, as Mastodon lists them), and their count.
 */
export async function loadFeaturedCollectionsPage(
  db: Executor,
  origin: string,
  ownerId: string,
  page: number,
): Promise<{ total: number; collections: FeaturedCollectionData[] }> {
  const total = await countCollectionsOf(db, ownerId);
  const ids = await db.select({ id: collections.id }).from(collections)
    .where(eq(collections.accountId, ownerId))
    .orderBy(desc(collections.createdAt), desc(collections.id))
    .offset((page - 1) * FEATURED_COLLECTIONS_PAGE_SIZE)
    .limit(FEATURED_COLLECTIONS_PAGE_SIZE);
  const rows = await collectionsByIds(db, ids.map((r) => r.id));
  return { total, collections: await describe(db, origin, rows) };
}

/** A local member's stamp: its accepted item and the collection's id. */
export interface StampRow {
  itemId: string;
  memberUri: string;
  collectionUri: string;
}

/**
 * The stamp `itemId` of local member `username`: the item must be that
 * member's and accepted; its collection local (our URI) or remote (its
 * own). Null otherwise, which is how a revoked consent reads (404).
 */
export async function loadStamp(
  db: Executor,
  origin: string,
  username: string,
  itemId: string,
): Promise<StampRow | null> {
  const [item] = await db.select({
    collectionId: collectionItems.collectionId,
    memberUri: accounts.uri,
    memberUsername: accounts.username,
    memberDomain: accounts.domain,
    deletedAt: accounts.deletedAt,
  }).from(collectionItems)
    .innerJoin(accounts, eq(accounts.id, collectionItems.accountId))
    .where(and(eq(collectionItems.id, itemId), eq(collectionItems.state, "accepted")))
    .limit(1);
  if (!item || item.memberDomain != null || item.deletedAt) return null;
  if (item.memberUsername.toLowerCase() !== username.toLowerCase()) return null;
  const collection = await findCollection(db, item.collectionId);
  if (!collection || collection.ownerUnavailable) return null;
  const uri = collection.local
    ? collectionUri(origin, collection.ownerUsername, collection.id)
    : collection.uri;
  return uri ? { itemId, memberUri: item.memberUri, collectionUri: uri } : null;
}

/** Our collections' ids in URIs (`{origin}/users/{username}/collections/{id}`). */
function localCollectionRefs(origin: string, uris: readonly string[]) {
  const prefix = `${origin}/users/`;
  return uris.flatMap((uri) => {
    const match = uri.startsWith(prefix)
      ? /^([^/]+)\/collections\/([0-9]{1,19})$/.exec(uri.slice(prefix.length))
      : null;
    return match ? [{ username: match[1], id: match[2] }] : [];
  });
}

/** The collections, ours or kept copies of remote ones, that these URIs name (unknown ones skipped). */
export async function collectionIdsByUris(
  db: Executor,
  origin: string,
  uris: readonly string[],
): Promise<string[]> {
  if (uris.length === 0) return [];
  const refs = localCollectionRefs(origin, uris);
  const local = await collectionsByIds(db, refs.map((r) => r.id));
  const remote = await db.select({ id: collections.id }).from(collections)
    .where(and(inArray(collections.uri, [...uris]), eq(collections.local, false)));
  return [
    ...local.filter((row) =>
      row.local && refs.some((r) => r.id === row.id && r.username === row.ownerUsername)
    ).map((row) => row.id),
    ...remote.map((row) => row.id),
  ];
}

/** The ActivityPub ids of collections, in the order given (unknown ones skipped). */
export async function collectionUrisByIds(
  db: Executor,
  origin: string,
  ids: readonly string[],
): Promise<string[]> {
  const rows = await collectionsByIds(db, ids);
  return rows.map((row) => row.local ? collectionUri(origin, row.ownerUsername, row.id) : row.uri)
    .filter((uri): uri is string => uri != null);
}
