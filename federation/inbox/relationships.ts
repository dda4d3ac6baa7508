/**
 * Inbox listeners for relationships and remote profiles: Follow,
 * Accept(Follow), Reject(Follow), Undo(Follow), Block, Undo(Block),
 * Update(actor) and Delete(actor).
 *
 * Each listener only translates: it finds the accounts the activity names
 * and calls the same actors/ command the API calls (a remote Follow is
 * `follow(remote, local)`, an Accept is `authorizeFollowRequest(remote,
 * local)`…). Fedify has already verified the HTTP signature and that its key
 * belongs to the activity's actor; here we make sure every other claim is
 * about that actor too (an Undo undoes the sender's own Follow, an Update or
 * Delete is about the sender itself) and ignore activities about accounts
 * that are not ours.
 *
 * Fedify calls one listener per activity class: Undo, Accept, Reject, Update
 * and Delete will carry more than relationships (likes, posts…). Those who
 * add them should call the `handle…` functions here first and go on when
 * they return false.
 */
import type { Context, InboxContext, InboxListenerSetters } from "@fedify/fedify";
import {
  Accept,
  type Activity,
  Block,
  Delete,
  Follow,
  isActor,
  Reject,
  Undo,
  Update,
} from "@fedify/vocab";
import { and, eq } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import { accounts, blocks, followRequests, follows } from "../../db/schema/mod.ts";
import { NotFoundError } from "../../model/errors.ts";
import {
  authorizeFollowRequest,
  follow,
  NotPermittedError,
  rejectFollowRequest,
  removeFromFollowers,
  SelfFollowError,
  unfollow,
} from "../../actors/relationships/follows.ts";
import { block, unblock } from "../../actors/relationships/blocks.ts";
import { remoteAccountDeleted } from "../../actors/accounts/remote_account_deletion.ts";
import { actorIsGone } from "../actor_gone.ts";
import { scheduleFeaturedSync } from "../remote/featured_schedule.ts";
import { embeddedObject } from "./activity_object.ts";
import { findLocalAccountByIdentifier } from "../dispatchers/local_actors.ts";
import { accountForActorUri, type AccountRow, upsertRemoteActor } from "../remote/accounts.ts";
import { embeddedJson, inboxJson, remember } from "../dialects/received.ts";
import { rememberEarlyDelete, undoneEarly } from "./early_deletes.ts";
import { activityIds } from "../../model/uris.ts";

const logger = getLogger(["rookery", "federation", "inbox", "relationships"]);

/** A handler for an activity these listeners share; returns false when it is not its. */
export type Handler<T> = (ctx: InboxContext<AppContext>, activity: T) => Promise<boolean>;

/**
 * Handlers of other areas for the activity classes registered here; each
 * runs only when the relationship handler returned false.
 */
export interface SharedListeners {
  accept?: Handler<Accept>;
  reject?: Handler<Reject>;
  undo?: Handler<Undo>;
  update?: Handler<Update>;
  delete?: Handler<Delete>;
}

/** Runs `first`, then `next` when `first` did not handle the activity. */
function chain<T>(first: Handler<T>, next?: Handler<T>) {
  return async (ctx: InboxContext<AppContext>, activity: T): Promise<void> => {
    if (await first(ctx, activity)) return;
    if (next) await next(ctx, activity);
  };
}

/** Registers the relationship listeners on the inbox (and `next` after the shared ones). */
export function registerRelationshipListeners(
  listeners: InboxListenerSetters<AppContext>,
  next: SharedListeners = {},
): void {
  listeners
    .on(Follow, onFollow)
    .on(Accept, chain(handleFollowAnswer, next.accept))
    .on(Reject, chain(handleFollowAnswer, next.reject))
    .on(Undo, chain(handleRelationshipUndo, next.undo))
    .on(Block, onBlock)
    .on(Update, chain(handleActorUpdate, next.update))
    .on(Delete, chain(handleActorDelete, next.delete));
}

/** Commands refuse with these when the activity makes no sense here; nothing to do then. */
async function ignoringRefusals(what: string, run: () => Promise<unknown>): Promise<void> {
  try {
    await run();
  } catch (error) {
    if (
      error instanceof NotFoundError || error instanceof NotPermittedError ||
      error instanceof SelfFollowError
    ) {
      logger.info("Ignored {what}: {reason}", { what, reason: error.message });
      return;
    }
    throw error;
  }
}

