/**
 * The Collection entities (Mastodon 4.6): Collection, CollectionItem and
 * their wrappers (WrappedCollection, Collections, CollectionWithAccounts,
 * WrappedCollectionItem), from the rows of db/queries/collections.ts.
 *
 * Decisions:
 * - Key order as Mastodon's documentation lists them.
 * - `description`: a local collection's text as typed (clients show it as
 *   text); a remote one's sanitized HTML. An empty string when there is
 *   none, never null (masto.js types it `string`).
 * - `uri` and `url` of a local collection are derived from its owner and id;
 *   a remote one's are what its server sent (`url` may be null).
 * - `items` are what the viewer may see (db/queries/collections.ts); an
 *   item's `account_id` appears only for pending and accepted items, the
 *   only ones ever listed, as Mastodon's serializer writes it.
 * - The same function serializes a collection for every route, so the
 *   list and the single answers of one viewer are equal (masto.js compares
 *   them).
 */
import type { Config } from "../../config.ts";
import type { Executor } from "../../db/connection.ts";
import {
  type CollectionRow,
  collectionsByIds,
  type VisibleItemRow,
  visibleItems,
} from "../../db/queries/collections.ts";
import { collectionUri, collectionUrl } from "../../model/collection_uris.ts";
import { type Account, loadAccountEntities } from "./account.ts";
import { localUris } from "../../model/uris.ts";

/** The CollectionItem entity. */
export interface CollectionItem {
  id: string;
  account_id?: string;
  state: string;
  created_at: string;
}

/** The Collection entity. */
export interface Collection {
  id: string;
  account_id: string;
  uri: string;
  url: string | null;
  name: string;
  description: string;
  language: string | null;
  local: boolean;
  sensitive: boolean;
  discoverable: boolean;
  tag: { name: string; url: string } | null;
  item_count: number;
  items: CollectionItem[];
  created_at: string;
  updated_at: string;
}

/** The CollectionWithAccounts entity: the collection, its owner first, then its members. */
export interface CollectionWithAccounts {
  accounts: Account[];
  collection: Collection;
}

/** Serializes one item (states other than pending and accepted carry no account). */
export function collectionItemEntity(
  item: Pick<VisibleItemRow, "id" | "createdAt"> & { accountId: string | null; state: string },
): CollectionItem {
  const shown = (item.state === "pending" || item.state === "accepted") && item.accountId;
  return {
    id: item.id,
    ...(shown ? { account_id: item.accountId! } : {}),
    state: item.state,
    created_at: item.createdAt.toISOString(),
  };
}

/** A collection's ActivityPub id and page, derived for local ones. */
export function collectionLinks(
  origin: string,
  row: Pick<CollectionRow, "id" | "local" | "uri" | "url" | "ownerUsername">,
): { uri: string; url: string | null } {
  if (row.local) {
    return {
      uri: collectionUri(origin, row.ownerUsername, row.id),
      url: collectionUrl(origin, row.ownerUsername, row.id),
    };
  }
  return { uri: row.uri ?? "", url: row.url };
}

/** Serializes one collection row with the items its viewer may see. */
export function collectionEntity(
  config: Pick<Config, "origin">,
  row: CollectionRow,
  items: readonly VisibleItemRow[],
): Collection {
  const { uri, url } = collectionLinks(config.origin, row);
  return {
    id: row.id,
    account_id: row.accountId,
    uri,
    url,
    name: row.name,
    description: (row.local ? row.description : row.descriptionHtml) ?? "",
    language: row.language,
    local: row.local,
    sensitive: row.sensitive,
    discoverable: row.discoverable,
    tag: row.tagName ? { name: row.tagName, url: localUris(config.origin).tag(row.tagName) } : null,
    item_count: row.itemCount,
    items: items.map(collectionItemEntity),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** Serializes a page of collections for a viewer: one query for all their items. */
export async function serializeCollections(
  db: Executor,
  config: Pick<Config, "origin">,
  rows: readonly CollectionRow[],
  viewerId: string | null,
): Promise<Collection[]> {
  const items = await visibleItems(db, rows, viewerId);
  return rows.map((row) => collectionEntity(config, row, items.get(row.id) ?? []));
}

/**
 * CollectionWithAccounts: the collection and the Account entities of its
 * owner and of the members the viewer sees (item order, no duplicates).
 */
export async function serializeCollectionWithAccounts(
  db: Executor,
  config: Pick<Config, "origin">,
  row: CollectionRow,
  viewerId: string | null,
): Promise<CollectionWithAccounts> {
  const [collection] = await serializeCollections(db, config, [row], viewerId);
  const ids = [row.accountId, ...collection.items.flatMap((i) => i.account_id ?? [])];
  const accounts = await loadAccountEntities(db, config, [...new Set(ids)]);
  return { accounts, collection };
}

/** Collections by id for a viewer, keyed by id (one batch; unknown ids are absent). */
export async function collectionsById(
  db: Executor,
  config: Pick<Config, "origin">,
  ids: readonly (string | null)[],
  viewerId: string | null,
): Promise<Map<string, Collection>> {
  const wanted = [...new Set(ids.filter((id): id is string => id != null))];
  if (wanted.length === 0) return new Map();
  const rows = (await collectionsByIds(db, wanted)).filter((r) => !r.ownerUnavailable);
  const list = await serializeCollections(db, config, rows, viewerId);
  return new Map(list.map((c) => [c.id, c]));
}
