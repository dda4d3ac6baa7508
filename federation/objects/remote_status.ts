/**
 * Reading a status that another server sent (or that we fetched): a Fedify
 * object (Note, Question, or one of the types Mastodon converts: Article,
 * Page, Image, Video, Audio, Event) becomes the plain fields of a remote
 * `createStatus` input. Nothing here writes; resolving the parent, the
 * quoted post and the author is the caller's (federation/remote/statuses.ts).
 *
 * Everything is untrusted: HTML goes through the allow-list, the content
 * warning and poll options are plain text, URLs must be http(s), and lists
 * (tags, mentions, attachments, options) are bounded.
 *
 * Fedify reads the object through JSON-LD, so what the sender's `@context`
 * does not define is lost to it (hashtags, emoji, `sensitive`, language
 * maps, quotes, blurhash and focal points under a plain ActivityStreams
 * context). When the caller has the object's JSON as received
 * (federation/dialects/received.ts), those are read from it by
 * federation/dialects/terms.ts, as Mastodon reads them, and merged here.
 */
import { MEDIA_DESCRIPTION_LIMIT } from "../../actors/media/formats.ts";
import {
  Article,
  Audio,
  Document,
  Emoji,
  Event,
  Hashtag,
  Image,
  LanguageString,
  Link,
  Mention,
  Note,
  type Object as APObject,
  Page,
  PUBLIC_COLLECTION,
  Question,
  Video,
} from "@fedify/vocab";
import type { RemoteMediaInput } from "../../actors/statuses/create.ts";
import { checkLanguage } from "../../actors/statuses/validation.ts";
import type { Visibility } from "../../model/visibility.ts";
import type { QuotePolicy } from "../../model/quote_policy.ts";
import { sanitizeHtml } from "../../actors/formatting/sanitize_html.ts";
import { htmlToText } from "../../actors/formatting/html_to_text.ts";
import type { RemoteEmojiInput } from "../../actors/emoji/links.ts";
import { MAX_EMOJIS_PER_OBJECT } from "../../actors/emoji/shortcodes.ts";
import { readEmojiTag } from "./emoji.ts";
import { webUrl } from "../fetch/trust.ts";
import { escapeHtml } from "../../actors/formatting/escape_html.ts";
import {
  isJson,
  type MediaExtras,
  readStatusTerms,
  readWebUrl,
  type StatusTerms,
} from "../dialects/terms.ts";

/** The object types stored as statuses; the first two as they are, the rest converted. */
const STATUS_TYPES = [Note, Question, Article, Page, Image, Video, Audio, Event] as const;

/** At most this many of each kind of tag are read from one object. */
const MAX_TAGS = 50;
/** Poll options beyond this are dropped (Mastodon keeps far fewer; this bounds input). */
const MAX_POLL_OPTIONS = 20;

/** Whether a Fedify object is something stored as a status. */
export function isStatusObject(object: unknown): object is APObject {
  return STATUS_TYPES.some((type) => object instanceof type);
}

/** The ways the public collection is written (Mastodon treats them alike). */
const PUBLIC_IRIS = new Set([PUBLIC_COLLECTION.href, "as:Public", "Public"]);

/** Whether an addressing IRI is the public collection. */
export function isPublicIri(iri: URL | string): boolean {
  return PUBLIC_IRIS.has(typeof iri === "string" ? iri : iri.href);
}

/**
 * Visibility from the addressing, as Mastodon's `visibility_from_audience`:
 * Public in `to` → public; Public in `cc` → unlisted; the author's followers
 * collection addressed → private; otherwise direct (Mastodon's "limited" is
 * shown as direct here).
 */
export function visibilityFromAudience(
  object: { toIds: URL[]; ccIds: URL[] },
  followersUrl: string | null,
): Visibility {
  if (object.toIds.some(isPublicIri)) return "public";
  if (object.ccIds.some(isPublicIri)) return "unlisted";
  const all = [...object.toIds, ...object.ccIds].map((u) => u.href);
  if (followersUrl && all.includes(followersUrl)) return "private";
  return "direct";
}

/** The first http(s) URL of a `url` property (an IRI or a Link). */
function urlOf(value: URL | Link | null | undefined): string | null {
  if (value instanceof URL) return webUrl(value);
  if (value instanceof Link) return webUrl(value.href);
  return null;
}

