/**
 * The V1 Filter entity (deprecated): `{id, phrase, context, whole_word,
 * expires_at, irreversible}`, one per keyword (actors/filters/v1.ts).
 */
import type { V1Filter } from "../../actors/filters/v1.ts";

export interface V1FilterJson {
  id: string;
  phrase: string;
  context: string[];
  whole_word: boolean;
  expires_at: string | null;
  irreversible: boolean;
}

/** Serializes a keyword with its filter as a v1 filter. */
export function v1FilterEntity({ keyword, filter }: V1Filter): V1FilterJson {
  return {
    id: keyword.id,
    phrase: keyword.keyword,
    context: filter.context,
    whole_word: keyword.wholeWord,
    expires_at: filter.expiresAt?.toISOString() ?? null,
    irreversible: filter.action === "hide",
  };
}
