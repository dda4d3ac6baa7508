/**
 * The one parser of what local users type: statuses (posted, scheduled,
 * edited), bios, profile field values and announcements. A text is parsed
 * once into a {@link ParsedText}, and everything a command needs reads that
 * value: the length check (links count 23, remote mentions count their
 * username), mention resolution (the handles), the HTML (text_to_html.ts),
 * the hashtags and the custom emoji.
 *
 * The rules are Mastodon's: explicit http(s) URLs are links (bare domains
 * stay text; a "URL" over twitter-text's 4,096 characters is text),
 * Account::MENTION_RE (plus an optional `:port`) finds mentions outside
 * links, Tag::HASHTAG_RE finds hashtags outside links and mentions, and
 * CustomEmoji::SCAN_RE finds `:shortcode:`s anywhere in the text (inside a
 * link too: Mastodon scans the raw text for them).
 *
 * Each kind of token is found on first use and kept, and in an order that
 * lets hostile text be refused cheaply: the length needs only the links and
 * the mentions, and a text refused by the lower bound of its length is not
 * even linkified.
 */
import * as linkify from "linkifyjs";
import { shortcodeMatches } from "../../model/emoji_shortcodes.ts";

/** A mention as written: username and, for `@user@domain`, the domain (lower case). */
export interface MentionName {
  username: string;
  domain: string | null;
}

/** Plain text between the other tokens. */
export interface TextToken {
  kind: "text";
  start: number;
  end: number;
}

/** An http(s) link. */
export interface LinkToken {
  kind: "link";
  start: number;
  end: number;
  url: string;
}

/** `@user` or `@user@domain` (resolved to an account, or left as text, by the caller). */
export interface MentionToken {
  kind: "mention";
  start: number;
  end: number;
  /** As written, with its `@`s. */
  text: string;
  name: MentionName;
}

/** `#tag` (or `＃tag`). */
export interface HashtagToken {
  kind: "hashtag";
  start: number;
  end: number;
  /** As written, with its `#`. */
  text: string;
  /** The name, as written (without `#`). */
  tag: string;
}

/** `:shortcode:` of a custom emoji (it may lie inside a link). */
export interface EmojiToken {
  kind: "emoji";
  start: number;
  end: number;
  shortcode: string;
}

/** What a text is made of, in order: each character belongs to exactly one. */
export type Token = TextToken | LinkToken | MentionToken | HashtagToken;
/** The tokens that are not plain text. */
export type Entity = LinkToken | MentionToken | HashtagToken;

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
const MENTION_RE = new RegExp(
  `(?<![=/${WORD}])@([a-z0-9_]+(?:[.-]+[a-z0-9_]+)*)` +
    `(?:@([${WORD}.-]+[${WORD}]+(?::\\d{1,5})?))?`,
  "giu",
);

/**
 * The longest URL that is still a link: twitter-text's MAX_URL_LENGTH, which
 * Mastodon's formatter and length validator inherit from its extractor. A
 * longer one stays plain text: it is not linked and counts at its full length,
 * so nobody packs kilobytes of "URL" into a 500-character status.
 */
export const MAX_URL_LENGTH = 4096;

/** Characters a link counts for in length limits, whatever its real length (Mastodon's rule). */
export const CHARACTERS_PER_URL = 23;

/** The key of a mention among resolved ones: `user` or `user@domain`, lower case. */
export function mentionKey(name: MentionName): string {
  return name.domain
    ? `${name.username.toLowerCase()}@${name.domain}`
    : name.username.toLowerCase();
}

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

/** A word that may hold a link, and where it starts in the text. */
type SchemeWord = [offset: number, word: string];

/**
 * A text parsed once. Build it with {@link parseText}; read its tokens, or
 * ask it its length. Immutable from the outside: each getter computes its
 * tokens on first use and answers the same array afterwards.
 */
export class ParsedText {
  /** The text, newlines normalized (`\r\n` and `\r` are `\n`). */
  readonly source: string;
  #schemeWords: SchemeWord[] | null = null;
  #links: LinkToken[] | null = null;
  #mentions: MentionToken[] | null = null;
  #hashtags: HashtagToken[] | null = null;
  #linksAndMentions: readonly Entity[] | null = null;
  #entities: readonly Entity[] | null = null;
  #tokens: Token[] | null = null;
  #emojis: EmojiToken[] | null = null;

  constructor(text: string) {
    this.source = text.replace(/\r\n?/g, "\n");
  }

  /** The http(s) links, in order. */
  get links(): readonly LinkToken[] {
    return this.#links ??= findLinks(this.#allSchemeWords());
  }

  /** The mentions outside links, in order. */
  get mentions(): readonly MentionToken[] {
    return this.#mentions ??= findMentions(this.source, this.links) ?? [];
  }

