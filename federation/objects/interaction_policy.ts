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
 * anything else dropped; GoToSocial's spelling before 0.20 (`always`,
 * `approvalRequired`) is read too. A sub-policy absent or empty stays absent: its
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
import { isJson, readLegacyInteractionRule, type SubPolicyTerm } from "../dialects/terms.ts";

/** The author's IRIs a policy may name by their role. */
export interface PolicyAuthor {
  uri: string;
  followersUrl: string | null;
  followingUrl: string | null;
}

function valueOf(href: string, author: PolicyAuthor): string | null {
  if (isPublicIri(href)) return "public";
  if (href === author.followersUrl) return "followers";
  if (href === author.followingUrl) return "following";
  if (href === author.uri) return "author";
  return isActorIri(href) ? href : null;
}

/** A sub-policy's lists in our words, normalized; null when it names nothing we know. */
function rulesFrom(
  lists: { automatic: readonly string[]; manual: readonly string[] },
  author: PolicyAuthor,
  reply: boolean,
) {
  const read = (iris: readonly string[]) =>
    iris.slice(0, MAX_POLICY_VALUES).map((iri) => valueOf(iri, author))
      .filter((v): v is string => v != null);
  const rules: PolicyRules = { automatic: read(lists.automatic), manual: read(lists.manual) };
  if (rules.automatic.length === 0 && rules.manual.length === 0) return null;
  return normalize(reply ? "reply" : "favourite", rules);
}

/**
 * One sub-policy: Fedify's reading (`automaticApproval`, `manualApproval`),
 * else GoToSocial's spelling before 0.20 (`always`, `approvalRequired`) from
 * the JSON as received.
 */
function ruleOf(
  rule: InteractionRule | null | undefined,
  legacy: { raw: unknown; sub: SubPolicyTerm },
  author: PolicyAuthor,
  reply: boolean,
) {
  const hrefs = (iris: URL[]) => iris.map((iri) => iri.href);
  const current = rule
    ? rulesFrom(
      { automatic: hrefs(rule.automaticApprovals), manual: hrefs(rule.manualApprovals) },
      author,
      reply,
    )
    : null;
  if (current || !isJson(legacy.raw)) return current;
  const old = readLegacyInteractionRule(legacy.raw, legacy.sub, MAX_POLICY_VALUES);
  return old ? rulesFrom(old, author, reply) : null;
}

/**
 * The favourite, reply and boost sub-policies `object` states; null when
 * none. `raw` is its JSON as received (older spellings are read from it).
 */
export function remotePolicyOf(
  object: APObject,
  author: PolicyAuthor,
  raw?: unknown,
): StoredPolicy | null {
  const policy = (object as Note).interactionPolicy;
  const stored: StoredPolicy = {};
  const like = ruleOf(policy?.canLike, { raw, sub: "canLike" }, author, false);
  const reply = ruleOf(policy?.canReply, { raw, sub: "canReply" }, author, true);
  const announce = ruleOf(policy?.canAnnounce, { raw, sub: "canAnnounce" }, author, false);
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
