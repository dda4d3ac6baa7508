/**
 * Inbox listeners for statuses: Create, Update and Delete of posts,
 * Announce and Like, their Undo, and votes in our polls. Each translates the
 * activity and calls the same actors/ command the API calls: createStatus
 * (through federation/remote/statuses.ts), editRemoteStatus, deleteStatus,
 * reblog/unreblog, favourite/unfavourite and recordRemoteVote.
 *
 * Fedify has verified that the HTTP signature's key belongs to the
 * activity's actor. Every other claim must be about that actor too: a
 * Create of an object attributed to someone else, an Update or Delete of a
 * status that is not the sender's, an Undo of someone else's Like are all
 * ignored. Embedded objects are never trusted for more than their id when
 * the id lives on another server than the sender.
 *
 * Each activity gets one fetch budget (federation/fetch/budget.ts) for
 * everything it makes us fetch: its object, the object's author, parents and
 * quoted posts; what is over budget is fetched later by a job.
 *
 * Update, Delete and Undo are shared with the relationship listeners (one
 * listener per class in Fedify): inbox.ts calls these handlers when the
 * relationship ones return false.
 */
import type { InboxContext, InboxListenerSetters } from "@fedify/fedify";
import { isPublicVisibility } from "../../model/visibility.ts";
import {
  type Activity,
  Announce,
  Create,
  type Delete,
  Like,
  Note,
  type Object as APObject,
  QuoteRequest,
  type Undo,
  type Update,
} from "@fedify/vocab";
import { and, eq, isNull } from "drizzle-orm";
import { getLogger } from "@logtape/logtape";
import type { AppContext } from "../../context.ts";
import { accounts, favourites, polls, statuses } from "../../db/schema/mod.ts";
import { NotFoundError } from "../../model/errors.ts";
import { NotPermittedError } from "../../actors/relationships/follow_rows.ts";
import { StatusError } from "../../actors/statuses/errors.ts";
import { deleteStatus } from "../../actors/statuses/delete.ts";
import { editRemoteStatus, refreshRemotePoll } from "../../actors/statuses/edit_remote.ts";
import { applyRemoteQuotePolicy } from "../../actors/statuses/interaction_policy.ts";
import { favourite, unfavourite } from "../../actors/interactions/favourites.ts";
import { reblog, unreblog } from "../../actors/interactions/reblogs.ts";
import { recordRemoteVote, VoteRefusedError } from "../../actors/polls/vote.ts";
import { accountForActorUri, type AccountRow } from "../remote/accounts.ts";
import {
  findStatusByUri,
  mentionedAccounts,
  rawJson,
  resolveRemoteStatus,
  storeRemoteStatus,
} from "../remote/statuses.ts";
import { isPublicIri, isStatusObject, parseStatusObject } from "../objects/remote_status.ts";
import type { SharedListeners } from "./relationships.ts";
import { applyQuoteStamp, handleQuoteAnswer, handleStampDelete, onQuoteRequest } from "./quotes.ts";
import { sameOrigin } from "../fetch/trust.ts";
import { embeddedObject } from "./activity_object.ts";
import { FetchBudget } from "../fetch/budget.ts";
import { lookupRemote } from "../fetch/lookup.ts";
import { mediaRejected } from "../../actors/moderation/domain_rules.ts";
import { embeddedJson, inboxJson } from "../dialects/received.ts";
import { rememberEarlyDelete, undoneEarly } from "./early_deletes.ts";
import { forgedClaim } from "./approval_claims.ts";
import { claimOf, remotePolicyOf } from "../objects/interaction_policy.ts";
import { judgeApproval } from "../remote/authorizations.ts";
import { handleInteractionAnswer } from "./interaction_answers.ts";
import {
  refuseRemoteInteraction,
  type RemoteRequest,
  wasRejected,
} from "../../actors/interactions/remote_requests.ts";
import { ForbiddenInteractionError } from "../../actors/interactions/policy.ts";

