/**
 * Reading a remote actor's `featuredCollections` (FEP-7aa9: its
 * collections) into our copies, in the featured-sync job
 * (featured_sync.ts), so its triggers are the pins': an actor first
 * stored, a stale one resolved again, an Update of the actor.
 *
 * Bounded, as Mastodon reads it: the list and its first two pages (10
 * collections at Mastodon's page size), only on the actor's own server;
 * each collection processed as an Add of it would be
 * (remote_collections.ts), with a fetch budget of its own. When the whole
 * list was read, the collections it no longer names are forgotten; a list
 * that cannot be read leaves them as they are.
 */
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import { forgetUnlistedCollections } from "../../actors/collections/remote.ts";
import { idOfNode } from "../dialects/featured_collections.ts";
import { isJson, type Json, list, NS, term, unwrap } from "../dialects/terms.ts";
import { FetchBudget } from "../fetch/budget.ts";
import { fetchRawDocument } from "../fetch/raw_document.ts";
import { sameOrigin } from "../fetch/trust.ts";
import { processRemoteCollection } from "./remote_collections.ts";
import { syncedRemoteAccount } from "./synced_account.ts";

const logger = getLogger(["rookery", "federation", "collections"]);

/** Pages of the list read at most. */
const MAX_PAGES = 2;
/** Collections read at most. */
export const MAX_SYNCED_COLLECTIONS = 10;

/**
 * Reads the remote account's `featuredCollections` into our copies.
 * Returns false when it has none or the list could not be read.
 */
export async function syncFeaturedCollections(
  app: AppContext,
  accountId: string,
): Promise<boolean> {
  const account = await syncedRemoteAccount(app, accountId);
  if (!account) return false;
  const url = account.featuredCollectionsUrl;
  if (!url || !sameOrigin(url, account.uri)) return false;
  const listing = await readListing(app, url, account.uri);
  if (!listing) return false;
  const owner = { id: account.id, uri: account.uri };
  for (const node of listing.collections) {
    await processRemoteCollection(app, owner, node, { budget: FetchBudget.of(app) });
  }
  if (listing.complete) {
    const listed = listing.collections.map(idOfNode).filter((id): id is string => id != null);
    const forgotten = await forgetUnlistedCollections(app, account.id, listed);
    if (forgotten) {
      logger.debug("Forgot {n} collections of {uri}.", { n: forgotten, uri: account.uri });
    }
  }
  return true;
}

/** The collections (nodes or ids) the list names, and whether that is all of them. */
async function readListing(
  app: AppContext,
  url: string,
  actorUri: string,
): Promise<{ collections: unknown[]; complete: boolean } | null> {
  const budget = FetchBudget.of(app);
  const fetch = async (node: unknown): Promise<Json | null> => {
    if (isJson(node)) return node;
    if (typeof node !== "string") return null;
    return (await fetchRawDocument(app, node, { budget, sameOriginAs: actorUri })).json;
  };
  const collection = await fetch(url);
  if (!collection) return null;
  const collections: unknown[] = [...itemsOf(collection)];
  let next: unknown = unwrap(term(collection, "first", NS.as));
  for (let pages = 0; next != null && pages < MAX_PAGES; pages++) {
    const page = await fetch(next);
    if (!page) return { collections, complete: false };
    collections.push(...itemsOf(page));
    next = unwrap(term(page, "next", NS.as));
  }
  return {
    collections: collections.slice(0, MAX_SYNCED_COLLECTIONS),
    complete: next == null && collections.length <= MAX_SYNCED_COLLECTIONS,
  };
}

/** The items of a collection or page, with the context of its document for embedded ones. */
function itemsOf(page: Json): unknown[] {
  const listed = term(page, "orderedItems", NS.as) ?? term(page, "items", NS.as);
  const context = page["@context"];
  return list(listed, MAX_SYNCED_COLLECTIONS * 2).map((item) =>
    // An embedded collection reads its terms with the page's context.
    isJson(item) && context !== undefined && !("@context" in item)
      ? { "@context": context, ...item }
      : item
  );
}
