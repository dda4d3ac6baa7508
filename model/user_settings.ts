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
    defaultQuotePolicy: oneOf(QUOTE_POLICIES, s.default_quote_policy) ?? "public",
    displayMedia: oneOf(DISPLAY_MEDIA_VALUES, s.display_media) ?? "default",
    expandSpoilers: s.expand_spoilers === true,
    noteSource: typeof s.note_source === "string" ? s.note_source : "",
    fieldsSource: fields.map((f) => ({ name: f.name, value: f.value })),
  };
}
