/**
 * Fills `feature_approval.current_user` of Account entities for one viewer.
 * The entities are built and cached viewer-free (entity_cache.ts), with
 * "denied"; this returns copies with the viewer's answer, reading the
 * viewer's follows with the page's accounts in one query, and only when
 * some answer depends on them (locked local accounts, remote ones whose
 * policy names followers or following).
 */
import type { MediaUrls } from "../../actors/media/urls.ts";
import { and, eq, or } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { anyId } from "../../db/queries/any_id.ts";
import { follows } from "../../db/schema/mod.ts";
import {
  featureApproval,
  type FeaturePolicy,
  policyNeedsRelations,
} from "../../model/feature_policy.ts";
import { type Account, FEATURE_POLICY, loadAccountEntities } from "./account.ts";

/** Follows between a viewer and some accounts: who the viewer follows, who follows it. */
export interface ViewerFollows {
  following: Set<string>;
  followers: Set<string>;
}

/** The follows between `viewerId` and `accountIds`, in one query. */
export async function viewerFollowsAmong(
  db: Executor,
  viewerId: string,
  accountIds: readonly string[],
): Promise<ViewerFollows> {
  const result: ViewerFollows = { following: new Set(), followers: new Set() };
  if (accountIds.length === 0) return result;
  const rows = await db.select({ from: follows.accountId, to: follows.targetAccountId })
    .from(follows).where(or(
      and(eq(follows.accountId, viewerId), anyId(follows.targetAccountId, accountIds)),
      and(eq(follows.targetAccountId, viewerId), anyId(follows.accountId, accountIds)),
    ));
  for (const row of rows) {
    if (row.from === viewerId) result.following.add(row.to);
    else result.followers.add(row.from);
  }
  return result;
}

function policyOf(account: Account): FeaturePolicy | null {
  return account[FEATURE_POLICY] ?? null;
}

/** The accounts with `feature_approval.current_user` answered for `viewerId`. */
export async function withFeatureApproval(
  db: Executor,
  viewerId: string | null,
  accounts: readonly Account[],
): Promise<Account[]> {
  if (!viewerId) return [...accounts];
  const asking = accounts.filter((a) => a.id !== viewerId && policyNeedsRelations(policyOf(a)));
  const follows = await viewerFollowsAmong(db, viewerId, [...new Set(asking.map((a) => a.id))]);
  return accounts.map((account) => {
    const answer = featureApproval(policyOf(account), { self: account.id === viewerId }, {
      viewerFollows: follows.following.has(account.id),
      followsViewer: follows.followers.has(account.id),
    });
    if (answer === account.feature_approval.current_user) return account;
    return { ...account, feature_approval: { ...account.feature_approval, current_user: answer } };
  });
}

/**
 * Loads Account entities by id (loadAccountEntities) with `viewerId`'s
 * `feature_approval.current_user`.
 */
export async function loadAccountEntitiesFor(
  db: Executor,
  config: MediaUrls,
  ids: readonly string[],
  viewerId: string | null,
): Promise<Account[]> {
  return await withFeatureApproval(db, viewerId, await loadAccountEntities(db, config, ids));
}
