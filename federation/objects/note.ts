/**
 * The ActivityPub object of a local status: a Note (a Question when it has
 * a poll), built from the stored rows. The object dispatcher at
 * `/users/{identifier}/statuses/{id}` serves it, and deliveries (Create,
 * Update) reuse {@link buildNote} so fetchers and inboxes see the same
 * document.
 *
 * Addressing follows Mastodon: public → to Public, cc followers; unlisted →
 * to followers, cc Public; private → to followers; direct → mentioned
 * accounts only. Mentioned accounts are always addressed (cc, or to for
 * private and direct).
 *
 * Who may fetch it: the visibility module decides, with the signed fetcher's
 * account as viewer when the request is signed by an account we know, and
 * anonymous otherwise (public and unlisted only). A status one may not see
 * is a 404 like a missing one; a deleted one is a 410 Tombstone (answered by
 * the page routes, which Fedify hands the request to when this returns null).
 */
import type { Context, Federation, RequestContext } from "@fedify/fedify";
import {
  Collection,
  Document,
  Hashtag,
  Link,
  Mention,
  Note,
  PUBLIC_COLLECTION,
  Question,
} from "@fedify/vocab";
import { and, eq, inArray, isNull } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Executor } from "../../db/connection.ts";
import {
  accounts,
  customEmojis,
  mediaAttachments,
  mentions,
  polls,
  previewCards,
  quotes,
  statusCustomEmojis,
  statuses,
  statusPreviewCards,
  statusTags,
  tags,
} from "../../db/schema/mod.ts";
import { anyId } from "../../db/queries/any_id.ts";
import { canSeeStatus } from "../../db/queries/visibility.ts";
import { withNoteExtras } from "./note_extras.ts";
import { mediaFileUrl } from "../../actors/media/profile_media.ts";
import { mayHaveEmoji } from "../../actors/emoji/shortcodes.ts";
import { pollShowsTotals } from "../../actors/polls/totals.ts";
import { emojiTag } from "./emoji.ts";
import { authorizeFetch, signedFetcher } from "../dispatchers/authorized_fetch.ts";
import { type NoteTerms, WireNote, WireQuestion } from "./mastodon_terms.ts";
import { LOCAL_PATHS, localUris } from "../../model/uris.ts";

export type StatusRow = typeof statuses.$inferSelect;

/** What a Note needs besides the status row; {@link loadNoteData} reads it. */
export interface NoteData {
  author: { username: string; uri: string };
  mentions: { uri: string; url: string | null; handle: string }[];
  tags: string[];
  media: (typeof mediaAttachments.$inferSelect)[];
  poll: typeof polls.$inferSelect | null;
  quotedUri: string | null;
  /** Custom emoji the text uses (Emoji tags). */
  emojis: (typeof customEmojis.$inferSelect)[];
  /** The page of its preview card, sent as a `Link` attachment (FEP-8967, Mastodon 4.7). */
  cardUrl: string | null;
}

function instant(date: Date): Temporal.Instant {
  return Temporal.Instant.fromEpochMilliseconds(date.getTime());
}

/** Reads what {@link buildNote} needs for a status (a few small queries). */
export async function loadNoteData(
  db: Executor,
  origin: string,
  status: StatusRow,
): Promise<NoteData | null> {
  return (await loadNotesData(db, origin, [status])).get(status.id) ?? null;
}

/**
 * Reads what {@link buildNote} needs for many statuses at once (a page of a
 * collection): one query per kind of row, never one per status. Statuses
 * whose author is missing are left out of the map.
 */