  /** The hashtags outside links and mentions, in order. */
  get hashtags(): readonly HashtagToken[] {
    return this.#hashtags ??= findHashtags(this.source, this.#taken());
  }

  /** Links, mentions and hashtags, in order, without overlaps. */
  get entities(): readonly Entity[] {
    if (this.#entities) return this.#entities;
    const hashtags = this.hashtags;
    const taken = this.#taken();
    return this.#entities = hashtags.length === 0
      ? taken
      : [...taken, ...hashtags].sort((a, b) => a.start - b.start);
  }

  /** The whole text as tokens: the entities and the plain text between them. */
  get tokens(): readonly Token[] {
    if (this.#tokens) return this.#tokens;
    const tokens: Token[] = [];
    let last = 0;
    for (const entity of this.entities) {
      if (entity.start > last) tokens.push({ kind: "text", start: last, end: entity.start });
      tokens.push(entity);
      last = entity.end;
    }
    if (last < this.source.length) {
      tokens.push({ kind: "text", start: last, end: this.source.length });
    }
    return this.#tokens = tokens;
  }

  /** The `:shortcode:`s, in order, repeats included (inside links too, as Mastodon). */
  get emojis(): readonly EmojiToken[] {
    return this.#emojis ??= [...shortcodeMatches(this.source)].map((m) => ({
      kind: "emoji" as const,
      ...m,
    }));
  }

  /**
   * The length as Mastodon's length validators count it: in code points,
   * each http(s) link as `perUrl` ({@link CHARACTERS_PER_URL} unless
   * configured otherwise; a "link" over {@link MAX_URL_LENGTH} is text and
   * counts in full), and mentions of remote accounts without their domain.
   *
   * With `stopAbove`, a text that certainly counts more is not read in
   * full, and what is returned is then only some number above `stopAbove`.
   * It is not linkified when its words holding a scheme are enough: each
   * counts at least 7 (`http://` as text) and, without an `@`, at least as
   * much as a link, so 22 long ones exceed 500 whatever they are (the
   * linkifier reads about a character a microsecond, and 85 KB of short
   * links cost it 50 ms). Its mentions are listed only up to where the text
   * before them certainly counts more.
   */
  countableLength(perUrl = CHARACTERS_PER_URL, stopAbove = Infinity): number {
    if (Number.isFinite(stopAbove)) {
      const least = this.#leastLength(perUrl, stopAbove);
      if (least > stopAbove) return least;
    }
    const mentions = this.#mentionsUnlessAbove(perUrl, stopAbove);
    if (!mentions) return Math.floor(stopAbove) + 1;
    let length = codePoints(this.source);
    for (const link of this.links) length += perUrl - codePoints(link.url);
    for (const mention of mentions) {
      if (!mention.name.domain) continue;
      // The domain as written, with its "@" (lower-casing can change its length).
      length -= codePoints(mention.text.slice(mention.text.indexOf("@", 1)));
    }
    return length;
  }

  /**
   * A lower bound of the length from the words holding a scheme, stopping
   * once it passes `stopAbove` (those words are then not all listed: 85 KB
   * of `http://` is 12,000 of them).
   */
  #leastLength(perUrl: number, stopAbove: number): number {
    if (this.#schemeWords) {
      let least = 0;
      for (const [, word] of this.#schemeWords) least += wordLeast(word, perUrl);
      return least;
    }
    const words: SchemeWord[] = [];
    let least = 0;
    for (const run of schemeWords(this.source)) {
      least += wordLeast(run[1], perUrl);
      if (least > stopAbove) return least;
      words.push(run);
    }
    this.#schemeWords = words;
    return least;
  }

  /**
   * The mentions, unless the text before one of them already counts more
   * than `stopAbove` (then null, and they are not kept: 85 KB of `@a ` is
   * 28,000 of them, and a bio is not bounded by a ceiling as a status is).
   */
  #mentionsUnlessAbove(perUrl: number, stopAbove: number): readonly MentionToken[] | null {
    if (this.#mentions || !Number.isFinite(stopAbove)) return this.mentions;
    const links = this.links;
    const found = findMentions(this.source, links, prefixExceeds(links, perUrl, stopAbove));
    return found ? this.#mentions = found : null;
  }

  #allSchemeWords(): SchemeWord[] {
    return this.#schemeWords ??= [...schemeWords(this.source)];
  }

  /** Links and mentions, in order: what hashtags may not overlap. */
  #taken(): readonly Entity[] {
    if (this.#linksAndMentions) return this.#linksAndMentions;
    const links = this.links, mentions = this.mentions;
    let taken: readonly Entity[] = links;
    if (links.length === 0) taken = mentions;
    else if (mentions.length > 0) taken = [...links, ...mentions].sort((a, b) => a.start - b.start);
    return this.#linksAndMentions = taken;
  }
}

