/**
 * Who may put whom in a collection (Mastodon's `AccountPolicy#feature?`):
 * the member's feature policy lets the curator (model/feature_policy.ts)
 * and neither blocks the other. One query reads the member, the follows the
 * policy may ask about and the blocks.
 */
import { sql } from "drizzle-orm";
import type { Database, Executor } from "../../db/connection.ts";
import {
  type FeatureApproval,
  featureApproval,
  type FeaturePolicy,
  localFeaturePolicy,
  mayFeatureWith,
} from "../../model/feature_policy.ts";

/** What the policy answers for one curator and one account. */
export interface FeatureDecision {
  /** Whether the account can be added (its policy allows and no block stands). */
  allowed: boolean;
  approval: FeatureApproval;
  /** The account is remote: it is added as pending until its server accepts. */
  remote: boolean;
}

interface MemberFacts {
  domain: string | null;
  discoverable: boolean | null;
  locked: boolean;
  featurePolicy: FeaturePolicy | null;
  unavailable: boolean;
  curatorFollows: boolean;
  followsCurator: boolean;
  blocked: boolean;
}

/**
 * Whether `curatorId` may feature `memberId`; null when the member does not
 * exist (or is deleted).
 */
export async function featureDecision(
  database: Database,
  tx: Executor,
  curatorId: string,
  memberId: string,
): Promise<FeatureDecision | null> {
  const [facts] = await database.rows<MemberFacts>(
    sql`SELECT m.domain, m.discoverable, m.locked,
      m.feature_policy AS "featurePolicy",
      (m.suspended_at IS NOT NULL) AS unavailable,
      EXISTS (SELECT 1 FROM follows f WHERE f.account_id = ${curatorId}
        AND f.target_account_id = m.id) AS "curatorFollows",
      EXISTS (SELECT 1 FROM follows f WHERE f.account_id = m.id
        AND f.target_account_id = ${curatorId}) AS "followsCurator",
      EXISTS (SELECT 1 FROM blocks b WHERE (b.account_id = ${curatorId} AND b.target_account_id = m.id)
        OR (b.account_id = m.id AND b.target_account_id = ${curatorId})) AS blocked
    FROM accounts m WHERE m.id = ${memberId} AND m.deleted_at IS NULL`,
    tx,
  );
  if (!facts) return null;
  const policy = facts.domain == null ? localFeaturePolicy(facts) : facts.featurePolicy;
  const approval = featureApproval(policy, { self: memberId === curatorId }, {
    viewerFollows: facts.curatorFollows,
    followsViewer: facts.followsCurator,
  });
  return {
    allowed: mayFeatureWith(approval) && !facts.blocked && !facts.unavailable,
    approval,
    remote: facts.domain != null,
  };
}
