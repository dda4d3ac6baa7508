/**
 * The signed-in user's favourited and bookmarked statuses:
 * - GET /api/v1/favourites (read:favourites) → Status[]
 * - GET /api/v1/bookmarks (read:bookmarks) → Status[]
 * Newest favourite (bookmark) first, 20 by default, 40 at most, paged by the
 * favourite (bookmark) row id, which clients only see in the `Link` header
 * (`max_id` for next, `min_id` for prev, as Mastodon's controllers).
 *
 * Statuses the user may no longer see (deleted, made private to them,
 * blocked either way) are left out by the visibility module; `next` is given
 * only when the page came back full.
 */
import { type Context, Hono } from "hono";
import { and, eq } from "drizzle-orm";
import type { ApiEnv } from "../env.ts";
import { params } from "../params.ts";
import { PAGE_SIZES, type PageSize, readPageParams, setPaginationHeaders } from "../pagination.ts";
import { requireUser } from "../middleware/scopes.ts";
import { serializeStatuses } from "../entities/status.ts";
import { bookmarks, favourites, statuses } from "../../db/schema/mod.ts";
import { visibleStatusFilter } from "../../db/queries/visibility.ts";
import { pageWindow } from "../../db/queries/id_paging.ts";

type SavedTable = typeof favourites | typeof bookmarks;

/** One page of the statuses behind the user's favourites or bookmarks. */
async function savedPage(c: Context<ApiEnv>, table: SavedTable, size: PageSize) {
  const viewer = c.get("user")!.accountId;
  const page = readPageParams(await params(c), size);
  const ctx = c.get("ctx");
  const window = pageWindow(table.id, page);
  const rows = await ctx.database.db.select({ cursor: table.id, status: statuses })
    .from(table)
    .innerJoin(statuses, eq(statuses.id, table.statusId))
    .where(and(eq(table.accountId, viewer), window.where, visibleStatusFilter(viewer)))
    .orderBy(window.order).limit(page.limit);
  if (window.reverse) rows.reverse();
  setPaginationHeaders(c, rows, (r) => r.cursor, { hasMore: rows.length === page.limit });
  return c.json(await serializeStatuses(ctx, rows.map((r) => r.status), { accountId: viewer }));
}

/** The favourites and bookmarks lists, mounted at the root of the app. */
export function favouriteAndBookmarkRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get(
    "/api/v1/favourites",
    requireUser("read:favourites"),
    (c) => savedPage(c, favourites, PAGE_SIZES.favourites),
  );
  app.get(
    "/api/v1/bookmarks",
    requireUser("read:bookmarks"),
    (c) => savedPage(c, bookmarks, PAGE_SIZES.bookmarks),
  );
  return app;
}