/** The stored (or freshly fetched) remote account of the activity's actor; null if local or gone. */
async function remoteSender(ctx: Context<AppContext>, activity: Activity) {
  if (!activity.actorId) return null;
  const account = await accountForActorUri(ctx, activity.actorId);
  if (!account || account.domain == null || account.deletedAt) return null;
  // Our moderators suspended it: nothing it sends is taken (its own server's
  // suspension, "remote", still lets its actor Update lift it).
  if (account.suspendedAt && account.suspensionOrigin === "local") return null;
  return account;
}

/** The live local account an IRI names (our actor URIs only), or null. */
async function localAccount(ctx: Context<AppContext>, uri: URL | null): Promise<AccountRow | null> {
  const parsed = ctx.parseUri(uri);
  if (parsed?.type !== "actor") return null;
  const account = await findLocalAccountByIdentifier(ctx.data.database.db, parsed.identifier);
  return account && !account.deletedAt ? account : null;
}

async function onFollow(ctx: InboxContext<AppContext>, activity: Follow): Promise<void> {
  if (!activity.id) return;
  const target = await localAccount(ctx, activity.objectId);
  if (!target) return;
  const sender = await remoteSender(ctx, activity);
  if (!sender || await undoneEarly(ctx.data, sender.id, activity)) return;
  await ignoringRefusals(
    "Follow",
    () => follow(ctx.data, sender.id, target.id, {}, { uri: activity.id!.href }),
  );
}

/**
 * Accept or Reject of a Follow one of our accounts sent: matched by the
 * Follow's id, or by the embedded Follow's actor when the id is not ours.
 * Returns false when the object is not such a Follow.
 */
export async function handleFollowAnswer(
  ctx: InboxContext<AppContext>,
  answer: Accept | Reject,
): Promise<boolean> {
  const sender = await remoteSender(ctx, answer);
  if (!sender) return false;
  const follower = await answeredFollower(ctx, answer, sender);
  if (!follower) return false;
  if (answer instanceof Accept) {
    await ignoringRefusals(
      "Accept(Follow)",
      () => authorizeFollowRequest(ctx.data, sender.id, follower.id),
    );
    return true;
  }
  try {
    await rejectFollowRequest(ctx.data, sender.id, follower.id);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    // No pending request: a Reject of an accepted follow ends it (Mastodon does the same).
    await ignoringRefusals(
      "Reject(Follow)",
      () => removeFromFollowers(ctx.data, sender.id, follower.id),
    );
  }
  return true;
}

/** The local follower whose Follow of `sender` the Accept/Reject answers, or null. */
async function answeredFollower(
  ctx: InboxContext<AppContext>,
  answer: Accept | Reject,
  sender: AccountRow,
): Promise<AccountRow | null> {
  const db = ctx.data.database.db;
  const objectId = answer.objectId?.href;
  if (objectId) {
    // Our own Follow ids are stored on the request (or the follow, once accepted).
    for (const table of [followRequests, follows]) {
      const [row] = await db.select({ accountId: table.accountId }).from(table)
        .where(and(eq(table.uri, objectId), eq(table.targetAccountId, sender.id))).limit(1);
      if (row) {
        const [account] = await db.select().from(accounts).where(eq(accounts.id, row.accountId));
        return account?.domain == null ? account ?? null : null;
      }
    }
  }
  const object = await embeddedObject(answer);
  if (!object && objectId) {
    // Only an id that no stored row has (rows from before ids were kept):
    // ours name their follower (`<actor>#follows/<id>`), and the pair decides.
    return ctx.parseUri(new URL(objectId))?.type === "actor" && activityIds.isFollow(objectId)
      ? await localAccount(ctx, new URL(objectId.slice(0, objectId.indexOf("#"))))
      : null;
  }
  if (!(object instanceof Follow) || object.objectId?.href !== sender.uri) return null;
  return await localAccount(ctx, object.actorId);
}

/**
 * Undo of the sender's own Follow or Block. The inner activity must be the
 * sender's: an Undo of someone else's Follow is ignored. Returns false for
 * other Undos.
 */
