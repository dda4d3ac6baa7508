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
  type PolicyInput,
  type PolicyRules,
  type PolicySubject,
  type QuoteWord,
  SUB_POLICY,
  type SubPolicyKey,
  type Visibility,
} from "../../model/interaction_policy.ts";
import type { Params } from "../params.ts";
import { readPermittedObject, readStringArray } from "../readers.ts";

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

/**
 * Reads a client's InteractionPolicy from `p[key]` (JSON, or form fields
 * such as `interaction_policy[can_reply][automatic_approval][0]=followers`);
 * GoToSocial's older list names `always` and `with_approval` are read too.
 * Absent sub-policies stay absent (the caller fills them); undefined when
 * the parameter is absent or not an object.
 */
export function readInteractionPolicy(p: Params, key: string): PolicyInput | undefined {
  const given = readPermittedObject(p, key);
  if (!given) return undefined;
  const out: PolicyInput = {};
  for (const interaction of INTERACTIONS) {
    const name = SUB_POLICY[interaction];
    const rules = readPermittedObject(given, name);
    if (!rules) continue;
    // A list longer than the model allows is refused there, with its name.
    const list = (main: string, alias: string) =>
      readStringArray(rules, main) ?? readStringArray(rules, alias) ?? [];
    out[name] = {
      automatic: list("automatic_approval", "always"),
      manual: list("manual_approval", "with_approval"),
    };
  }
  return out;
}
