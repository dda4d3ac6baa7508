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
 * The home and public reads are in api/reads/timelines.ts, shared with the
 * web app's pages.
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
import { readString } from "../readers.ts";
import { PAGE_SIZES, type PageRead, readPageParams, setLinkHeader } from "../pagination.ts";
import { checkToken, requireUser } from "../middleware/scopes.ts";
import type { StatusJson } from "../entities/status.ts";
import {
  publicOptions as readPublicOptions,
  readHomeTimeline,
  readListTimeline,
  readPublicTimeline,
  readTagTimeline,
  statusPage,
} from "../reads/timelines.ts";
import {
  directTimeline,
  linkTimeline,
  type PublicTimelineOptions,
  type StatusRow,
} from "../../db/queries/timelines.ts";
import { NotFoundError } from "../../model/errors.ts";
import { viewerAccountId } from "./accounts_access.ts";
import { MAX_LINK_BYTES } from "../../actors/cards/links.ts";
import type { FilterContext } from "../../actors/filters/rules.ts";

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
): Promise<Response> {
  const viewer = viewerAccountId(c);
  return answerRead(
    c,
    await statusPage(c.get("ctx"), rows, viewer ? { accountId: viewer } : null, context),
  );
}

/** A read's entities as JSON, with its Link header. */
function answerRead(c: Context<ApiEnv>, read: PageRead<StatusJson>): Response {
  setLinkHeader(c, read.cursors);
  return c.json(read.items);
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
  return readPublicOptions(await params(c));
}

/** The timeline routes, mounted at the root of the app. */
export function timelineRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get("/api/v1/timelines/home", requireUser("read:statuses"), async (c) => {
    const me = viewerAccountId(c)!;
    return answerRead(c, await readHomeTimeline(c.get("ctx"), { accountId: me }, await params(c)));
  });

  app.get("/api/v1/timelines/public", publicFeedAccess(), async (c) => {
    const me = viewerAccountId(c);
    const viewer = me ? { accountId: me } : null;
    return answerRead(c, await readPublicTimeline(c.get("ctx"), viewer, await params(c)));
  });

  app.get("/api/v1/timelines/tag/:hashtag", publicFeedAccess(), async (c) => {
    const me = viewerAccountId(c);
    const read = await readTagTimeline(
      c.get("ctx"),
      me ? { accountId: me } : null,
      c.req.param("hashtag"),
      await params(c),
    );
    if (!read) throw new ApiError(404, "Record not found");
    return answerRead(c, read);
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
    const me = { accountId: viewerAccountId(c)! };
    try {
      const listId = c.req.param("list_id");
      return answerRead(c, await readListTimeline(c.get("ctx"), me, listId, await params(c)));
    } catch (error) {
      if (error instanceof NotFoundError) throw new ApiError(404, "Record not found");
      throw error;
    }
  });

  app.get("/api/v1/timelines/direct", requireUser("read:statuses"), async (c) => {
    const { db } = c.get("ctx").database;
    const page = readPageParams(await params(c), PAGE_SIZES.timelines);
    return await answerPage(c, await directTimeline(db, viewerAccountId(c)!, page), undefined);
  });

  return app;
}
