/**
 * Read queries behind the timelines: home and list feeds (filled on write,
 * read with one range scan of their primary key), the public, hashtag and
 * link timelines and an account's statuses (indexed queries over
 * `statuses`), the deprecated direct timeline, and the pages of
 * conversations and list members.
 *
 * Each returns the rows of one page, newest first, in one query; callers
 * hydrate the page with one batch serialization. Every status query applies
 * the visibility module's filter, except the home feed's: its entries are
 * filtered on write and taken out when they stop being visible, so it reads
 * them with the module's feedEntryFilter (deleted and suspended only).
 */
import {
  and,
  eq,
  getTableColumns,
  inArray,
  isNotNull,
  type Placeholder,
  type SQL,
  sql,
} from "drizzle-orm";
import type { Executor } from "../connection.ts";
import {
  accountConversations,
  accounts,
  homeFeed,
  listAccounts,
  listFeed,
  pendingHome,
  statuses,
  tags,
} from "../schema/mod.ts";
import { feedEntryFilter, notLimitedFilter, visibleStatusFilter } from "./visibility.ts";
import { type Page, type PageBounds, pageWindow } from "./id_paging.ts";

export type StatusRow = typeof statuses.$inferSelect;
export type TagRow = typeof tags.$inferSelect;

const STATUS_COLUMNS = getTableColumns(statuses);
/**
 * What a home page names of each row: its id and version (its xmin, which
 * every UPDATE of the row changes), and the columns the viewer statement
 * reads from the page (api/entities/status_hydration.ts, viewerParts). The
 * rows themselves come from the entity cache at that version
 * (api/entities/status_page.ts).
 */
const HOME_PAGE_COLUMNS = {
  id: statuses.id,
  version: sql<string>`"statuses".xmin::text`.as("version"),
  accountId: statuses.accountId,
  reblogOfId: statuses.reblogOfId,
  pollId: statuses.pollId,
  conversationId: statuses.conversationId,
  quoteApprovalPolicy: statuses.quoteApprovalPolicy,
  visibility: statuses.visibility,
  interactionPolicy: statuses.interactionPolicy,
};

/** `statuses` is not a reply to someone else (Mastodon's `without_replies`). */
export const NOT_A_REPLY_TO_OTHERS = sql`((${statuses.inReplyToId} IS NULL
  AND ${statuses.inReplyToUri} IS NULL) OR ${statuses.inReplyToAccountId} = ${statuses.accountId})`;

/** `statuses` has media attached. */
export const HAS_MEDIA = sql`EXISTS (SELECT 1 FROM media_attachments ma
  WHERE ma.status_id = ${statuses.id})`;

/**
 * The viewer mutes neither the author nor the boosted author (a mute made
 * after the status entered a feed still hides it). TRUE for anonymous viewers.
 */
export function notMutedBy(viewer: string | Placeholder | SQL | null): SQL {
  if (viewer == null) return sql`TRUE`;
  const active = sql`(mu.expires_at IS NULL OR mu.expires_at > now())`;
  return sql`NOT EXISTS (SELECT 1 FROM mutes mu WHERE mu.account_id = ${viewer}::bigint
      AND mu.target_account_id = ${statuses.accountId} AND ${active})
    AND (${statuses.reblogOfId} IS NULL OR NOT EXISTS (SELECT 1 FROM statuses mo
      JOIN mutes mu ON mu.target_account_id = mo.account_id AND mu.account_id = ${viewer}::bigint
      WHERE mo.id = ${statuses.reblogOfId} AND ${active}))`;
}

function finish<T>(rows: T[], reverse: boolean): T[] {
  return reverse ? rows.reverse() : rows;
}

/**
 * Placeholders for the bounds a page sets (and so the shape of its query),
 * with the key that shape is prepared under.
 */
function placeholderBounds(name: string, page: Page): { key: string; bounds: PageBounds } {
  const bound = (key: "maxId" | "sinceId" | "minId") => page[key] ? sql.placeholder(key) : null;
  const bounds = { maxId: bound("maxId"), sinceId: bound("sinceId"), minId: bound("minId") };
  const key = `${name}:${bounds.maxId ? "max" : ""}:${bounds.sinceId ? "since" : ""}:${
    bounds.minId ? "min" : ""
  }`;
  return { key, bounds };
}

