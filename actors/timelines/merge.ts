/**
 * What a follow starting or ending does to the follower's feeds, as
 * Mastodon's MergeWorker and UnmergeWorker (home, and the follower's lists
 * that contain the followed account):
 * - a follow that starts (at once, or when a request is accepted, by a local
 *   or a remote account) brings the followed account's recent posts into
 *   the home feed and those lists, with the fan-out rules (regenerate.ts);
 * - a follow that ends takes its posts (and boosts) back out of them.
 * Both run inside the transaction that writes or removes the follow, so a
 * follow is never seen without its posts, nor an unfollow with them. Neither
 * streams anything, as Mastodon's do not: a client sees them on its next read.
 */
import type { Executor } from "../../db/connection.ts";
import {
  backfillListFeeds,
  listsOfOwnerWith,
  mergeIntoHomeFeed,
  unmergeFromListFeeds,
} from "./regenerate.ts";
import { removeAuthorFromHome, trimHomeFeed } from "./fanout.ts";

/**
 * `followerId` (local) now follows `authorId`: merges the author's recent
 * posts into the follower's home feed and into its lists that hold the
 * author, and trims the home feed back to its size.
 */
export async function mergeFollowedAccount(
  tx: Executor,
  followerId: string,
  authorId: string,
): Promise<void> {
  if (await mergeIntoHomeFeed(tx, followerId, authorId) > 0) {
    await trimHomeFeed(tx, followerId);
  }
  await backfillListFeeds(tx, listsOfOwnerWith(followerId, authorId), [authorId]);
}

/**
 * `followerId` no longer follows `authorId`: the author's posts and boosts
 * (and others' boosts of its posts) leave the home feed, and its posts and
 * boosts leave the follower's lists that hold it.
 */
export async function unmergeFollowedAccount(
  tx: Executor,
  followerId: string,
  authorId: string,
): Promise<void> {
  await removeAuthorFromHome(tx, followerId, authorId);
  await unmergeFromListFeeds(tx, listsOfOwnerWith(followerId, authorId), [authorId]);
}
