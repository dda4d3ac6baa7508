/**
 * The syntax of custom emoji shortcodes, as Mastodon's CustomEmoji reads
 * them: a shortcode is at least two ASCII letters, digits or underscores,
 * written between colons in text. Finding the emoji a text uses
 * (actors/emoji/shortcodes.ts), marking them untranslatable
 * (actors/translation/source.ts) and drawing them in pages
 * (web/pages/public/status_card.tsx) read these patterns.
 */

/** The characters of a shortcode (Mastodon's SHORTCODE_RE_FRAGMENT). */
const FRAGMENT = "[a-zA-Z0-9_]{2,}";

/** What a shortcode may be (Mastodon's SHORTCODE_ONLY_RE). */
export const SHORTCODE_PATTERN = new RegExp(`^${FRAGMENT}$`);

/** The longest shortcode accepted, local or remote (bounds hostile input). */
export const MAX_SHORTCODE_LENGTH = 128;

/** Mastodon's CustomEmoji::SCAN_RE (see {@link shortcodesIn}). */
const SCAN = new RegExp(
  `(?<=[^\\p{L}\\p{N}:]|^):(${FRAGMENT}):(?=[^\\p{L}\\p{N}:]|$)`,
  "gmu",
);

/** `:shortcode:` wherever it is, whatever touches it. */
const ANYWHERE = new RegExp(`:(${FRAGMENT}):`);
const EVERY_ANYWHERE = new RegExp(ANYWHERE.source, "g");

/**
 * The shortcodes of `text` as Mastodon finds them (CustomEmoji::SCAN_RE):
 * the colons must not touch another letter, digit or colon (`foo:bar:`,
 * `::bar::` and `12:30:45` are not emoji). Repeats are yielded again.
 */
export function* shortcodesIn(text: string): Generator<string> {
  for (const { shortcode } of shortcodeMatches(text)) yield shortcode;
}

/** {@link shortcodesIn} with each match's offsets in `text` (the post parser's tokens). */
export function* shortcodeMatches(
  text: string,
): Generator<{ shortcode: string; start: number; end: number }> {
  if (!text.includes(":")) return;
  for (const match of text.matchAll(SCAN)) {
    yield { shortcode: match[1], start: match.index, end: match.index + match[0].length };
  }
}

/** Whether `text` could name an emoji: true of every text {@link shortcodesIn} finds one in. */
export function mayNameEmoji(text: string): boolean {
  return ANYWHERE.test(text);
}

/**
 * Replaces every `:shortcode:` of `text`, wherever it is, with what
 * `replace` returns for it (`whole` is the shortcode with its colons): how
 * the known emoji of a text already scanned are drawn or marked.
 */
export function replaceShortcodes(
  text: string,
  replace: (whole: string, shortcode: string) => string,
): string {
  return text.replace(EVERY_ANYWHERE, replace);
}

/** Whether a shortcode is well formed and not too long. */
export function validShortcode(shortcode: string): boolean {
  return shortcode.length <= MAX_SHORTCODE_LENGTH && SHORTCODE_PATTERN.test(shortcode);
}
