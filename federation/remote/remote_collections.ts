/**
 * Reading a remote account's collection (FEP-7aa9) into our copy, wherever
 * it comes from: an Add or Update its server delivered, its
 * `featuredCollections` (featured_collections_sync.ts), or the instrument of
 * a FeatureRequest (federation/inbox/collections.ts). The checks are
 * Mastodon's: the collection's id on its owner's server and attributed to
 * it; each item's id on the collection's server; a remote member's stamp on
 * the member's own server. The description is sanitized before it is
 * stored; items are placed by actors/collections/remote.ts and their
 * consent checked by the verification job (featured_items.ts).
 */
import { and, eq, isNull } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import { accounts } from "../../db/schema/mod.ts";
import { sanitizeHtml } from "../../actors/formatting/sanitize_html.ts";
import {
  placeRemoteItem,
  REMOTE_COLLECTION_ITEMS,
  upsertRemoteCollection,
} from "../../actors/collections/remote.ts";
import {
  type FeaturedCollectionTerms,
  type FeaturedItemTerms,
  readFeaturedCollection,
  readFeaturedItem,
  type Vocabulary,
  vocabularyOf,
} from "../dialects/featured_collections.ts";
import { isJson } from "../dialects/terms.ts";
import { FetchBudget } from "../fetch/budget.ts";
import { fetchRawDocument } from "../fetch/raw_document.ts";
import { sameOrigin } from "../fetch/trust.ts";
import { requestItemVerification } from "./featured_items.ts";

const logger = getLogger(["rookery", "federation", "collections"]);

/** The owner of a remote collection, as stored. */
export interface CollectionOwner {
  id: string;
  uri: string;
}

/**
 * The collection described by `node` (embedded, or a bare id fetched within
 * `budget` from the owner's server), stored as `owner`'s; its items placed
 * and queued for verification. Returns our id of it; null when it is not
 * `owner`'s collection or could not be read.
 */
export async function processRemoteCollection(
  app: AppContext,
  owner: CollectionOwner,
  node: unknown,
  options: { vocab?: Vocabulary; budget?: FetchBudget } = {},
): Promise<string | null> {
  const budget = options.budget ?? FetchBudget.of(app);
  let json = node;
  let vocab = options.vocab;
  if (typeof node === "string") {
    const fetched = await fetchRawDocument(app, node, { budget, sameOriginAs: owner.uri });
    if (!fetched.json) return null;
    json = fetched.json;
    vocab = vocabularyOf(fetched.json);
  }
  if (!isJson(json)) return null;
  const terms = readFeaturedCollection(json, vocab ?? vocabularyOf(json));
  if (!terms || !sameOrigin(terms.id, owner.uri) || terms.attributedTo !== owner.uri) {
    logger.info("Ignored a collection of {owner}: not its own.", { owner: owner.uri });
    return null;
  }
  const id = await upsertRemoteCollection(app, owner.id, {
    uri: terms.id,
    url: terms.url,
    name: terms.name,
    descriptionHtml: terms.summary ? sanitizeHtml(terms.summary) : null,
    language: terms.language,
    sensitive: terms.sensitive,
    discoverable: terms.discoverable,
    tagName: terms.topic,
    originalNumberOfItems: terms.totalItems,
    published: terms.published,
    updated: terms.updated,
    itemUris: terms.items.map((item) => item.id),
  });
  if (!id) return null;
  await processItems(app, { id, uri: terms.id }, terms, {
    vocab: vocab ?? vocabularyOf(json),
    budget,
  });
  return id;
}

/** Places each listed item (fetching those given by id, within the budget). */
async function processItems(
  app: AppContext,
  collection: { id: string; uri: string },
  terms: FeaturedCollectionTerms,
  options: { vocab: Vocabulary; budget: FetchBudget },
): Promise<void> {
  for (const [index, listed] of terms.items.slice(0, REMOTE_COLLECTION_ITEMS).entries()) {
    let item: FeaturedItemTerms | null = "reference" in listed ? null : listed;
    if (!item) {
      const fetched = await fetchRawDocument(app, listed.id, {
        budget: options.budget,
        sameOriginAs: collection.uri,
      });
      item = fetched.json ? readFeaturedItem(fetched.json, vocabularyOf(fetched.json)) : null;
    }
    if (item) await processRemoteItem(app, collection, item, index + 1);
  }
}

/**
 * Places one item of a remote collection (Mastodon's
 * ProcessFeaturedItemService) and queues the check of its member's
 * consent: always for a new or changed item, for an accepted one when its
 * last check is old. Returns whether it was placed.
 */
export async function processRemoteItem(
  app: AppContext,
  collection: { id: string; uri: string },
  item: FeaturedItemTerms,
  position: number | null,
): Promise<boolean> {
  const member = item.featuredObject;
  if (!member || !sameOrigin(item.id, collection.uri)) return false;
  const localMemberId = await localAccountId(app, member);
  // A remote member's consent is its own server's word, nobody else's.
  if (
    !localMemberId && !(item.featureAuthorization && sameOrigin(item.featureAuthorization, member))
  ) {
    return false;
  }
  const placed = await placeRemoteItem(app, collection.id, {
    uri: item.id,
    objectUri: member,
    approvalUri: localMemberId ? null : item.featureAuthorization,
    position,
    published: item.published,
    localMemberId,
  });
  if (!placed || localMemberId) return placed != null;
  if (placed.state === "pending") await requestItemVerification(app, placed.itemId);
  if (placed.state === "accepted") {
    await requestItemVerification(app, placed.itemId, { ifStale: true });
  }
  return true;
}

/** Our live account with actor IRI `uri`, or null. */
async function localAccountId(app: AppContext, uri: string): Promise<string | null> {
  if (!sameOrigin(uri, app.config.origin)) return null;
  const [row] = await app.database.db.select({ id: accounts.id }).from(accounts)
    .where(and(eq(accounts.uri, uri), isNull(accounts.domain), isNull(accounts.deletedAt)))
    .limit(1);
  return row?.id ?? null;
}