/**
 * The home page query for a page shape, with placeholders for the viewer
 * (`viewer`), the bounds it sets and `limit`: its key and SQL
 * ({@link HOME_PAGE_COLUMNS}; a min_id page reads upwards, and the reader
 * orders the rows newest first). api/entities/status_page.ts runs it together with
 * the viewer statement, built once per page shape.
 *
 * A pending row (a large fan-out's, actors/timelines/pending_home.ts) shows
 * only while `stillChosen` (the fan-out's choice, for the viewer and the
 * row's status: a block, mute or unfollow since then hides it, as it will
 * keep the row from being written) holds and the viewer's home_feed does not
 * hold the status already (a regeneration may write it meanwhile): the two
 * branches never name one status twice, so the page's limit stays exact.
 */
export function homePageQuery(
  db: Executor,
  page: Page,
  stillChosen: (viewer: SQL, status: SQL) => SQL,
) {
  const { key, bounds } = placeholderBounds("home_timeline", page);
  const w = pageWindow(homeFeed.statusId, bounds);
  const pw = pageWindow(pendingHome.statusId, bounds);
  const viewer = sql.placeholder("viewer");
  const limit = sql.placeholder("limit");
  const feed = () =>
    db.select(HOME_PAGE_COLUMNS).from(homeFeed)
      .innerJoin(statuses, eq(statuses.id, homeFeed.statusId))
      .where(and(
        eq(homeFeed.accountId, viewer),
        w.where,
        // Filled on write; see feedEntryFilter for what is checked again.
        feedEntryFilter(),
      ))
      .orderBy(w.order).limit(limit).getSQL();
  // A large fan-out's rows not yet written (actors/timelines/pending_home.ts):
  // a few rows in all, so the viewer's are found by a scan of them.
  const pending = () =>
    db.select(HOME_PAGE_COLUMNS).from(pendingHome)
      .innerJoin(statuses, eq(statuses.id, pendingHome.statusId))
      .where(and(
        sql`${viewer}::bigint = ANY(${pendingHome.receivers})`,
        pw.where,
        feedEntryFilter(),
        sql`NOT EXISTS (SELECT 1 FROM home_feed hf WHERE hf.account_id = ${viewer}::bigint
          AND hf.status_id = ${pendingHome.statusId})`,
        stillChosen(sql`${viewer}::bigint`, sql`${pendingHome.statusId}`),
      )).getSQL();
  const order = sql.raw(`"id" ${w.reverse ? "ASC" : "DESC"}`);
  const build = () => sql`(${feed()}) UNION ALL (${pending()}) ORDER BY ${order} LIMIT ${limit}`;
  return { key, build };
}

/** The values of {@link homePageQuery}'s placeholders. */
export function homePageValues(accountId: string, page: Page) {
  return {
    viewer: accountId,
    maxId: page.maxId,
    sinceId: page.sinceId,
    minId: page.minId,
    limit: page.limit,
  };
}

/** One page of a list's feed (the caller checked that the viewer owns the list). */
export async function listTimeline(db: Executor, listId: string, viewer: string, page: Page) {
  const w = pageWindow(listFeed.statusId, page);
  const rows = await db.select(STATUS_COLUMNS).from(listFeed)
    .innerJoin(statuses, eq(statuses.id, listFeed.statusId))
    .where(and(
      eq(listFeed.listId, listId),
      w.where,
      visibleStatusFilter(viewer),
      notMutedBy(viewer),
    ))
    .orderBy(w.order).limit(page.limit)
    .prepare("list_timeline").execute();
  return finish(rows, w.reverse);
}

/** Where a public, hashtag or link timeline looks. */
export interface PublicTimelineOptions {
  /** Only statuses of this server. */
  local?: boolean;
  /** Only statuses of other servers. */
  remote?: boolean;
  /** Only statuses with media. */
  onlyMedia?: boolean;
}

