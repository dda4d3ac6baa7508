/**
 * Loading for the Status serializer (api/entities/status.ts): everything a
 * page of statuses shows, in a few concurrent batches.
 *
 * 1. the boosted statuses and the quotes of everything on the page (at once:
 *    both are keyed by ids the page rows already carry);
 * 2. when some status quotes another: which quoted statuses the viewer may
 *    see, and their rows;
 * 3. at once: accounts, media, mentions, tags, polls, applications, cards
 *    and the viewer's flags (one query for all six kinds of flag).
 *
 * Every query takes its ids as one array parameter (db/queries/any_id.ts) and
 * is prepared, so its text and plan are reused across pages; a query whose
 * input is empty is not sent. On PostgreSQL the batches' queries run on
 * several pool connections at once; PGlite runs them one after another.
 */
import { and, eq, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Executor } from "../../db/connection.ts";
import {
  accounts,
  mentions,
  oauthApplications,
  previewCards,
  quotes,
  statuses,
  statusPreviewCards,
  statusTags,
  tags,
} from "../../db/schema.ts";
import { anyId } from "../../db/queries/any_id.ts";
import { prepared } from "../../db/queries/prepared.ts";
import { visibleStatusIds } from "../../db/queries/visibility.ts";
import { type Account, acctOf, loadAccountEntities } from "./account.ts";
import { loadMediaByStatus, mediaAttachmentEntity } from "./media_attachment.ts";
import { loadPolls } from "./poll.ts";
import { type CustomEmoji, loadStatusEmojis, statusMayHaveEmoji } from "./custom_emoji.ts";
import type { MentionJson, PreviewCardJson, StatusRow, Viewer } from "./status.ts";

