/** The Preferences entity (GET /api/v1/preferences), Mastodon 4.5 keys. */
import type { ResolvedSettings } from "../../model/user_settings.ts";

export interface Preferences {
  "posting:default:visibility": string;
  "posting:default:sensitive": boolean;
  "posting:default:language": string | null;
  "posting:default:quote_policy": string;
  "reading:expand:media": string;
  "reading:expand:spoilers": boolean;
}

/** Serializes resolved user settings. */
export function preferencesEntity(settings: ResolvedSettings): Preferences {
  return {
    "posting:default:visibility": settings.defaultPrivacy,
    "posting:default:sensitive": settings.defaultSensitive,
    "posting:default:language": settings.defaultLanguage,
    "posting:default:quote_policy": settings.defaultQuotePolicy,
    "reading:expand:media": settings.displayMedia,
    "reading:expand:spoilers": settings.expandSpoilers,
  };
}
