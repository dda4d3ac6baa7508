/**
 * Reading a remote actor's `featuredTags` collection (the hashtags featured
 * on its profile) into featured_tags, as Mastodon's
 * ActivityPub::FetchFeaturedTagsCollectionService does. It runs in the same
 * queued job as the featured (pinned posts) sync, federation/remote/featured_sync.ts,
 * so it has the same triggers: an actor first stored, a stale one resolved
 * again, an Update of the actor.
 *
 * Bounded: one signed GET of the collection (and of its first page when that
 * is only a link), only a collection on the actor's own server, at most
 * {@link MAX_FEATURED_TAG_ITEMS} `Hashtag` items, read from the JSON as
 * received whatever its `@context` (federation/dialects/terms.ts). The set
 * is replaced: tags no longer listed go. A collection that cannot be read
 * leaves the tags as they are.
 */
import { eq } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import { accounts } from "../../db/schema/mod.ts";
import { replaceRemoteFeaturedTags } from "../../actors/tags/featured_tags.ts";
import { fetchRawDocument } from "../fetch/raw_document.ts";
import { sameOrigin } from "../fetch/trust.ts";
import { type Json, readFeaturedTagsCollection } from "../dialects/terms.ts";

const logger = getLogger(["rookery", "federation", "featured"]);

/** Hashtags of a featuredTags collection read at most (Mastodon lets a profile feature 10). */
export const MAX_FEATURED_TAG_ITEMS = 20;

/**
 * Reads the remote account's featuredTags collection and makes its featured
 * tags the hashtags listed there. Returns false when there is none or it
 * could not be read (the tags are then unchanged).
 */
export async function syncFeaturedTags(app: AppContext, accountId: string): Promise<boolean> {
  const [account] = await app.database.db.select().from(accounts)
    .where(eq(accounts.id, accountId)).limit(1);
  if (!account || account.domain == null || account.deletedAt || account.suspendedAt) return false;
  const url = account.featuredTagsUrl;
  // A collection on another server could speak for anyone.
  if (!url || !sameOrigin(url, account.uri)) return false;
  const json = await fetchJson(app, url, account.uri);
  if (!json) return false;
  let collection = json;
  // A first page given only by its URL is fetched (the first page only, as Mastodon).
  if (typeof json.first === "string") {
    const page = await fetchJson(app, json.first, account.uri);
    if (!page) return false;
    collection = { ...json, first: page };
  }
  const names = readFeaturedTagsCollection(collection, MAX_FEATURED_TAG_ITEMS);
  const changes = await replaceRemoteFeaturedTags(
    app.database.db,
    account.id,
    names,
    MAX_FEATURED_TAG_ITEMS,
  );
  logger.debug("Synced the featured tags of {uri}: {changes}", { uri: account.uri, changes });
  return true;
}

/** The JSON document at `url`, on the actor's server (fetch/raw_document.ts); null otherwise. */
async function fetchJson(app: AppContext, url: string, actorUri: string): Promise<Json | null> {
  return (await fetchRawDocument(app, url, { sameOriginAs: actorUri })).json;
}
