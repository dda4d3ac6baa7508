/**
 * Timelines:
 * - GET /api/v1/timelines/home (user + read:statuses): the home feed; a
 *   missing feed is rebuilt before the first page is answered (always 200)
 * - GET /api/v1/timelines/public (public unless PUBLIC_PREVIEW=false): local,
 *   remote, only_media
 * - GET /api/v1/timelines/tag/:hashtag (same access): any[], all[], none[],
 *   local, remote, only_media; 404 for an unknown hashtag
 * - GET /api/v1/timelines/link?url= (same access): statuses carrying the
 *   preview card of that URL; empty when none does (or no url is given)
 * - GET /api/v1/timelines/list/:list_id (user + read:lists; 404 unless owned)
 * - GET /api/v1/timelines/direct (user + read:statuses; removed from
 *   Mastodon in 3.0, kept for old clients)
 * All answer Status[] newest first, 20 by default and 40 at most, with Link
 * headers (`next` by max_id, `prev` by min_id).
 *
 * Decisions:
 * - Public and hashtag timelines leave out boosts; the public one also leaves
 *   out replies to other people (Mastodon's PublicFeed), the hashtag one keeps
 *   them (TagFeed). Statuses of accounts the viewer mutes, blocks or is
 *   blocked by are left out everywhere.
 * - any[], all[] and none[] each use their first 4 names. An unknown name in
 *   all[] matches nothing; unknown names in any[] and none[] are ignored.
 * - With PUBLIC_PREVIEW=false the public kinds need a token (app tokens do,
 *   with read:statuses); anonymous requests get 401 "This API requires an
 *   authenticated user".
 */
import { type Context, Hono, type MiddlewareHandler } from "hono";
import type { ApiEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
import { params } from "../params.ts";
import { readBoolean, readString, readStringArray } from "../readers.ts";
import { PAGE_SIZES, readPageParams, setPaginationHeaders } from "../pagination.ts";
import { checkToken, requireUser } from "../middleware/scopes.ts";
import { serializeStatuses } from "../entities/status.ts";
import { readPageWithViewer } from "../entities/status_page.ts";
import type { ViewerRows } from "../entities/status_hydration.ts";
import { isId } from "../../db/ids.ts";
import {
  directTimeline,
  homePageQuery,
  homePageValues,
  linkTimeline,
  listTimeline,
  publicTimeline,
  type PublicTimelineOptions,
  type StatusRow,
  tagsByName,
  tagTimeline,
} from "../../db/queries/timelines.ts";
import { rebuildHomeFeedIfEmpty } from "../../actors/timelines/regenerate.ts";
import { findOwnList } from "../../actors/timelines/lists.ts";
import { NotFoundError } from "../../model/errors.ts";
import { viewerAccountId } from "./accounts_access.ts";
import { MAX_LINK_BYTES } from "../../actors/cards/links.ts";
import type { FilterContext } from "../../actors/filters/rules.ts";

/** How many names each of any[], all[] and none[] contributes. */
export const TAGS_PER_MODE = 4;

/** Mastodon's answer when a feed needs a signed-in (or at least identified) client. */
const AUTH_REQUIRED = "This API requires an authenticated user";

/**
 * Serializes a page of statuses for the request's viewer, with the viewer's
 * filters of `context` (none for the direct timeline), and sets its Link header.
 */
async function answerPage(
  c: Context<ApiEnv>,
  rows: StatusRow[],
  context: FilterContext | undefined,
  viewerRows?: ViewerRows,
): Promise<Response> {
  const viewer = viewerAccountId(c);
  const json = await serializeStatuses(
    c.get("ctx"),
    rows,
    viewer ? { accountId: viewer } : null,
    viewerRows,
    { context },
  );
  // Cursors come from the rows read, so a status the serializer skips (or a
  // filter hides) never breaks paging.
  setPaginationHeaders(c, rows, (row) => row.id);
  return c.json(json);
}

/** Public unless PUBLIC_PREVIEW is off; a token that comes along needs read:statuses. */
function publicFeedAccess(): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const token = c.get("token");
    if (!token && !c.get("ctx").config.publicPreview) {
      return c.json({ error: AUTH_REQUIRED }, 401);
    }
    if (token) {
      const refusal = checkToken(c, { kind: "token", scopes: ["read:statuses"] });
      if (refusal) return refusal;
    }
    await next();
  };
}

