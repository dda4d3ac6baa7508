/**
 * The web app's timelines: GET / (Home, for a live session; the landing
 * page otherwise, through signedInBranch), /home (301 to /, the lead's
 * decision), /public/local, /public and /public/remote (`only_media`
 * toggle), /tags/:name (signed in; `local`, `only_media`) and /lists/:id
 * (the owner's only). Each reads through api/reads/timelines.ts, the same function,
 * parameters, filters and serializer as the API's route, 40 posts a page
 * (`limit` 1–40 accepted), and pages with the same cursors as its Link
 * header. With the fragment header (the script's newer/older requests) the
 * answer is the articles alone.
 */
import { type Context, Hono } from "hono";
import type { Child } from "hono/jsx";
import type { ApiEnv } from "../../../api/env.ts";
import { type Params, params } from "../../../api/params.ts";
import { type PageRead, type PageSize, readPageParams } from "../../../api/pagination.ts";
import type { StatusJson } from "../../../api/entities/status.ts";
import { readBoolean } from "../../../api/readers.ts";
import {
  readHomeTimeline,
  readListTimeline,
  readPublicTimeline,
  readTagTimeline,
} from "../../../api/reads/timelines.ts";
import { NotFoundError } from "../../../model/errors.ts";
import {
  AppLayout,
  type AppLayoutProps,
  type AppNavKey,
  type AppViewer,
} from "../../pages/app/layout.tsx";
import { FeedItems, Timeline } from "../../pages/app/timeline.tsx";
import { Composer, composerLimits } from "../../pages/app/composer.tsx";
import { appPage, appReader, sendAppNotFound, sendAppPage } from "./session.tsx";
import { signedInBranch } from "./branch.ts";
import { hereWith } from "./return_to.ts";
import { pagerLinks } from "./paging.ts";
import { sendFragment, wantsFragment } from "./fragments.ts";
import { TagFollowForm } from "../../pages/app/tag_follow.tsx";
import { serializeTag } from "../../../api/entities/tag.ts";
import { findTagByName, normalizeTagName } from "../../../db/queries/tags.ts";

/** The app's timelines show 40 posts a page (the lead's decision 3), as the API's maximum. */
export const APP_TIMELINE_PAGE: PageSize = { default: 40, max: 40 };

interface TimelineView {
  title: string;
  current: AppNavKey;
  /** The feed's accessible name. */
  label: string;
  empty: Child;
  top?: Child;
  /** The live updates of the page (layout.tsx `streams`). */
  streams: AppLayoutProps["streams"];
}

/** Sends a page of a timeline read, or its articles alone for the script. */
async function sendTimeline(
  c: Context<ApiEnv>,
  p: Params,
  read: PageRead<StatusJson>,
  view: TimelineView,
  viewer: AppViewer,
): Promise<Response> {
  const here = hereWith(c.req.url);
  const feed = { statuses: read.items, viewer, here, label: view.label };
  if (wantsFragment(c)) {
    // Newer posts go on top of the feed, older ones under it.
    const newer = p.min_id != null || p.since_id != null;
    return await sendFragment(
      c,
      newer
        ? (
          <div data-prepend="feed">
            <FeedItems {...feed} />
          </div>
        )
        : (
          <div data-append="feed">
            <FeedItems {...feed} />
          </div>
        ),
    );
  }
  const pager = pagerLinks(c, readPageParams(p, APP_TIMELINE_PAGE), APP_TIMELINE_PAGE, read);
  return await sendAppPage(
    c,
    <AppLayout
      title={view.title}
      instanceTitle={c.get("ctx").config.instance.title}
      viewer={viewer}
      current={view.current}
      streams={view.streams}
      notice={c.req.query("notice")}
      alert={c.req.query("alert")}
    >
      <Timeline {...feed} pager={pager} empty={view.empty} top={view.top} />
    </AppLayout>,
  );
}

const HomeEmpty = () => (
  <>
    <p>Your home timeline is empty.</p>
    <p>
      Posts of the people and hashtags you follow appear here. Find some on the{" "}
      <a href="/public/local">local timeline</a>, the <a href="/public">federated timeline</a>{" "}
      or through <a href="/search">search</a>.
    </p>
  </>
);

/** The three public feeds: which reading each path is, and its words. */
const PUBLIC_FEEDS = [
  {
    path: "/public/local",
    option: "local",
    title: "Local timeline",
    current: "local",
    stream: "public:local",
  },
  {
    path: "/public",
    option: null,
    title: "Federated timeline",
    current: "federated",
    stream: "public",
  },
  {
    path: "/public/remote",
    option: "remote",
    title: "Remote timeline",
    current: "federated",
    stream: "public:remote",
  },
] as const;

