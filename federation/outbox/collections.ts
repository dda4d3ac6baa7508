/**
 * Delivers collections (FEP-7aa9, Mastodon 4.6): the Outbox methods of
 * actors/outbox/collections.ts, each building its activity from the stored
 * rows (federation/objects/featured_collection_rows.ts) as Mastodon writes
 * it (federation/objects/featured_collections.ts), sent as a raw activity
 * (federation/objects/raw_activity.ts) so Fedify proves, signs and queues it
 * like any other.
 *
 * Audience, as Mastodon's:
 * - Add/Remove/Update of a collection or an item: the owner's remote
 *   followers, one request per shared inbox;
 * - FeatureRequest: the member's inbox; Accept/Reject of one: the curator's;
 * - Delete of a member's stamp: the curator and the member's followers.
 * Activities about one collection share its id as ordering key, so an Add
 * never overtakes the Remove that follows it.
 */
import type { Context } from "@fedify/fedify";
import type { Recipient } from "@fedify/vocab";
import { and, eq, isNotNull, isNull } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import type { CollectionDeliveries } from "../../actors/outbox/collections.ts";
import { accounts, collectionItems, collections, follows } from "../../db/schema/mod.ts";
import {
  collectionItemUri,
  collectionUri,
  featureAuthorizationUri,
  featuredCollectionsUri,
} from "../../model/collection_uris.ts";
import { instanceContext } from "../fetch/lookup.ts";
import { RawActivity } from "../objects/raw_activity.ts";
import { loadFeaturedCollection } from "../objects/featured_collection_rows.ts";
import {
  addActivity,
  featureAnswerActivity,
  featuredCollectionObject,
  featuredItemObject,
  featureRequestActivity,
  removeActivity,
  stampDeleteActivity,
  updateCollectionActivity,
} from "../objects/featured_collections.ts";
import { recipientOf } from "../objects/recipient.ts";

const logger = getLogger(["rookery", "federation", "outbox", "collections"]);

type Json = Record<string, unknown>;
type AccountRow = typeof accounts.$inferSelect;

/** A live account by id (local or remote), or null. */
async function accountById(app: AppContext, id: string): Promise<AccountRow | null> {
  const [row] = await app.database.db.select().from(accounts)
    .where(and(eq(accounts.id, id), isNull(accounts.deletedAt))).limit(1);
  return row ?? null;
}

/** A live local account by id, or null. */
async function localAccount(app: AppContext, id: string): Promise<AccountRow | null> {
  const row = await accountById(app, id);
  return row && row.domain == null && !row.suspendedAt ? row : null;
}

/** A remote account we can deliver to, by id, or null. */
async function remoteRecipient(app: AppContext, id: string): Promise<Recipient | null> {
  const row = await accountById(app, id);
  return row && row.domain != null && row.inboxUrl ? recipientOf(row) : null;
}

/** The remote followers of a local account, one entry per actor. */
async function remoteFollowers(app: AppContext, accountId: string): Promise<Recipient[]> {
  const rows = await app.database.db.select({
    uri: accounts.uri,
    inboxUrl: accounts.inboxUrl,
    sharedInboxUrl: accounts.sharedInboxUrl,
  }).from(follows)
    .innerJoin(accounts, eq(accounts.id, follows.accountId))
    .where(and(
      eq(follows.targetAccountId, accountId),
      isNotNull(accounts.domain),
      isNotNull(accounts.inboxUrl),
      isNull(accounts.deletedAt),
    ));
  return rows.map(recipientOf);
}

/** Sends a prebuilt activity as `sender`, to `to` (or its followers). */
async function send(
  ctx: Context<AppContext>,
  sender: AccountRow,
  to: Recipient[] | "followers",
  document: Json,
  orderingKey: string,
): Promise<void> {
  const activity = RawActivity.of(document);
  const options = { preferSharedInbox: true, orderingKey };
  const identity = { identifier: sender.username };
  if (to === "followers") await ctx.sendActivity(identity, "followers", activity, options);
  else if (to.length > 0) await ctx.sendActivity(identity, to, activity, options);
  else return;
  logger.debug("Queued {type} {id}.", { type: document.type, id: document.id });
}

/** A local collection's owner and document data; null when it is gone or not ours. */
async function loadOwned(app: AppContext, collectionId: string) {
  const collection = await loadFeaturedCollection(
    app.database.db,
    app.config.origin,
    collectionId,
  );
  if (!collection) return null;
  const [row] = await app.database.db.select({ ownerId: collections.accountId })
    .from(collections).where(eq(collections.id, collectionId));
  const owner = row ? await localAccount(app, row.ownerId) : null;
  return owner ? { collection, owner } : null;
}

/** An item with its collection and member, as the request and answer need them. */
async function loadItem(app: AppContext, itemId: string) {
  const [row] = await app.database.db.select({ item: collectionItems, collection: collections })
    .from(collectionItems)
    .innerJoin(collections, eq(collections.id, collectionItems.collectionId))
    .where(eq(collectionItems.id, itemId)).limit(1);
  return row ?? null;
}

