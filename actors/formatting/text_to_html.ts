/**
 * Plain text → HTML, as Mastodon's TextFormatter renders what local users
 * type (bios, profile field values, later statuses): http(s) URLs become
 * shortened links, `@user` / `@user@domain` become mention links when the
 * account is known, `#tag` becomes a link to the tag page, everything else is
 * escaped. In multiline mode blank lines separate `<p>` paragraphs and single
 * newlines become `<br />`.
 *
 * The function is pure: mentions are resolved beforehand (see mentions.ts)
 * and passed in, so the same text always gives the same HTML.
 */
import * as linkify from "linkifyjs";
import { escapeHtml } from "./escape_html.ts";
import { localUris } from "../../model/uris.ts";

/** A resolved mention target. */
export interface MentionTarget {
  /** The profile URL the mention links to. */
  url: string;
  /** What is shown after the `@` (Mastodon shows the bare username). */
  display: string;
  /** The account, when the target was resolved from the database (announcements list it). */
  accountId?: string;
}

/** A mention as written: username and, for `@user@domain`, the domain (lower case). */
export interface MentionName {
  username: string;
  domain: string | null;
}

export interface TextToHtmlOptions {
  /** Public origin of this server, for hashtag links. */
  origin: string;
  /** Paragraphs and line breaks (bios, statuses); off for one-line field values. */
  multiline?: boolean;
  /** Adds `me` to link rels (profile fields, for rel-me verification). */
  relMe?: boolean;
  /** Known accounts, keyed by {@link mentionKey}; unknown mentions stay plain text. */
  mentions?: ReadonlyMap<string, MentionTarget>;
}

// Ruby's [[:word:]] and [[:alpha:]] in Unicode mode.
const WORD = "\\p{L}\\p{M}\\p{Nd}\\p{Pc}";
const ALPHA = "\\p{L}\\p{M}";
const HASHTAG_SEPARATORS = "_\\u00B7\\u30FB\\u200C";
const HASHTAG_FIRST = `[${WORD}_][${WORD}${HASHTAG_SEPARATORS}]*[${ALPHA}${HASHTAG_SEPARATORS}]` +
  `[${WORD}${HASHTAG_SEPARATORS}]*[${WORD}_]`;
const HASHTAG_LAST = `[${WORD}_]*[${ALPHA}][${WORD}_]*`;

/** Mastodon's Tag::HASHTAG_RE: not after `=`, `/`, `)` or a letter/digit. */
const HASHTAG_RE = new RegExp(
  `(?<![=/)\\p{L}\\p{M}\\p{N}])[#＃](${HASHTAG_FIRST}|${HASHTAG_LAST})`,
  "gu",
);

/**
 * Mastodon's Account::MENTION_RE, plus an optional `:port` on the domain so
 * that servers on non-default ports (development, tests) can be mentioned.
 */
const MENTION_USER = `(?<![=/${WORD}])@([a-z0-9_]+(?:[.-]+[a-z0-9_]+)*)`;
const MENTION_DOMAIN = `@([${WORD}.-]+[${WORD}]+(?::\\d{1,5})?)`;
const MENTION_RE = new RegExp(`${MENTION_USER}(?:${MENTION_DOMAIN})?`, "giu");
/**
 * The same, for `@user@domain` only: it finds exactly the remote mentions
 * MENTION_RE finds (a local mention's span holds no second `@` a remote one
 * could start at), for length counting, where local mentions count as typed.
 */
const REMOTE_MENTION_RE = new RegExp(`${MENTION_USER}${MENTION_DOMAIN}`, "giu");

const URL_PREFIX_RE = /^(https?:\/\/(www\.)?)/i;
/** Characters of a URL shown before the ellipsis, as Mastodon shortens links. */
const DISPLAY_URL_LENGTH = 30;

type Entity =
  | { kind: "url"; start: number; end: number; url: string }
  | { kind: "mention"; start: number; end: number; name: MentionName; text: string }
  | { kind: "hashtag"; start: number; end: number; tag: string; text: string };

/** The key of a mention in {@link TextToHtmlOptions.mentions}: `user` or `user@domain`, lower case. */
export function mentionKey(name: MentionName): string {
  return name.domain
    ? `${name.username.toLowerCase()}@${name.domain}`
    : name.username.toLowerCase();
}

function normalizeNewlines(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}

/**
 * A text parsed once: what a command holds while it checks the length,
 * resolves the mentions, records the hashtags and renders the HTML of one
 * status, so the text is scanned once for all of them. The entities are
 * found on first use: the cheap length bounds (in {@link countableLength})
 * come first, so a text refused by them is never parsed.
 */
export class ParsedText {
  /** The text, newlines normalized. */
  readonly source: string;
  #entities: Entity[] | null = null;

  constructor(text: string) {
    this.source = normalizeNewlines(text);
  }

