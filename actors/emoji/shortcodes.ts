/**
 * Finding custom emoji in text: `:shortcode:` as Mastodon's
 * CustomEmoji::SCAN_RE reads it. A shortcode is at least two ASCII letters,
 * digits or underscores, and the colons must not touch another letter, digit
 * or colon (`foo:bar:`, `::bar::` and `12:30:45` are not emoji).
 *
 * The stored text keeps `:shortcode:` (Mastodon does not replace it in
 * HTML); clients draw the image from the entity's `emojis` list.
 */

/** What a shortcode may be (Mastodon's SHORTCODE_ONLY_RE). */
export const SHORTCODE_PATTERN = /^[a-zA-Z0-9_]{2,}$/;

/** The longest shortcode accepted, local or remote (bounds hostile input). */
export const MAX_SHORTCODE_LENGTH = 128;

/** At most this many distinct emoji are linked to one status or profile. */
export const MAX_EMOJIS_PER_OBJECT = 50;

const SCAN = /(?<=[^\p{L}\p{N}:]|^):([a-zA-Z0-9_]{2,}):(?=[^\p{L}\p{N}:]|$)/gmu;

/** A cheap superset test: could any of these texts name an emoji? */
const MAYBE = /:[a-zA-Z0-9_]{2,}:/;

/** Whether a shortcode is well formed and not too long. */
export function validShortcode(shortcode: string): boolean {
  return shortcode.length <= MAX_SHORTCODE_LENGTH && SHORTCODE_PATTERN.test(shortcode);
}

/** Each `:shortcode:` of a text, in order, repeats included, with its offsets. */
export function* shortcodeMatches(
  text: string,
): Generator<{ shortcode: string; start: number; end: number }> {
  if (!text.includes(":")) return;
  for (const match of text.matchAll(SCAN)) {
    yield { shortcode: match[1], start: match.index, end: match.index + match[0].length };
  }
}

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
  return texts.some((text) => text != null && text.length > 4 && MAYBE.test(text));
}
