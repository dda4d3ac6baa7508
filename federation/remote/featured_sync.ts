/**
 * Reading a remote actor's featured collection (its pinned posts) into
 * status_pins, as Mastodon's SynchronizeFeaturedCollectionWorker does when
 * it processes an actor: when we first store an actor, when a stale one is
 * resolved again, and on Update of the actor.
 *
 * Bounded: one signed GET of the collection (and of its first page when it
 * is paged), at most {@link MAX_FEATURED_ITEMS} items, only items on the
 * actor's own server, and only statuses the actor wrote. Items embedded in
 * the collection are stored from it; the others are fetched (signed, with
 * their parents as federation/remote/statuses.ts bounds them). An item that is
 * a `Create` stands for its object.
 *
 * It runs as a queued job (scheduled by federation/remote/featured_schedule.ts),
 * together with the featuredTags sync (federation/remote/featured_tags_sync.ts),
 * never on the request path nor inside the inbox listener that learned of
 * the actor; syncs of one account run one at a time, and the actors a sync
 * discovers (authors of replied-to posts) do not start syncs of their own,
 * so one sync never spreads into a crawl. A sync that cannot fetch the collection leaves the pins as they are;
 * a pin an Add makes while the collection is read stays.
 */
import { Collection, Create, type Object as APObject } from "@fedify/vocab";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import { replaceRemotePins } from "../../actors/interactions/remote_pins.ts";
import { NotFoundError } from "../../model/errors.ts";
import { instanceContext, instanceDocumentLoader, lookupRemote } from "../fetch/lookup.ts";
import { FetchBudget } from "../fetch/budget.ts";
import { findStatusByUri, rawJson, resolveRemoteStatus, storeRemoteStatus } from "./statuses.ts";
import { isStatusObject } from "../objects/remote_status.ts";
import { duringSync } from "./featured_schedule.ts";
import { syncFeaturedTags } from "./featured_tags_sync.ts";
import { syncFeaturedCollections } from "./featured_collections_sync.ts";
import { syncedRemoteAccount } from "./synced_account.ts";
import { sameOrigin } from "../fetch/trust.ts";
import {
  capturingLoader,
  collectionItemJson,
  embeddedJson,
  receivedJson,
  remember,
} from "../dialects/received.ts";
import { embeddedObject } from "../inbox/activity_object.ts";

const logger = getLogger(["rookery", "federation", "featured"]);

/** Items of a featured collection read at most (Mastodon accounts pin at most 5). */
export const MAX_FEATURED_ITEMS = 20;

/** Runs the queued sync of one account (the job handler, jobs/handlers.ts). */
export async function runFeaturedSync(app: AppContext, accountId: string): Promise<void> {
  await duringSync(async () => {
    // The featured tags and the collections (FEP-7aa9) are read in the same
    // job (Mastodon fetches them together); a failure of one skips no other.
    let failure: unknown = null;
    for (const part of [syncFeaturedCollection, syncFeaturedTags, syncFeaturedCollections]) {
      try {
        await part(app, accountId);
      } catch (error) {
        failure ??= error;
      }
    }
    if (failure) throw failure;
  });
}

/** A document loader that never fetches: only embedded items are read. */
const noFetch = () => Promise.reject(new Error("not fetched"));

/**
 * Reads the remote account's featured collection and makes its pins the
 * statuses listed there. Returns false when the collection could not be
 * read (the pins are then unchanged).
 */
export async function syncFeaturedCollection(
  app: AppContext,
  accountId: string,
): Promise<boolean> {
  const account = await syncedRemoteAccount(app, accountId);
  if (!account) return false;
  const featuredUrl = account.featuredUrl;
  // A collection on another server than the actor could list anyone's posts.
  if (!featuredUrl || !sameOrigin(featuredUrl, account.uri)) return false;
  const ctx = instanceContext(app);
  const readAt = new Date();
  const collection = await lookupRemote(ctx, featuredUrl);
  if (!(collection instanceof Collection) || !sameOrigin(collection.id ?? "", account.uri)) {
    return false;
  }
  let page: Collection = collection;
  // Paged collections: the first page only (Mastodon reads no further).
  const { loader, rememberFrom } = capturingLoader(await instanceDocumentLoader(ctx));
  const first = await collection.getFirst({ documentLoader: loader, suppressError: true })
    .then(rememberFrom).catch(() => null);
  if (first) {
    if (!(first instanceof Collection) || !sameOrigin(first.id ?? featuredUrl, account.uri)) {
      return false;
    }
    page = first;
  }
  const embedded = new Map<string, APObject>();
  for await (
    const item of page.getItems({ documentLoader: noFetch, suppressError: true })
  ) {
    if (item.id && !(item instanceof Collection)) embedded.set(item.id.href, item as APObject);
  }
  const statusIds: string[] = [];
  for (const iri of page.itemIds.slice(0, MAX_FEATURED_ITEMS)) {
    if (!sameOrigin(iri, account.uri)) continue;
    const item = embedded.get(iri.href);
    // An embedded item is read from the collection's JSON as received (federation/dialects/).
    if (item) {
      const json = collectionItemJson(await receivedJson(collection), iri.href) ??
        collectionItemJson(await receivedJson(page), iri.href);
      remember(item, json);
    }
    const post = await postOfItem(iri.href, item);
    if (!post || !sameOrigin(post.iri, account.uri)) continue;
    const status = await statusOf(ctx, account.uri, post.iri, post.object);
    if (status?.accountId === account.id) statusIds.push(status.id);
  }
  try {
    const changes = await replaceRemotePins(app, account.id, statusIds, readAt);
    logger.debug("Synced the featured collection of {uri}: {changes}", {
      uri: account.uri,
      changes,
    });
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
  }
  return true;
}

/**
 * The post a featured item stands for. Some servers list the `Create`
 * activities of their pinned posts: the post is its object (embedded, or
 * fetched by its own id), never the activity's id, which often answers 404.
 * Null for a Create without an object.
 */
async function postOfItem(
  iri: string,
  item: APObject | undefined,
): Promise<{ iri: string; object: APObject | undefined } | null> {
  if (!(item instanceof Create)) return { iri, object: item };
  const objectIri = item.objectId?.href;
  if (!objectIri) return null;
  const object = await embeddedObject(item);
  if (object) remember(object, embeddedJson(await receivedJson(item), "object", objectIri));
  return { iri: objectIri, object: object ?? undefined };
}

/** The stored status behind a featured item: known, stored from the embedded object, or fetched. */
async function statusOf(
  ctx: ReturnType<typeof instanceContext>,
  actorUri: string,
  iri: string,
  object: APObject | undefined,
) {
  const known = await findStatusByUri(ctx.data, iri);
  if (known) return known;
  // Each pinned post has a budget of its own, as if it had been delivered.
  const budget = FetchBudget.of(ctx.data);
  if (isStatusObject(object)) {
    return await storeRemoteStatus(ctx, object, {
      depth: 0,
      raw: await rawJson(object),
      expectedActor: actorUri,
      budget,
    });
  }
  return await resolveRemoteStatus(ctx, iri, budget);
}
