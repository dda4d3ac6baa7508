/**
 * The notification policy (Mastodon 4.3's NotificationPolicy and the policy
 * half of NotifyService): what a recipient does with notifications from
 * people they do not know. Each of five conditions maps to `accept`,
 * `filter` (kept, marked filtered, counted in a notification request) or
 * `drop` (not recorded at all):
 *
 * - not_following: the recipient does not follow the sender;
 * - not_followers: the sender has not followed the recipient for 3 days;
 * - new_accounts: the sender's account is younger than 30 days (and not followed);
 * - private_mentions: a direct mention from someone not followed that does
 *   not answer a direct status of the recipient that mentioned the sender;
 * - limited_accounts: the sender is limited (silenced by a moderator,
 *   accounts.silenced_at, or on a server an instance domain block silences)
 *   and is not followed.
 *
 * Drop wins over filter. Only the types Mastodon marks filterable are
 * screened (mention, reblog, follow, follow_request, favourite, quote);
 * senders the recipient accepted (notification_permissions) are never
 * screened, nor mentions from staff who outrank the recipient.
 *
 * No policy row means Mastodon's defaults: private mentions and limited
 * accounts filtered, the rest accepted.
 */
import { eq, sql } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { notificationPolicies } from "../../db/schema/mod.ts";
import { Problems } from "../../model/errors.ts";
import { authorIsLimited } from "../../db/queries/limited_accounts.ts";

/** What a policy does with one kind of sender. */
export const POLICY_VALUES = ["accept", "filter", "drop"] as const;
export type PolicyValue = (typeof POLICY_VALUES)[number];

/** An account's policy, by condition. */
export interface NotificationPolicy {
  forNotFollowing: PolicyValue;
  forNotFollowers: PolicyValue;
  forNewAccounts: PolicyValue;
  forPrivateMentions: PolicyValue;
  forLimitedAccounts: PolicyValue;
}

/** The v2 API parameter of each condition. */
export const POLICY_PARAMS = {
  for_not_following: "forNotFollowing",
  for_not_followers: "forNotFollowers",
  for_new_accounts: "forNewAccounts",
  for_private_mentions: "forPrivateMentions",
  for_limited_accounts: "forLimitedAccounts",
} as const satisfies Record<string, keyof NotificationPolicy>;

export type PolicyParam = keyof typeof POLICY_PARAMS;

/** Mastodon's defaults (the columns' defaults too). */
export const DEFAULT_POLICY: Readonly<NotificationPolicy> = {
  forNotFollowing: "accept",
  forNotFollowers: "accept",
  forNewAccounts: "accept",
  forPrivateMentions: "filter",
  forLimitedAccounts: "filter",
};

/** Types the policy screens (Mastodon's Notification::PROPERTIES filterable). */
export const FILTERABLE_TYPES: ReadonlySet<string> = new Set([
  "mention",
  "reblog",
  "follow",
  "follow_request",
  "favourite",
  "quote",
]);

/** How long a follow must have existed for its follower not to count as a stranger. */
const NEW_FOLLOWER_THRESHOLD = sql`interval '3 days'`;
/** How young an account counts as new. */
const NEW_ACCOUNT_THRESHOLD = sql`interval '30 days'`;
/** How far up a thread a direct reply is checked for answering the recipient. */
const THREAD_DEPTH_LIMIT = 100;

function asValue(value: string | null | undefined, fallback: PolicyValue): PolicyValue {
  return (POLICY_VALUES as readonly string[]).includes(value ?? "")
    ? value as PolicyValue
    : fallback;
}

/** `accountId`'s policy (the defaults when they never changed it). */
export async function policyOf(db: Executor, accountId: string): Promise<NotificationPolicy> {
  const [row] = await db.select().from(notificationPolicies)
    .where(eq(notificationPolicies.accountId, accountId)).limit(1);
  if (!row) return { ...DEFAULT_POLICY };
  return {
    forNotFollowing: asValue(row.forNotFollowing, DEFAULT_POLICY.forNotFollowing),
    forNotFollowers: asValue(row.forNotFollowers, DEFAULT_POLICY.forNotFollowers),
    forNewAccounts: asValue(row.forNewAccounts, DEFAULT_POLICY.forNewAccounts),
    forPrivateMentions: asValue(row.forPrivateMentions, DEFAULT_POLICY.forPrivateMentions),
    forLimitedAccounts: asValue(row.forLimitedAccounts, DEFAULT_POLICY.forLimitedAccounts),
  };
}