function textOf(value: string | LanguageString | null | undefined): string | null {
  return value == null ? null : value.toString();
}

function languageOf(value: string | LanguageString | null | undefined): string | null {
  if (!(value instanceof LanguageString)) return null;
  try {
    return checkLanguage(value.locale.baseName);
  } catch {
    return null; // "und", or not ISO 639-1
  }
}

/** A document loader that never fetches: only embedded values are read. */
const noFetch = () => Promise.reject(new Error("not fetched"));

/** What a remote object says, ready for `createStatus` (ids resolved by the caller). */
export interface ParsedStatus {
  uri: string;
  url: string | null;
  /** The author's actor IRI (`attributedTo`). */
  attributedTo: string | null;
  content: string;
  spoilerText: string;
  sensitive: boolean;
  language: string | null;
  visibility: Visibility;
  inReplyToUri: string | null;
  quoteUri: string | null;
  /** The quote's approval stamp, when the quoted author's server approved it. */
  quoteAuthorizationUri: string | null;
  conversationUri: string | null;
  /** Mention tags' hrefs and every addressed actor (to/cc), without collections. */
  mentionUris: string[];
  /** Addressed IRIs (to/cc), for finding silently addressed local accounts. */
  addressed: string[];
  tagNames: string[];
  /** Emoji tags (checked; kept by the writer when the text uses them). */
  emojis: RemoteEmojiInput[];
  media: RemoteMediaInput[];
  poll: {
    options: string[];
    tallies: number[];
    multiple: boolean;
    expiresAt: Date | null;
    votersCount: number;
    closed: boolean;
  } | null;
  quotePolicy: QuotePolicy;
  published: Date | null;
  updated: Date | null;
  /** The page its `Link` attachment names (FEP-8967): its preview card's link. */
  cardLink: string | null;
  /** A Note with a name and no content: possibly a poll vote. */
  name: string | null;
  hasContent: boolean;
}

function toDate(instant: Temporal.Instant | null | undefined): Date | null {
  return instant ? new Date(instant.epochMilliseconds) : null;
}

/**
 * Whether `value` is an instant. Not `instanceof Temporal.Instant`: run
 * from source, Fedify builds its values with @js-temporal/polyfill, whose
 * instants are not the runtime's (a poll closed at a date was read as open);
 * the bundled build gives it the runtime's (process/bundle.ts).
 */
function isInstant(value: unknown): value is Temporal.Instant {
  return typeof value === "object" && value != null &&
    typeof (value as { epochMilliseconds?: unknown }).epochMilliseconds === "number";
}

/** Mastodon's media types from a MIME type. */
function mediaTypeOf(mime: string | null, object: APObject): string {
  if (mime?.startsWith("image/")) return mime === "image/gif" ? "gifv" : "image";
  if (mime?.startsWith("video/")) return "video";
  if (mime?.startsWith("audio/")) return "audio";
  if (object instanceof Image) return "image";
  if (object instanceof Video) return "video";
  if (object instanceof Audio) return "audio";
  return "unknown";
}

async function readMedia(
  object: APObject,
  extras: Map<string, MediaExtras>,
  max: number,
): Promise<RemoteMediaInput[]> {
  const media: RemoteMediaInput[] = [];
  for await (
    const item of object.getAttachments({ documentLoader: noFetch, suppressError: true })
  ) {
    if (media.length >= max) break;
    if (
      !(item instanceof Document || item instanceof Image || item instanceof Video ||
        item instanceof Audio)
    ) continue;
    const url = urlOf(item.url);
    if (!url) continue;
    const mime = item.mediaType && item.mediaType.length <= 255 ? item.mediaType : null;
    const extra = extras.get(url) ?? {};
    const meta: Record<string, unknown> = {};
    if (item.width && item.height) {
      meta.original = { width: item.width, height: item.height };
    }
    if (extra.focus) meta.focus = { x: extra.focus[0], y: extra.focus[1] };
    media.push({
      remoteUrl: url,
      type: mediaTypeOf(mime, item),
      contentType: mime,
      description: htmlToText(textOf(item.name) ?? textOf(item.summary), {
        oneLine: true,
        maxLength: MEDIA_DESCRIPTION_LIMIT,
      }) || null,
      blurhash: extra.blurhash ?? null,
      meta,
    });
  }
  return media;
}

