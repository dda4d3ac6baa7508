/**
 * Plain text → HTML, as Mastodon's TextFormatter renders what local users
 * type (statuses, bios, profile field values, announcements): http(s) URLs
 * become shortened links, `@user` / `@user@domain` become mention links when
 * the account is known, `#tag` becomes a link to the tag page, everything
 * else is escaped. In multiline mode blank lines separate `<p>` paragraphs
 * and single newlines become `<br />`.
 *
 * It renders the tokens of a parsed text (parsed_text.ts): the command that
 * checked the length and resolved the mentions hands the same parse here.
 * The function is pure: mentions are resolved beforehand (see mentions.ts)
 * and passed in, so the same text always gives the same HTML.
 */
import { escapeHtml } from "./escape_html.ts";
import { localUris } from "../../model/uris.ts";
import { mentionKey, type ParsedText, parseText, type Token } from "./parsed_text.ts";

// The parser's readers, where the formatter's tests have always found them.
export { countableLength, extractHashtags, extractMentions, parseText } from "./parsed_text.ts";

/** A resolved mention target. */
export interface MentionTarget {
  /** The profile URL the mention links to. */
  url: string;
  /** What is shown after the `@` (Mastodon shows the bare username). */
  display: string;
  /** The account, when the target was resolved from the database (announcements list it). */
  accountId?: string;
}

export interface TextToHtmlOptions {
  /** Public origin of this server, for hashtag links. */
  origin: string;
  /** Paragraphs and line breaks (bios, statuses); off for one-line field values. */
  multiline?: boolean;
  /** Adds `me` to link rels (profile fields, for rel-me verification). */
  relMe?: boolean;
  /** Known accounts, keyed by mentionKey (parsed_text.ts); unknown mentions stay plain text. */
  mentions?: ReadonlyMap<string, MentionTarget>;
}

const URL_PREFIX_RE = /^(https?:\/\/(www\.)?)/i;
/** Characters of a URL shown before the ellipsis, as Mastodon shortens links. */
const DISPLAY_URL_LENGTH = 30;

/** Mastodon's shortened link: scheme hidden, 30 characters shown, the rest hidden. */
function linkHtml(url: string, relMe: boolean): string {
  const prefix = URL_PREFIX_RE.exec(url)?.[1] ?? "";
  const rest = url.slice(prefix.length);
  let display = rest.slice(0, DISPLAY_URL_LENGTH);
  let suffix = rest.slice(DISPLAY_URL_LENGTH);
  let cutoff = rest.length > DISPLAY_URL_LENGTH;
  if (suffix.length === 1) {
    // An ellipsis in place of one character hides nothing.
    display += suffix;
    suffix = "";
    cutoff = false;
  }
  const rel = relMe ? "nofollow noopener me" : "nofollow noopener";
  return `<a href="${escapeHtml(url)}" target="_blank" rel="${rel}" translate="no">` +
    `<span class="invisible">${escapeHtml(prefix)}</span>` +
    `<span class="${cutoff ? "ellipsis" : ""}">${escapeHtml(display)}</span>` +
    `<span class="invisible">${escapeHtml(suffix)}</span></a>`;
}

function hashtagHtml(origin: string, tag: string): string {
  const href = localUris(origin).tag(tag);
  return `<a href="${escapeHtml(href)}" class="mention hashtag" rel="tag">#<span>${
    escapeHtml(tag)
  }</span></a>`;
}

function mentionHtml(target: MentionTarget): string {
  return `<span class="h-card" translate="no"><a href="${
    escapeHtml(target.url)
  }" class="u-url mention">@<span>${escapeHtml(target.display)}</span></a></span>`;
}

/** Rails' simple_format without the newlines Mastodon deletes afterwards. */
function paragraphs(html: string): string {
  return html.split(/\n\s*\n/).map((p) => `<p>${p.replace(/\n/g, "<br />")}</p>`).join("");
}

function tokenHtml(source: string, token: Token, options: TextToHtmlOptions): string {
  switch (token.kind) {
    case "text":
      return escapeHtml(source.slice(token.start, token.end));
    case "link":
      return linkHtml(token.url, options.relMe ?? false);
    case "hashtag":
      return hashtagHtml(options.origin, token.tag);
    case "mention": {
      const target = options.mentions?.get(mentionKey(token.name));
      return target ? mentionHtml(target) : escapeHtml(token.text);
    }
  }
}

/** Renders plain text as Mastodon-style HTML; blank text gives "". */
export function textToHtml(text: string | ParsedText, options: TextToHtmlOptions): string {
  const parsed = parseText(text);
  if (parsed.source.trim() === "") return "";
  let html = "";
  for (const token of parsed.tokens) html += tokenHtml(parsed.source, token, options);
  return options.multiline ? paragraphs(html.trim()) : html;
}
