/**
 * GET /tags/:name: the hashtag's page, public posts local and remote with
 * the tag, newest first and paged (the hashtag timeline's query, anonymous:
 * db/queries/timelines.ts tagTimeline). An unknown tag is a 404, as in
 * Mastodon. With PUBLIC_PREVIEW=false only a signed-in browser sees it (a
 * visitor goes to the sign-in form, coming back here), as only a token reads
 * the hashtag timeline then. The RSS feed is web/routes/public/feeds.ts.
 */
import { Hono } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import { serializeStatuses } from "../../../api/entities/status.ts";
import { tagsByName, tagTimeline } from "../../../db/queries/timelines.ts";
import { TagPage } from "../../pages/public/tag.tsx";
import {
  closedToVisitor,
  maxIdOf,
  olderLink,
  PAGE_LIMIT,
  publicViewer,
  sendMessagePage,
  sendPublicPage,
} from "./public_page_kit.ts";
import { redirectToSignIn } from "../form_pages.ts";
import { localUris } from "../../../model/uris.ts";

/** Longest tag name looked up (Mastodon's tags are far shorter). */
const MAX_TAG_LENGTH = 200;

export function tagPageRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get("/tags/:name{[^/.]+}", async (c) => {
    const ctx = c.get("ctx");
    const { config } = ctx;
    // Before the lookup: a visitor learns not even whether the tag exists.
    if (await closedToVisitor(c)) return redirectToSignIn(c);
    const name = c.req.param("name");
    const tag = name.length <= MAX_TAG_LENGTH
      ? [...(await tagsByName(ctx.database.db, [name])).values()][0]
      : undefined;
    if (!tag) return await sendMessagePage(c, 404, "Not found", "There is no such hashtag here.");
    const maxId = maxIdOf(c);
    const rows = await tagTimeline(
      ctx.database.db,
      null,
      { any: [tag.id], all: [], none: [] },
      {},
      {
        maxId,
        sinceId: null,
        minId: null,
        limit: PAGE_LIMIT,
      },
    );
    const statuses = await serializeStatuses(ctx, rows, null, undefined, { context: "public" });
    return await sendPublicPage(
      c,
      TagPage({
        name: tag.name,
        statuses,
        older: olderLink(localUris("").tag(tag.name), rows),
        paged: maxId != null,
        instanceTitle: config.instance.title,
        origin: config.origin,
        viewer: await publicViewer(c),
      }),
    );
  });

  return app;
}
