/**
 * Who may favourite, reply to, boost and quote a status (interaction
 * policies, GoToSocial's extension plus Mastodon's quote policy): the
 * words, the built-in defaults per visibility, normalisation, feasibility
 * and {@link decide}, the one decision every door asks (local commands,
 * inbound activities, the Status entity's `me`, quote approval).
 *
 * Pure: no database, no I/O. A policy is stored as {@link StoredPolicy}
 * (statuses.interaction_policy, users' defaults); a NULL or absent
 * sub-policy means the built-in default for a local status and
 * "policy-unaware" for a remote one ({@link effectivePolicy}).
 */

/** The four interactions, in the API's words. */
export const INTERACTIONS = ["favourite", "reply", "reblog", "quote"] as const;
export type Interaction = typeof INTERACTIONS[number];

/** API key of each interaction's sub-policy. */
export const SUB_POLICY = {
  favourite: "can_favourite",
  reply: "can_reply",
  reblog: "can_reblog",
  quote: "can_quote",
} as const;
export type SubPolicyKey = typeof SUB_POLICY[Interaction];

/** The words a policy list may hold besides actor IRIs (`me` is output only). */
export const POLICY_KEYWORDS = ["public", "followers", "following", "mentioned", "author"] as const;
export type PolicyKeyword = typeof POLICY_KEYWORDS[number];

/** A keyword, or an actor IRI (an http(s) URL of at most {@link MAX_IRI_LENGTH} characters). */
export type PolicyValue = string;

/** Longest actor IRI a policy may name. */
export const MAX_IRI_LENGTH = 2048;
/** Most values one list of a sub-policy may hold. */
export const MAX_POLICY_VALUES = 100;

/** One sub-policy: who is approved at once, and who may ask. */
export interface PolicyRules {
  automatic: PolicyValue[];
  manual: PolicyValue[];
}

/** A policy as stored; an absent key is the default (local) or unaware (remote). */
export type StoredPolicy = Partial<Record<SubPolicyKey, PolicyRules>>;

/** Every sub-policy stated, or null for a remote status unaware of it. */
export type EffectivePolicy = Record<SubPolicyKey, PolicyRules | null>;

export type Visibility = "public" | "unlisted" | "private" | "direct";

/** Mastodon's quote policy word (statuses.quote_approval_policy). */
export type QuoteWord = "public" | "followers" | "nobody";

/** Whether `value` is one of {@link POLICY_KEYWORDS}. */
export function isPolicyKeyword(value: string): value is PolicyKeyword {
  return (POLICY_KEYWORDS as readonly string[]).includes(value);
}

/** Whether `value` may name an actor in a policy: an http(s) URL, not too long. */
export function isActorIri(value: string): boolean {
  if (value.length > MAX_IRI_LENGTH) return false;
  try {
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:";
  } catch {
    return false;
  }
}

function rules(automatic: PolicyValue[], manual: PolicyValue[] = []): PolicyRules {
  return { automatic, manual };
}

/** The `can_quote` rules Mastodon's quote word stands for. */
export function quoteRulesFromWord(word: string): PolicyRules {
  if (word === "public") return rules(["public"]);
  if (word === "followers") return rules(["followers", "author"]);
  return rules(["author"]);
}

/**
 * The built-in policy of a status of `visibility` (GoToSocial's defaults for
 * favourite, reply and reblog; Mastodon's quote word for `can_quote` of
 * public and unlisted statuses). A NULL policy in the database means these,
 * so they may never change.
 */
export function builtInDefaults(
  visibility: Visibility,
  quoteWord: QuoteWord,
): Required<StoredPolicy> {
  if (visibility === "public" || visibility === "unlisted") {
    return {
      can_favourite: rules(["public"]),
      can_reply: rules(["public"]),
      can_reblog: rules(["public"]),
      can_quote: quoteRulesFromWord(quoteWord),
    };
  }
  const audience = visibility === "private"
    ? ["author", "followers", "mentioned"]
    : ["author", "mentioned"];
  return {
    can_favourite: rules([...audience]),
    can_reply: rules([...audience]),
    can_reblog: rules(["author"]),
    can_quote: rules(["author"]),
  };
}

/** What {@link effectivePolicy} needs of a status row. */
export interface PolicySubject {
  local: boolean;
  visibility: string;
  interactionPolicy: StoredPolicy | null;
  quoteApprovalPolicy: string;
}

function asVisibility(value: string): Visibility {
  return value === "public" || value === "unlisted" || value === "private" ? value : "direct";
}

function asQuoteWord(value: string): QuoteWord {
  return value === "public" || value === "followers" ? value : "nobody";
}

