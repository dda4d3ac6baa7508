/**
 * Inbox handlers for collections (FEP-7aa9, Mastodon 4.6), read from the
 * activity's JSON as received (federation/dialects/featured_collections.ts;
 * the guard's type shim let Fedify parse it):
 *
 * - FeatureRequest for one of our members: the collection (the instrument)
 *   must be the sender's, stored or fetched from its server, else the
 *   member rejects it; the member's policy answers
 *   (actors/collections/consent.ts);
 * - Accept or Reject of one of our requests, by the member it asked: the
 *   Accept's stamp must be on the member's server;
 * - Delete of a member's stamp, by that member: its items are revoked;
 * - Add of a collection to the sender's `featuredCollections`, or Update of
 *   one: our copy is stored or refreshed; Remove of one: forgotten;
 * - Add of an item to a collection of the sender, Remove of one.
 *
 * Fedify runs one listener per class: listeners.ts puts these before the
 * pins' (Add, Remove) and the statuses' (Accept, Reject, Update, Delete)
 * handlers, and the generic Activity listener asks
 * {@link handleFeatureRequest} first. Each returns false when the activity
 * is not about collections, at the cost of a look at its JSON or one
 * indexed lookup. Every other claim is checked against the sender, as
 * Mastodon checks it.
 */
import type { InboxContext } from "@fedify/fedify";
import {
  Accept,
  type Activity,
  type Add,
  type Delete,
  type Reject,
  type Remove,
  type Update,
} from "@fedify/vocab";
import { and, eq, isNull } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import { accounts, collectionItems, collections } from "../../db/schema/mod.ts";
import {
  answerFeatureRequest,
  rejectFeatureRequest,
  revokeByStamp,
  settleFeatureRequest,
} from "../../actors/collections/consent.ts";
import { removeRemoteCollection, removeRemoteItem } from "../../actors/collections/remote.ts";
import {
  idOfNode,
  isFepType,
  readFeaturedItem,
  readFeatureRequest,
  vocabularyOf,
} from "../dialects/featured_collections.ts";
import { inboxJson } from "../dialects/received.ts";
import { fetchRawDocument } from "../fetch/raw_document.ts";
import { sameOrigin } from "../fetch/trust.ts";
import { processRemoteCollection, processRemoteItem } from "../remote/remote_collections.ts";
import type { AccountRow } from "../remote/accounts.ts";
import type { Handler, SharedListeners } from "./relationships.ts";
import type { AddRemoveHandlers } from "./pins.ts";
import { remoteSender } from "./statuses.ts";

const logger = getLogger(["rookery", "federation", "inbox", "collections"]);

function ignored(activity: Activity, reason: string): true {
  logger.info("Ignored {id} by {actor}: {reason}", {
    id: activity.id?.href,
    actor: activity.actorId?.href,
    reason,
  });
  return true;
}

/** A live local account by actor IRI, or null. */
async function localMember(ctx: InboxContext<AppContext>, uri: string | null) {
  if (!uri || !sameOrigin(uri, ctx.data.config.origin)) return null;
  const [row] = await ctx.data.database.db.select({ id: accounts.id }).from(accounts).where(and(
    eq(accounts.uri, uri),
    isNull(accounts.domain),
    isNull(accounts.deletedAt),
    isNull(accounts.suspendedAt),
  )).limit(1);
  return row ?? null;
}

/** The sender's remote collection with id `uri` that we keep, or null. */
async function storedCollection(ctx: InboxContext<AppContext>, sender: AccountRow, uri: string) {
  const [row] = await ctx.data.database.db.select({ id: collections.id, uri: collections.uri })
    .from(collections).where(and(
      eq(collections.uri, uri),
      eq(collections.accountId, sender.id),
      eq(collections.local, false),
    )).limit(1);
  return row ? { id: row.id, uri: row.uri! } : null;
}

/** FeatureRequest: the sender asks to put one of our members in its collection. */
export async function handleFeatureRequest(
  ctx: InboxContext<AppContext>,
  activity: Activity,
): Promise<boolean> {
  const raw = inboxJson(ctx, activity);
  const request = raw ? readFeatureRequest(raw, vocabularyOf(raw)) : null;
  if (!request) return false;
  const sender = await remoteSender(ctx, activity);
  if (!sender) return ignored(activity, "its sender is not a remote account we take");
  if (request.actor !== sender.uri || !sameOrigin(request.id, sender.uri)) {
    return ignored(activity, "it is not the sender's own request");
  }
  const member = await localMember(ctx, request.object);
  if (!member) return ignored(activity, "it names none of our accounts");
  const collectionId = request.instrument
    ? (await storedCollection(ctx, sender, request.instrument))?.id ??
      await processRemoteCollection(ctx.data, sender, request.instrument)
    : null;
  if (!collectionId) {
    // Our member refuses what it cannot check: the curator is told, nothing is kept.
    await rejectFeatureRequest(ctx.data, {
      curatorId: sender.id,
      memberId: member.id,
      requestUri: request.id,
    });
    return ignored(activity, "its collection is not the sender's (rejected)");
  }
  const answer = await answerFeatureRequest(ctx.data, {
    collectionId,
    curatorId: sender.id,
    memberId: member.id,
    requestUri: request.id,
  });
  logger.debug("FeatureRequest {id}: {answer}", { id: request.id, answer });
  return true;
}

