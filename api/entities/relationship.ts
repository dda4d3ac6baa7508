/**
 * The Relationship entity (Mastodon 4.5): how the requesting account stands
 * with each of many others. Computed in a fixed number of queries (one per
 * kind of relation) whatever the number of ids, as Mastodon's
 * AccountRelationshipsPresenter does with its maps.
 */
import { and, eq, inArray, or, sql } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import {
  accountDomainBlocks,
  accountNotes,
  accounts,
  blocks,
  endorsements,
  followRequests,
  follows,
  mutes,
} from "../../db/schema/mod.ts";
import { muteActive } from "../../actors/relationships/mutes.ts";

/** The Relationship entity. */
export interface Relationship {
  id: string;
  following: boolean;
  showing_reblogs: boolean;
  notifying: boolean;
  languages: string[] | null;
  followed_by: boolean;
  blocking: boolean;
  blocked_by: boolean;
  muting: boolean;
  muting_notifications: boolean;
  /** When a timed mute ends (ISO 8601); null when not muting or muting for good (4.6). */
  muting_expires_at: string | null;
  requested: boolean;
  requested_by: boolean;
  domain_blocking: boolean;
  endorsed: boolean;
  note: string;
}

type PairTable = typeof follows | typeof followRequests | typeof blocks;

/** Rows of a pair table between `me` and any of `ids`, in both directions. */
function bothWays<T extends PairTable>(table: T, me: string, ids: string[]) {
  return or(
    and(eq(table.accountId, me), inArray(table.targetAccountId, ids)),
    and(inArray(table.accountId, ids), eq(table.targetAccountId, me)),
  );
}

/**
 * Relationships of `accountId` with each of `targetIds`, in the order given
 * (duplicates kept, as Mastodon answers them). Ids need not exist: unknown
 * ones are filtered out by the caller before, or come back all false.
 */
export async function loadRelationships(
  db: Executor,
  accountId: string,
  targetIds: readonly string[],
): Promise<Relationship[]> {
  const ids = [...new Set(targetIds)];
  if (ids.length === 0) return [];
  const [followRows, requestRows, blockRows, muteRows, endorsed, notes, domainBlocked] =
    await Promise.all([
      db.select({
        accountId: follows.accountId,
        targetAccountId: follows.targetAccountId,
        showReblogs: follows.showReblogs,
        notify: follows.notify,
        languages: follows.languages,
      }).from(follows).where(bothWays(follows, accountId, ids)),
      db.select({
        accountId: followRequests.accountId,
        targetAccountId: followRequests.targetAccountId,
        showReblogs: followRequests.showReblogs,
        notify: followRequests.notify,
        languages: followRequests.languages,
      }).from(followRequests).where(bothWays(followRequests, accountId, ids)),
      db.select({ accountId: blocks.accountId, targetAccountId: blocks.targetAccountId })
        .from(blocks).where(bothWays(blocks, accountId, ids)),
      db.select({
        targetAccountId: mutes.targetAccountId,
        hide: mutes.hideNotifications,
        expiresAt: mutes.expiresAt,
      })
        .from(mutes).where(and(
          eq(mutes.accountId, accountId),
          inArray(mutes.targetAccountId, ids),
          muteActive(),
        )),
      db.select({ targetAccountId: endorsements.targetAccountId }).from(endorsements)
        .where(
          and(eq(endorsements.accountId, accountId), inArray(endorsements.targetAccountId, ids)),
        ),
      db.select({ targetAccountId: accountNotes.targetAccountId, comment: accountNotes.comment })
        .from(accountNotes)
        .where(
          and(eq(accountNotes.accountId, accountId), inArray(accountNotes.targetAccountId, ids)),
        ),
      db.select({ id: accounts.id }).from(accounts).innerJoin(
        accountDomainBlocks,
        and(
          eq(accountDomainBlocks.accountId, accountId),
          eq(accountDomainBlocks.domain, sql`lower(${accounts.domain})`),
        ),
      ).where(inArray(accounts.id, ids)),
    ]);

  const outgoing = <R extends { accountId: string; targetAccountId: string }>(rows: R[]) =>
    new Map(rows.filter((r) => r.accountId === accountId).map((r) => [r.targetAccountId, r]));
  const incoming = <R extends { accountId: string; targetAccountId: string }>(rows: R[]) =>
    new Set(rows.filter((r) => r.targetAccountId === accountId).map((r) => r.accountId));
  const following = outgoing(followRows);
  const followedBy = incoming(followRows);
  const requested = outgoing(requestRows);
  const requestedBy = incoming(requestRows);
  const blocking = outgoing(blockRows);
  const blockedBy = incoming(blockRows);
  const muting = new Map(muteRows.map((r) => [r.targetAccountId, r]));
  const endorsedSet = new Set(endorsed.map((r) => r.targetAccountId));
  const noteOf = new Map(notes.map((r) => [r.targetAccountId, r.comment]));
  const domainSet = new Set(domainBlocked.map((r) => r.id));

  return targetIds.map((id) => {
    // Options of a pending request show as Mastodon shows them (reblogs, notify).
    const link = following.get(id) ?? requested.get(id);
    return {
      id,
      following: following.has(id),
      showing_reblogs: link?.showReblogs ?? false,
      notifying: link?.notify ?? false,
      languages: link?.languages ?? null,
      followed_by: followedBy.has(id),
      blocking: blocking.has(id),
      blocked_by: blockedBy.has(id),
      muting: muting.has(id),
      muting_notifications: muting.get(id)?.hide ?? false,
      muting_expires_at: muting.get(id)?.expiresAt?.toISOString() ?? null,
      requested: requested.has(id),
      requested_by: requestedBy.has(id),
      domain_blocking: domainSet.has(id),
      endorsed: endorsedSet.has(id),
      note: noteOf.get(id) ?? "",
    };
  });
}
