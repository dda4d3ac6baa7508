/**
 * Trends (public, as Mastodon's: any token or none):
 * - GET /api/v1/trends/tags (and the deprecated /api/v1/trends) → Tag[]
 *   (10 by default, 20 at most)
 * - GET /api/v1/trends/statuses → Status[] (20 by default, 40 at most)
 * - GET /api/v1/trends/links → trending link[] (10 by default, 20 at most)
 *
 * Each reads the scores the worker's trends job keeps (actors/trends),
 * best first, paged by `offset` with a `Link` header. With TRENDS_REVIEW
 * only items a moderator allowed are listed; rejected items never are.
 * Trending statuses are filtered for the viewer (blocks either way, domain
 * blocks, mutes); tags and links are the same for everyone.
 *
 * Decisions: trending tags carry no viewer flags (`following`), as the API
 * spec says; statuses are not filtered by language (Mastodon filters by the
 * request's locale).
 */
import { type Context, Hono } from "hono";
import type { ApiEnv } from "../env.ts";
import { params } from "../params.ts";
import { clampLimit, PAGE_SIZES, type PageSize } from "../pagination.ts";
import { readOffset, setOffsetLinks } from "../offset_pagination.ts";
import { serializeTags } from "../entities/tag.ts";
import { serializeStatuses } from "../entities/status.ts";
import { serializeTrendLinks } from "../entities/trend_link.ts";
import { viewerAccountId } from "./accounts_access.ts";
import {
  trendingCardIds,
  trendingStatuses,
  trendingTags,
  type TrendPage,
} from "../../db/queries/trends.ts";

async function readTrendPage(c: Context<ApiEnv>, size: PageSize): Promise<TrendPage> {
  const p = await params(c);
  return { offset: readOffset(p), limit: clampLimit(p.limit, size) };
}

/** The trends routes, mounted at the root of the app. */
export function trendRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const tagsHandler = async (c: Context<ApiEnv>) => {
    const { database, config } = c.get("ctx");
    const page = await readTrendPage(c, PAGE_SIZES.trends);
    const rows = await trendingTags(database, config.trends.review, page);
    setOffsetLinks(c, page.offset, page.limit, rows.length);
    return c.json(await serializeTags(database, config.origin, rows, null));
  };
  app.get("/api/v1/trends", tagsHandler);
  app.get("/api/v1/trends/tags", tagsHandler);

  app.get("/api/v1/trends/statuses", async (c) => {
    const ctx = c.get("ctx");
    const page = await readTrendPage(c, PAGE_SIZES.trendStatuses);
    const viewer = viewerAccountId(c);
    const rows = await trendingStatuses(ctx.database.db, viewer, ctx.config.trends.review, page);
    setOffsetLinks(c, page.offset, page.limit, rows.length);
    // Explore shows statuses in the public context of filters, as Mastodon's web client does.
    return c.json(
      await serializeStatuses(ctx, rows, viewer ? { accountId: viewer } : null, undefined, {
        context: "public",
      }),
    );
  });

  app.get("/api/v1/trends/links", async (c) => {
    const { database, config, mediaUrls } = c.get("ctx");
    const page = await readTrendPage(c, PAGE_SIZES.trends);
    const ids = await trendingCardIds(database, config.trends.review, page);
    setOffsetLinks(c, page.offset, page.limit, ids.length);
    return c.json(await serializeTrendLinks(database, mediaUrls, ids));
  });

  return app;
}