/** The collections part of the outbox. */
export function collectionDeliveries(app: AppContext): CollectionDeliveries {
  const context = () => instanceContext(app);
  const origin = app.config.origin;
  return {
    async collectionCreated(collectionId) {
      const loaded = await loadOwned(app, collectionId);
      if (!loaded) return;
      const { collection, owner } = loaded;
      const add = addActivity({
        id: `${collection.id}#add`,
        actorUri: owner.uri,
        target: featuredCollectionsUri(origin, owner.username),
        object: featuredCollectionObject(collection),
      });
      await send(context(), owner, "followers", add, collection.id);
    },
    async collectionUpdated(collectionId, updateStamp) {
      const loaded = await loadOwned(app, collectionId);
      if (!loaded) return;
      const { collection, owner } = loaded;
      const update = updateCollectionActivity({
        id: `${collection.id}#updates/${updateStamp}`,
        collection,
      });
      await send(context(), owner, "followers", update, collection.id);
    },
    async collectionDeleted({ ownerId, uri }) {
      const owner = await localAccount(app, ownerId);
      if (!owner) return;
      const remove = removeActivity({
        id: `${uri}#remove`,
        actorUri: owner.uri,
        target: featuredCollectionsUri(origin, owner.username),
        object: uri,
      });
      await send(context(), owner, "followers", remove, uri);
    },
    async collectionItemAdded(itemId) {
      const row = await loadItem(app, itemId);
      if (!row || !row.collection.local) return;
      const loaded = await loadOwned(app, row.collection.id);
      if (!loaded) return;
      const { collection, owner } = loaded;
      const itemUri = collectionItemUri(origin, owner.username, collection.id, itemId);
      // Only an item still accepted is in the document (and announced).
      const item = collection.items.find((i) => i.id === itemUri);
      if (!item) return;
      const add = addActivity({
        id: `${itemUri}#add`,
        actorUri: owner.uri,
        target: collection.id,
        object: featuredItemObject(item),
      });
      await send(context(), owner, "followers", add, collection.id);
    },
    async collectionItemRemoved({ itemUri, collectionId, ownerId }) {
      const owner = await localAccount(app, ownerId);
      if (!owner) return;
      const target = collectionUri(origin, owner.username, collectionId);
      const remove = removeActivity({
        id: `${itemUri}#remove`,
        actorUri: owner.uri,
        target,
        object: itemUri,
      });
      await send(context(), owner, "followers", remove, target);
    },
    async featureRequested(itemId) {
      const row = await loadItem(app, itemId);
      if (!row?.item.accountId || !row.item.activityUri || row.item.state !== "pending") return;
      if (!row.collection.local) return;
      const owner = await localAccount(app, row.collection.accountId);
      const member = await accountById(app, row.item.accountId);
      const recipient = member && await remoteRecipient(app, member.id);
      if (!owner || !member || !recipient) return;
      const request = featureRequestActivity({
        id: row.item.activityUri,
        curatorUri: owner.uri,
        memberUri: member.uri,
        collectionUri: collectionUri(origin, owner.username, row.collection.id),
      });
      await send(context(), owner, [recipient], request, row.item.activityUri);
    },
    async featureRequestAnswered(answer) {
      if (answer.accepted) {
        const row = await loadItem(app, answer.itemId);
        if (!row?.item.accountId || !row.item.activityUri || row.collection.local) return;
        if (row.item.state !== "accepted") return;
        const member = await localAccount(app, row.item.accountId);
        const curator = await remoteRecipient(app, row.collection.accountId);
        if (!member || !curator) return;
        const accept = featureAnswerActivity({
          id: `${member.uri}#accepts/feature_requests/${row.item.id}`,
          memberUri: member.uri,
          curatorUri: curator.id!.href,
          requestUri: row.item.activityUri,
          stampUri: featureAuthorizationUri(origin, member.username, row.item.id),
        });
        await send(context(), member, [curator], accept, row.item.activityUri);
        return;
      }
      const member = await localAccount(app, answer.memberId);
      const curator = await remoteRecipient(app, answer.curatorId);
      if (!member || !curator) return;
      const reject = featureAnswerActivity({
        id: `${member.uri}#rejects/feature_requests/${answer.rejectionId}`,
        memberUri: member.uri,
        curatorUri: curator.id!.href,
        requestUri: answer.requestUri,
        stampUri: null,
      });
      await send(context(), member, [curator], reject, answer.requestUri);
    },
    async featureAuthorizationRevoked({ itemId, memberId, collectionUri, curatorId }) {
      const member = await localAccount(app, memberId);
      if (!member) return;
      const curator = await remoteRecipient(app, curatorId);
      const followers = await remoteFollowers(app, member.id);
      const seen = new Set<string>();
      const recipients = [...(curator ? [curator] : []), ...followers]
        .filter((r) => !seen.has(r.id!.href) && seen.add(r.id!.href));
      const stamp = featureAuthorizationUri(origin, member.username, itemId);
      const del = stampDeleteActivity({ id: stamp, collectionUri, memberUri: member.uri });
      await send(context(), member, recipients, del, stamp);
    },
  };
}
