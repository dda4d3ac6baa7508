/**
 * Following, as Mastodon's FollowService, UnfollowService,
 * RemoveFromFollowersService, AuthorizeFollowService and RejectFollowService
 * do it. The API calls these for local users; the inbox calls the very same
 * commands for remote actors (a remote Follow is `follow(remote, local)`, an
 * Accept from a remote account is `authorizeFollowRequest(remote, local)`).
 * Which deliveries happen follows from where each side lives: the outbox
 * only sends from a local account to a remote one.
 *
 * Each command is one transaction, which also records its deliveries.
 */
import { and, eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Tx } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import { followRequests, follows } from "../../db/schema/mod.ts";
import { endorsements } from "../../db/schema/mod.ts";
import { NotFoundError } from "../../model/errors.ts";
import { recordDelivery } from "../outbox/deliveries.ts";
import {
  blockedEitherWay,
  type FollowOptions,
  isLocal,
  NotPermittedError,
  pairOf,
  removeFollows,
  removeRequests,
  requirePair,
  writeFollow,
} from "./follow_rows.ts";
import type { FollowSnapshot } from "../outbox/relationships.ts";
import {
  notifyFollow,
  notifyFollowRequest,
  retractNotifications,
} from "../notifications/notify.ts";
import { mergeFollowedAccount, unmergeFollowedAccount } from "../timelines/merge.ts";
import { activityIds } from "../../model/uris.ts";

export { type FollowOptions, NotPermittedError } from "./follow_rows.ts";

/** Mastodon's answer to following oneself (4.3+). */
export class SelfFollowError extends Error {
  constructor() {
    super("Following your own account is not allowed");
  }
}

/** Where a follow stands after {@link follow}. */
export type FollowOutcome = "following" | "requested";

/** What a remote Follow carries that a local one does not. */
export interface RemoteFollow {
  /** The Follow activity's id, kept for the Accept or Reject that answers it. */
  uri: string;
}

/**
 * `followerId` follows `targetId`. A local, unlocked target is followed at
 * once; a locked or remote target gets a follow request (a remote one is sent
 * a Follow and becomes a follow on Accept). Following again updates the
 * options. A remote follower of an unlocked local account is accepted at once
 * (Accept sent); one that is blocked is sent a Reject.
 *
 * @throws SelfFollowError when following oneself
 * @throws NotFoundError when either account is missing, deleted or suspended
 * @throws NotPermittedError when a block (account or domain) stands between them
 */
export async function follow(
  app: AppContext,
  followerId: string,
  targetId: string,
  options: FollowOptions = {},
  remote?: RemoteFollow,
): Promise<FollowOutcome> {
  if (followerId === targetId) throw new SelfFollowError();
  const outcome = await app.database.db.transaction(async (tx) => {
    const { account, target } = await requirePair(tx, followerId, targetId);
    if (target.suspendedAt) throw new NotFoundError();
    if (!isLocal(account) && !isLocal(target)) throw new NotFoundError();
    const uri = remote?.uri ?? null;
    if (target.movedToAccountId || await blockedEitherWay(tx, account, target)) {
      const refused: FollowSnapshot = {
        id: newId(),
        uri,
        accountId: followerId,
        targetAccountId: targetId,
      };
      // Committed (nothing else is written), though the caller is refused.
      await recordDelivery(tx, "followRejected", refused);
      return null;
    }
    const [existing] = await tx.select({ id: follows.id }).from(follows)
      .where(pairOf(follows, followerId, targetId)).limit(1);
    if (existing || (isLocal(target) && (!target.locked || options.bypassLocked))) {
      const { row, created } = await writeFollow(tx, followerId, targetId, options, uri);
      // Notifications (issue 4): a new follow of a local account tells its owner.
      if (created) await notifyFollow(tx, followerId, targetId);
      // Merge: the followed account's recent posts join the home timeline and lists.
      if (created && isLocal(account)) await mergeFollowedAccount(tx, followerId, targetId);
      // A remote follower (re)sending Follow is (re)told it was accepted, as Mastodon does.
      if (!isLocal(account)) await recordDelivery(tx, "followAccepted", snapshotOf(row));
      // A follow makes any pending request for the same pair moot.
      await removeRequests(tx, pairOf(followRequests, followerId, targetId));
      return "following" as const;
    }
    const request = await writeRequest(tx, account.uri, followerId, targetId, options, uri);
    // Notifications (issue 4): a new request to a locked local account tells its owner.
    if (request.created) await notifyFollowRequest(tx, followerId, targetId);
    if (request.created && isLocal(account) && !isLocal(target)) {
      await recordDelivery(tx, "followRequested", request.snapshot);
    }
    return "requested" as const;
  });
  if (!outcome) throw new NotPermittedError();
  return outcome;
}

function snapshotOf(row: {
  id: string;
  uri: string | null;
  accountId: string;
  targetAccountId: string;
}): FollowSnapshot {
  return {
    id: row.id,
    uri: row.uri,
    accountId: row.accountId,
    targetAccountId: row.targetAccountId,
  };
}

