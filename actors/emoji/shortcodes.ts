/**
 * Finding the custom emoji a text uses: `:shortcode:` as Mastodon's
 * CustomEmoji::SCAN_RE reads it (the syntax is model/emoji_shortcodes.ts's).
 *
 * The stored text keeps `:shortcode:` (Mastodon does not replace it in
 * HTML); clients draw the image from the entity's `emojis` list.
 */
import {
  MAX_SHORTCODE_LENGTH,
  mayNameEmoji,
  shortcodeMatches,
} from "../../model/emoji_shortcodes.ts";

/** At most this many distinct emoji are linked to one status or profile. */
export const MAX_EMOJIS_PER_OBJECT = 50;

/** A text whose shortcodes were found already (actors/formatting/parsed_text.ts ParsedText). */
export interface ScannedText {
  readonly emojis: readonly { readonly shortcode: string }[];
}

/**
 * The distinct shortcodes used in the texts, in order of first use, at most
 * {@link MAX_EMOJIS_PER_OBJECT}. Texts may be plain or HTML: the colons
 * survive rendering, and tags (`>`, `<`) are not letters. A text parsed
 * already is not scanned again.
 */
export function scanShortcodes(
  texts: readonly (string | ScannedText | null | undefined)[],
): string[] {
  const found = new Set<string>();
  for (const text of texts) {
    if (!text) continue;
    const matches = typeof text === "string" ? shortcodeMatches(text) : text.emojis;
    for (const { shortcode } of matches) {
      if (shortcode.length > MAX_SHORTCODE_LENGTH) continue;
      found.add(shortcode);
      if (found.size >= MAX_EMOJIS_PER_OBJECT) return [...found];
    }
  }
  return [...found];
}

/**
 * Whether any text could hold an emoji: true for every text from which
 * {@link scanShortcodes} finds one. Readers use it to skip the emoji query
 * for pages where no status or account can have any.
 */
export function mayHaveEmoji(texts: readonly (string | null | undefined)[]): boolean {
  return texts.some((text) => text != null && text.length > 4 && mayNameEmoji(text));
}