/** Everything loaded for a page, keyed by status id (or account/poll id). */
export interface Hydration {
  statuses: Map<string, StatusRow>;
  accounts: Map<string, Account>;
  media: Map<string, ReturnType<typeof mediaAttachmentEntity>[]>;
  mentions: Map<string, MentionJson[]>;
  tags: Map<string, { name: string; url: string }[]>;
  emojis: Map<string, CustomEmoji[]>;
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

/** The distinct non-null ids, in first-seen order. */
export function unique(ids: Iterable<string | null | undefined>): string[] {
  const set = new Set<string>();
  for (const id of ids) if (id != null) set.add(id);
  return [...set];
}

/** Status rows by id (one prepared query; none when `ids` is empty). */
export async function statusRows(db: Executor, ids: string[]): Promise<StatusRow[]> {
  if (ids.length === 0) return [];
  return await prepared(
    db,
    "status_rows",
    () => db.select().from(statuses).where(anyId(statuses.id, IDS)).prepare("status_rows"),
  ).execute({ ids });
}

/** The placeholder every one-array query here is executed with. */
const IDS = sql.placeholder("ids");

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
    language: null,
    type: row.type,
    // Mastodon lists one author when the page names one (by name or link).
    authors: row.authorName || row.authorUrl
      ? [{ name: row.authorName, url: row.authorUrl, account: null }]
      : [],
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

async function quoteRows(db: Executor, ids: string[]) {
  return await prepared(db, "status_quotes", () =>
    db.select({
      statusId: quotes.statusId,
      state: quotes.state,
      quotedStatusId: quotes.quotedStatusId,
    }).from(quotes).where(anyId(quotes.statusId, IDS)).prepare("status_quotes")).execute({ ids });
}

async function mentionRows(db: Executor, ids: string[]) {
  if (ids.length === 0) return [];
  return await prepared(db, "status_mentions", () =>
    db.select({
      statusId: mentions.statusId,
      id: accounts.id,
      username: accounts.username,
      domain: accounts.domain,
      url: accounts.url,
      uri: accounts.uri,
    }).from(mentions).innerJoin(accounts, eq(accounts.id, mentions.accountId))
      .where(and(anyId(mentions.statusId, IDS), eq(mentions.silent, false)))
      .orderBy(mentions.id).prepare("status_mentions")).execute({ ids });
}

async function tagRows(db: Executor, ids: string[]) {
  if (ids.length === 0) return [];
  return await prepared(
    db,
    "status_tags",
    () =>
      db.select({ statusId: statusTags.statusId, name: tags.name })
        .from(statusTags).innerJoin(tags, eq(tags.id, statusTags.tagId))
        .where(anyId(statusTags.statusId, IDS)).prepare("status_tags"),
  ).execute({ ids });
}

async function applicationRows(db: Executor, ids: string[]) {
  if (ids.length === 0) return [];
  return await prepared(db, "status_applications", () =>
    db.select({
      id: oauthApplications.id,
      name: oauthApplications.name,
      website: oauthApplications.website,
    }).from(oauthApplications).where(anyId(oauthApplications.id, IDS))
      .prepare("status_applications")).execute({ ids });
}

async function cardRows(db: Executor, ids: string[]) {
  if (ids.length === 0) return [];
  return await prepared(
    db,
    "status_cards",
    () =>
      db.select({ statusId: statusPreviewCards.statusId, card: previewCards })
        .from(statusPreviewCards)
        .innerJoin(previewCards, eq(previewCards.id, statusPreviewCards.previewCardId))
        .where(anyId(statusPreviewCards.statusId, IDS)).prepare("status_cards"),
  ).execute({ ids });
}

/** Loads everything a page of statuses shows for the viewer. */
export async function hydrate(
  ctx: AppContext,
  rows: StatusRow[],
  viewer: Viewer,
): Promise<Hydration> {
  const db = ctx.database.db;
  const origin = ctx.config.origin;
  const all = new Map(rows.map((r) => [r.id, r]));
  // Boosted statuses, and the quotes of everything shown (boosted included).
  const boostedIds = unique(rows.map((r) => r.reblogOfId)).filter((id) => !all.has(id));
  const [boosted, quoteList] = await Promise.all([
    statusRows(db, boostedIds),
    quoteRows(db, [...all.keys(), ...boostedIds]),
  ]);
  for (const r of boosted) all.set(r.id, r);
  const quoteMap = new Map(
    quoteList.filter((q) => all.has(q.statusId)).map((q) => [
      q.statusId,
      q,
    ]),
  );
  const quotedIds = unique(
    [...quoteMap.values()].map((q) => q.state === "accepted" ? q.quotedStatusId : null),
  );
  const visibleQuoted = await visibleStatusIds(db, viewer?.accountId ?? null, quotedIds);
  for (const r of await statusRows(db, [...visibleQuoted].filter((id) => !all.has(id)))) {
    all.set(r.id, r);
  }
  const shown = [...all.values()];
  const originals = shown.filter((r) => r.reblogOfId == null);
  const originalIds = originals.map((r) => r.id);

  const [accountList, mediaRows, mentionList, tagList, emojis, polls, appList, cardList, flags] =
    await Promise.all([
      loadAccountEntities(db, ctx.config, unique(shown.map((r) => r.accountId))),
      loadMediaByStatus(db, originalIds),
      mentionRows(db, originalIds),
      tagRows(db, originalIds),
      loadStatusEmojis(db, origin, originals.filter(statusMayHaveEmoji).map((r) => r.id)),
      loadPolls(db, unique(originals.map((r) => r.pollId)), viewer),
      applicationRows(db, unique(originals.map((r) => r.local ? r.applicationId : null))),
      cardRows(db, originalIds),
      viewer ? viewerFlags(db, viewer.accountId, shown) : null,
    ]);
  const media = new Map<string, ReturnType<typeof mediaAttachmentEntity>[]>();
  for (const [statusId, list] of mediaRows) {
    media.set(statusId, list.map((m) => mediaAttachmentEntity(ctx.config, m)));
  }
  return {
    statuses: all,
    accounts: new Map(accountList.map((a) => [a.id, a])),
    media,
    mentions: new Map(
      [...group(mentionList, (m) => m.statusId)].map(([k, list]) => [
        k,
        list.map((m) => ({ id: m.id, username: m.username, url: m.url ?? m.uri, acct: acctOf(m) })),
      ]),
    ),
    tags: new Map(
      [...group(tagList, (t) => t.statusId)].map(([k, list]) => [
        k,
        list.map((t) => ({
          name: t.name.toLowerCase(),
          url: `${origin}/tags/${encodeURIComponent(t.name.toLowerCase())}`,
        })),
      ]),
    ),
    emojis,
    polls,
    applications: new Map(appList.map((a) => [a.id, { name: a.name, website: a.website }])),
    cards: new Map(cardList.map((c) => [c.statusId, cardEntity(c.card)])),
    quotes: quoteMap,
    visibleQuoted,
    favourited: new Set(flags?.favourited),
    reblogged: new Set(flags?.reblogged),
    bookmarked: new Set(flags?.bookmarked),
    pinned: new Set(flags?.pinned),
    mutedConversations: new Set(flags?.muted),
    followedAuthors: new Set(flags?.followed),
  };
}

/**
 * The viewer's relations to the page's statuses, all six kinds in one
 * prepared query (each an ARRAY subquery over its own index): favourites,
 * boosts, bookmarks, pins (of the viewer's own statuses), muted threads and
 * followed authors (for quote_approval of followers-only quote policies).
 */
async function viewerFlags(db: Executor, viewerId: string, rows: StatusRow[]) {
  const [flags] = await prepared(db, "status_viewer_flags", () => viewerFlagsQuery(db)).execute({
    viewer: viewerId,
    ids: rows.map((r) => r.id),
    own: rows.filter((r) => r.accountId === viewerId).map((r) => r.id),
    threads: unique(rows.map((r) => r.conversationId)),
    authors: unique(rows.map((r) => r.quoteApprovalPolicy === "followers" ? r.accountId : null)),
  });
  return flags;
}

function viewerFlagsQuery(db: Executor) {
  const [ids, own, threads, authors] = ["ids", "own", "threads", "authors"].map((name) =>
    sql.placeholder(name)
  );
  const v = sql`${sql.placeholder("viewer")}::bigint`;
  return db.select({
    favourited: sql<string[]>`ARRAY(SELECT f.status_id::text FROM favourites f
      WHERE f.account_id = ${v} AND f.status_id = ANY(${ids}::bigint[]))`,
    reblogged: sql<string[]>`ARRAY(SELECT r.reblog_of_id::text FROM statuses r
      WHERE r.account_id = ${v} AND r.reblog_of_id = ANY(${ids}::bigint[])
        AND r.deleted_at IS NULL)`,
    bookmarked: sql<string[]>`ARRAY(SELECT b.status_id::text FROM bookmarks b
      WHERE b.account_id = ${v} AND b.status_id = ANY(${ids}::bigint[]))`,
    pinned: sql<string[]>`ARRAY(SELECT p.status_id::text FROM status_pins p
      WHERE p.account_id = ${v} AND p.status_id = ANY(${own}::bigint[]))`,
    muted: sql<string[]>`ARRAY(SELECT m.conversation_id::text FROM conversation_mutes m
      WHERE m.account_id = ${v} AND m.conversation_id = ANY(${threads}::bigint[]))`,
    followed: sql<string[]>`ARRAY(SELECT f.target_account_id::text FROM follows f
      WHERE f.account_id = ${v} AND f.target_account_id = ANY(${authors}::bigint[]))`,
  }).from(sql`(SELECT 1) AS one`).prepare("status_viewer_flags");
}