const logger = getLogger(["rookery", "federation", "inbox", "statuses"]);

type StatusRow = typeof statuses.$inferSelect;

/** Commands refuse with these when the activity makes no sense here; nothing to do then. */
async function ignoringRefusals(what: string, run: () => Promise<unknown>): Promise<void> {
  try {
    await run();
  } catch (error) {
    if (
      error instanceof NotFoundError || error instanceof NotPermittedError ||
      error instanceof StatusError || error instanceof VoteRefusedError
    ) {
      logger.info("Ignored {what}: {reason}", { what, reason: error.message });
      return;
    }
    throw error;
  }
}

/**
 * The stored remote account of the activity's actor; null if local, unknown
 * or gone. Not taken from the activity's fetch budget: its signature was
 * just verified with the actor's key, and without the actor nothing else
 * of the activity is used.
 *
 * Kept in the process (`core.remoteSenders`, db/announced_cache.ts) until
 * the row changes other than in its counters (which every stored status
 * changes): its counts may be behind, and nothing here reads them. The
 * sender's own Update, Delete and Move drop it in the process that handles
 * them (relationships.ts, move.ts), before its next activity.
 */
export async function remoteSender(ctx: InboxContext<AppContext>, activity: Activity) {
  const actorId = activity.actorId;
  if (!actorId) return null;
  const account = await ctx.data.core.remoteSenders.get(
    actorId.href,
    () => accountForActorUri(ctx, actorId).catch(() => null),
  );
  if (!account || account.domain == null || account.deletedAt || account.suspendedAt) return null;
  return account;
}

/**
 * The activity's object: the embedded one when it comes from the sender's
 * server, else fetched by id (signed), within `budget`. Null when it cannot be had.
 */
async function objectOf(
  ctx: InboxContext<AppContext>,
  activity: Activity,
  budget: FetchBudget,
): Promise<APObject | null> {
  const id = activity.objectId;
  const sender = activity.actorId;
  if (!sender) return null;
  try {
    // By reference, or embedded by someone else's server: fetched from its origin
    // (lookupRemote never fetches our own objects).
    const object = await embeddedObject(activity);
    if (object?.id && sameOrigin(object.id, sender)) return object;
    if (!id && !object?.id) return null;
    return await lookupRemote(ctx, (id ?? object!.id!).href, budget);
  } catch (error) {
    logger.info("Could not read the object of {id}: {error}", { id: activity.id?.href, error });
    return null;
  }
}

/**
 * The JSON of an activity's object as the sender wrote it: embedded in the
 * delivered payload, else as fetched (federation/dialects/received.ts).
 */
async function rawObjectOf(
  ctx: InboxContext<AppContext>,
  activity: Activity,
  object: APObject,
): Promise<unknown> {
  const embedded = embeddedJson(inboxJson(ctx, activity), "object", object.id?.href ?? null);
  return embedded ?? await rawJson(object);
}

// ---------------------------------------------------------------- Create

/** Create of a Note, Question or converted type; a vote when it answers one of our polls. */
export async function onCreate(ctx: InboxContext<AppContext>, create: Create): Promise<void> {
  const budget = FetchBudget.of(ctx.data);
  const sender = await remoteSender(ctx, create);
  if (!sender) return;
  const object = await objectOf(ctx, create, budget);
  if (!isStatusObject(object) || !object.id) return;
  if (object.attributionId?.href !== sender.uri || !sameOrigin(object.id, sender.uri)) {
    logger.warn("Ignored a Create by {actor} of {object} attributed to {author}", {
      actor: sender.uri,
      object: object.id.href,
      author: object.attributionId?.href,
    });
    return;
  }
  if (await handleVote(ctx, sender, object)) return;
  // A forged approval does not come in; nor does a reply its author already
  // rejected (dropRejected: asked with the status's IRI).
  if (await forgedClaim(ctx, object)) return;
  // GoToSocial's rule: a reply to a rejected reply is rejected with it.
  const parentUri = object.replyTargetId?.href;
  if (parentUri && await wasRejected(ctx.data.database.db, parentUri)) return;
  const status = await storeRemoteStatus(ctx, object, {
    depth: 0,
    raw: await rawObjectOf(ctx, create, object),
    expectedActor: sender.uri,
    sender,
    budget,
    impolite: true,
    dropRejected: true,
  });
  if (status) await forwardReply(ctx, sender, status);
}

