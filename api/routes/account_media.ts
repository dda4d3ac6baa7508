/**
 * Serves stored profile images: GET /system/accounts/{avatars|headers}/{account id}/{name}.
 *
 * Only names of the exact shape the store writes are looked up (see
 * `isSafeMediaPath`), so no request can reach another file, whatever its
 * dots, slashes or encodings. Names are random and never reused, so answers
 * are cached for a year.
 */
import { Hono } from "hono";
import { join } from "node:path";
import type { ApiEnv } from "../env.ts";
import {
  isSafeMediaPath,
  MEDIA_URL_PREFIX,
  mediaRoot,
  STORED_IMAGE_TYPES,
} from "../../actors/media/profile_media.ts";

/** The routes, mounted at the root of the app. */
export function accountMediaRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get(`${MEDIA_URL_PREFIX}/accounts/:folder/:accountId/:name`, async (c) => {
    const segments = [
      "accounts",
      c.req.param("folder"),
      c.req.param("accountId"),
      c.req.param("name"),
    ];
    if (!isSafeMediaPath(segments)) return c.text("Not Found", 404);
    const { config } = c.get("ctx");
    let bytes: Uint8Array<ArrayBuffer>;
    try {
      bytes = await Deno.readFile(join(mediaRoot(config.dataDir), ...segments));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return c.text("Not Found", 404);
      throw error;
    }
    const extension = segments[3].slice(segments[3].lastIndexOf(".") + 1);
    return c.body(bytes, 200, {
      "Content-Type": STORED_IMAGE_TYPES[extension],
      "Cache-Control": "public, max-age=31536000, immutable",
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "default-src 'none'; sandbox",
    });
  });

  return app;
}
