/**
 * The typed view of `users.settings` (jsonb): posting and reading
 * preferences, and the plain-text sources of the profile (Mastodon keeps the
 * bio and field values as typed and renders them; we store the rendered HTML
 * on the account for federation and keep what was typed here).
 *
 * Unknown or malformed stored values read as the defaults, so a hand-edited
 * row never breaks an API answer.
 */

import { FOLLOWER_VISIBILITIES, VISIBILITIES, type Visibility } from "./visibility.ts";
import { QUOTE_POLICIES, type QuotePolicy } from "./quote_policy.ts";
import {
  builtInDefaults,
  type PolicyRules,
  type StoredPolicy,
  SUB_POLICY,
} from "./interaction_policy.ts";

/** The default privacy of new posts: a visibility (the settings form offers all but direct). */
export type Privacy = Visibility;
/** The privacy choices the profile form accepts (Mastodon's: direct is not a default). */
export const PRIVACY_VALUES = FOLLOWER_VISIBILITIES;
export const DISPLAY_MEDIA_VALUES = ["default", "show_all", "hide_all"] as const;
export type DisplayMedia = typeof DISPLAY_MEDIA_VALUES[number];

/** A profile field as typed. */
export interface FieldSource {
  name: string;
  value: string;
}

/** The settings keys this module owns, as stored. */
export interface UserSettings {
  default_privacy?: Privacy;
  default_sensitive?: boolean;
  default_language?: string | null;
  default_quote_policy?: QuotePolicy;
  display_media?: DisplayMedia;
  expand_spoilers?: boolean;
  note_source?: string;
  fields_source?: FieldSource[];
  /** Keep search engines off the profile and post pages (the Account's `noindex`). */
  noindex?: boolean;
  /**
   * Who may interact with new posts, per visibility: the sub-policies set
   * through the defaults API that differ from the built-in defaults
   * (model/interaction_policy.ts; actors/accounts/interaction_defaults.ts
   * writes them). `can_quote` only when set through that API; else the
   * quote word above stands for it.
   */
  interaction_policies?: Partial<Record<Visibility, StoredPolicy>>;
}

/** Settings with defaults applied. */
export interface ResolvedSettings {
  defaultPrivacy: Privacy;
  defaultSensitive: boolean;
  defaultLanguage: string | null;
  defaultQuotePolicy: QuotePolicy;
  displayMedia: DisplayMedia;
  expandSpoilers: boolean;
  noteSource: string;
  fieldsSource: FieldSource[];
  /** Who may interact with new posts of each visibility. */
  interactionPolicies: Record<Visibility, Required<StoredPolicy>>;
}

function oneOf<T extends string>(values: readonly T[], value: unknown): T | undefined {
  return typeof value === "string" && (values as readonly string[]).includes(value)
    ? value as T
    : undefined;
}

/**
 * Reads settings with Mastodon's defaults. The default privacy of a locked
 * account is `private`, as Mastodon's `User#setting_default_privacy` has it.
 */
export function resolveSettings(
  raw: Record<string, unknown> | null | undefined,
  account: { locked: boolean },
): ResolvedSettings {
  const s = raw ?? {};
  const quotePolicy = oneOf(QUOTE_POLICIES, s.default_quote_policy) ?? "public";
  const fields = Array.isArray(s.fields_source)
    ? s.fields_source.filter((f): f is FieldSource =>
      f != null && typeof f.name === "string" && typeof f.value === "string"
    )
    : [];
  return {
    defaultPrivacy: oneOf(VISIBILITIES, s.default_privacy) ??
      (account.locked ? "private" : "public"),
    defaultSensitive: s.default_sensitive === true,
    defaultLanguage: typeof s.default_language === "string" && s.default_language !== ""
      ? s.default_language
      : null,
    defaultQuotePolicy: quotePolicy,
    displayMedia: oneOf(DISPLAY_MEDIA_VALUES, s.display_media) ?? "default",
    expandSpoilers: s.expand_spoilers === true,
    noteSource: typeof s.note_source === "string" ? s.note_source : "",
    fieldsSource: fields.map((f) => ({ name: f.name, value: f.value })),
    interactionPolicies: resolvePolicies(s.interaction_policies, quotePolicy),
  };
}

/** A stored list of policy values, or undefined when it is not one. */
function storedRules(value: unknown): PolicyRules | undefined {
  if (value == null || typeof value !== "object") return undefined;
  const { automatic, manual } = value as Record<string, unknown>;
  const strings = (list: unknown) =>
    Array.isArray(list) && list.every((v) => typeof v === "string") ? list as string[] : null;
  const a = strings(automatic), m = strings(manual);
  return a && m ? { automatic: a, manual: m } : undefined;
}

/** The defaults of every visibility: the stored sub-policies over the built-in ones. */
function resolvePolicies(
  raw: unknown,
  quotePolicy: QuotePolicy,
): Record<Visibility, Required<StoredPolicy>> {
  const stored = raw != null && typeof raw === "object" ? raw as Record<string, unknown> : {};
  const out = {} as Record<Visibility, Required<StoredPolicy>>;
  for (const visibility of ["public", "unlisted", "private", "direct"] as const) {
    const mine = stored[visibility] != null && typeof stored[visibility] === "object"
      ? stored[visibility] as Record<string, unknown>
      : {};
    const policy = builtInDefaults(visibility, quotePolicy);
    for (const key of Object.values(SUB_POLICY)) {
      policy[key] = storedRules(mine[key]) ?? policy[key];
    }
    out[visibility] = policy;
  }
  return out;
}