export async function handleRelationshipUndo(
  ctx: InboxContext<AppContext>,
  undo: Undo,
): Promise<boolean> {
  const object = await embeddedObject(undo);
  const sender = await remoteSender(ctx, undo);
  if (!sender) return false;
  if (object instanceof Follow || object instanceof Block) {
    if (object.actorId?.href !== sender.uri) {
      logger.warn("Ignored an Undo by {actor} of an activity by {other}", {
        actor: sender.uri,
        other: object.actorId?.href,
      });
      return true;
    }
    const target = await localAccount(ctx, object.objectId);
    if (!target) return true;
    const [what, undo] = object instanceof Follow
      ? ["Undo(Follow)", unfollow] as const
      : ["Undo(Block)", unblock] as const;
    let undone = true;
    await ignoringRefusals(what, async () => {
      undone = await undo(ctx.data, sender.id, target.id);
    });
    // Nothing to undo yet: the Follow or Block may still be on its way (early_deletes.ts).
    if (!undone && object.id) {
      await rememberEarlyDelete(ctx.data, {
        accountId: sender.id,
        actorUri: sender.uri,
        uri: object.id.href,
      });
    }
    return true;
  }
  // Only the activity's id: the sender's own follow, request or block that has it.
  const objectId = undo.objectId?.href;
  if (!objectId || object) return false;
  const db = ctx.data.database.db;
  for (const table of [follows, followRequests]) {
    const [row] = await db.select({ targetAccountId: table.targetAccountId }).from(table)
      .where(and(eq(table.uri, objectId), eq(table.accountId, sender.id))).limit(1);
    if (row) {
      await ignoringRefusals(
        "Undo(Follow)",
        () => unfollow(ctx.data, sender.id, row.targetAccountId),
      );
      return true;
    }
  }
  const [blocked] = await db.select({ targetAccountId: blocks.targetAccountId }).from(blocks)
    .where(and(eq(blocks.uri, objectId), eq(blocks.accountId, sender.id))).limit(1);
  if (blocked) {
    await ignoringRefusals(
      "Undo(Block)",
      () => unblock(ctx.data, sender.id, blocked.targetAccountId),
    );
    return true;
  }
  return false;
}

async function onBlock(ctx: InboxContext<AppContext>, activity: Block): Promise<void> {
  const target = await localAccount(ctx, activity.objectId);
  if (!target) return;
  const sender = await remoteSender(ctx, activity);
  if (!sender || await undoneEarly(ctx.data, sender.id, activity)) return;
  const uri = activity.id?.href;
  await ignoringRefusals(
    "Block",
    () => block(ctx.data, sender.id, target.id, uri ? { uri } : undefined),
  );
}

/**
 * Update of the sender's own actor document: the stored account is
 * refreshed from it. Returns false when the object is not an actor.
 */
export async function handleActorUpdate(
  ctx: InboxContext<AppContext>,
  update: Update,
): Promise<boolean> {
  const object = await embeddedObject(update);
  if (!isActor(object)) return false;
  if (!object.id || object.id.href !== update.actorId?.href) {
    logger.warn("Ignored an Update of {object} by {actor}", {
      object: object.id?.href,
      actor: update.actorId?.href,
    });
    return true;
  }
  const db = ctx.data.database.db;
  const [known] = await db.select({
    id: accounts.id,
    domain: accounts.domain,
    deletedAt: accounts.deletedAt,
  })
    .from(accounts).where(eq(accounts.uri, object.id.href)).limit(1);
  // Profiles nobody here follows or looked up are not worth storing.
  if (!known || known.domain == null || known.deletedAt) return true;
  // Read from the actor as the sender wrote it (federation/dialects/).
  remember(object, embeddedJson(inboxJson(ctx, update), "object", object.id.href));
  await upsertRemoteActor(ctx, object);
  // Its next activities, perhaps handled here at once, read the new row.
  ctx.data.core.remoteSenders.forget(object.id.href);
  // Its pins may have changed too (Mastodon re-reads the featured collection).
  await scheduleFeaturedSync(ctx.data, known.id);
  return true;
}

/**
 * Delete of the sender's own actor (actor = object): once its server
 * confirms the actor is gone (actor_gone.ts), what it had here goes
 * (actors/accounts/remote_account_deletion.ts). Returns false for other Deletes.
 */
export async function handleActorDelete(
  ctx: InboxContext<AppContext>,
  del: Delete,
): Promise<boolean> {
  const actorId = del.actorId?.href;
  if (!actorId || del.objectId?.href !== actorId) return false;
  const db = ctx.data.database.db;
  const [account] = await db.select({
    id: accounts.id,
    domain: accounts.domain,
    deletedAt: accounts.deletedAt,
  }).from(accounts).where(eq(accounts.uri, actorId)).limit(1);
  if (!account || account.domain == null || account.deletedAt) return true;
  if (!await actorIsGone(ctx, actorId)) {
    logger.warn("Ignored a Delete of {actor}: its server still serves it, or did not answer.", {
      actor: actorId,
    });
    return true;
  }
  await remoteAccountDeleted(ctx.data, account.id);
  ctx.data.core.remoteSenders.forget(actorId);
  return true;
}