  /** Links, mentions and hashtags, in order, without overlaps. */
  get entities(): readonly Entity[] {
    return this.#entities ??= extractEntities(this.source);
  }
}

/** `text` parsed (once: a parsed text is returned as it is). */
export function parseText(text: string | ParsedText): ParsedText {
  return text instanceof ParsedText ? text : new ParsedText(text);
}

/**
 * The longest URL that is still a link: twitter-text's MAX_URL_LENGTH, which
 * Mastodon's formatter and length validator inherit from its extractor. A
 * longer one stays plain text: it is not linked and counts at its full length,
 * so nobody packs kilobytes of "URL" into a 500-character status.
 */
export const MAX_URL_LENGTH = 4096;

/**
 * A URL's length as twitter-text measures it against {@link MAX_URL_LENGTH}:
 * in code points, with the host as IDNA sends it (punycode only lengthens).
 */
export function urlLength(url: string): number {
  const length = [...url].length;
  const written = /^https?:\/\/(?:[^/?#@\s]*@)?([^/?#:\s]+)/i.exec(url)?.[1];
  if (!written) return length;
  let ascii: string;
  try {
    ascii = new URL(url).hostname;
  } catch {
    return length;
  }
  return length + Math.max(0, ascii.length - [...written].length);
}

/** The http(s) links of a text, in order (Mastodon links nothing else). */
function findLinks(text: string): Entity[] {
  const links: Entity[] = [];
  for (const [offset, run] of urlRuns(text)) {
    for (const link of linkify.find(run, "url")) {
      // Only explicit http(s) links, as Mastodon (bare domains stay text).
      if (!/^https?:\/\//i.test(link.value)) continue;
      if (urlLength(link.value) > MAX_URL_LENGTH) continue;
      links.push({
        kind: "url",
        start: offset + link.start,
        end: offset + link.end,
        url: link.value,
      });
    }
  }
  return links;
}

/**
 * The links, mentions and hashtags of a text, in order, without overlaps.
 * Hashtags never hide a link or a mention, so a caller that wants only
 * mentions skips finding them.
 */
function extractEntities(text: string, withHashtags = true): Entity[] {
  const links = findLinks(text);
  const mentions: Entity[] = [];
  const overlapsLink = overlapCheck(links);
  for (const m of text.matchAll(MENTION_RE)) {
    const start = m.index!, end = start + m[0].length;
    if (overlapsLink(start, end)) continue;
    mentions.push({
      kind: "mention",
      start,
      end,
      text: m[0],
      name: { username: m[1], domain: m[2]?.toLowerCase() ?? null },
    });
  }
  const taken = links.length === 0
    ? mentions
    : [...links, ...mentions].sort((a, b) => a.start - b.start);
  if (!withHashtags) return taken;
  const overlapsTaken = overlapCheck(taken);
  const hashtags: Entity[] = [];
  for (const m of text.matchAll(HASHTAG_RE)) {
    const start = m.index!, end = start + m[0].length;
    if (overlapsTaken(start, end)) continue;
    hashtags.push({ kind: "hashtag", start, end, tag: m[1], text: m[0] });
  }
  return [...taken, ...hashtags].sort((a, b) => a.start - b.start);
}

const SCHEME_RE = /https?:\/\//gi;
const SPACE_RE = /\s/;

/**
 * The words (runs without whitespace) that contain `http://` or `https://`,
 * with their offsets: the only places a link can be, since Mastodon links
 * explicit http(s) URLs only and a URL never spans whitespace. The linkifier
 * costs time in proportion to what it reads (about 100 ms for 85 KB of
 * hashtags), so it reads only these.
 *
 * A word longer than twice the longest link is cut before each scheme in it
 * (a link inside it then ends where the next scheme begins); read whole, one
 * word of 85 KB of `http://` cost the linkifier 50 ms. Linear: each character
 * is looked at a bounded number of times, whatever the text.
 */
function* urlRuns(text: string): Generator<[number, string]> {
  let covered = 0;
  for (const match of text.matchAll(SCHEME_RE)) {
    if (match.index < covered) continue;
    let start = match.index;
    while (start > covered && !SPACE_RE.test(text[start - 1])) start--;
    let end = match.index + match[0].length;
    while (end < text.length && !SPACE_RE.test(text[end])) end++;
    covered = end;
    if (end - start <= 2 * MAX_URL_LENGTH) {
      yield [start, text.slice(start, end)];
      continue;
    }
    const word = text.slice(start, end);
    const schemes = [...word.matchAll(SCHEME_RE)].map((m) => m.index);
    for (let i = 0; i < schemes.length; i++) {
      yield [start + schemes[i], word.slice(schemes[i], schemes[i + 1] ?? word.length)];
    }
  }
}

/**
 * Whether a span overlaps one of `sorted` (in order, not overlapping each
 * other), asked for spans in increasing order: one sweep in all, so a text
 * of 30,000 hashtags costs milliseconds, not the seconds that comparing each
 * with every entity found so far cost.
 */
function overlapCheck(sorted: Entity[]): (start: number, end: number) => boolean {
  let i = 0;
  return (start, end) => {
    while (i < sorted.length && sorted[i].end <= start) i++;
    return i < sorted.length && sorted[i].start < end;
  };
}

/** The mentions written in a text (to resolve before {@link textToHtml}). */
export function extractMentions(text: string | ParsedText): MentionName[] {
  const entities = text instanceof ParsedText
    ? text.entities
    : extractEntities(normalizeNewlines(text), false);
  return entities.flatMap((e) => e.kind === "mention" ? [e.name] : []);
}

/** The hashtags written in a text, as typed (without `#`). */
export function extractHashtags(text: string | ParsedText): string[] {
  return parseText(text).entities.flatMap((e) => e.kind === "hashtag" ? [e.tag] : []);
}

/** Characters a link counts for in length limits, whatever its real length (Mastodon's rule). */
export const CHARACTERS_PER_URL = 23;

/**
 * The least a word holding a scheme counts: a link in it counts `perUrl`,
 * and unlinked it counts each of its characters, less the domains of remote
 * mentions, which need an `@` and never take the scheme's 7 (`http://`).
 */
function wordLeast(word: string, perUrl: number): number {
  const unlinked = word.includes("@") ? "http://".length : [...word].length;
  return Math.min(perUrl, unlinked);
}

/**
 * The length of a text as Mastodon's length validators count it: in code
 * points, each http(s) link as `perUrl` ({@link CHARACTERS_PER_URL} unless
 * configured otherwise; a "link" over {@link MAX_URL_LENGTH} is text and
 * counts in full), and mentions of remote accounts without their domain.
 *
 * With `stopAbove`, a text that certainly counts more is not parsed: each
 * word holding a scheme counts at least 7 (`http://` as text) and, without
 * an `@`, at least as much as a link, so 22 long ones exceed 500 whatever
 * they are; what is returned is then only some number above `stopAbove`.
 * The linkifier reads about a character a microsecond, and 85 KB of short
 * links cost it 50 ms.
 */
export function countableLength(
  text: string | ParsedText,
  perUrl = CHARACTERS_PER_URL,
  stopAbove = Infinity,
): number {
  const source = text instanceof ParsedText ? text.source : normalizeNewlines(text);
  if (Number.isFinite(stopAbove)) {
    let least = 0;
    for (const [, word] of urlRuns(source)) {
      least += wordLeast(word, perUrl);
      if (least > stopAbove) return least;
    }
  }
  let length = codePoints(source);
  if (text instanceof ParsedText) {
    // Parsed already (or about to be, for rendering): count from its entities.
    for (const entity of text.entities) {
      if (entity.kind === "url") length += perUrl - codePoints(entity.url);
      else if (entity.kind === "mention" && entity.name.domain) {
        // The domain as written (lower-casing can change its length).
        length -= codePoints(entity.text.slice(entity.text.indexOf("@", 1))); // with its "@"
      }
    }
    return length;
  }
  const links = findLinks(source);
  for (const link of links) length += perUrl - codePoints((link as { url: string }).url);
  // Remote mentions, found as extractEntities finds them, without building
  // an entity for each (85 KB of `@a@b.c` is 12,000 of them).
  const overlapsLink = overlapCheck(links);
  for (const m of source.matchAll(REMOTE_MENTION_RE)) {
    if (!overlapsLink(m.index, m.index + m[0].length)) length -= codePoints(m[2]) + 1;
  }
  return length;
}

/** Length in code points, as Mastodon counts (ASCII text needs no walk). */
function codePoints(text: string): number {
  // deno-lint-ignore no-control-regex
  return /^[\x00-\x7f]*$/.test(text) ? text.length : [...text].length;
}

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

/** Renders plain text as Mastodon-style HTML; blank text gives "". */
export function textToHtml(text: string | ParsedText, options: TextToHtmlOptions): string {
  const parsed = parseText(text);
  const source = parsed.source;
  if (source.trim() === "") return "";
  let html = "";
  let last = 0;
  for (const entity of parsed.entities) {
    html += escapeHtml(source.slice(last, entity.start));
    last = entity.end;
    if (entity.kind === "url") {
      html += linkHtml(entity.url, options.relMe ?? false);
    } else if (entity.kind === "hashtag") {
      html += hashtagHtml(options.origin, entity.tag);
    } else {
      const target = options.mentions?.get(mentionKey(entity.name));
      html += target ? mentionHtml(target) : escapeHtml(entity.text);
    }
  }
  html += escapeHtml(source.slice(last));
  return options.multiline ? paragraphs(html.trim()) : html;
}