/**
 * The first embedded `Link` attachment naming a web page, when the JSON as
 * received is not at hand (dialects/terms.ts readCardLink reads that).
 */
async function cardLinkOf(object: APObject): Promise<string | null> {
  for await (
    const item of object.getAttachments({ documentLoader: noFetch, suppressError: true })
  ) {
    if (!(item instanceof Link)) continue;
    if (item.mediaType != null && item.mediaType !== "text/html") continue;
    const href = webUrl(item.href);
    if (href) return href;
  }
  return null;
}

/** Mentions, hashtags and emoji: Fedify's typed tags, then those only the raw JSON shows. */
async function readTags(object: APObject, terms: StatusTerms | null) {
  const mentionUris: string[] = [];
  const tagNames: string[] = [];
  const emojis: RemoteEmojiInput[] = [];
  const addTag = (name: string) => {
    if (/^[\p{L}\p{N}_]{1,100}$/u.test(name) && tagNames.length < MAX_TAGS) {
      if (!tagNames.some((t) => t.toLowerCase() === name.toLowerCase())) tagNames.push(name);
    }
  };
  for (const name of terms?.hashtags ?? []) addTag(name);
  for (const emoji of terms?.emojis ?? []) {
    if (emojis.length < MAX_EMOJIS_PER_OBJECT) emojis.push(emoji);
  }
  for await (const tag of object.getTags({ documentLoader: noFetch, suppressError: true })) {
    if (tag instanceof Emoji) {
      if (emojis.length >= MAX_EMOJIS_PER_OBJECT) continue;
      const emoji = await readEmojiTag(tag);
      if (emoji && !emojis.some((e) => e.shortcode === emoji.shortcode)) emojis.push(emoji);
      continue;
    }
    if (tag instanceof Mention) {
      const href = webUrl(tag.href);
      if (href && mentionUris.length < MAX_TAGS) mentionUris.push(href);
    } else if (tag instanceof Hashtag) {
      addTag(textOf(tag.name)?.replace(/^#/, "") ?? "");
    }
  }
  return { mentionUris, tagNames, emojis };
}

async function readPoll(
  question: Question,
  rawVoters: number | null,
): Promise<ParsedStatus["poll"]> {
  const exclusive = await Array.fromAsync(
    question.getExclusiveOptions({ documentLoader: noFetch, suppressError: true }),
  );
  const inclusive = await Array.fromAsync(
    question.getInclusiveOptions({ documentLoader: noFetch, suppressError: true }),
  );
  const multiple = exclusive.length === 0 && inclusive.length > 0;
  const options: string[] = [];
  const tallies: number[] = [];
  for (const option of (multiple ? inclusive : exclusive).slice(0, MAX_POLL_OPTIONS)) {
    const title = htmlToText(textOf(option.name), { oneLine: true, maxLength: 200 });
    if (!title) continue;
    const replies = await option.getReplies({ documentLoader: noFetch, suppressError: true })
      .catch(() => null);
    const total = replies?.totalItems ?? 0;
    options.push(title);
    tallies.push(Number.isInteger(total) && total >= 0 ? total : 0);
  }
  if (options.length === 0) return null;
  const closed = question.closed;
  const closedAt = isInstant(closed) ? toDate(closed) : null;
  const voters = rawVoters ?? question.voters;
  return {
    options,
    tallies,
    multiple,
    expiresAt: toDate(question.endTime) ?? closedAt,
    votersCount: voters != null && Number.isInteger(voters) && voters >= 0
      ? voters
      : (multiple ? 0 : tallies.reduce((a, b) => a + b, 0)),
    closed: closed === true || closedAt != null,
  };
}

/** Mastodon's reading of GoToSocial's `interactionPolicy.canQuote`. */
function quotePolicyOf(object: Note | Question | APObject): ParsedStatus["quotePolicy"] {
  const policy = (object as Note).interactionPolicy;
  const rule = policy?.canQuote;
  if (!rule) return "nobody";
  const automatic = rule.automaticApprovals.map((u) => u.href);
  if (automatic.some(isPublicIri)) return "public";
  if (automatic.some((u) => u.endsWith("/followers"))) return "followers";
  return "nobody";
}

/**
 * The text of a converted object (an Article, a Page, an Event, a Video…),
 * as Mastodon composes it: the title as a heading (a bold paragraph, as
 * Mastodon's sanitizer renders `<h2>`), the summary, and a link to the
 * object's web page. Where there is no summary the content is shown
 * instead, so a post without an excerpt is not reduced to its title.
 */
function convertedContent(
  name: string | null,
  summary: string | null,
  content: string | null,
  link: string,
): string {
  const title = htmlToText(name, { oneLine: true, maxLength: 500 });
  const excerpt = htmlToText(summary, { oneLine: true, maxLength: 1_500 });
  return [
    title ? `<p><strong>${escapeHtml(title)}</strong></p>` : "",
    excerpt ? `<p>${escapeHtml(excerpt)}</p>` : sanitizeHtml(content),
    `<p><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>`,
  ].join("");
}

/**
 * Reads a status object. `followersUrl` is the author's followers
 * collection (for private visibility); `raw` is the object's JSON as
 * received, when known (what Fedify drops is read from it). `maxMedia`
 * bounds attachments.
 * `rejectMedia` (a domain block's reject_media, actors/moderation/domain_rules.ts)
 * keeps attachments as links only (type `unknown`, no blurhash or
 * dimensions, as Mastodon keeps media it does not download) and leaves
 * custom emoji out.
 */
export async function parseStatusObject(
  object: APObject,
  options: { followersUrl: string | null; raw?: unknown; maxMedia: number; rejectMedia?: boolean },
): Promise<ParsedStatus | null> {
  const uri = webUrl(object.id);
  if (!uri) return null;
  const converted = !(object instanceof Note || object instanceof Question);
  const terms = isJson(options.raw) ? readStatusTerms(options.raw) : null;
  // The JSON's own `content` (or `contentMap`) first: Mastodon's reading,
  // and never Misskey's `_misskey_content` (its source text, not HTML).
  const name = terms?.name ?? textOf(object.name);
  const rawContent = terms?.content ?? textOf(object.content);
  const summary = terms?.summary ?? textOf(object.summary);
  const url = (isJson(options.raw) ? readWebUrl(options.raw) : null) ?? urlOf(object.url);
  const content = converted
    ? convertedContent(name, summary, rawContent, url ?? uri)
    : sanitizeHtml(rawContent);
  const { mentionUris, tagNames, emojis } = await readTags(object, terms);
  const addressed = [...object.toIds, ...object.ccIds].map((u) => u.href)
    .filter((href) => !isPublicIri(href)).slice(0, MAX_TAGS * 2);
  const note = object as Note;
  return {
    uri,
    url,
    attributedTo: object.attributionId?.href ?? null,
    content,
    // A converted object's summary is its text, not a content warning (as in Mastodon).
    spoilerText: converted ? "" : htmlToText(summary, { oneLine: true, maxLength: 1_500 }),
    sensitive: terms?.sensitive ?? (object as Note).sensitive ?? false,
    // Mastodon takes the language from the language maps only (not `@language`).
    language: terms ? terms.language : languageOf(object.content),
    visibility: visibilityFromAudience(object, options.followersUrl),
    inReplyToUri: webUrl(object.replyTargetId),
    quoteUri: terms?.quoteUri ?? webUrl(note.quoteId ?? note.quoteUrl ?? null),
    quoteAuthorizationUri: webUrl(note.quoteAuthorizationId ?? null),
    conversationUri: object.contextIds.length ? webUrl(object.contextIds[0]) : null,
    mentionUris,
    addressed,
    tagNames,
    emojis: options.rejectMedia ? [] : emojis,
    media: (await readMedia(object, terms?.media ?? new Map(), options.maxMedia)).map((m) =>
      options.rejectMedia ? { ...m, type: "unknown", blurhash: null, meta: {} } : m
    ),
    poll: object instanceof Question ? await readPoll(object, terms?.votersCount ?? null) : null,
    quotePolicy: quotePolicyOf(object),
    published: toDate(object.published),
    updated: toDate(object.updated),
    cardLink: terms ? terms.cardLink : await cardLinkOf(object),
    name: name ? htmlToText(name, { oneLine: true, maxLength: 500 }) : null,
    hasContent: (rawContent ?? "").trim() !== "",
  };
}
