/**
 * The Status entity (Mastodon 4.5): the one serializer from `statuses` rows
 * to JSON, used by every route that shows statuses.
 *
 * {@link serializeStatuses} hydrates a whole page at once: it gathers every
 * status the page shows (the rows, the statuses they boost, the statuses
 * those quote), then loads each kind of related row with one query (accounts,
 * media, mentions, tags, polls and votes, applications, cards, quotes and the
 * viewer's favourites, boosts, bookmarks, pins and muted threads), never one
 * query per row.
 *
 * Decisions:
 * - A boost (reblog wrapper) shows no content of its own, as Mastodon: empty
 *   content, no media, mentions, tags, poll or card, and the viewer flags of
 *   the boosted status.
 * - `pinned` is present only on the viewer's own pinnable statuses (public,
 *   unlisted, private originals); the viewer flags are absent anonymously.
 * - A quote shows the quoted status only when the quote is accepted and the
 *   viewer may see the quoted status; one level deep, deeper quotes are
 *   ShallowQuotes.
 * - `text` (the plain source) is added only by the delete response.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Executor } from "../../db/connection.ts";
import {
  accounts,
  bookmarks,
  conversationMutes,
  favourites,
  follows,
  mentions,
  oauthApplications,
  previewCards,
  quotes,
  statuses,
  statusPins,
  statusPreviewCards,
  statusTags,
  tags,
} from "../../db/schema.ts";
import { visibleStatusIds } from "../../db/queries/visibility.ts";
import { type Account, acctOf, loadAccountEntities } from "./account.ts";
import {
  loadMediaByStatus,
  mediaAttachmentEntity,
  type MediaAttachmentJson,
} from "./media_attachment.ts";
import { loadPolls, pollEntity, type PollJson } from "./poll.ts";

export type StatusRow = typeof statuses.$inferSelect;

/** Who is looking: null for anonymous requests. */
export type Viewer = { accountId: string } | null;

/** A mention as the Status entity shows it. */
export interface MentionJson {
  id: string;
  username: string;
  url: string;
  acct: string;
}

/** Quote (the quoted status inline) or ShallowQuote (its id only). */
export type QuoteJson =
  | { state: string; quoted_status: StatusJson | null }
  | { state: string; quoted_status_id: string | null };

/** QuoteApproval (Mastodon 4.5). */
export interface QuoteApprovalJson {
  automatic: string[];
  manual: string[];
  current_user: "automatic" | "manual" | "denied" | "unknown";
}

/** A PreviewCard. */
export interface PreviewCardJson {
  url: string;
  title: string;
  description: string;
  type: string;
  authors: { name: string; url: string; account: null }[];
  author_name: string;
  author_url: string;
  provider_name: string;
  provider_url: string;
  html: string;
  width: number;
  height: number;
  image: string | null;
  image_description: string;
  embed_url: string;
  blurhash: string | null;
  published_at: null;
}

/** The Status entity. */
export interface StatusJson {
  id: string;
  created_at: string;
  in_reply_to_id: string | null;
  in_reply_to_account_id: string | null;
  sensitive: boolean;
  spoiler_text: string;
  visibility: string;
  language: string | null;
  uri: string;
  url: string | null;
  replies_count: number;
  reblogs_count: number;
  favourites_count: number;
  quotes_count: number;
  edited_at: string | null;
  favourited?: boolean;
  reblogged?: boolean;
  muted?: boolean;
  bookmarked?: boolean;
  pinned?: boolean;
  content: string;
  text?: string | null;
  filtered?: unknown[];
  reblog: StatusJson | null;
  application?: { name: string; website: string | null };
  account: Account;
  media_attachments: MediaAttachmentJson[];
  mentions: MentionJson[];
  tags: { name: string; url: string }[];
  emojis: unknown[];
  quote: QuoteJson | null;
  quote_approval: QuoteApprovalJson;
  card: PreviewCardJson | null;
  poll: PollJson | null;
}

