/**
 * Who may put an account in a collection (Mastodon 4.6's feature policy,
 * FEP-7aa9's `interactionPolicy.canFeature`). Pure rules, shared by the
 * Account entity's `feature_approval`, the collection commands and
 * federation (which reads and writes the policy of actors).
 *
 * A policy is two lists of words, as Mastodon's API shows them:
 * `public` (anyone), `followers` (the account's followers), `following`
 * (accounts it follows) and `unsupported_policy` (a rule we cannot read).
 * - A local account's policy follows its profile (Mastodon PR #38672): not
 *   discoverable → nobody; discoverable and locked → its followers;
 *   otherwise anyone, all automatically approved.
 * - A remote account's policy is what its actor published; none at all
 *   (null) means it cannot be featured ("missing": FEP-7aa9 reads the
 *   absence of a policy as no consent).
 */

/** A word of a feature policy. */
export type FeaturePolicyWord = "public" | "followers" | "following" | "unsupported_policy";

/** A feature policy: who is approved automatically, who on request. */
export interface FeaturePolicy {
  automatic: FeaturePolicyWord[];
  manual: FeaturePolicyWord[];
}

/** What `feature_approval.current_user` says of one viewer. */
export type FeatureApproval = "automatic" | "manual" | "denied" | "missing" | "unknown";

/** The ActivityStreams public collection, as policies name it. */
export const PUBLIC_COLLECTION = "https://www.w3.org/ns/activitystreams#Public";

/** A local account's policy, from its profile switches. */
export function localFeaturePolicy(
  account: { discoverable: boolean | null; locked: boolean },
): FeaturePolicy {
  if (!account.discoverable) return { automatic: [], manual: [] };
  return { automatic: [account.locked ? "followers" : "public"], manual: [] };
}

/** The relations between a viewer and an account that a policy may ask about. */
export interface FeatureRelations {
  /** The viewer follows the account (the account's `followers` rule). */
  viewerFollows: boolean;
  /** The account follows the viewer (its `following` rule). */
  followsViewer: boolean;
}

/**
 * Whether `policy` lets a viewer feature the account (Mastodon's
 * `feature_policy_for_account`): null viewer → denied; the account itself →
 * automatic; no policy → missing; then the automatic rules, the manual
 * ones, and `unknown` when a rule could not be read.
 */
export function featureApproval(
  policy: FeaturePolicy | null,
  viewer: { self: boolean } | null,
  relations: FeatureRelations,
): FeatureApproval {
  if (!viewer) return "denied";
  if (viewer.self) return "automatic";
  if (!policy) return "missing";
  const allows = (words: readonly FeaturePolicyWord[]) =>
    words.includes("public") ||
    (words.includes("followers") && relations.viewerFollows) ||
    (words.includes("following") && relations.followsViewer);
  if (allows(policy.automatic)) return "automatic";
  if (allows(policy.manual)) return "manual";
  const unreadable = [...policy.automatic, ...policy.manual].includes("unsupported_policy");
  return unreadable ? "unknown" : "denied";
}

/** Whether an answer of {@link featureApproval} lets the viewer add the account. */
export function mayFeatureWith(approval: FeatureApproval): boolean {
  return approval === "automatic" || approval === "manual";
}

/** Whether the answer for this policy depends on follows (so a viewer's follows must be read). */
export function policyNeedsRelations(policy: FeaturePolicy | null): boolean {
  if (!policy) return false;
  const words = [...policy.automatic, ...policy.manual];
  return !words.includes("public") &&
    (words.includes("followers") || words.includes("following"));
}

/**
 * An actor's published rule list (`automaticApproval` or `manualApproval`)
 * as policy words: the public collection, the actor's followers or
 * following collection; the actor itself grants nobody else; anything else
 * is a rule we do not support.
 */
export function policyWordsFromIris(
  iris: readonly string[],
  actor: { uri: string; followersUrl: string | null; followingUrl: string | null },
): FeaturePolicyWord[] {
  const words = new Set<FeaturePolicyWord>();
  for (const iri of iris) {
    if (iri === PUBLIC_COLLECTION || iri === "as:Public" || iri === "Public") words.add("public");
    else if (actor.followersUrl && iri === actor.followersUrl) words.add("followers");
    else if (actor.followingUrl && iri === actor.followingUrl) words.add("following");
    else if (iri !== actor.uri) words.add("unsupported_policy");
  }
  return [...words];
}