export async function loadNotesData(
  db: Executor,
  origin: string,
  rows: readonly StatusRow[],
): Promise<Map<string, NoteData>> {
  const result = new Map<string, NoteData>();
  if (rows.length === 0) return result;
  const ids = rows.map((s) => s.id);
  const pollIds = rows.flatMap((s) => s.pollId ? [s.pollId] : []);
  // A poll's options are not on the row: a status with one may have emoji.
  const emojiIds = rows.filter((s) => s.pollId != null || mayHaveEmoji([s.content, s.spoilerText]))
    .map((s) => s.id);
  const [authors, mentioned, tagRows, media, pollRows, quoteRows, emojis, cards] = await Promise
    .all([
      db.select({ id: accounts.id, username: accounts.username, uri: accounts.uri })
        .from(accounts).where(anyId(accounts.id, [...new Set(rows.map((s) => s.accountId))])),
      db.select({
        statusId: mentions.statusId,
        uri: accounts.uri,
        url: accounts.url,
        username: accounts.username,
        domain: accounts.domain,
      }).from(mentions).innerJoin(accounts, eq(accounts.id, mentions.accountId))
        .where(anyId(mentions.statusId, ids)),
      db.select({ statusId: statusTags.statusId, name: tags.name }).from(statusTags)
        .innerJoin(tags, eq(tags.id, statusTags.tagId)).where(anyId(statusTags.statusId, ids)),
      db.select().from(mediaAttachments).where(anyId(mediaAttachments.statusId, ids))
        .orderBy(mediaAttachments.id),
      pollIds.length ? db.select().from(polls).where(anyId(polls.id, pollIds)) : [],
      db.select({ statusId: quotes.statusId, uri: statuses.uri }).from(quotes)
        .innerJoin(statuses, eq(statuses.id, quotes.quotedStatusId))
        .where(anyId(quotes.statusId, ids)),
      emojiIds.length
        ? db.select({ statusId: statusCustomEmojis.statusId, emoji: customEmojis })
          .from(statusCustomEmojis)
          .innerJoin(customEmojis, eq(customEmojis.id, statusCustomEmojis.customEmojiId))
          .where(
            and(anyId(statusCustomEmojis.statusId, emojiIds), eq(customEmojis.disabled, false)),
          )
        : [],
      db.select({ statusId: statusPreviewCards.statusId, url: previewCards.url })
        .from(statusPreviewCards)
        .innerJoin(previewCards, eq(previewCards.id, statusPreviewCards.previewCardId))
        .where(anyId(statusPreviewCards.statusId, ids)),
    ]);
  const domain = new URL(origin).host;
  for (const status of rows) {
    const author = authors.find((a) => a.id === status.accountId);
    if (!author) continue;
    result.set(status.id, {
      author: { username: author.username, uri: author.uri },
      mentions: mentioned.filter((m) => m.statusId === status.id).map((m) => ({
        uri: m.uri,
        url: m.url,
        handle: `@${m.username}@${m.domain ?? domain}`,
      })),
      tags: tagRows.filter((t) => t.statusId === status.id).map((t) => t.name),
      media: media.filter((m) => m.statusId === status.id),
      poll: pollRows.find((p) => p.id === status.pollId) ?? null,
      quotedUri: quoteRows.find((q) => q.statusId === status.id)?.uri ?? null,
      emojis: emojis.filter((e) => e.statusId === status.id).map((e) => e.emoji),
      cardUrl: cards.find((c) => c.statusId === status.id)?.url ?? null,
    });
  }
  return result;
}

/** The Note (or Question) of a local status with its thread, quote policy and quote; null without data. */
export async function localNote(
  ctx: Context<AppContext>,
  status: StatusRow,
): Promise<Note | Question | null> {
  const data = await loadNoteData(ctx.data.database.db, ctx.data.config.origin, status);
  if (!data) return null;
  // Thread, quote policy and quote (note_extras.ts), as deliveries send them.
  return await withNoteExtras(ctx, status, buildNote(ctx, status, data));
}

/** To and cc of a status by its visibility, as Mastodon's TagManager addresses it. */
function addressing(visibility: string, followers: URL, mentioned: URL[]) {
  switch (visibility) {
    case "public":
      return { tos: [PUBLIC_COLLECTION], ccs: [followers, ...mentioned] };
    case "unlisted":
      return { tos: [followers], ccs: [PUBLIC_COLLECTION, ...mentioned] };
    case "private":
      return { tos: [followers, ...mentioned], ccs: [] };
    default:
      return { tos: mentioned, ccs: [] };
  }
}

/** The Mention, Hashtag and Emoji tags of a note. */
function noteTags(origin: string, data: NoteData) {
  return [
    ...data.mentions.map((m) => new Mention({ href: new URL(m.url ?? m.uri), name: m.handle })),
    ...data.tags.map((name) =>
      new Hashtag({
        href: new URL(localUris(origin).tag(name.toLowerCase())),
        name: `#${name.toLowerCase()}`,
      })
    ),
    ...data.emojis.map((e) => emojiTag(origin, e)).filter((e) => e != null),
  ];
}

/** The preview card's page, sent after the media as a `Link`, as Mastodon 4.7 writes it. */
function cardAttachment(cardUrl: string | null): Link[] {
  return cardUrl && URL.canParse(cardUrl)
    ? [new Link({ href: new URL(cardUrl), mediaType: "text/html" })]
    : [];
}

/**
 * The attachments of a note as Documents; their blurhash and focal point,
 * which Fedify's vocabulary lacks, go into `terms` for mastodon_terms.ts.
 */