/** The conditions every public-kind timeline shares. */
function publicConditions(viewer: string | null, options: PublicTimelineOptions): SQL[] {
  const parts: SQL[] = [
    // The same predicate as statuses_public_idx, so the scan can use that index.
    sql`${statuses.visibility} = 'public' AND ${statuses.deletedAt} IS NULL
      AND ${statuses.reblogOfId} IS NULL`,
    visibleStatusFilter(viewer),
    notLimitedFilter(viewer),
    notMutedBy(viewer),
  ];
  if (options.local && !options.remote) parts.push(eq(statuses.local, true));
  if (options.remote && !options.local) parts.push(eq(statuses.local, false));
  if (options.onlyMedia) parts.push(HAS_MEDIA);
  return parts;
}

async function publicKindPage(
  db: Executor,
  conditions: SQL[],
  page: Page,
): Promise<StatusRow[]> {
  const w = pageWindow(statuses.id, page);
  const rows = await db.select(STATUS_COLUMNS).from(statuses)
    .where(and(...conditions, w.where))
    .orderBy(w.order).limit(page.limit)
    .prepare("public_timeline").execute();
  return finish(rows, w.reverse);
}

/** The public timeline: public originals, without replies to others (as Mastodon). */
export async function publicTimeline(
  db: Executor,
  viewer: string | null,
  options: PublicTimelineOptions,
  page: Page,
): Promise<StatusRow[]> {
  return await publicKindPage(
    db,
    [...publicConditions(viewer, options), NOT_A_REPLY_TO_OTHERS],
    page,
  );
}

