/**
 * Interaction policies on the wire (issue 34, design §5.1 and §5.4).
 *
 * Ours: every Note states `canLike`, `canReply` and `canAnnounce` (the
 * policy in force: stored, else the built-in defaults), which is
 * GoToSocial's signal that we enforce them: `public` → Public, `followers`
 * and `following` → the author's collections, `author` → the author,
 * `mentioned` → the mentioned accounts, actor IRIs as they are.
 * (`canQuote` is written by note_extras.ts, as before.)
 *
 * Remote ones as we read them:
 * GoToSocial's `interactionPolicy` on a Note (`canLike`, `canReply`,
 * `canAnnounce`, each `automaticApproval`/`manualApproval`) in our words:
 * Public → `public`, the author's followers and following collections →
 * `followers`/`following`, the author → `author`, other actor IRIs kept;
 * anything else dropped. A sub-policy absent or empty stays absent: its
 * server enforces nothing, and neither do we. `canQuote` is read by the
 * quote machinery (remote_status.ts), as before.
 */
import type { Context } from "@fedify/fedify";
import {
  InteractionRule,
  type Note,
  type Object as APObject,
  PUBLIC_COLLECTION,
} from "@fedify/vocab";
import type { AppContext } from "../../context.ts";
import {
  effectivePolicy,
  isActorIri,
  MAX_POLICY_VALUES,
  normalize,
  type PolicyRules,
  type PolicySubject,
  type StoredPolicy,
} from "../../model/interaction_policy.ts";
import { isPublicIri } from "./remote_status.ts";

/** The author's IRIs a policy may name by their role. */
export interface PolicyAuthor {
  uri: string;
  followersUrl: string | null;
  followingUrl: string | null;
}

function valueOf(iri: URL, author: PolicyAuthor): string | null {
  const href = iri.href;
  if (isPublicIri(href)) return "public";
  if (href === author.followersUrl) return "followers";
  if (href === author.followingUrl) return "following";
  if (href === author.uri) return "author";
  return isActorIri(href) ? href : null;
}

function rulesOf(rule: InteractionRule | null, author: PolicyAuthor, reply: boolean) {
  if (!rule) return null;
  const read = (iris: URL[]) =>
    iris.slice(0, MAX_POLICY_VALUES).map((iri) => valueOf(iri, author))
      .filter((v): v is string => v != null);
  const rules: PolicyRules = {
    automatic: read(rule.automaticApprovals),
    manual: read(rule.manualApprovals),
  };
  if (rules.automatic.length === 0 && rules.manual.length === 0) return null;
  return normalize(reply ? "reply" : "favourite", rules);
}

/** The favourite, reply and boost sub-policies `object` states; null when none. */
export function remotePolicyOf(object: APObject, author: PolicyAuthor): StoredPolicy | null {
  const policy = (object as Note).interactionPolicy;
  if (!policy) return null;
  const stored: StoredPolicy = {};
  const like = rulesOf(policy.canLike, author, false);
  const reply = rulesOf(policy.canReply, author, true);
  const announce = rulesOf(policy.canAnnounce, author, false);
  if (like) stored.can_favourite = like;
  if (reply) stored.can_reply = reply;
  if (announce) stored.can_reblog = announce;
  return Object.keys(stored).length ? stored : null;
}

/** Our author's values as IRIs. */
function irisOf(
  ctx: Context<AppContext>,
  values: readonly string[],
  author: { uri: string; username: string },
  mentioned: readonly URL[],
): URL[] {
  const iris = values.flatMap((value) => {
    switch (value) {
      case "public":
        return [PUBLIC_COLLECTION];
      case "followers":
        return [ctx.getFollowersUri(author.username)];
      case "following":
        return [ctx.getFollowingUri(author.username)];
      case "author":
        return [new URL(author.uri)];
      case "mentioned":
        return [...mentioned];
      default:
        return isActorIri(value) ? [new URL(value)] : [];
    }
  });
  const seen = new Set<string>();
  return iris.filter((iri) => !seen.has(iri.href) && seen.add(iri.href));
}

/** The `canLike`, `canReply` and `canAnnounce` rules of a local status's Note. */
export function policyForNote(
  ctx: Context<AppContext>,
  status: PolicySubject,
  author: { uri: string; username: string },
  mentioned: readonly URL[],
): { canLike: InteractionRule; canReply: InteractionRule; canAnnounce: InteractionRule } {
  const policy = effectivePolicy(status);
  const rule = (rules: PolicyRules | null) =>
    new InteractionRule({
      automaticApprovals: irisOf(ctx, rules?.automatic ?? ["public"], author, mentioned),
      manualApprovals: irisOf(ctx, rules?.manual ?? [], author, mentioned),
    });
  return {
    canLike: rule(policy.can_favourite),
    canReply: rule(policy.can_reply),
    canAnnounce: rule(policy.can_reblog),
  };
}

/** The approval an interaction claims: the typed property first, then `approvedBy`. */
export function claimOf(object: APObject): URL | null {
  return object.replyAuthorizationId ?? object.likeAuthorizationId ??
    object.announceAuthorizationId ?? object.approvedBy ?? null;
}