/** Everything loaded for a page, keyed by status id (or account/poll id). */
interface Hydration {
  statuses: Map<string, StatusRow>;
  accounts: Map<string, Account>;
  media: Map<string, ReturnType<typeof mediaAttachmentEntity>[]>;
  mentions: Map<string, MentionJson[]>;
  tags: Map<string, { name: string; url: string }[]>;
  polls: Awaited<ReturnType<typeof loadPolls>>;
  applications: Map<string, { name: string; website: string | null }>;
  cards: Map<string, PreviewCardJson>;
  quotes: Map<string, { state: string; quotedStatusId: string | null }>;
  /** Quoted statuses the viewer may see. */
  visibleQuoted: Set<string>;
  favourited: Set<string>;
  reblogged: Set<string>;
  bookmarked: Set<string>;
  pinned: Set<string>;
  mutedConversations: Set<string>;
  /** Authors the viewer follows (for quote_approval). */
  followedAuthors: Set<string>;
}

function unique(ids: Iterable<string | null | undefined>): string[] {
  const set = new Set<string>();
  for (const id of ids) if (id != null) set.add(id);
  return [...set];
}

async function statusRows(db: Executor, ids: string[]): Promise<StatusRow[]> {
  if (ids.length === 0) return [];
  return await db.select().from(statuses).where(inArray(statuses.id, ids));
}

function group<T>(rows: T[], key: (row: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const row of rows) {
    const k = key(row);
    const list = out.get(k);
    if (list) list.push(row);
    else out.set(k, [row]);
  }
  return out;
}

function cardEntity(row: typeof previewCards.$inferSelect): PreviewCardJson {
  return {
    url: row.url,
    title: row.title,
    description: row.description,
    type: row.type,
    authors: row.authorName ? [{ name: row.authorName, url: row.authorUrl, account: null }] : [],
    author_name: row.authorName,
    author_url: row.authorUrl,
    provider_name: row.providerName,
    provider_url: row.providerUrl,
    html: row.html,
    width: row.width,
    height: row.height,
    image: row.imageUrl,
    image_description: "",
    embed_url: row.embedUrl,
    blurhash: row.blurhash,
    published_at: null,
  };
}