async function publicOptions(c: Context<ApiEnv>): Promise<PublicTimelineOptions> {
  const p = await params(c);
  return {
    local: readBoolean(p, "local") ?? false,
    remote: readBoolean(p, "remote") ?? false,
    onlyMedia: readBoolean(p, "only_media") ?? false,
  };
}

/** The timeline routes, mounted at the root of the app. */
export function timelineRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get("/api/v1/timelines/home", requireUser("read:statuses"), async (c) => {
    const { database } = c.get("ctx");
    const me = viewerAccountId(c)!;
    const page = readPageParams(await params(c), PAGE_SIZES.timelines);
    // The page and the viewer's flags on it in one statement (status_page.ts).
    const read = () =>
      readPageWithViewer(database.db, homePageQuery(database.db, page), homePageValues(me, page));
    let { rows, viewerRows } = await read();
    // An empty page is the end of the feed, or a feed that was never built:
    // that one is rebuilt now and read again, so the first read already shows
    // it (Mastodon answers 206 and an empty page, which clients show as empty).
    if (rows.length === 0 && await rebuildHomeFeedIfEmpty(database.db, me) > 0) {
      ({ rows, viewerRows } = await read());
    }
    return await answerPage(c, rows, "home", viewerRows);
  });

  app.get("/api/v1/timelines/public", publicFeedAccess(), async (c) => {
    const { db } = c.get("ctx").database;
    const page = readPageParams(await params(c), PAGE_SIZES.timelines);
    const rows = await publicTimeline(db, viewerAccountId(c), await publicOptions(c), page);
    return await answerPage(c, rows, "public");
  });

  app.get("/api/v1/timelines/tag/:hashtag", publicFeedAccess(), async (c) => {
    const { db } = c.get("ctx").database;
    const p = await params(c);
    const page = readPageParams(p, PAGE_SIZES.timelines);
    const name = c.req.param("hashtag");
    const names = (key: string) => (readStringArray(p, key) ?? []).slice(0, TAGS_PER_MODE);
    const any = names("any"), all = names("all"), none = names("none");
    const known = await tagsByName(db, [name, ...any, ...all, ...none]);
    const idOf = (n: string) =>
      known.get(n.replace(/^[#＃]/, "").normalize("NFKC").toLowerCase())?.id;
    const main = idOf(name);
    if (!main) throw new ApiError(404, "Record not found");
    const allIds = all.map(idOf);
    const rows = await tagTimeline(
      db,
      viewerAccountId(c),
      {
        any: [main, ...any.map(idOf).filter((id): id is string => id != null)],
        all: allIds.every((id) => id != null) ? allIds as string[] : null,
        none: none.map(idOf).filter((id): id is string => id != null),
      },
      await publicOptions(c),
      page,
    );
    return await answerPage(c, rows, "public");
  });

  app.get("/api/v1/timelines/link", publicFeedAccess(), async (c) => {
    const { db } = c.get("ctx").database;
    const p = await params(c);
    const page = readPageParams(p, PAGE_SIZES.timelines);
    const url = readString(p, "url", { maxLength: MAX_LINK_BYTES });
    if (!url) return c.json([]);
    const rows = await linkTimeline(db, viewerAccountId(c), url, await publicOptions(c), page);
    return await answerPage(c, rows, "public");
  });

  app.get("/api/v1/timelines/list/:list_id", requireUser("read:lists"), async (c) => {
    const { db } = c.get("ctx").database;
    const me = viewerAccountId(c)!;
    const listId = c.req.param("list_id");
    if (!isId(listId)) throw new ApiError(404, "Record not found");
    try {
      await findOwnList(db, me, listId);
    } catch (error) {
      if (error instanceof NotFoundError) throw new ApiError(404, "Record not found");
      throw error;
    }
    const page = readPageParams(await params(c), PAGE_SIZES.timelines);
    return await answerPage(c, await listTimeline(db, listId, me, page), "home");
  });

  app.get("/api/v1/timelines/direct", requireUser("read:statuses"), async (c) => {
    const { db } = c.get("ctx").database;
    const page = readPageParams(await params(c), PAGE_SIZES.timelines);
    return await answerPage(c, await directTimeline(db, viewerAccountId(c)!, page), undefined);
  });

  return app;
}
