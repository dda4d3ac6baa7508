/**
 * The web app's /bookmarks and /favourites (design 35 §2.5): the posts the
 * viewer saved, newest saved first, read through the API's own read
 * (api/reads/collections.ts) with the same parameters and cursors, 20 a
 * page as the API's default. Also /followed_tags (the API's read, each with
 * Unfollow) and POST /tags/:name/follow, /unfollow (the API's commands;
 * 303 back to `return_to`, else the tag's page; a malformed name: an alert).
 */
import { type Context, Hono } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import { params } from "../../../api/params.ts";
import { PAGE_SIZES, type PageSize, readPageParams } from "../../../api/pagination.ts";
import { readBookmarks, readFavourites, readFollowedTags } from "../../../api/reads/collections.ts";
import { relationshipError } from "../../../api/routes/relationships.ts";
import { followTag, unfollowTag } from "../../../actors/tags/followed_tags.ts";
import { Pager } from "../../pages/app/pager.tsx";
import { CsrfField } from "../../pages/shell.tsx";
import { tagPath } from "../../pages/status/links.ts";
import { refusalOf } from "../refusals.ts";
import { returnTo } from "./return_to.ts";
import { redirectAfterPost, redirectWithAlert } from "./fragments.ts";
import { AppLayout, type AppNavKey } from "../../pages/app/layout.tsx";
import { Timeline } from "../../pages/app/timeline.tsx";
import { appPage, appReader, appViewer, sendAppPage } from "./session.tsx";
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

async function followedTagsPage(c: Context<ApiEnv>): Promise<Response> {
  const ctx = c.get("ctx");
  const viewer = appViewer(c);
  const p = await params(c);
  const read = await readFollowedTags(ctx, viewer.accountId, p);
  return await sendAppPage(
    c,
    <AppLayout
      title="Followed hashtags"
      instanceTitle={ctx.config.instance.title}
      viewer={viewer}
      current="followed_tags"
      alert={c.req.query("alert")}
    >
      {read.items.length === 0
        ? <p>You follow no hashtag yet.</p>
        : (
          <ul class="tags" id="followed-tags">
            {read.items.map((tag) => (
              <li id={`tag-${tag.name}`}>
                <a href={tagPath(tag.name)}>#{tag.name}</a>
                <form method="post" action={`${tagPath(tag.name)}/unfollow`}>
                  <CsrfField token={viewer.csrfToken} />
                  <input type="hidden" name="return_to" value="/followed_tags" />
                  <button type="submit" class="secondary">
                    Unfollow <span class="sr-only">#{tag.name}</span>
                  </button>
                </form>
              </li>
            ))}
          </ul>
        )}
      <Pager
        links={pagerLinks(
          c,
          readPageParams(p, PAGE_SIZES.followedTags),
          PAGE_SIZES.followedTags,
          read,
        )}
      />
    </AppLayout>,
  );
}

function tagCommand(command: typeof followTag) {
  return async (c: Context<ApiEnv>): Promise<Response> => {
    const name = c.req.param("name")!;
    const p = await params(c);
    const back = returnTo(p, tagPath(name));
    try {
      await command(c.get("ctx").database.db, appViewer(c).accountId, name);
    } catch (error) {
      const refusal = refusalOf(relationshipError(error));
      if (!refusal) throw error;
      return redirectWithAlert(c, back, refusal.status === 404 ? "not_found" : "invalid");
    }
    return redirectAfterPost(c, back);
  };
}

export function appCollectionRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get("/followed_tags", appPage(), followedTagsPage);
  app.post("/tags/:name{[^/]+}/follow", appPage(), tagCommand(followTag));
  app.post("/tags/:name{[^/]+}/unfollow", appPage(), tagCommand(unfollowTag));
  for (const [path, view] of Object.entries(VIEWS)) {
    app.get(path, appPage(), (c) => savedPage(c, view));
  }
  return app;
}