/**
 * Whether an interaction (reply, Like, Announce) is to be dropped: it claims
 * an approval of ours we did not give it, or was rejected before (issue 34).
 */
async function refusedInteraction(
  ctx: InboxContext<AppContext>,
  object: APObject,
  uri: string | undefined,
): Promise<boolean> {
  if (await forgedClaim(ctx, object)) return true;
  return uri != null && await wasRejected(ctx.data.database.db, uri);
}

/**
 * A vote: a Note with a name, no content, in reply to one of our
 * Questions. Returns false when the Note is not one.
 */
async function handleVote(
  ctx: InboxContext<AppContext>,
  sender: AccountRow,
  object: APObject,
): Promise<boolean> {
  if (!(object instanceof Note) || !object.replyTargetId || !object.name) return false;
  if ((object.content?.toString() ?? "").trim() !== "") return false;
  if (!sameOrigin(object.replyTargetId, ctx.data.config.origin)) return false;
  const db = ctx.data.database.db;
  const [row] = await db.select({ poll: polls }).from(statuses)
    .innerJoin(polls, eq(polls.id, statuses.pollId))
    .where(and(eq(statuses.uri, object.replyTargetId.href), eq(statuses.local, true)));
  if (!row) return false;
  const choice = row.poll.options.indexOf(object.name.toString().trim());
  await ignoringRefusals("vote", () =>
    recordRemoteVote(ctx.data, {
      accountId: sender.id,
      pollId: row.poll.id,
      choice,
      uri: object.id?.href ?? null,
    }));
  return true;
}

/**
 * A reply to a public or unlisted local post is forwarded to the local
 * author's followers, and so is its Delete, when the activity is signed
 * (Linked Data signature or FEP-8b32 proof: Mastodon's rule, only then can
 * the followers' servers trust it). Forwarded as received, so the author's
 * proof still holds when it reaches them (federation/inbox/proofs.ts).
 */
async function forwardReply(
  ctx: InboxContext<AppContext>,
  sender: AccountRow,
  status: StatusRow,
): Promise<void> {
  if (!status.inReplyToId || status.accountId !== sender.id) return;
  // A reply waiting for approval reaches nobody else until approved.
  if (status.pendingApproval) return;
  if (!isPublicVisibility(status.visibility)) return;
  const db = ctx.data.database.db;
  const [parent] = await db.select().from(statuses).where(eq(statuses.id, status.inReplyToId));
  if (!parent?.local || !isPublicVisibility(parent.visibility)) {
    return;
  }
  const [author] = await db.select({ username: accounts.username }).from(accounts)
    .where(and(eq(accounts.id, parent.accountId), isNull(accounts.deletedAt)));
  if (!author) return;
  try {
    await ctx.forwardActivity({ identifier: author.username }, "followers", {
      skipIfUnsigned: true,
      preferSharedInbox: true,
      excludeBaseUris: [new URL(sender.uri)],
    });
  } catch (error) {
    logger.warn("Could not forward {id}: {error}", { id: status.uri, error });
  }
}

// ---------------------------------------------------------------- Update