async function hydrate(ctx: AppContext, rows: StatusRow[], viewer: Viewer): Promise<Hydration> {
  const db = ctx.database.db;
  const origin = ctx.config.origin;
  const all = new Map(rows.map((r) => [r.id, r]));
  // Boosted statuses, then the quotes of everything shown.
  for (
    const r of await statusRows(
      db,
      unique(rows.map((r) => r.reblogOfId)).filter((id) => !all.has(id)),
    )
  ) {
    all.set(r.id, r);
  }
  const quoteRows = await db.select({
    statusId: quotes.statusId,
    state: quotes.state,
    quotedStatusId: quotes.quotedStatusId,
  }).from(quotes).where(inArray(quotes.statusId, [...all.keys()]));
  const quoteMap = new Map(quoteRows.map((q) => [q.statusId, q]));
  const quotedIds = unique(quoteRows.map((q) => q.state === "accepted" ? q.quotedStatusId : null));
  const visibleQuoted = await visibleStatusIds(
    db,
    viewer?.accountId ?? null,
    quotedIds,
  );
  for (const r of await statusRows(db, [...visibleQuoted].filter((id) => !all.has(id)))) {
    all.set(r.id, r);
  }
  const ids = [...all.keys()];
  const originals = [...all.values()].filter((r) => r.reblogOfId == null);
  const originalIds = originals.map((r) => r.id);

  const accountList = await loadAccountEntities(
    db,
    ctx.config,
    unique([...all.values()].map((r) => r.accountId)),
  );
  const media = new Map<string, MediaAttachmentJson[]>();
  for (const [statusId, list] of await loadMediaByStatus(db, originalIds)) {
    media.set(statusId, list.map((m) => mediaAttachmentEntity(ctx.config, m)));
  }
  const mentionRows = originalIds.length
    ? await db.select({
      statusId: mentions.statusId,
      id: accounts.id,
      username: accounts.username,
      domain: accounts.domain,
      url: accounts.url,
      uri: accounts.uri,
    }).from(mentions).innerJoin(accounts, eq(accounts.id, mentions.accountId))
      .where(and(inArray(mentions.statusId, originalIds), eq(mentions.silent, false)))
      .orderBy(mentions.id)
    : [];
  const tagRows = originalIds.length
    ? await db.select({ statusId: statusTags.statusId, name: tags.name })
      .from(statusTags).innerJoin(tags, eq(tags.id, statusTags.tagId))
      .where(inArray(statusTags.statusId, originalIds))
    : [];
  const polls = await loadPolls(db, unique(originals.map((r) => r.pollId)), viewer);
  const appIds = unique(originals.map((r) => r.local ? r.applicationId : null));
  const appRows = appIds.length
    ? await db.select({
      id: oauthApplications.id,
      name: oauthApplications.name,
      website: oauthApplications.website,
    }).from(oauthApplications).where(inArray(oauthApplications.id, appIds))
    : [];
  const cardRows = originalIds.length
    ? await db.select({ statusId: statusPreviewCards.statusId, card: previewCards })
      .from(statusPreviewCards)
      .innerJoin(previewCards, eq(previewCards.id, statusPreviewCards.previewCardId))
      .where(inArray(statusPreviewCards.statusId, originalIds))
    : [];

  const h: Hydration = {
    statuses: all,
    accounts: new Map(accountList.map((a) => [a.id, a])),
    media,
    mentions: new Map(
      [...group(mentionRows, (m) => m.statusId)].map(([k, list]) => [
        k,
        list.map((m) => ({
          id: m.id,
          username: m.username,
          url: m.url ?? m.uri,
          acct: acctOf(m),
        })),
      ]),
    ),
    tags: new Map(
      [...group(tagRows, (t) => t.statusId)].map(([k, list]) => [
        k,
        list.map((t) => ({
          name: t.name.toLowerCase(),
          url: `${origin}/tags/${encodeURIComponent(t.name.toLowerCase())}`,
        })),
      ]),
    ),
    polls,
    applications: new Map(appRows.map((a) => [a.id, { name: a.name, website: a.website }])),
    cards: new Map(cardRows.map((c) => [c.statusId, cardEntity(c.card)])),
    quotes: new Map([...quoteMap].map(([k, q]) => [k, q])),
    visibleQuoted,
    favourited: new Set(),
    reblogged: new Set(),
    bookmarked: new Set(),
    pinned: new Set(),
    mutedConversations: new Set(),
    followedAuthors: new Set(),
  };
  if (viewer) await hydrateViewer(db, viewer.accountId, [...all.values()], ids, h);
  return h;
}

