/**
 * The web app's /bookmarks and /favourites (design 35 §2.5): the posts the
 * viewer saved, newest saved first, read through the API's own read
 * (api/reads/collections.ts) with the same parameters and cursors, 20 a
 * page as the API's default.
 */
import { type Context, Hono } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import { params } from "../../../api/params.ts";
import { PAGE_SIZES, type PageSize, readPageParams } from "../../../api/pagination.ts";
import { readBookmarks, readFavourites } from "../../../api/reads/collections.ts";
import { AppLayout, type AppNavKey } from "../../pages/app/layout.tsx";
import { Timeline } from "../../pages/app/timeline.tsx";
import { appPage, appReader, sendAppPage } from "./session.tsx";
import { hereWith } from "./return_to.ts";
import { pagerLinks } from "./paging.ts";

interface SavedView {
  read: typeof readBookmarks;
  size: PageSize;
  title: string;
  current: AppNavKey;
  empty: string;
}

const VIEWS: Record<"/bookmarks" | "/favourites", SavedView> = {
  "/bookmarks": {
    read: readBookmarks,
    size: PAGE_SIZES.bookmarks,
    title: "Bookmarks",
    current: "bookmarks",
    empty: "You have not bookmarked any post yet. A post's Bookmark button keeps it here.",
  },
  "/favourites": {
    read: readFavourites,
    size: PAGE_SIZES.favourites,
    title: "Favourites",
    current: "favourites",
    empty: "You have not favourited any post yet.",
  },
};

async function savedPage(c: Context<ApiEnv>, view: SavedView): Promise<Response> {
  const ctx = c.get("ctx");
  const p = await params(c);
  const { viewer } = await appReader(c);
  const read = await view.read(ctx, viewer.accountId, p, view.size);
  return await sendAppPage(
    c,
    <AppLayout
      title={view.title}
      instanceTitle={ctx.config.instance.title}
      viewer={viewer}
      current={view.current}
      notice={c.req.query("notice")}
      alert={c.req.query("alert")}
    >
      <Timeline
        statuses={read.items}
        viewer={viewer}
        here={hereWith(c.req.url)}
        label={view.title}
        empty={<p>{view.empty}</p>}
        pager={pagerLinks(c, readPageParams(p, view.size), view.size, read)}
      />
    </AppLayout>,
  );
}

export function appCollectionRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  for (const [path, view] of Object.entries(VIEWS)) {
    app.get(path, appPage(), (c) => savedPage(c, view));
  }
  return app;
}