/** Update of the sender's own status: an edit, or new poll results. False for other objects. */
export async function handleStatusUpdate(
  ctx: InboxContext<AppContext>,
  update: Update,
): Promise<boolean> {
  const budget = FetchBudget.of(ctx.data);
  const sender = await remoteSender(ctx, update);
  if (!sender) return false;
  const object = await objectOf(ctx, update, budget);
  if (!isStatusObject(object) || !object.id) return false;
  const status = await findStatusByUri(ctx.data, object.id.href);
  if (!status) return true; // Not a status we have: nothing to update.
  if (status.accountId !== sender.id || object.attributionId?.href !== sender.uri) {
    logger.warn("Ignored an Update by {actor} of {object}", {
      actor: sender.uri,
      object: object.id.href,
    });
    return true;
  }
  const raw = await rawObjectOf(ctx, update, object);
  const parsed = await parseStatusObject(object, {
    followersUrl: sender.followersUrl,
    raw,
    maxMedia: ctx.data.config.limits.maxMediaAttachments,
    rejectMedia: await mediaRejected(ctx.data, sender.domain),
  });
  if (!parsed) return true;
  await applyQuoteStamp(ctx, {
    quotingStatusId: status.id,
    stampUri: parsed.quoteAuthorizationUri,
  });
  // Who may quote changes with or without an edit (Mastodon's implicit update).
  await applyRemoteQuotePolicy(
    ctx.data.database.db,
    sender.id,
    status.id,
    parsed.quotePolicy,
    remotePolicyOf(object, sender, raw),
  );
  // Mastodon: only an Update with a newer `updated` is an edit; otherwise it
  // only refreshes a poll's results (an Update of a Question after votes).
  const edited = parsed.updated != null && parsed.updated > (status.editedAt ?? status.createdAt);
  if (!edited) {
    if (parsed.poll) {
      const poll = parsed.poll;
      await ignoringRefusals(
        "Update(Question)",
        () => refreshRemotePoll(ctx.data, sender.id, status.id, poll),
      );
    }
    return true;
  }
  await ignoringRefusals("Update(Note)", async () =>
    editRemoteStatus(ctx.data, {
      accountId: sender.id,
      statusId: status.id,
      content: parsed.content,
      spoilerText: parsed.spoilerText,
      sensitive: parsed.sensitive,
      language: parsed.language,
      mentionedAccountIds: await mentionedAccounts(ctx.data, parsed),
      tagNames: parsed.tagNames,
      media: parsed.media,
      poll: parsed.poll,
      emojis: parsed.emojis,
      cardLink: parsed.cardLink,
      editedAt: parsed.updated!,
    }));
  return true;
}

// ---------------------------------------------------------------- Delete

/** Delete of the sender's own status or boost. False when the object is not one we have. */
export async function handleStatusDelete(
  ctx: InboxContext<AppContext>,
  del: Delete,
): Promise<boolean> {
  const objectId = del.objectId?.href;
  if (!objectId || !del.actorId) return false;
  const status = await findStatusByUri(ctx.data, objectId);
  if (!status) {
    if (await handleStampDelete(ctx, objectId, del.actorId.href)) return true;
    // Not seen yet: its Create may still be on its way (early_deletes.ts).
    return await removedBeforeArrival(ctx, del, objectId);
  }
  const sender = await remoteSender(ctx, del);
  if (!sender || status.accountId !== sender.id) {
    logger.warn("Ignored a Delete by {actor} of {object}", {
      actor: del.actorId.href,
      object: objectId,
    });
    return true;
  }
  if (status.reblogOfId) {
    await ignoringRefusals("Delete(Announce)", () => unreblog(ctx.data, sender.id, status.id));
  } else {
    // While the reply still is one: its Delete follows where it was forwarded.
    await forwardReply(ctx, sender, status);
    await ignoringRefusals("Delete(Note)", () => deleteStatus(ctx.data, sender.id, status.id));
  }
  return true;
}

/**
 * Remembers that the sender removed `uri` (a status, or one of its
 * activities) before we saw it, so it is dropped when it comes. True once
 * done; false when the sender is not a usable remote account.
 */