const MediaToggle = ({ path, onlyMedia }: { path: string; onlyMedia: boolean }) => (
  <nav class="tabs" aria-label="Show">
    <a href={path} aria-current={onlyMedia ? undefined : "page"}>All posts</a>
    <a href={`${path}?only_media=true`} aria-current={onlyMedia ? "page" : undefined}>
      Only media
    </a>
  </nav>
);

/** Home: the composer above the home timeline. */
async function homePage(c: Context<ApiEnv>) {
  const p = await params(c);
  const { viewer, defaults } = await appReader(c);
  const read = await readHomeTimeline(c.get("ctx"), viewer, p, APP_TIMELINE_PAGE);
  return await sendTimeline(c, p, read, {
    title: "Home",
    current: "home",
    label: "Home timeline",
    empty: <HomeEmpty />,
    streams: [{ stream: "user" }],
    top: (
      <Composer
        viewer={viewer}
        defaults={defaults}
        returnTo="/"
        limits={composerLimits(c.get("ctx").config.limits)}
      />
    ),
  }, viewer);
}

/** The local, federated or remote-only timeline. */
async function publicFeedPage(c: Context<ApiEnv>, feed: typeof PUBLIC_FEEDS[number]) {
  const query = await params(c);
  // The path decides local/remote; the query may only ask for media.
  const p: Params = {
    ...query,
    local: feed.option === "local",
    remote: feed.option === "remote",
  };
  const onlyMedia = readBoolean(p, "only_media") ?? false;
  const { viewer } = await appReader(c);
  const read = await readPublicTimeline(c.get("ctx"), viewer, p, APP_TIMELINE_PAGE);
  return await sendTimeline(c, p, read, {
    title: feed.title,
    current: feed.current,
    label: feed.title,
    empty: <p>Nothing here yet.</p>,
    streams: [
      { stream: `${feed.stream}${onlyMedia ? ":media" : ""}` },
      { stream: "user:notification" },
    ],
    top: <MediaToggle path={feed.path} onlyMedia={onlyMedia} />,
  }, viewer);
}

/** A hashtag's timeline. */
async function tagPage(c: Context<ApiEnv>) {
  const p = await params(c);
  const name = c.req.param("name")!;
  const { viewer } = await appReader(c);
  // A hashtag never seen here: an empty feed (following it creates it).
  const read = await readTagTimeline(c.get("ctx"), viewer, name, p, APP_TIMELINE_PAGE) ??
    { items: [], cursors: null, rows: 0 };
  const onlyMedia = readBoolean(p, "only_media") ?? false;
  const following = await followsTag(c, viewer.accountId, name);
  return await sendTimeline(c, p, read, {
    title: `#${name}`,
    current: "search",
    label: `Posts with #${name}`,
    streams: [
      { stream: readBoolean(p, "local") ? "hashtag:local" : "hashtag", tag: name },
      { stream: "user:notification" },
    ],
    empty: <p>No posts with #{name} yet.</p>,
    top: (
      <>
        <TagFollowForm name={name} following={following} token={viewer.csrfToken} />
        <MediaToggle path={`/tags/${encodeURIComponent(name)}`} onlyMedia={onlyMedia} />
      </>
    ),
  }, viewer);
}

/** Whether the viewer follows the hashtag (the API's Tag `following`); an unknown one is not. */
async function followsTag(c: Context<ApiEnv>, accountId: string, name: string): Promise<boolean> {
  const { database, config } = c.get("ctx");
  const tag = await findTagByName(database.db, normalizeTagName(name));
  if (!tag) return false;
  const json = await serializeTag(database, config.origin, tag, { accountId });
  return !!json.following;
}

/** One of the viewer's lists; someone else's is not found. */
async function listPage(c: Context<ApiEnv>) {
  const p = await params(c);
  const { viewer } = await appReader(c);
  let read: PageRead<StatusJson>;
  try {
    read = await readListTimeline(c.get("ctx"), viewer, c.req.param("id")!, p, APP_TIMELINE_PAGE);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    return await sendAppNotFound(c, "This list does not exist, or is not yours.");
  }
  return await sendTimeline(c, p, read, {
    title: "List",
    current: "lists",
    label: "List timeline",
    streams: [{ stream: "list", list: c.req.param("id")! }, { stream: "user:notification" }],
    empty: <p>Nothing here yet: add people to the list.</p>,
    top: (
      <p>
        <a href={`/lists/${c.req.param("id")}/edit`}>Edit the list</a>
      </p>
    ),
  }, viewer);
}

export function appTimelineRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get("/", signedInBranch(homePage));
  app.get("/home", appPage(), (c) => {
    const { search } = new URL(c.req.url);
    return c.redirect(`/${search}`, 301);
  });
  for (const feed of PUBLIC_FEEDS) {
    app.get(feed.path, appPage(), (c) => publicFeedPage(c, feed));
  }
  app.get("/tags/:name{[^/.]+}", signedInBranch(tagPage));
  app.get("/lists/:id{[0-9]+}", appPage(), listPage);
  return app;
}
