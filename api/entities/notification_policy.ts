/**
 * The NotificationPolicy entity, in both of Mastodon's shapes:
 * - v2 (REST::NotificationPolicySerializer): `for_*` = accept | filter | drop;
 * - v1 (REST::V1::NotificationPolicySerializer, 4.3 betas): `filter_*`
 *   booleans, true unless the condition is accepted (a `drop` reads as true).
 * Both carry the summary of pending requests.
 */
import type { NotificationPolicy } from "../../actors/notifications/policy.ts";

/** Pending requests and notifications (counted up to 100 requests). */
export interface PolicySummary {
  pendingRequestsCount: number;
  pendingNotificationsCount: number;
}

function summaryJson(summary: PolicySummary) {
  return {
    pending_requests_count: summary.pendingRequestsCount,
    pending_notifications_count: summary.pendingNotificationsCount,
  };
}

/** The v2 entity. */
export function serializePolicyV2(policy: NotificationPolicy, summary: PolicySummary) {
  return {
    for_not_following: policy.forNotFollowing,
    for_not_followers: policy.forNotFollowers,
    for_new_accounts: policy.forNewAccounts,
    for_private_mentions: policy.forPrivateMentions,
    for_limited_accounts: policy.forLimitedAccounts,
    summary: summaryJson(summary),
  };
}

/** The v1 entity. */
export function serializePolicyV1(policy: NotificationPolicy, summary: PolicySummary) {
  return {
    filter_not_following: policy.forNotFollowing !== "accept",
    filter_not_followers: policy.forNotFollowers !== "accept",
    filter_new_accounts: policy.forNewAccounts !== "accept",
    filter_private_mentions: policy.forPrivateMentions !== "accept",
    summary: summaryJson(summary),
  };
}