async function removedBeforeArrival(
  ctx: InboxContext<AppContext>,
  removal: Activity,
  uri: string | undefined,
): Promise<boolean> {
  const sender = await remoteSender(ctx, removal);
  if (!sender) return false;
  if (uri) await rememberEarlyDelete(ctx.data, { accountId: sender.id, actorUri: sender.uri, uri });
  return true;
}

// ---------------------------------------------------------------- Announce, Like, Undo

/** Visibility of a boost from its addressing (Mastodon: public, unlisted or private). */
export function boostVisibility(announce: Announce): string {
  if (announce.toIds.some(isPublicIri)) return "public";
  if (announce.ccIds.some(isPublicIri)) return "unlisted";
  return "private";
}

/** Announce: the sender boosts a status (fetched when unknown). */
export async function onAnnounce(ctx: InboxContext<AppContext>, announce: Announce) {
  const budget = FetchBudget.of(ctx.data);
  const sender = await remoteSender(ctx, announce);
  if (!sender || !announce.id || !announce.objectId) return;
  if (!sameOrigin(announce.id, sender.uri)) return;
  const uri = announce.id.href;
  const [known] = await ctx.data.database.db.select({ id: statuses.id }).from(statuses)
    .where(eq(statuses.uri, uri));
  if (known || await undoneEarly(ctx.data, sender.id, announce)) return;
  if (await refusedInteraction(ctx, announce, uri)) return;
  const status = await resolveRemoteStatus(ctx, announce.objectId.href, budget);
  if (!status) return;
  // A third server's boost of a remote post that wants approval needs its proof
  // (authorizations.ts); one whose proof the budget refused is held, hidden,
  // until the status_links job checks it.
  const claim = claimOf(announce)?.href ?? null;
  const verdict = await judgeApproval(
    ctx,
    { kind: "reblog", uri, actorUri: sender.uri, claim },
    status,
    budget,
  );
  if (verdict.kind === "refused") return;
  const unverified = verdict.kind === "deferred" ? { claimUri: verdict.claim } : undefined;
  const approvedByUri = verdict.kind === "proven" ? verdict.authorizationUri : undefined;
  const published = announce.published ? new Date(announce.published.epochMilliseconds) : undefined;
  await ignoringRefusals(
    "Announce",
    () =>
      refusingForbidden(
        ctx,
        { type: "reblog", target: status, sender, uri },
        () =>
          reblog(ctx.data, sender.id, status.id, {
            visibility: boostVisibility(announce),
            remote: { uri, published, unverified, approvedByUri },
          }),
      ),
  );
}

/** Like of one of our statuses (others' likes are not counted here, as in Mastodon). */
export async function onLike(ctx: InboxContext<AppContext>, like: Like) {
  const sender = await remoteSender(ctx, like);
  if (!sender || !like.objectId) return;
  const status = await findStatusByUri(ctx.data, like.objectId.href);
  if (!status?.local || await undoneEarly(ctx.data, sender.id, like)) return;
  if (await refusedInteraction(ctx, like, like.id?.href)) return;
  await ignoringRefusals(
    "Like",
    () =>
      refusingForbidden(
        ctx,
        { type: "favourite", target: status, sender, uri: like.id?.href },
        () =>
          favourite(
            ctx.data,
            sender.id,
            status.id,
            like.id ? { uri: like.id.href } : undefined,
          ),
      ),
  );
}

/**
 * Runs the command of a plain Like or Announce; when our policy forbids it,
 * it is refused with an impolite Reject and remembered, so the same
 * activity delivered again is dropped (GoToSocial answers the same way).
 */
async function refusingForbidden(
  ctx: InboxContext<AppContext>,
  refusal: { type: RemoteRequest["type"]; target: StatusRow; sender: AccountRow; uri?: string },
  run: () => Promise<unknown>,
): Promise<void> {
  try {
    await run();
  } catch (error) {
    const { target, uri } = refusal;
    if (!(error instanceof ForbiddenInteractionError) || !uri || !target.local) throw error;
    if (target.reblogOfId) throw error;
    logger.info("Refused {uri}: {reason}", { uri, reason: error.message });
    await refuseRemoteInteraction(ctx.data, {
      type: refusal.type,
      targetStatusId: target.id,
      targetAccountId: target.accountId,
      accountId: refusal.sender.id,
      interactionUri: uri,
    });
  }
}