/** Creates or updates a follow request; a new local one gets a Follow IRI of ours. */
async function writeRequest(
  tx: Tx,
  followerUri: string,
  followerId: string,
  targetId: string,
  options: FollowOptions,
  remoteUri: string | null,
): Promise<{ created: boolean; snapshot: FollowSnapshot }> {
  const id = newId();
  const values = {
    showReblogs: options.reblogs ?? true,
    notify: options.notify ?? false,
    languages: options.languages?.length ? options.languages : null,
  };
  const [inserted] = await tx.insert(followRequests).values({
    id,
    accountId: followerId,
    targetAccountId: targetId,
    // Fragment ids on the actor: unique, ours, and never dereferenced by peers.
    uri: remoteUri ?? activityIds.follow(followerUri, id),
    ...values,
  }).onConflictDoNothing().returning();
  if (inserted) return { created: true, snapshot: snapshotOf(inserted) };
  const changes: Partial<typeof followRequests.$inferInsert> = {};
  if (options.reblogs !== undefined) changes.showReblogs = values.showReblogs;
  if (options.notify !== undefined) changes.notify = values.notify;
  if (options.languages !== undefined) changes.languages = values.languages;
  if (remoteUri) changes.uri = remoteUri;
  const where = pairOf(followRequests, followerId, targetId);
  const [row] = Object.keys(changes).length
    ? await tx.update(followRequests).set(changes).where(where).returning()
    : await tx.select().from(followRequests).where(where);
  return { created: false, snapshot: snapshotOf(row) };
}

/**
 * `followerId` stops following `targetId`, or withdraws a pending request.
 * A remote target is sent Undo(Follow). Not following is not an error;
 * returns whether there was a follow or request to undo.
 */
export async function unfollow(
  app: AppContext,
  followerId: string,
  targetId: string,
): Promise<boolean> {
  return await app.database.db.transaction(async (tx) => {
    const { account, target } = await requirePair(tx, followerId, targetId);
    const gone = [
      ...await removeFollows(tx, pairOf(follows, followerId, targetId)),
      ...await removeRequests(tx, pairOf(followRequests, followerId, targetId)),
    ];
    // Notifications (issue 4): an undone follow or request takes its notification along.
    await retractNotifications(tx, {
      types: ["follow", "follow_request"],
      accountId: targetId,
      fromAccountId: followerId,
    });
    // Endorsing requires following (Mastodon drops the pin with the follow).
    await tx.delete(endorsements).where(
      and(eq(endorsements.accountId, followerId), eq(endorsements.targetAccountId, targetId)),
    );
    // Unmerge: the unfollowed account's posts leave the home timeline and lists.
    await unmergeFollowedAccount(tx, followerId, targetId);
    if (isLocal(account) && !isLocal(target)) {
      for (const s of gone) await recordDelivery(tx, "followUndone", s);
    }
    return gone.length > 0;
  });
}

/**
 * `accountId` removes `followerId` from its followers (a remote follower is
 * sent Reject(Follow), which Mastodon and others treat as "you no longer follow").
 */
export async function removeFromFollowers(app: AppContext, accountId: string, followerId: string) {
  await app.database.db.transaction(async (tx) => {
    const { account, target: follower } = await requirePair(tx, accountId, followerId);
    const gone = await removeFollows(tx, pairOf(follows, followerId, accountId));
    await unmergeFollowedAccount(tx, followerId, accountId);
    await tx.delete(endorsements).where(
      and(eq(endorsements.accountId, followerId), eq(endorsements.targetAccountId, accountId)),
    );
    if (!isLocal(account) || isLocal(follower)) return;
    for (const s of gone) await recordDelivery(tx, "followRejected", s);
  });
}

/** The answered request's notification goes, as in Mastodon (notifications: issue 4). */
async function retractRequestNotification(tx: Tx, accountId: string, requesterId: string) {
  await retractNotifications(tx, {
    types: ["follow_request"],
    accountId,
    fromAccountId: requesterId,
  });
}

/**
 * `accountId` accepts the pending request of `requesterId`: the request
 * becomes a follow with its options and Follow IRI. A remote requester is
 * sent Accept(Follow). Also what an Accept from a remote account means.
 *
 * @throws NotFoundError when there is no pending request
 */
export async function authorizeFollowRequest(
  app: AppContext,
  accountId: string,
  requesterId: string,
): Promise<void> {
  await app.database.db.transaction(async (tx) => {
    const { account, target: requester } = await requirePair(tx, accountId, requesterId);
    const [request] = await tx.delete(followRequests)
      .where(pairOf(followRequests, requesterId, accountId)).returning();
    if (!request) throw new NotFoundError();
    await retractRequestNotification(tx, accountId, requesterId);
    const { row, created } = await writeFollow(tx, requesterId, accountId, {
      reblogs: request.showReblogs,
      notify: request.notify,
      languages: request.languages,
    }, request.uri);
    // Merge: the accepted follow brings the account's recent posts, as a direct follow does.
    if (created && isLocal(requester)) await mergeFollowedAccount(tx, requesterId, accountId);
    if (isLocal(account) && !isLocal(requester)) {
      await recordDelivery(tx, "followAccepted", snapshotOf(row));
    }
  });
}

/**
 * `accountId` rejects the pending request of `requesterId`. A remote
 * requester is sent Reject(Follow). Also what a Reject from a remote account
 * means for our pending request.
 *
 * @throws NotFoundError when there is no pending request
 */
export async function rejectFollowRequest(
  app: AppContext,
  accountId: string,
  requesterId: string,
): Promise<void> {
  await app.database.db.transaction(async (tx) => {
    const { account, target: requester } = await requirePair(tx, accountId, requesterId);
    const [request] = await removeRequests(tx, pairOf(followRequests, requesterId, accountId));
    if (!request) throw new NotFoundError();
    await retractRequestNotification(tx, accountId, requesterId);
    if (isLocal(account) && !isLocal(requester)) {
      await recordDelivery(tx, "followRejected", request);
    }
  });
}
