/**
 * GET /api/v1/custom_emojis: the picker's emoji (public, no token), as
 * Mastodon: local, enabled and listed ones. Their image files are served
 * with the rest of the media store (media_files.ts).
 */
import { Hono } from "hono";
import type { ApiEnv } from "../env.ts";
import { loadPickerEmojis } from "../entities/custom_emoji.ts";

/** The routes, mounted at the root of the app. */
export function customEmojiRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get("/api/v1/custom_emojis", async (c) => {
    const { database, mediaUrls } = c.get("ctx");
    const emojis = await loadPickerEmojis(database.db, mediaUrls);
    c.header("Cache-Control", "public, max-age=180");
    return c.json(emojis);
  });

  return app;
}
