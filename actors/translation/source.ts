/**
 * What of a status goes to the translation backend, and how its answers come
 * back, as Mastodon's TranslateStatusService does it:
 *
 * - The content as clients see it (our stored, sanitized HTML), with custom
 *   emoji shortcodes, mentions and hashtags marked `translate="no"` so that
 *   the backend leaves them alone; the content warning and poll options as
 *   escaped text (with their shortcodes marked too); media descriptions as
 *   escaped text. All are sent as HTML (`format: html`).
 * - The translated content goes through the one sanitizer again (a backend
 *   is not trusted to keep our HTML clean); the content warning and poll
 *   options come back to plain text, the descriptions have their entities
 *   decoded.
 */
import { escapeHtml } from "../formatting/escape_html.ts";
import { htmlToText } from "../formatting/html_to_text.ts";
import { sanitizeHtml } from "../formatting/sanitize_html.ts";
import type { StoredTranslation } from "../../db/schema/mod.ts";
import type { TranslatedText } from "./backend.ts";
import { replaceShortcodes } from "../../model/emoji_shortcodes.ts";

/** A status as the translation needs it (api/routes/translations.ts builds it). */
export interface TranslationSource {
  statusId: string;
  /** public, unlisted, private or direct. */
  visibility: string;
  /** The status's language; null when unknown (the backend detects it). */
  language: string | null;
  /** Sanitized HTML. */
  content: string;
  spoilerText: string;
  /** Option titles in order; null: no poll. */
  pollOptions: string[] | null;
  media: { id: string; description: string | null }[];
  /** Shortcodes (without colons) of the custom emoji the status uses. */
  emojiShortcodes: string[];
}

/** Where one text sent to the backend goes back to. */
type Slot =
  | { kind: "content" }
  | { kind: "spoiler" }
  | { kind: "option"; index: number }
  | { kind: "media"; id: string };

/** The texts to send, each with where its translation goes. */
export interface SourceTexts {
  slots: Slot[];
  texts: string[];
}

const TAG_OR_TEXT = /(<[^>]*>)/;

/** Wraps the known `:shortcode:`s of the text parts of `html` in untranslated spans. */
function markShortcodes(html: string, shortcodes: ReadonlySet<string>): string {
  if (shortcodes.size === 0) return html;
  return html.split(TAG_OR_TEXT).map((part) =>
    part.startsWith("<")
      ? part
      : replaceShortcodes(part, (whole, code) =>
        shortcodes.has(code) ? `<span translate="no">${whole}</span>` : whole)
  ).join("");
}

/** Marks mention links, their h-card wrappers and hashtag links `translate="no"`. */
function markMentionsAndTags(html: string): string {
  return html.replace(/<(a|span)(\s[^>]*)>/gi, (whole, tag: string, attributes: string) => {
    const classes = /\bclass="([^"]*)"/i.exec(attributes)?.[1].split(/\s+/) ?? [];
    const keep = classes.some((c) => c === "mention" || c === "hashtag" || c === "h-card");
    return keep && !/\btranslate=/i.test(attributes)
      ? `<${tag}${attributes} translate="no">`
      : whole;
  });
}

/** Removes the spans {@link markShortcodes} added, keeping what they held. */
function unmarkShortcodes(html: string): string {
  return html.replace(/<span\s+translate\s*=\s*["']no["']\s*>([^<]*)<\/span>/gi, "$1");
}

/** The texts of `source` to translate, in Mastodon's order; blank ones are left out. */
export function sourceTexts(source: TranslationSource): SourceTexts {
  const shortcodes = new Set(source.emojiShortcodes);
  const slots: Slot[] = [];
  const texts: string[] = [];
  const add = (slot: Slot, text: string) => {
    slots.push(slot);
    texts.push(text);
  };
  if (source.content.trim() !== "") {
    add({ kind: "content" }, markMentionsAndTags(markShortcodes(source.content, shortcodes)));
  }
  if (source.spoilerText.trim() !== "") {
    add({ kind: "spoiler" }, markShortcodes(escapeHtml(source.spoilerText), shortcodes));
  }
  source.pollOptions?.forEach((title, index) => {
    add({ kind: "option", index }, markShortcodes(escapeHtml(title), shortcodes));
  });
  for (const m of source.media) {
    if (m.description?.trim()) add({ kind: "media", id: m.id }, escapeHtml(m.description));
  }
  return { slots, texts };
}

/**
 * The translation of `source` from the backend's answers to `prepared.texts`
 * (same order); what was not sent (blank) stays blank.
 */
export function assembleTranslation(
  source: TranslationSource,
  prepared: SourceTexts,
  answers: TranslatedText[],
  provider: string,
): StoredTranslation {
  const options = source.pollOptions ? source.pollOptions.map(() => "") : null;
  const descriptions = new Map<string, string>();
  let content = "";
  let spoilerText = "";
  prepared.slots.forEach((slot, i) => {
    const text = answers[i]?.text ?? "";
    switch (slot.kind) {
      case "content":
        content = sanitizeHtml(unmarkShortcodes(text));
        break;
      case "spoiler":
        spoilerText = htmlToText(text);
        break;
      case "option":
        if (options) options[slot.index] = htmlToText(text);
        break;
      case "media":
        descriptions.set(slot.id, htmlToText(text));
        break;
    }
  });
  return {
    content,
    spoilerText,
    pollOptions: options,
    media: source.media.map((m) => ({ id: m.id, description: descriptions.get(m.id) ?? "" })),
    detectedSourceLanguage: answers[0]?.detectedSourceLanguage ?? source.language,
    provider: answers[0]?.provider ?? provider,
  };
}
