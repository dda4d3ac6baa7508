/**
 * The Instance entities: V2 (GET /api/v2/instance, Mastodon 4.5 fields) and
 * the deprecated V1 (GET /api/v1/instance) that several clients still read as
 * a fallback. Pure functions of the configuration and facts read from the
 * database (counts, contact account, rules).
 */
import type { Config } from "../../config.ts";
import { MASTODON_API_VERSION, SOURCE_URL, VERSION_STRING } from "../../version.ts";
import type { Account } from "./account.ts";
import { PROFILE_LIMITS } from "../../actors/accounts/profile.ts";
import { IMAGE_DESCRIPTION_LIMIT } from "../../actors/accounts/profile_display.ts";
import { DEFAULT_THUMBNAIL_PATH, ICON_SIZES, iconPath } from "../routes/static_images.ts";
import { ACCEPTED_MIME_TYPES, MEDIA_DESCRIPTION_LIMIT } from "../../actors/media/formats.ts";
import { escapeHtml } from "../../actors/formatting/escape_html.ts";

/** A server rule. */
export interface Rule {
  id: string;
  text: string;
  hint: string;
  translations: Record<string, { text: string; hint: string }>;
}

/** What the instance entities need from the database. */
export interface InstanceFacts {
  /** Users active in the last 30 days. */
  activeMonth: number;
  /** The contact account, or null when there is none. */
  contactAccount: Account | null;
  rules: Rule[];
  /** The server's VAPID public key (actors/push/vapid.ts), as Mastodon shows it. */
  vapidKey: string;
  /** The year annual reports are offered for now, or null (actors/annual_reports/state.ts). */
  wrapstodon: number | null;
}

/** The V1 entity's extra counts. */
export interface InstanceStats {
  userCount: number;
  statusCount: number;
  domainCount: number;
}

/**
 * MIME types accepted for media: exactly what the media pipeline accepts
 * (actors/media/formats.ts), so clients never offer an upload we refuse.
 */
export const SUPPORTED_MIME_TYPES = ACCEPTED_MIME_TYPES;

/** Mastodon's media constants that are not configurable here. */
export const MEDIA_LIMITS = {
  descriptionLimit: MEDIA_DESCRIPTION_LIMIT,
  imageMatrixLimit: 33_177_600,
  videoFrameRateLimit: 120,
  videoMatrixLimit: 8_294_400,
};

/** The streaming API base: the origin with a WebSocket scheme. */
export function streamingUrl(origin: string): string {
  return origin.replace(/^http/, "ws");
}

export function thumbnailUrl(config: Config): string {
  return config.instance.thumbnailUrl ?? `${config.origin}${DEFAULT_THUMBNAIL_PATH}`;
}

function statusesConfiguration(config: Config) {
  return {
    max_characters: config.limits.maxStatusCharacters,
    max_media_attachments: config.limits.maxMediaAttachments,
    characters_reserved_per_url: config.limits.charactersReservedPerUrl,
  };
}

/** What a profile may hold (Mastodon 4.6's `configuration.accounts`), from the limits the checks use. */
function accountsConfiguration(config: Config) {
  return {
    max_display_name_length: PROFILE_LIMITS.displayName,
    max_note_length: PROFILE_LIMITS.note,
    max_avatar_description_length: IMAGE_DESCRIPTION_LIMIT,
    max_header_description_length: IMAGE_DESCRIPTION_LIMIT,
    max_featured_tags: config.limits.maxFeaturedTags,
    max_pinned_statuses: config.limits.maxPinnedStatuses,
    max_profile_fields: config.limits.maxProfileFields,
    profile_field_name_limit: PROFILE_LIMITS.fieldName,
    profile_field_value_limit: PROFILE_LIMITS.fieldValue,
  };
}

function pollsConfiguration(config: Config) {
  return {
    max_options: config.limits.maxPollOptions,
    max_characters_per_option: config.limits.maxPollOptionCharacters,
    min_expiration: config.limits.minPollExpiration,
    max_expiration: config.limits.maxPollExpiration,
  };
}