/** The viewer's relations to the page's statuses: one query per kind. */
async function hydrateViewer(
  db: Executor,
  viewerId: string,
  rows: StatusRow[],
  ids: string[],
  h: Hydration,
): Promise<void> {
  const fav = await db.select({ id: favourites.statusId }).from(favourites)
    .where(and(eq(favourites.accountId, viewerId), inArray(favourites.statusId, ids)));
  fav.forEach((r) => h.favourited.add(r.id));
  const boosts = await db.select({ id: statuses.reblogOfId }).from(statuses).where(and(
    eq(statuses.accountId, viewerId),
    inArray(statuses.reblogOfId, ids),
    sql`${statuses.deletedAt} IS NULL`,
  ));
  boosts.forEach((r) => r.id && h.reblogged.add(r.id));
  const marks = await db.select({ id: bookmarks.statusId }).from(bookmarks)
    .where(and(eq(bookmarks.accountId, viewerId), inArray(bookmarks.statusId, ids)));
  marks.forEach((r) => h.bookmarked.add(r.id));
  const own = rows.filter((r) => r.accountId === viewerId).map((r) => r.id);
  if (own.length) {
    const pins = await db.select({ id: statusPins.statusId }).from(statusPins)
      .where(and(eq(statusPins.accountId, viewerId), inArray(statusPins.statusId, own)));
    pins.forEach((r) => h.pinned.add(r.id));
  }
  const threads = unique(rows.map((r) => r.conversationId));
  if (threads.length) {
    const muted = await db.select({ id: conversationMutes.conversationId })
      .from(conversationMutes).where(and(
        eq(conversationMutes.accountId, viewerId),
        inArray(conversationMutes.conversationId, threads),
      ));
    muted.forEach((r) => h.mutedConversations.add(r.id));
  }
  const authors = unique(
    rows.map((r) => r.quoteApprovalPolicy === "followers" ? r.accountId : null),
  );
  if (authors.length) {
    const followed = await db.select({ id: follows.targetAccountId }).from(follows)
      .where(and(eq(follows.accountId, viewerId), inArray(follows.targetAccountId, authors)));
    followed.forEach((r) => h.followedAuthors.add(r.id));
  }
}

/** Who may quote a status, and whether the viewer may (QuoteApproval). */
function quoteApproval(row: StatusRow, viewer: Viewer, h: Hydration): QuoteApprovalJson {
  const quotable = row.visibility === "public" || row.visibility === "unlisted";
  const policy = quotable ? row.quoteApprovalPolicy : "nobody";
  const automatic = policy === "public" ? ["public"] : policy === "followers" ? ["followers"] : [];
  let current: QuoteApprovalJson["current_user"];
  if (!viewer) current = "unknown";
  else if (viewer.accountId === row.accountId) {
    current = row.visibility === "direct" ? "denied" : "automatic";
  } else if (policy === "public") current = "automatic";
  else if (policy === "followers" && h.followedAuthors.has(row.accountId)) current = "automatic";
  else current = "denied";
  return { automatic, manual: [], current_user: current };
}

function build(
  row: StatusRow,
  viewer: Viewer,
  h: Hydration,
  depth: number,
): StatusJson | null {
  const account = h.accounts.get(row.accountId);
  if (!account) return null;
  const boosted = row.reblogOfId ? h.statuses.get(row.reblogOfId) : undefined;
  const reblog = boosted ? build(boosted, viewer, h, depth) : null;
  if (row.reblogOfId && !reblog) return null;
  const proper = boosted ?? row;
  const poll = !boosted && row.pollId ? h.polls.polls.get(row.pollId) : undefined;
  let quote: QuoteJson | null = null;
  const q = !boosted ? h.quotes.get(row.id) : undefined;
  if (q) {
    const visible = q.state === "accepted" && q.quotedStatusId != null &&
      h.visibleQuoted.has(q.quotedStatusId);
    if (depth > 0) {
      quote = { state: q.state, quoted_status_id: q.quotedStatusId };
    } else {
      const quoted = visible ? h.statuses.get(q.quotedStatusId!) : undefined;
      quote = { state: q.state, quoted_status: quoted ? build(quoted, viewer, h, 1) : null };
    }
  }
  const json: StatusJson = {
    id: row.id,
    created_at: row.createdAt.toISOString(),
    in_reply_to_id: boosted ? null : row.inReplyToId,
    in_reply_to_account_id: boosted ? null : row.inReplyToAccountId,
    sensitive: boosted ? false : row.sensitive,
    spoiler_text: boosted ? "" : row.spoilerText,
    visibility: row.visibility,
    language: boosted ? null : row.language,
    uri: row.uri,
    url: row.url,
    replies_count: boosted ? 0 : row.repliesCount,
    reblogs_count: boosted ? 0 : row.reblogsCount,
    favourites_count: boosted ? 0 : row.favouritesCount,
    quotes_count: boosted ? 0 : row.quotesCount,
    edited_at: boosted ? null : row.editedAt?.toISOString() ?? null,
    content: boosted ? "" : row.content,
    reblog,
    account,
    media_attachments: boosted ? [] : h.media.get(row.id) ?? [],
    mentions: boosted ? [] : h.mentions.get(row.id) ?? [],
    tags: boosted ? [] : h.tags.get(row.id) ?? [],
    emojis: [],
    quote,
    quote_approval: quoteApproval(proper, viewer, h),
    card: boosted ? null : h.cards.get(row.id) ?? null,
    poll: poll ? pollEntity(poll, viewer, h.polls.votes.get(poll.id) ?? []) : null,
  };
  const app = !boosted && row.local && row.applicationId
    ? h.applications.get(row.applicationId)
    : undefined;
  if (app) json.application = app;
  if (viewer) {
    json.favourited = h.favourited.has(proper.id);
    json.reblogged = h.reblogged.has(proper.id);
    json.muted = proper.conversationId != null && h.mutedConversations.has(proper.conversationId);
    json.bookmarked = h.bookmarked.has(proper.id);
    if (
      row.accountId === viewer.accountId && !boosted &&
      ["public", "unlisted", "private"].includes(row.visibility)
    ) {
      json.pinned = h.pinned.has(row.id);
    }
    json.filtered = [];
  }
  return orderKeys(json);
}

