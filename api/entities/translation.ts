/**
 * The Translation entity (Mastodon's REST::TranslationSerializer): a status's
 * content, content warning, poll options and media descriptions in another
 * language, what the backend detected and who translated. `poll` is null
 * when the status has none; every attachment is listed (an empty
 * description when it had none to translate).
 */
import type { StatusTranslation } from "../../actors/translation/service.ts";

export interface TranslationJson {
  content: string;
  spoiler_text: string;
  poll: { id: string; options: { title: string }[] } | null;
  media_attachments: { id: string; description: string }[];
  detected_source_language: string | null;
  language: string;
  provider: string;
}

/** Serializes a translation of the status whose poll (if any) is `pollId`. */
export function translationEntity(
  translation: StatusTranslation,
  pollId: string | null,
): TranslationJson {
  return {
    content: translation.content,
    spoiler_text: translation.spoilerText,
    poll: pollId && translation.pollOptions
      ? { id: pollId, options: translation.pollOptions.map((title) => ({ title })) }
      : null,
    media_attachments: translation.media.map((m) => ({ id: m.id, description: m.description })),
    detected_source_language: translation.detectedSourceLanguage,
    language: translation.language,
    provider: translation.provider,
  };
}