function noteAttachments(origin: string, media: NoteData["media"], terms: NoteTerms): Document[] {
  return media.map((m) => {
    // As the API's attachment `url`: none while processing, else ours or the remote one.
    const url = m.state === "processing" ? null : mediaFileUrl(origin, m.filePath) ?? m.remoteUrl;
    const meta = m.meta as {
      original?: { width?: number; height?: number };
      focus?: { x?: unknown; y?: unknown };
    };
    const original = meta.original;
    const focus = meta.focus;
    if (url) {
      terms.attachments.set(url, {
        blurhash: m.blurhash,
        focalPoint: typeof focus?.x === "number" && typeof focus?.y === "number"
          ? [focus.x, focus.y]
          : null,
      });
    }
    return new Document({
      mediaType: m.contentType ?? undefined,
      url: url ? new URL(url) : null,
      name: m.description ?? null,
      width: original?.width ?? null,
      height: original?.height ?? null,
    });
  });
}

/** The poll's part of a Question: its options (with totals unless hidden), end and voters. */
function questionFields(poll: NonNullable<NoteData["poll"]>) {
  // Hidden totals stay hidden from other servers too, until the poll ends.
  const totals = pollShowsTotals(poll);
  const options = poll.options.map((name, i) =>
    new Note({
      name,
      replies: new Collection(totals ? { totalItems: poll.tallies[i] ?? 0 } : {}),
    })
  );
  return {
    ...(poll.multiple ? { inclusiveOptions: options } : { exclusiveOptions: options }),
    endTime: poll.expiresAt ? instant(poll.expiresAt) : null,
    closed: poll.expiresAt && poll.expiresAt <= new Date() ? instant(poll.expiresAt) : null,
    voters: poll.votersCount,
  };
}

/** Builds the Note (or Question) of a local status. */
export function buildNote(
  ctx: Context<AppContext>,
  status: StatusRow,
  data: NoteData,
): Note | Question {
  const origin = ctx.data.config.origin;
  const followers = ctx.getFollowersUri(data.author.username);
  const mentioned = data.mentions.map((m) => new URL(m.uri));
  const terms: NoteTerms = {
    language: status.language,
    content: status.content,
    summary: status.spoilerText || null,
    attachments: new Map(),
  };
  const props = {
    id: new URL(status.uri),
    attribution: new URL(data.author.uri),
    ...addressing(status.visibility, followers, mentioned),
    content: status.content,
    summary: status.spoilerText || null,
    sensitive: status.sensitive,
    published: instant(status.createdAt),
    updated: status.editedAt ? instant(status.editedAt) : null,
    url: status.url ? new URL(status.url) : null,
    replyTarget: status.inReplyToUri ? new URL(status.inReplyToUri) : null,
    tags: noteTags(origin, data),
    attachments: [...noteAttachments(origin, data.media, terms), ...cardAttachment(data.cardUrl)],
    quoteUrl: data.quotedUri ? new URL(data.quotedUri) : null,
  };
  const object = data.poll
    ? new WireQuestion({ ...props, ...questionFields(data.poll) })
    : new WireNote(props);
  object.mastodonTerms.set(new URL(status.uri).href, terms);
  return object;
}

/**
 * The account of whoever signed the request, if we know it (else anonymous).
 * The signature is checked once per request, as authorized fetch checks it.
 */
export async function fetcherAccountId(ctx: RequestContext<AppContext>): Promise<string | null> {
  const signer = await signedFetcher(ctx);
  if (!signer) return null;
  const [row] = await ctx.data.database.db.select({ id: accounts.id }).from(accounts)
    .where(and(eq(accounts.uri, signer.actorId.href), isNull(accounts.deletedAt)));
  return row?.id ?? null;
}

/** The local, not deleted status behind a Note URL's parameters, or null. */
export async function findLocalStatus(
  db: Executor,
  username: string,
  id: string,
): Promise<StatusRow | null> {
  if (!/^[0-9]{1,19}$/.test(id)) return null;
  const [row] = await db.select({ status: statuses, username: accounts.username }).from(statuses)
    .innerJoin(accounts, eq(accounts.id, statuses.accountId))
    .where(and(
      eq(statuses.id, id),
      eq(statuses.local, true),
      isNull(statuses.reblogOfId),
      inArray(accounts.username, [username]),
    ));
  return row?.status ?? null;
}

/** Registers the Note object dispatcher. */
export function registerNoteDispatcher(federation: Federation<AppContext>): void {
  federation.setObjectDispatcher(Note, LOCAL_PATHS.status, async (ctx, values) => {
    const db = ctx.data.database.db;
    const status = await findLocalStatus(db, values.identifier, values.id);
    if (!status || status.deletedAt) return null;
    const viewer = await fetcherAccountId(ctx);
    if (!await canSeeStatus(db, viewer, status)) return null;
    // A Question is served at the same path; Fedify only checks it is an Object.
    return await localNote(ctx, status) as Note | null;
  }).authorize((ctx, values) => authorizeFetch(ctx, values.identifier));
}