/**
 * Changes some of `accountId`'s policy. `changes` is keyed by API parameter;
 * a value outside accept/filter/drop is a ValidationError (nothing written).
 */
export async function updatePolicy(
  db: Executor,
  accountId: string,
  changes: Partial<Record<PolicyParam, string>>,
): Promise<NotificationPolicy> {
  const problems = new Problems();
  const set: Partial<NotificationPolicy> = {};
  for (
    const [param, key] of Object.entries(POLICY_PARAMS) as [PolicyParam, keyof NotificationPolicy][]
  ) {
    const value = changes[param];
    if (value === undefined) continue;
    if (!(POLICY_VALUES as readonly string[]).includes(value)) {
      problems.add(param, "ERR_INCLUSION", "is not included in the list");
    } else set[key] = value as PolicyValue;
  }
  problems.throwIfAny();
  const policy = { ...(await policyOf(db, accountId)), ...set };
  if (Object.keys(set).length > 0) {
    await db.insert(notificationPolicies).values({ accountId, ...policy })
      .onConflictDoUpdate({
        target: notificationPolicies.accountId,
        set: { ...set, updatedAt: sql`now()` },
      });
  }
  return policy;
}

/** The status a screened notification is about, as far as the policy reads it. */
export interface ScreenedStatus {
  id: string;
  visibility: string;
  inReplyToId: string | null;
}

/** What the policy needs to know about a notification. */
export interface ScreenedCause {
  type: string;
  fromAccountId: string;
  status?: ScreenedStatus | null;
}

/** What becomes of one recipient's notification. */
export type Verdict = "accept" | "filter" | "drop";

/**
 * Columns to select over a candidate recipient `r` (an `accounts` row) that
 * {@link decide} reads: the recipient's policy and relationship with the
 * sender, and the sender's age and role. Null when the type is not screened.
 */
export function policyColumns(cause: ScreenedCause) {
  if (!FILTERABLE_TYPES.has(cause.type)) return null;
  const from = sql`${cause.fromAccountId}::bigint`;
  return {
    forNotFollowing: sql<string | null>`(SELECT pp.for_not_following
      FROM notification_policies pp WHERE pp.account_id = r.id)`,
    forNotFollowers: sql<string | null>`(SELECT pp.for_not_followers
      FROM notification_policies pp WHERE pp.account_id = r.id)`,
    forNewAccounts: sql<string | null>`(SELECT pp.for_new_accounts
      FROM notification_policies pp WHERE pp.account_id = r.id)`,
    forPrivateMentions: sql<string | null>`(SELECT pp.for_private_mentions
      FROM notification_policies pp WHERE pp.account_id = r.id)`,
    forLimitedAccounts: sql<string | null>`(SELECT pp.for_limited_accounts
      FROM notification_policies pp WHERE pp.account_id = r.id)`,
    permitted: sql<boolean>`EXISTS (SELECT 1 FROM notification_permissions pn
      WHERE pn.account_id = r.id AND pn.from_account_id = ${from})`,
    following: sql<boolean>`EXISTS (SELECT 1 FROM follows pf
      WHERE pf.account_id = r.id AND pf.target_account_id = ${from})`,
    followedLongEnough: sql<boolean>`EXISTS (SELECT 1 FROM follows pf
      WHERE pf.account_id = ${from} AND pf.target_account_id = r.id
      AND pf.created_at <= now() - ${NEW_FOLLOWER_THRESHOLD})`,
    senderIsNew: sql<boolean>`EXISTS (SELECT 1 FROM accounts ps
      WHERE ps.id = ${from} AND ps.created_at > now() - ${NEW_ACCOUNT_THRESHOLD})`,
    // A moderator's silence or a silenced server (db/queries/limited_accounts.ts).
    senderLimited: sql<boolean>`${authorIsLimited(from)}`,
    senderRole: sql<string | null>`(SELECT pu.role FROM users pu
      JOIN accounts ps ON ps.id = pu.account_id
      WHERE pu.account_id = ${from} AND ps.domain IS NULL)`,
    recipientRole: sql<string | null>`(SELECT pu.role FROM users pu WHERE pu.account_id = r.id)`,
  };
}

