/**
 * What the signed-in user's favourites and bookmarks, and conversations, read
 * (api/routes/favourites_bookmarks.ts and conversations.ts answer it as
 * JSON; the web app's /favourites, /bookmarks and /conversations render it),
 * and the followed hashtags (api/routes/tags.ts; /followed_tags).
 *
 * Decisions (kept from the route): newest favourite (bookmark) first, paged
 * by the favourite (bookmark) row id, which clients only see in the `Link`
 * header; statuses the user may no longer see are left out by the
 * visibility module; `next` only when the page came back full.
 */
import { and, eq } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import type { Params } from "../params.ts";
import { pageCursors, type PageRead, type PageSize, readPageParams } from "../pagination.ts";
import { serializeStatuses, type StatusJson } from "../entities/status.ts";
import { bookmarks, favourites, statuses } from "../../db/schema/mod.ts";
import { visibleStatusFilter } from "../../db/queries/visibility.ts";
import { pageWindow } from "../../db/queries/id_paging.ts";
import { conversationsPage } from "../../db/queries/timelines.ts";
import { type ConversationJson, serializeConversations } from "../entities/conversation.ts";
import { PAGE_SIZES } from "../pagination.ts";
import { serializeTags, type TagJson } from "../entities/tag.ts";
import { tagFollows, tags } from "../../db/schema/mod.ts";

export type SavedTable = typeof favourites | typeof bookmarks;

/** One page of the statuses behind the viewer's favourites or bookmarks. */
export async function readSaved(
  ctx: AppContext,
  viewer: string,
  p: Params,
  table: SavedTable,
  size: PageSize,
): Promise<PageRead<StatusJson>> {
  const page = readPageParams(p, size);
  const window = pageWindow(table.id, page);
  const rows = await ctx.database.db.select({ cursor: table.id, status: statuses })
    .from(table)
    .innerJoin(statuses, eq(statuses.id, table.statusId))
    .where(and(eq(table.accountId, viewer), window.where, visibleStatusFilter(viewer)))
    .orderBy(window.order).limit(page.limit);
  if (window.reverse) rows.reverse();
  return {
    items: await serializeStatuses(ctx, rows.map((r) => r.status), { accountId: viewer }),
    cursors: pageCursors(rows, (r) => r.cursor, { hasMore: rows.length === page.limit }),
    rows: rows.length,
  };
}

export async function readFavourites(
  ctx: AppContext,
  viewer: string,
  p: Params,
  size: PageSize,
): Promise<PageRead<StatusJson>> {
  return await readSaved(ctx, viewer, p, favourites, size);
}

export async function readBookmarks(
  ctx: AppContext,
  viewer: string,
  p: Params,
  size: PageSize,
): Promise<PageRead<StatusJson>> {
  return await readSaved(ctx, viewer, p, bookmarks, size);
}

/** The viewer's conversations by latest status, a page (cursors are status ids). */
export async function readConversations(
  ctx: AppContext,
  viewer: string,
  p: Params,
): Promise<PageRead<ConversationJson>> {
  const page = readPageParams(p, PAGE_SIZES.conversations);
  const rows = await conversationsPage(ctx.database.db, viewer, page);
  return {
    items: await serializeConversations(ctx, rows, viewer),
    cursors: pageCursors(rows, (row) => row.lastStatusId!),
    rows: rows.length,
  };
}

/** The hashtags the viewer follows, newest follow first, paged by the follow row (`since_id` prev). */
export async function readFollowedTags(
  ctx: AppContext,
  viewer: string,
  p: Params,
): Promise<PageRead<TagJson>> {
  const page = readPageParams(p, PAGE_SIZES.followedTags);
  const { database, config } = ctx;
  const window = pageWindow(tagFollows.id, page);
  const rows = await database.db.select({ id: tagFollows.id, tagId: tags.id, name: tags.name })
    .from(tagFollows).innerJoin(tags, eq(tags.id, tagFollows.tagId))
    .where(and(eq(tagFollows.accountId, viewer), window.where))
    .orderBy(window.order).limit(page.limit);
  if (window.reverse) rows.reverse();
  return {
    items: await serializeTags(
      database,
      config.origin,
      rows.map((r) => ({ id: r.tagId, name: r.name })),
      { accountId: viewer },
    ),
    cursors: pageCursors(rows, (r) => r.id, {
      prevParam: "since_id",
      hasMore: rows.length >= page.limit,
    }),
    rows: rows.length,
  };
}