/** GET /api/v2/instance. */
export function instanceV2(config: Config, facts: InstanceFacts) {
  const mode = config.registrations;
  return {
    domain: config.domain,
    title: config.instance.title,
    version: VERSION_STRING,
    source_url: SOURCE_URL,
    description: config.instance.description,
    usage: { users: { active_month: facts.activeMonth } },
    thumbnail: { url: thumbnailUrl(config), description: config.instance.thumbnailDescription },
    icon: ICON_SIZES.map((size) => ({
      src: `${config.origin}${iconPath(size)}`,
      size: `${size}x${size}`,
    })),
    languages: config.instance.languages,
    configuration: {
      urls: {
        streaming: streamingUrl(config.origin),
        status: null,
        about: `${config.origin}/about`,
        // The pages of instance_documents.ts, when the operator configured the file.
        privacy_policy: config.instance.privacyPolicyFile
          ? `${config.origin}/privacy-policy`
          : null,
        terms_of_service: config.instance.termsOfServiceFile
          ? `${config.origin}/terms-of-service`
          : null,
      },
      vapid: { public_key: facts.vapidKey },
      accounts: accountsConfiguration(config),
      statuses: statusesConfiguration(config),
      media_attachments: {
        ...mediaConfiguration(config),
        description_limit: MEDIA_LIMITS.descriptionLimit,
      },
      polls: pollsConfiguration(config),
      translation: { enabled: config.translation != null },
      timelines_access: {
        live_feeds: { local: "public", remote: "public" },
        hashtag_feeds: { local: "public", remote: "public" },
        trending_link_feeds: { local: "public", remote: "public" },
      },
      limited_federation: config.federationMode === "allowlist",
    },
    registrations: {
      enabled: mode !== "closed",
      approval_required: mode === "approval",
      message: null,
      min_age: config.minAge ?? null,
      reason_required: mode === "approval",
      url: null,
    },
    api_versions: { mastodon: MASTODON_API_VERSION },
    wrapstodon: facts.wrapstodon,
    contact: {
      email: config.instance.contactEmail,
      account: facts.contactAccount,
    },
    rules: facts.rules,
  };
}

/** The media limits both instance entities give (v2 adds the description limit). */
function mediaConfiguration(config: Config) {
  return {
    supported_mime_types: SUPPORTED_MIME_TYPES,
    image_size_limit: config.limits.imageSizeLimit,
    image_matrix_limit: MEDIA_LIMITS.imageMatrixLimit,
    video_size_limit: config.limits.videoSizeLimit,
    video_frame_rate_limit: MEDIA_LIMITS.videoFrameRateLimit,
    video_matrix_limit: MEDIA_LIMITS.videoMatrixLimit,
  };
}

/** GET /api/v1/instance (deprecated since 4.0, still read by several clients). */
export function instanceV1(config: Config, facts: InstanceFacts, stats: InstanceStats) {
  return {
    uri: config.domain,
    title: config.instance.title,
    short_description: config.instance.description,
    description: config.instance.description,
    email: config.instance.contactEmail,
    version: VERSION_STRING,
    urls: { streaming_api: streamingUrl(config.origin) },
    stats: {
      user_count: stats.userCount,
      status_count: stats.statusCount,
      domain_count: stats.domainCount,
    },
    thumbnail: thumbnailUrl(config),
    languages: config.instance.languages,
    registrations: config.registrations !== "closed",
    approval_required: config.registrations === "approval",
    invites_enabled: false,
    configuration: {
      accounts: { max_featured_tags: config.limits.maxFeaturedTags },
      statuses: statusesConfiguration(config),
      media_attachments: mediaConfiguration(config),
      polls: pollsConfiguration(config),
    },
    contact_account: facts.contactAccount,
    rules: facts.rules,
  };
}

/** ExtendedDescription: `updated_at` is null when nothing was written, as in Mastodon. */
export function extendedDescription(text: string) {
  return { updated_at: null, content: text.trim() === "" ? "" : plainTextToHtml(text) };
}

/**
 * The configured text as HTML: text that already looks like HTML is passed
 * through (the operator wrote it), plain text becomes escaped paragraphs.
 */
export function plainTextToHtml(text: string): string {
  const trimmed = text.trim();
  if (/^<[a-z][\s\S]*>$/i.test(trimmed)) return trimmed;
  return trimmed.split(/\n\s*\n/).map((p) =>
    `<p>${escapeHtml(p.trim()).replaceAll("\n", "<br>")}</p>`
  ).join("");
}