/** The facts {@link policyColumns} selects, per recipient. */
export interface PolicyFacts {
  forNotFollowing: string | null;
  forNotFollowers: string | null;
  forNewAccounts: string | null;
  forPrivateMentions: string | null;
  forLimitedAccounts: string | null;
  permitted: boolean;
  following: boolean;
  followedLongEnough: boolean;
  senderIsNew: boolean;
  /** A moderator limited (silenced) the sender. */
  senderLimited?: boolean;
  senderRole: string | null;
  recipientRole: string | null;
}

const ROLE_RANK: Record<string, number> = { user: 0, moderator: 1, admin: 2, owner: 3 };

/** Whether a local sender is staff outranking the recipient (Mastodon's from_staff?). */
function staffOverrides(senderRole: string | null, recipientRole: string | null): boolean {
  const sender = ROLE_RANK[senderRole ?? ""] ?? 0;
  return sender > 0 && sender > (ROLE_RANK[recipientRole ?? "user"] ?? 0);
}

/** Whether the cause is a direct mention (the private_mentions condition applies). */
export function isPrivateMention(cause: ScreenedCause): boolean {
  return cause.type === "mention" && cause.status?.visibility === "direct";
}

/**
 * The accounts that wrote, up the thread of a direct reply, a direct status
 * mentioning the sender: a direct mention answering one of them is a
 * response, not a stranger's message (Mastodon's response_to_recipient?).
 */
export async function answeredAccounts(
  db: Executor,
  cause: ScreenedCause,
): Promise<Set<string>> {
  const parent = cause.status?.inReplyToId;
  if (!isPrivateMention(cause) || !parent) return new Set();
  const rows = await db.execute(sql`WITH RECURSIVE up(id, in_reply_to_id, depth) AS (
      SELECT s.id, s.in_reply_to_id, 0 FROM statuses s WHERE s.id = ${parent}::bigint
      UNION ALL
      SELECT s.id, s.in_reply_to_id, up.depth + 1 FROM up
      JOIN statuses s ON s.id = up.in_reply_to_id
      WHERE up.depth < ${THREAD_DEPTH_LIMIT}
    )
    SELECT DISTINCT s.account_id::text AS account_id FROM up JOIN statuses s ON s.id = up.id
    WHERE s.visibility = 'direct' AND EXISTS (SELECT 1 FROM mentions m
      WHERE m.status_id = s.id AND m.account_id = ${cause.fromAccountId}::bigint
      AND NOT m.silent)`);
  const list = (Array.isArray(rows) ? rows : (rows as unknown as { rows: unknown[] }).rows) as {
    account_id: string;
  }[];
  return new Set(list.map((r) => String(r.account_id)));
}

/**
 * The verdict for one recipient, as Mastodon's DropCondition and
 * FilterCondition decide it. `answered` says whether a direct mention
 * answers the recipient (see {@link answeredAccounts}).
 */
export function decide(cause: ScreenedCause, facts: PolicyFacts, answered: boolean): Verdict {
  if (!FILTERABLE_TYPES.has(cause.type) || facts.permitted) return "accept";
  if (cause.type === "mention" && staffOverrides(facts.senderRole, facts.recipientRole)) {
    return "accept";
  }
  const notFollowing = !facts.following;
  const held: [PolicyValue, boolean][] = [
    [
      asValue(facts.forLimitedAccounts, DEFAULT_POLICY.forLimitedAccounts),
      facts.senderLimited === true && notFollowing,
    ],
    [asValue(facts.forNotFollowing, DEFAULT_POLICY.forNotFollowing), notFollowing],
    [asValue(facts.forNotFollowers, DEFAULT_POLICY.forNotFollowers), !facts.followedLongEnough],
    [
      asValue(facts.forNewAccounts, DEFAULT_POLICY.forNewAccounts),
      facts.senderIsNew && notFollowing,
    ],
    [
      asValue(facts.forPrivateMentions, DEFAULT_POLICY.forPrivateMentions),
      notFollowing && isPrivateMention(cause) && !answered,
    ],
  ];
  if (held.some(([value, holds]) => holds && value === "drop")) return "drop";
  if (held.some(([value, holds]) => holds && value === "filter")) return "filter";
  return "accept";
}
