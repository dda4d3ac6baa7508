/**
 * Custom emoji over HTTP:
 * - GET /api/v1/custom_emojis: the picker's emoji (public, no token), as
 *   Mastodon: local, enabled and listed ones.
 * - GET /system/custom_emojis/images/…: the stored image files. Only paths of
 *   the exact shape the store writes are looked up (`isSafeEmojiPath`); the
 *   content type comes from the extension the store chose, with `nosniff`
 *   and a sandboxing CSP. Names are random and never reused, so answers are
 *   cached for a year.
 */
import { Hono } from "hono";
import type { ApiEnv } from "../env.ts";
import { MEDIA_URL_PREFIX } from "../../actors/media/profile_media.ts";
import { storedContentType, storedFileName } from "../../actors/media/storage.ts";
import { EMOJI_FOLDER, isSafeEmojiPath } from "../../actors/emoji/images.ts";
import { loadPickerEmojis } from "../entities/custom_emoji.ts";

const FILES = `${MEDIA_URL_PREFIX}/${EMOJI_FOLDER.join("/")}/`;

/** The routes, mounted at the root of the app. */
export function customEmojiRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get("/api/v1/custom_emojis", async (c) => {
    const { database, config } = c.get("ctx");
    const emojis = await loadPickerEmojis(database.db, config.origin);
    c.header("Cache-Control", "public, max-age=180");
    return c.json(emojis);
  });

  app.get(`${FILES}*`, async (c) => {
    const segments = c.req.path.slice(MEDIA_URL_PREFIX.length + 1).split("/");
    if (!isSafeEmojiPath(segments)) return c.text("Not Found", 404);
    const path = segments.join("/");
    let bytes: Uint8Array<ArrayBuffer>;
    try {
      bytes = await Deno.readFile(storedFileName(c.get("ctx").config.dataDir, path));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return c.text("Not Found", 404);
      throw error;
    }
    return c.body(bytes, 200, {
      "Content-Type": storedContentType(path),
      "Cache-Control": "public, max-age=31536000, immutable",
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "default-src 'none'; sandbox",
    });
  });

  return app;
}
