/**
 * The InteractionPolicy entity (GoToSocial's client API, with `can_quote`
 * as our extension): on every Status, who may favourite, reply to, boost
 * and quote it, and, through `me`, whether the viewer may (in
 * `automatic_approval`) or may ask (in `manual_approval`). The rules come
 * from model/interaction_policy.ts; a remote status silent about a
 * sub-policy shows the built-in default for its visibility, as GoToSocial
 * shows it.
 */
import {
  builtInDefaults,
  decide,
  effectivePolicy,
  type Facts,
  INTERACTIONS,
  type PolicyRules,
  type PolicySubject,
  type QuoteWord,
  SUB_POLICY,
  type SubPolicyKey,
  type Visibility,
} from "../../model/interaction_policy.ts";

/** One sub-policy as the API shows it. */
export interface PolicyRulesJson {
  automatic_approval: string[];
  manual_approval: string[];
}

/** The InteractionPolicy entity. */
export type InteractionPolicyJson = Record<SubPolicyKey, PolicyRulesJson>;

/** What the entity needs of a status row. */
export interface PolicyStatus extends PolicySubject {
  pendingApproval: boolean;
}

/**
 * The entity for `status` as the viewer described by `facts` sees it (null:
 * anonymous, who gets no `me`).
 */
export function interactionPolicyJson(
  status: PolicyStatus,
  facts: Facts | null,
): InteractionPolicyJson {
  const effective = effectivePolicy(status);
  const shown = builtInDefaults(
    status.visibility as Visibility,
    status.quoteApprovalPolicy as QuoteWord,
  );
  const out = {} as InteractionPolicyJson;
  for (const interaction of INTERACTIONS) {
    const key = SUB_POLICY[interaction];
    const rules: PolicyRules = effective[key] ?? shown[key];
    const json = { automatic_approval: [...rules.automatic], manual_approval: [...rules.manual] };
    if (facts) {
      const target = {
        visibility: status.visibility,
        rules: effective[key],
        pending: status.pendingApproval,
      };
      const decision = decide(interaction, target, facts);
      if (decision.permission === "automatic") json.automatic_approval.push("me");
      else if (decision.permission === "manual") json.manual_approval.push("me");
    }
    out[key] = json;
  }
  return out;
}
