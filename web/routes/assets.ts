/**
 * The pages' own files:
 * - GET /assets/rookery.css: the one stylesheet (web/pages/style.ts). Asked
 *   for with the hash the pages link (`?v=<hash>`), it is cached for a year
 *   as immutable: a new stylesheet is a new URL. Asked for without it or with
 *   an old hash (a page from before an upgrade), it is the current text,
 *   revalidated every time, so nothing stale is kept under a URL that now
 *   means something else.
 * - GET /favicon.ico: the site icon (api/static/favicon.ico, 16 and 32
 *   pixels), which every page links and browsers ask for on their own. Its
 *   URL never changes, so it is kept four weeks and then revalidated.
 * - GET /assets/rookery.js: the web app's script (web/assets/rookery.js),
 *   versioned like the stylesheet; only `app` pages load and may run it.
 * All answer 304 to a request that names their current ETag.
 */
import { type Context, Hono } from "hono";
import type { ApiEnv } from "../../api/env.ts";
import { STYLESHEET, STYLESHEET_PATH, STYLESHEET_VERSION } from "../pages/style.ts";
import { FAVICON_PATH } from "../pages/shell.tsx";
import { APP_SCRIPT, APP_SCRIPT_VERSION } from "../pages/app/script.ts";
import { APP_SCRIPT_PATH } from "./page_response.ts";

const FAVICON = await Deno.readFile(new URL("../../api/static/favicon.ico", import.meta.url));
const FAVICON_ETAG = `"${
  Array.from(
    new Uint8Array(await crypto.subtle.digest("SHA-256", FAVICON)).slice(0, 8),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("")
}"`;
const STYLESHEET_ETAG = `"${STYLESHEET_VERSION}"`;

/** Sends a file of ours with its validator, or 304 when the client holds this version. */
function sendAsset(
  c: Context<ApiEnv>,
  body: string | Uint8Array<ArrayBuffer>,
  options: { type: string; cacheControl: string; etag: string },
): Response {
  const headers = {
    "Content-Type": options.type,
    "Cache-Control": options.cacheControl,
    ETag: options.etag,
    "X-Content-Type-Options": "nosniff",
  };
  const match = c.req.header("if-none-match");
  if (match && match.split(",").some((tag) => tag.trim().replace(/^W\//, "") === options.etag)) {
    return c.body(null, 304, headers);
  }
  return c.body(body, 200, headers);
}

/** The routes of the stylesheet and the icon, mounted at the root of the app. */
export function assetRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get(STYLESHEET_PATH, (c) =>
    sendAsset(c, STYLESHEET, {
      type: "text/css; charset=utf-8",
      cacheControl: c.req.query("v") === STYLESHEET_VERSION
        ? "public, max-age=31536000, immutable"
        : "no-cache",
      etag: STYLESHEET_ETAG,
    }));
  app.get(APP_SCRIPT_PATH, (c) =>
    sendAsset(c, APP_SCRIPT, {
      type: "text/javascript; charset=utf-8",
      cacheControl: c.req.query("v") === APP_SCRIPT_VERSION
        ? "public, max-age=31536000, immutable"
        : "no-cache",
      etag: `"${APP_SCRIPT_VERSION}"`,
    }));
  app.get(FAVICON_PATH, (c) =>
    sendAsset(c, FAVICON, {
      type: "image/x-icon",
      cacheControl: "public, max-age=2419200, must-revalidate",
      etag: FAVICON_ETAG,
    }));
  return app;
}