/**
 * The rules in force for each interaction with `status`: for a local status
 * the stored sub-policy or the built-in default; for a remote one the stored
 * sub-policy or null (its server does not enforce one), except `can_quote`,
 * which falls back on the quote word Rookery stored before policies.
 */
export function effectivePolicy(status: PolicySubject): EffectivePolicy {
  const stored = status.interactionPolicy ?? {};
  const defaults = builtInDefaults(
    asVisibility(status.visibility),
    asQuoteWord(status.quoteApprovalPolicy),
  );
  const pick = (key: SubPolicyKey): PolicyRules | null =>
    stored[key] ?? (status.local || key === "can_quote" ? defaults[key] : null);
  return {
    can_favourite: pick("can_favourite"),
    can_reply: pick("can_reply"),
    can_reblog: pick("can_reblog"),
    can_quote: pick("can_quote"),
  };
}

function dedupe(values: readonly PolicyValue[]): PolicyValue[] {
  return [...new Set(values)];
}

/**
 * The enforced form of a sub-policy: lists deduplicated, what is automatic
 * dropped from manual, `author` automatic unless `public` is, and for
 * replies `mentioned` automatic unless `public` is (the author and the
 * mentioned may always reply; stored values say so, so the API shows what
 * is enforced).
 */
export function normalize(interaction: Interaction, input: PolicyRules): PolicyRules {
  const automatic = dedupe(input.automatic);
  if (!automatic.includes("public")) {
    if (!automatic.includes("author")) automatic.push("author");
    if (interaction === "reply" && !automatic.includes("mentioned")) automatic.push("mentioned");
  }
  const manual = dedupe(input.manual).filter((value) => !automatic.includes(value));
  return { automatic, manual };
}

/**
 * Whether `value` can apply to a status of `visibility`: `public` only to
 * public and unlisted statuses, `followers` and `following` not to direct
 * ones; `author`, `mentioned` and actor IRIs always.
 */
export function feasible(value: PolicyValue, visibility: Visibility): boolean {
  if (value === "public") return visibility === "public" || visibility === "unlisted";
  if (value === "followers" || value === "following") return visibility !== "direct";
  return true;
}

/**
 * Mastodon's word for a `can_quote` sub-policy (the quote_approval_policy
 * column, `source[quote_policy]`): `public` when anyone is approved at once,
 * else `followers` when followers are, else `nobody`.
 */
export function toMastodonQuoteWord(rules: PolicyRules): QuoteWord {
  if (rules.automatic.includes("public")) return "public";
  if (rules.automatic.includes("followers")) return "followers";
  return "nobody";
}

/** The status interacted with, as {@link decide} needs it. */
export interface DecisionTarget {
  visibility: string;
  /** The sub-policy in force; null: a remote status unaware of policies. */
  rules: PolicyRules | null;
  /** The target itself waits for approval. */
  pending: boolean;
}

/** How the one who interacts stands towards the target and its author. */
export interface Facts {
  isAuthor: boolean;
  /** The target mentions them, or replies to them. */
  mentionedOrRepliedTo: boolean;
  followsAuthor: boolean;
  followedByAuthor: boolean;
  /** Their actor IRI, matched against the IRIs a policy lists. */
  actorUri: string;
  /** They wrote the first status of the target's thread. */
  startedThread: boolean;
}

/**
 * `automatic`: allowed now (`proof`: third servers need an authorization to
 * believe it); `manual`: the target's author decides; `forbidden`.
 */
export type Decision =
  | { permission: "automatic"; proof: boolean }
  | { permission: "manual" }
  | { permission: "forbidden" };

const AUTOMATIC: Decision = { permission: "automatic", proof: false };
const AUTOMATIC_WITH_PROOF: Decision = { permission: "automatic", proof: true };
const MANUAL: Decision = { permission: "manual" };
const FORBIDDEN: Decision = { permission: "forbidden" };

function explicitMatch(values: readonly PolicyValue[], facts: Facts): boolean {
  return values.includes(facts.actorUri) ||
    (values.includes("mentioned") && facts.mentionedOrRepliedTo);
}

/** How a list admits the actor through a collection: "public", "collection" or null. */
function implicitMatch(
  values: readonly PolicyValue[],
  facts: Facts,
): "public" | "collection" | null {
  if (values.includes("public")) return "public";
  if (values.includes("followers") && facts.followsAuthor) return "collection";
  if (values.includes("following") && facts.followedByAuthor) return "collection";
  return null;
}

/**
 * Whether the actor described by `facts` may do `interaction` with
 * `target`. The caller has already checked that they may see it. Rules, in
 * order: a direct status is never boosted or quoted; a reply to a pending
 * status waits unless its author started the thread; the author may do
 * anything; the mentioned and replied-to may reply; a policy-unaware remote
 * status allows all but boosting a private status; an explicit match (actor
 * IRI, `mentioned`) wins over a collection; automatic wins over manual.
 */
