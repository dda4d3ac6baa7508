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
import type { ApiEnv } from "../env.ts";
import { params } from "../params.ts";
import { PAGE_SIZES, type PageSize, setLinkHeader } from "../pagination.ts";
import { requireUser } from "../middleware/scopes.ts";
import { readBookmarks, readFavourites } from "../reads/collections.ts";

type SavedRead = typeof readFavourites;

/** One page of the statuses behind the user's favourites or bookmarks. */
async function savedPage(c: Context<ApiEnv>, read: SavedRead, size: PageSize) {
  const page = await read(c.get("ctx"), c.get("user")!.accountId, await params(c), size);
  setLinkHeader(c, page.cursors);
  return c.json(page.items);
}

/** The favourites and bookmarks lists, mounted at the root of the app. */
export function favouriteAndBookmarkRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get(
    "/api/v1/favourites",
    requireUser("read:favourites"),
    (c) => savedPage(c, readFavourites, PAGE_SIZES.favourites),
  );
  app.get(
    "/api/v1/bookmarks",
    requireUser("read:bookmarks"),
    (c) => savedPage(c, readBookmarks, PAGE_SIZES.bookmarks),
  );
  return app;
}