/** Mastodon's key order, so answers read like Mastodon's. */
const KEY_ORDER: (keyof StatusJson)[] = [
  "id",
  "created_at",
  "in_reply_to_id",
  "in_reply_to_account_id",
  "sensitive",
  "spoiler_text",
  "visibility",
  "language",
  "uri",
  "url",
  "replies_count",
  "reblogs_count",
  "favourites_count",
  "quotes_count",
  "edited_at",
  "favourited",
  "reblogged",
  "muted",
  "bookmarked",
  "pinned",
  "content",
  "text",
  "filtered",
  "reblog",
  "application",
  "account",
  "media_attachments",
  "mentions",
  "tags",
  "emojis",
  "quote",
  "quote_approval",
  "card",
  "poll",
];

function orderKeys(json: StatusJson): StatusJson {
  const out: Record<string, unknown> = {};
  for (const key of KEY_ORDER) if (key in json) out[key] = json[key];
  return out as unknown as StatusJson;
}

/**
 * Serializes a page of statuses for a viewer (null: anonymous), in the order
 * given. Rows whose author (or boosted status) cannot be loaded are skipped;
 * callers filter visibility before (see db/queries/visibility.ts).
 */
export async function serializeStatuses(
  ctx: AppContext,
  rows: readonly StatusRow[],
  viewer: Viewer,
): Promise<StatusJson[]> {
  if (rows.length === 0) return [];
  const h = await hydrate(ctx, [...rows], viewer);
  return rows.map((r) => build(r, viewer, h, 0)).filter((s): s is StatusJson => s != null);
}

/** Serializes one status (see {@link serializeStatuses}); null if it cannot be shown. */
export async function serializeStatus(
  ctx: AppContext,
  row: StatusRow,
  viewer: Viewer,
): Promise<StatusJson | null> {
  const [json] = await serializeStatuses(ctx, [row], viewer);
  return json ?? null;
}

/** Loads statuses by id and serializes them in the order of `ids` (missing ids skipped). */
export async function serializeStatusIds(
  ctx: AppContext,
  ids: readonly string[],
  viewer: Viewer,
): Promise<StatusJson[]> {
  const rows = await statusRows(ctx.database.db, unique(ids));
  const byId = new Map(rows.map((r) => [r.id, r]));
  return await serializeStatuses(
    ctx,
    ids.map((id) => byId.get(id)).filter((r): r is StatusRow => r != null),
    viewer,
  );
}