export function decide(interaction: Interaction, target: DecisionTarget, facts: Facts): Decision {
  const boostLike = interaction === "reblog" || interaction === "quote";
  if (boostLike && target.visibility === "direct") return FORBIDDEN;
  if (interaction === "reply" && target.pending && !facts.startedThread) return MANUAL;
  if (facts.isAuthor) return AUTOMATIC;
  if (interaction === "reply" && facts.mentionedOrRepliedTo) return AUTOMATIC;
  const rules = target.rules;
  if (rules == null) {
    return interaction === "reblog" && target.visibility === "private" ? FORBIDDEN : AUTOMATIC;
  }
  if (explicitMatch(rules.automatic, facts)) return AUTOMATIC;
  if (explicitMatch(rules.manual, facts)) return MANUAL;
  const implicit = implicitMatch(rules.automatic, facts);
  if (implicit === "public") return AUTOMATIC;
  if (implicit === "collection") return AUTOMATIC_WITH_PROOF;
  if (implicitMatch(rules.manual, facts) != null) return MANUAL;
  return FORBIDDEN;
}

/** A policy as a client sends it: sub-policies absent, or each list as given. */
export type PolicyInput = Partial<Record<SubPolicyKey, PolicyRules>>;

/** What a visibility is called in a refusal ("… is not possible for private posts"). */
function postsWord(visibility: Visibility): string {
  return `${visibility} posts`;
}

/** The refusal of one value of `list` (e.g. "can_reply.automatic_approval"), or null. */
function valueProblem(value: string, list: string, visibility: Visibility): string | null {
  if (isPolicyKeyword(value)) {
    return feasible(value, visibility)
      ? null
      : `${list}: "${value}" is not possible for ${postsWord(visibility)}`;
  }
  if (!value.includes(":")) return `${list}: unknown value ${JSON.stringify(value.slice(0, 100))}`;
  return isActorIri(value) ? null : `${list}: not an account IRI`;
}

/**
 * Checks a client's policy for a status of `visibility` and fills the
 * sub-policies it leaves out from `defaults` (the user's defaults for that
 * visibility). Returns the normalised policy, or the first problem, worded
 * for "Validation failed: Interaction policy …". Manual approval of quotes
 * is not supported (Mastodon has no pending quote to approve).
 */
export function checkPolicy(
  input: PolicyInput,
  visibility: Visibility,
  defaults: Required<StoredPolicy>,
): { policy: Required<StoredPolicy> } | { problem: string } {
  const policy = {} as Required<StoredPolicy>;
  for (const interaction of INTERACTIONS) {
    const key = SUB_POLICY[interaction];
    const given = input[key];
    if (!given) {
      policy[key] = defaults[key];
      continue;
    }
    for (
      const [list, values] of [["automatic_approval", given.automatic], [
        "manual_approval",
        given.manual,
      ]] as const
    ) {
      const name = `${key}.${list}`;
      if (values.length > MAX_POLICY_VALUES) {
        return { problem: `${name}: at most ${MAX_POLICY_VALUES} values` };
      }
      if (interaction === "quote" && list === "manual_approval" && values.length > 0) {
        return { problem: `${name}: not supported` };
      }
      for (const value of values) {
        const problem = valueProblem(value, name, visibility);
        if (problem) return { problem };
      }
    }
    policy[key] = normalize(interaction, given);
    if (interaction === "quote") {
      // Quotes follow Mastodon's three words (public, followers, nobody).
      const odd = given.automatic.find((v) => !["public", "followers", "author"].includes(v));
      if (odd) {
        return {
          problem: `${key}.automatic_approval: ${
            JSON.stringify(odd.slice(0, 100))
          } is not supported`,
        };
      }
      policy[key] = quoteRulesFromWord(toMastodonQuoteWord(policy[key]));
    }
  }
  return { policy };
}

/**
 * The part of `policy` worth storing for a local status of `visibility`:
 * the sub-policies that differ from the built-in defaults (NULL when none
 * does, which most statuses are).
 */
export function storedDifference(
  policy: Required<StoredPolicy>,
  visibility: Visibility,
  quoteWord: QuoteWord,
): StoredPolicy | null {
  const defaults = builtInDefaults(visibility, quoteWord);
  const out: StoredPolicy = {};
  for (const key of Object.values(SUB_POLICY)) {
    if (JSON.stringify(policy[key]) !== JSON.stringify(defaults[key])) out[key] = policy[key];
  }
  return Object.keys(out).length > 0 ? out : null;
}
