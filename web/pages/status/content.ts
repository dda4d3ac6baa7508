/**
 * A post's text as the web app shows it: the stored HTML (it went through
 * the one sanitizer when it was stored, actors/formatting/sanitize_html.ts,
 * and the lead decided to trust it rather than sanitize each render again),
 * with its mentions and hashtags pointing at our own pages, and custom emoji
 * as pictures. Only text between tags gets emoji, so an attribute never gets
 * markup; link targets are swapped only where the stored attribute is
 * exactly the entity's URL.
 */
import type { CustomEmoji } from "../../../api/entities/account.ts";
import type { StatusJson } from "../../../api/entities/status.ts";
import { escapeHtml } from "../../../actors/formatting/escape_html.ts";
import { replaceShortcodes } from "../../../model/emoji_shortcodes.ts";
import { accountPath, tagPath } from "./links.ts";

function emojiImg(emoji: CustomEmoji): string {
  return `<img class="emoji" src="${escapeHtml(emoji.static_url)}" alt=":${
    escapeHtml(emoji.shortcode)
  }:" title=":${escapeHtml(emoji.shortcode)}:">`;
}

/** Escaped plain text with its custom emoji as pictures (a display name, a content warning). */
export function emojifyText(text: string, emojis: readonly CustomEmoji[]): string {
  const byCode = new Map(emojis.map((e) => [e.shortcode, e]));
  return replaceShortcodes(escapeHtml(text), (all, code) => {
    const emoji = byCode.get(code);
    return emoji ? emojiImg(emoji) : all;
  });
}

/** Sanitized HTML with its custom emoji as pictures, in the text between tags only. */
export function emojifySanitized(html: string, emojis: readonly CustomEmoji[]): string {
  if (emojis.length === 0) return html;
  const byCode = new Map(emojis.map((e) => [e.shortcode, e]));
  return html.split(/(<[^>]*>)/).map((part) =>
    part.startsWith("<") ? part : replaceShortcodes(part, (all, code) => {
      const emoji = byCode.get(code);
      return emoji ? emojiImg(emoji) : all;
    })
  ).join("");
}

/** Mentions and hashtags of the post linking our pages of them. */
function localLinks(html: string, status: StatusJson): string {
  let out = html;
  const swap = (from: string, to: string) => {
    out = out.replaceAll(`href="${escapeHtml(from)}"`, `href="${escapeHtml(to)}"`);
  };
  for (const m of status.mentions) swap(m.url, accountPath(m));
  for (const t of status.tags) swap(t.url, tagPath(t.name));
  return out;
}

/** The HTML of a post's text for the app (see the module's comment). */
export function renderContent(status: StatusJson): string {
  return emojifySanitized(localLinks(status.content, status), status.emojis);
}
