/**
 * GET /assets/rookery.css: the pages' one stylesheet (api/pages/style.ts).
 * Asked for with the hash the pages link (`?v=<hash>`), it is cached for a
 * year as immutable: a new stylesheet is a new URL. Asked for without it or
 * with an old hash (a page from before an upgrade), it is the current text,
 * revalidated every time, so nothing stale is kept under a URL that now
 * means something else.
 */
import { Hono } from "hono";
import type { ApiEnv } from "../env.ts";
import { STYLESHEET, STYLESHEET_PATH, STYLESHEET_VERSION } from "../pages/style.ts";

const ETAG = `"${STYLESHEET_VERSION}"`;

/** The route of the stylesheet, mounted at the root of the app. */
export function assetRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get(STYLESHEET_PATH, (c) => {
    const current = c.req.query("v") === STYLESHEET_VERSION;
    const headers = {
      "Content-Type": "text/css; charset=utf-8",
      "Cache-Control": current ? "public, max-age=31536000, immutable" : "no-cache",
      ETag: ETAG,
      "X-Content-Type-Options": "nosniff",
    };
    const match = c.req.header("if-none-match");
    if (match && match.split(",").some((tag) => tag.trim().replace(/^W\//, "") === ETAG)) {
      return c.body(null, 304, headers);
    }
    return c.body(STYLESHEET, 200, headers);
  });
  return app;
}
