/**
 * Remote interaction policies as we read them (issue 34, design §5.4):
 * GoToSocial's `interactionPolicy` on a Note (`canLike`, `canReply`,
 * `canAnnounce`, each `automaticApproval`/`manualApproval`) in our words:
 * Public → `public`, the author's followers and following collections →
 * `followers`/`following`, the author → `author`, other actor IRIs kept;
 * anything else dropped. A sub-policy absent or empty stays absent: its
 * server enforces nothing, and neither do we. `canQuote` is read by the
 * quote machinery (remote_status.ts), as before.
 */
import type { InteractionRule, Note, Object as APObject } from "@fedify/vocab";
import {
  isActorIri,
  MAX_POLICY_VALUES,
  normalize,
  type PolicyRules,
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