/** `text` parsed (once: a parsed text is answered as it is). */
export function parseText(text: string | ParsedText): ParsedText {
  return text instanceof ParsedText ? text : new ParsedText(text);
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
function* schemeWords(text: string): Generator<SchemeWord> {
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
 * The least a word holding a scheme counts: a link in it counts `perUrl`,
 * and unlinked it counts each of its characters, less the domains of remote
 * mentions, which need an `@` and never take the scheme's 7 (`http://`).
 */
function wordLeast(word: string, perUrl: number): number {
  const unlinked = word.includes("@") ? "http://".length : [...word].length;
  return Math.min(perUrl, unlinked);
}

/** The http(s) links of the words that may hold one, in order (Mastodon links nothing else). */
function findLinks(words: readonly SchemeWord[]): LinkToken[] {
  const links: LinkToken[] = [];
  for (const [offset, word] of words) {
    for (const link of linkify.find(word, "url")) {
      // Only explicit http(s) links, as Mastodon (bare domains stay text).
      if (!/^https?:\/\//i.test(link.value)) continue;
      if (urlLength(link.value) > MAX_URL_LENGTH) continue;
      links.push({
        kind: "link",
        start: offset + link.start,
        end: offset + link.end,
        url: link.value,
      });
    }
  }
  return links;
}

/**
 * The mentions outside links, in order; null as soon as `exceeds` says the
 * text up to one of them counts too much (given the code units of remote
 * mentions' domains so far, which do not count).
 */
function findMentions(
  text: string,
  links: readonly LinkToken[],
  exceeds?: (end: number, uncountedUnits: number) => boolean,
): MentionToken[] | null {
  const mentions: MentionToken[] = [];
  const overlapsLink = overlapCheck(links);
  let uncounted = 0;
  for (const m of text.matchAll(MENTION_RE)) {
    const start = m.index, end = start + m[0].length;
    if (overlapsLink(start, end)) continue;
    mentions.push({
      kind: "mention",
      start,
      end,
      text: m[0],
      name: { username: m[1], domain: m[2]?.toLowerCase() ?? null },
    });
    if (m[2]) uncounted += m[2].length + 1;
    if (exceeds?.(end, uncounted)) return null;
  }
  return mentions;
}

/**
 * Whether the text before `end` certainly counts more than `stopAbove`,
 * whatever follows (which never counts less than nothing): each link there
 * counts `perUrl`, and each other code unit there half a character at
 * least (a code point is one or two), but for the remote domains'.
 */
function prefixExceeds(
  links: readonly LinkToken[],
  perUrl: number,
  stopAbove: number,
): (end: number, uncountedUnits: number) => boolean {
  let before = 0, linkUnits = 0;
  return (end, uncountedUnits) => {
    while (before < links.length && links[before].end <= end) {
      linkUnits += links[before].end - links[before].start;
      before++;
    }
    return (end - linkUnits - uncountedUnits) / 2 + before * perUrl > stopAbove;
  };
}

function findHashtags(text: string, taken: readonly Entity[]): HashtagToken[] {
  const hashtags: HashtagToken[] = [];
  const overlapsTaken = overlapCheck(taken);
  for (const m of text.matchAll(HASHTAG_RE)) {
    const start = m.index, end = start + m[0].length;
    if (overlapsTaken(start, end)) continue;
    hashtags.push({ kind: "hashtag", start, end, tag: m[1], text: m[0] });
  }
  return hashtags;
}

/**
 * Whether a span overlaps one of `sorted` (in order, not overlapping each
 * other), asked for spans in increasing order: one sweep in all, so a text
 * of 30,000 hashtags costs milliseconds, not the seconds that comparing each
 * with every entity found so far cost.
 */
function overlapCheck(sorted: readonly Entity[]): (start: number, end: number) => boolean {
  let i = 0;
  return (start, end) => {
    while (i < sorted.length && sorted[i].end <= start) i++;
    return i < sorted.length && sorted[i].start < end;
  };
}

/** Length in code points, as Mastodon counts (ASCII text needs no walk). */
function codePoints(text: string): number {
  // deno-lint-ignore no-control-regex
  return /^[\x00-\x7f]*$/.test(text) ? text.length : [...text].length;
}

/** The mentions written in a text (to resolve before rendering it). */
export function extractMentions(text: string | ParsedText): MentionName[] {
  return parseText(text).mentions.map((m) => m.name);
}

/** The hashtags written in a text, as typed (without `#`). */
export function extractHashtags(text: string | ParsedText): string[] {
  return parseText(text).hashtags.map((h) => h.tag);
}

/** {@link ParsedText.countableLength} of a text. */
export function countableLength(
  text: string | ParsedText,
  perUrl = CHARACTERS_PER_URL,
  stopAbove = Infinity,
): number {
  return parseText(text).countableLength(perUrl, stopAbove);
}