/** Tags by name (case-insensitive, NFKC as hashtags are stored); keyed by lower-case name. */
export async function tagsByName(db: Executor, names: readonly string[]) {
  const lowered = [
    ...new Set(names.map((n) => n.replace(/^[#＃]/, "").normalize("NFKC").toLowerCase())),
  ].filter((n) => n !== "");
  if (lowered.length === 0) return new Map<string, TagRow>();
  const rows = await db.select().from(tags).where(inArray(sql`lower(${tags.name})`, lowered));
  return new Map(rows.map((r) => [r.name.toLowerCase(), r]));
}

/** Which tags a hashtag timeline combines (ids of known tags). */
export interface TagQuery {
  /** The path's tag and any[]: a status needs one of them. */
  any: string[];
  /** all[]: a status needs each; null when one of them is unknown (nothing matches). */
  all: string[] | null;
  /** none[]: a status may have none of them. */
  none: string[];
}

function idList(ids: readonly string[]): SQL {
  return sql.join(ids.map((id) => sql`${id}::bigint`), sql`, `);
}

/** A hashtag timeline: public originals with the tags asked for (replies included, as Mastodon). */
export async function tagTimeline(
  db: Executor,
  viewer: string | null,
  query: TagQuery,
  options: PublicTimelineOptions,
  page: Page,
): Promise<StatusRow[]> {
  if (query.all == null || query.any.length === 0) return [];
  const parts = publicConditions(viewer, options);
  parts.push(sql`${statuses.id} IN (SELECT st.status_id FROM statuses_tags st
    WHERE st.tag_id IN (${idList(query.any)}))`);
  for (const tagId of query.all) {
    parts.push(sql`EXISTS (SELECT 1 FROM statuses_tags st
      WHERE st.status_id = ${statuses.id} AND st.tag_id = ${tagId}::bigint)`);
  }
  if (query.none.length) {
    parts.push(sql`NOT EXISTS (SELECT 1 FROM statuses_tags st
      WHERE st.status_id = ${statuses.id} AND st.tag_id IN (${idList(query.none)}))`);
  }
  return await publicKindPage(db, parts, page);
}

/**
 * Statuses sharing a link: public originals whose preview card has this URL,
 * by accounts that opted in to discovery (Mastodon's LinkFeed).
 */
export async function linkTimeline(
  db: Executor,
  viewer: string | null,
  url: string,
  options: PublicTimelineOptions,
  page: Page,
): Promise<StatusRow[]> {
  const parts = publicConditions(viewer, options);
  parts.push(sql`${statuses.id} IN (SELECT spc.status_id FROM statuses_preview_cards spc
    JOIN preview_cards pc ON pc.id = spc.preview_card_id WHERE pc.url = ${url})`);
  parts.push(sql`EXISTS (SELECT 1 FROM accounts da
    WHERE da.id = ${statuses.accountId} AND da.discoverable)`);
  return await publicKindPage(db, parts, page);
}

/** The filters of GET /api/v1/accounts/:id/statuses. */
export interface AccountStatusesOptions {
  onlyMedia?: boolean;
  excludeReplies?: boolean;
  excludeReblogs?: boolean;
  /** Leave out direct messages (Mastodon 4.6). */
  excludeDirect?: boolean;
  pinned?: boolean;
  /** Only statuses with this tag (an id); null: the tag asked for does not exist. */
  taggedId?: string | null;
}

/** One page of an account's statuses as `viewer` may see them. */
export async function accountStatuses(
  db: Executor,
  accountId: string,
  viewer: string | null,
  options: AccountStatusesOptions,
  page: Page,
): Promise<StatusRow[]> {
  if (options.taggedId === null) return [];
  const w = pageWindow(statuses.id, page);
  const parts: (SQL | undefined)[] = [
    eq(statuses.accountId, accountId),
    w.where,
    visibleStatusFilter(viewer),
  ];
  if (options.onlyMedia) parts.push(HAS_MEDIA);
  if (options.excludeReplies) parts.push(NOT_A_REPLY_TO_OTHERS);
  if (options.excludeDirect) parts.push(sql`${statuses.visibility} <> 'direct'`);
  if (options.excludeReblogs || options.onlyMedia || options.pinned || options.taggedId) {
    // Boosts carry no media, pins or tags of their own.
    parts.push(sql`${statuses.reblogOfId} IS NULL`);
  }
  if (options.pinned) {
    parts.push(sql`${statuses.id} IN (SELECT sp.status_id FROM status_pins sp
      WHERE sp.account_id = ${accountId}::bigint)`);
  }
  if (options.taggedId) {
    parts.push(sql`${statuses.id} IN (SELECT st.status_id FROM statuses_tags st
      WHERE st.tag_id = ${options.taggedId}::bigint)`);
  }
  const rows = await db.select(STATUS_COLUMNS).from(statuses)
    .where(and(...parts)).orderBy(w.order).limit(page.limit)
    .prepare("account_statuses").execute();
  return finish(rows, w.reverse);
}

/** The deprecated direct timeline: direct statuses the account wrote or was mentioned in. */
export async function directTimeline(
  db: Executor,
  accountId: string,
  page: Page,
): Promise<StatusRow[]> {
  const w = pageWindow(statuses.id, page);
  const rows = await db.select(STATUS_COLUMNS).from(statuses)
    .where(and(
      eq(statuses.visibility, "direct"),
      sql`(${statuses.accountId} = ${accountId}::bigint OR ${statuses.id} IN (
        SELECT m.status_id FROM mentions m WHERE m.account_id = ${accountId}::bigint))`,
      w.where,
      visibleStatusFilter(accountId),
    ))
    .orderBy(w.order).limit(page.limit);
  return finish(rows, w.reverse);
}

export type AccountConversationRow = typeof accountConversations.$inferSelect;

/** One page of the account's conversations, by their latest status. */
export async function conversationsPage(
  db: Executor,
  accountId: string,
  page: Page,
): Promise<AccountConversationRow[]> {
  const w = pageWindow(accountConversations.lastStatusId, page);
  const rows = await db.select().from(accountConversations)
    .where(and(
      eq(accountConversations.accountId, accountId),
      isNotNull(accountConversations.lastStatusId),
      w.where,
    ))
    .orderBy(w.order).limit(page.limit);
  return finish(rows, w.reverse);
}

/** One page of a list's members (cursor: the membership row); limit null: all of them. */
export async function listMembersPage(
  db: Executor,
  listId: string,
  page: Omit<Page, "limit"> & { limit: number | null },
): Promise<{ cursor: string; accountId: string }[]> {
  const w = pageWindow(listAccounts.id, page);
  const query = db.select({ cursor: listAccounts.id, accountId: listAccounts.accountId })
    .from(listAccounts)
    .innerJoin(accounts, eq(accounts.id, listAccounts.accountId))
    .where(and(eq(listAccounts.listId, listId), sql`${accounts.deletedAt} IS NULL`, w.where))
    .orderBy(w.order);
  const rows = page.limit == null ? await query : await query.limit(page.limit);
  return finish(rows, w.reverse);
}