/** Accept or Reject of a FeatureRequest we sent. False when it answers none of ours. */
export async function handleFeatureAnswer(
  ctx: InboxContext<AppContext>,
  answer: Accept | Reject,
): Promise<boolean> {
  const requestUri = answer.objectId?.href;
  if (!requestUri) return false;
  const [item] = await ctx.data.database.db.select({ id: collectionItems.id })
    .from(collectionItems)
    .innerJoin(collections, eq(collections.id, collectionItems.collectionId))
    .where(and(eq(collectionItems.activityUri, requestUri), eq(collections.local, true)))
    .limit(1);
  if (!item) return false;
  const sender = await remoteSender(ctx, answer);
  if (!sender) return ignored(answer, "its sender is not a remote account we take");
  const stamp = answer instanceof Accept ? answer.resultId?.href ?? null : null;
  if (answer instanceof Accept && !(stamp && sameOrigin(stamp, sender.uri))) {
    return ignored(answer, "its stamp is not on the member's server");
  }
  const settled = await settleFeatureRequest(ctx.data, {
    itemId: item.id,
    senderId: sender.id,
    approvalUri: stamp,
  });
  return settled || ignored(answer, "it does not answer a pending request to the sender");
}

/** Delete of a member's stamp (FeatureAuthorization). False when it is no stamp we know. */
export async function handleFeatureStampDelete(
  ctx: InboxContext<AppContext>,
  del: Delete,
): Promise<boolean> {
  const stampUri = del.objectId?.href;
  if (!stampUri) return false;
  const raw = inboxJson(ctx, del);
  const typed = raw != null && isFepType(raw.object, "FeatureAuthorization", vocabularyOf(raw));
  if (!typed) {
    // A bare id: a stamp only if one of our items names it.
    const [known] = await ctx.data.database.db.select({ id: collectionItems.id })
      .from(collectionItems).where(eq(collectionItems.approvalUri, stampUri)).limit(1);
    if (!known) return false;
  }
  const sender = await remoteSender(ctx, del);
  if (!sender) return ignored(del, "its sender is not a remote account we take");
  const revoked = await revokeByStamp(ctx.data, sender.id, stampUri);
  logger.debug("Stamp {stamp} deleted: {n} items.", { stamp: stampUri, n: revoked });
  return true;
}

/** Update of one of the sender's collections. False when the object is no FeaturedCollection. */
export async function handleCollectionUpdate(
  ctx: InboxContext<AppContext>,
  update: Update,
): Promise<boolean> {
  const raw = inboxJson(ctx, update);
  if (!raw) return false;
  const vocab = vocabularyOf(raw);
  if (!isFepType(raw.object, "FeaturedCollection", vocab)) return false;
  const sender = await remoteSender(ctx, update);
  if (!sender) return ignored(update, "its sender is not a remote account we take");
  const id = await processRemoteCollection(ctx.data, sender, raw.object, { vocab });
  return id != null || ignored(update, "its collection is not the sender's");
}

/**
 * Add of a collection to the sender's `featuredCollections`, or of an item
 * to one of its collections. False when the target is neither (a pin).
 */
export async function handleCollectionAdd(
  ctx: InboxContext<AppContext>,
  add: Add,
): Promise<boolean> {
  const target = add.targetId?.href;
  const raw = inboxJson(ctx, add);
  if (!target || !raw) return false;
  const sender = await remoteSender(ctx, add);
  if (!sender) return false;
  const vocab = vocabularyOf(raw);
  if (target === sender.featuredCollectionsUrl) {
    const id = await processRemoteCollection(ctx.data, sender, raw.object, { vocab });
    return id != null || ignored(add, "its collection is not the sender's");
  }
  const collection = await storedCollection(ctx, sender, target);
  if (!collection) return false;
  let item = readFeaturedItem(raw.object, vocab);
  if (!item && typeof raw.object === "string") {
    const { json } = await fetchRawDocument(ctx.data, raw.object, { sameOriginAs: collection.uri });
    item = json ? readFeaturedItem(json, vocabularyOf(json)) : null;
  }
  if (!item || !await processRemoteItem(ctx.data, collection, item, null)) {
    return ignored(add, "its item is not one the collection may list");
  }
  return true;
}

/**
 * Remove of a collection from the sender's `featuredCollections`, or of an
 * item from one of its collections. False when the target is neither.
 */
export async function handleCollectionRemove(
  ctx: InboxContext<AppContext>,
  remove: Remove,
): Promise<boolean> {
  const target = remove.targetId?.href;
  const raw = inboxJson(ctx, remove);
  const objectId = raw ? idOfNode(raw.object) : null;
  if (!target || !objectId) return false;
  const sender = await remoteSender(ctx, remove);
  if (!sender) return false;
  if (target === sender.featuredCollectionsUrl) {
    await removeRemoteCollection(ctx.data, sender.id, objectId);
    return true;
  }
  if (!await storedCollection(ctx, sender, target)) return false;
  await removeRemoteItem(ctx.data, sender.id, target, objectId);
  return true;
}

/** `first`, then `next` when `first` did not take the activity. */
function firstOf<T>(first: Handler<T>, next?: Handler<T>): Handler<T> {
  return async (ctx, activity) =>
    await first(ctx, activity) || (next ? await next(ctx, activity) : false);
}

/** The shared handlers (statuses') with the collections' in front. */
export function withCollectionHandlers(next: SharedListeners): SharedListeners {
  return {
    ...next,
    accept: firstOf(handleFeatureAnswer, next.accept),
    reject: firstOf(handleFeatureAnswer, next.reject),
    update: firstOf(handleCollectionUpdate, next.update),
    delete: firstOf(handleFeatureStampDelete, next.delete),
  };
}

/** What the pins' Add and Remove listeners ask first. */
export const collectionAddRemove: AddRemoveHandlers = {
  add: handleCollectionAdd,
  remove: handleCollectionRemove,
};