/**
 * The status whose favourite by the sender an Undo takes back: found by the
 * Like's id, or by its object (some servers give Likes no stable id). None
 * when the sender has no such favourite (yet).
 */
async function undoneFavourite(
  ctx: InboxContext<AppContext>,
  sender: AccountRow,
  like: APObject | null,
  likeId: string | undefined,
): Promise<string | null> {
  const db = ctx.data.database.db;
  const mine = eq(favourites.accountId, sender.id);
  if (likeId) {
    const [byId] = await db.select({ statusId: favourites.statusId }).from(favourites)
      .where(and(eq(favourites.uri, likeId), mine));
    if (byId) return byId.statusId;
  }
  if (!(like instanceof Like) || !like.objectId) return null;
  const status = await findStatusByUri(ctx.data, like.objectId.href);
  if (!status) return null;
  const [byObject] = await db.select({ statusId: favourites.statusId }).from(favourites)
    .where(and(eq(favourites.statusId, status.reblogOfId ?? status.id), mine));
  return byObject ? status.id : null;
}

/** Undo of the sender's Like or Announce. False for other Undos. */
export async function handleStatusUndo(
  ctx: InboxContext<AppContext>,
  undo: Undo,
): Promise<boolean> {
  const sender = await remoteSender(ctx, undo);
  if (!sender) return false;
  const object = await embeddedObject(undo);
  const db = ctx.data.database.db;
  const objectId = undo.objectId?.href ?? object?.id?.href;
  if (object instanceof Like || object instanceof Announce) {
    if (object.actorId?.href !== sender.uri) {
      logger.warn("Ignored an Undo by {actor} of an activity by {other}", {
        actor: sender.uri,
        other: object.actorId?.href,
      });
      return true;
    }
  } else if (object) {
    return false;
  }
  if (object instanceof Like || (!object && objectId)) {
    const statusId = await undoneFavourite(ctx, sender, object, objectId);
    if (statusId) {
      await ignoringRefusals("Undo(Like)", () => unfavourite(ctx.data, sender.id, statusId));
      return true;
    }
    if (object) return await removedBeforeArrival(ctx, undo, objectId);
  }
  if (objectId) {
    const [boost] = await db.select().from(statuses).where(and(
      eq(statuses.uri, objectId),
      eq(statuses.accountId, sender.id),
    ));
    if (boost?.reblogOfId) {
      await ignoringRefusals("Undo(Announce)", () => unreblog(ctx.data, sender.id, boost.id));
      return true;
    }
  }
  // Nothing of the sender's has this id yet: the activity may still be on its way.
  return await removedBeforeArrival(ctx, undo, objectId);
}

// ---------------------------------------------------------------- registration

/** The status handlers for activity classes the relationship listeners registered first. */
export const sharedStatusHandlers: SharedListeners = {
  undo: handleStatusUndo,
  update: handleStatusUpdate,
  delete: handleStatusDelete,
  accept: async (ctx, accept) =>
    await handleQuoteAnswer(ctx, accept) || await handleInteractionAnswer(ctx, accept),
  reject: async (ctx, reject) =>
    await handleQuoteAnswer(ctx, reject) || await handleInteractionAnswer(ctx, reject),
};

/** Registers Create, Announce, Like and QuoteRequest. */
export function registerStatusListeners(listeners: InboxListenerSetters<AppContext>): void {
  listeners
    .on(Create, onCreate)
    .on(Announce, onAnnounce)
    .on(Like, onLike)
    .on(QuoteRequest, onQuoteRequest);
}
