/**
 * Copies of remote custom emoji (see cache.ts): the image as fetched (at
 * most 256 KiB, PNG, GIF or WebP) and its still PNG, as a local emoji's.
 */
import { and, eq, isNull } from "drizzle-orm";
import { customEmojis } from "../../../db/schema/mod.ts";
import {
  EMOJI_SIZE_LIMIT,
  EmojiImageRejected,
  processEmojiImage,
  writeEmojiFiles,
} from "../../emoji/images.ts";
import {
  type CacheContext,
  checkOwnerDomain,
  dropLosers,
  failedLately,
  fetchForCache,
  recordingFailure,
  unavailable,
} from "./cache.ts";
import { RemoteMediaRefused } from "./fetch.ts";

/** The key of our copy of remote emoji `id`'s image or still, fetched first when needed. */
export async function cachedEmoji(
  ctx: CacheContext,
  id: string,
  variant: "original" | "static",
): Promise<string> {
  const files = await ctx.core.remoteMedia.once(`emoji:${id}`, () => copyEmoji(ctx, id));
  const [original, still] = files.split("\n");
  return variant === "static" ? still : original;
}

/** Fetches and stores emoji `id`; resolves to its two keys, one per line. */
async function copyEmoji(ctx: CacheContext, id: string): Promise<string> {
  const db = ctx.database.db;
  const [row] = await db.select().from(customEmojis).where(eq(customEmojis.id, id)).limit(1);
  if (!row || row.domain == null || !row.remoteUrl || row.disabled) {
    throw unavailable(`emoji ${id}`);
  }
  if (row.filePath && row.staticPath) return `${row.filePath}\n${row.staticPath}`;
  if (failedLately(row.cacheFailedAt)) throw unavailable(`emoji ${id}`);
  await checkOwnerDomain(ctx, row.domain);
  const remoteUrl = row.remoteUrl;
  return await recordingFailure(
    async () => {
      const fetched = await fetchForCache(ctx, remoteUrl, {
        families: ["image"],
        maxBytes: EMOJI_SIZE_LIMIT - 1,
      });
      let image;
      try {
        image = await processEmojiImage(fetched.bytes);
      } catch (error) {
        if (!(error instanceof EmojiImageRejected)) throw error;
        throw new RemoteMediaRefused("bad_type", "Not an emoji image", { cause: error });
      }
      const files = await writeEmojiFiles(ctx.media, id, image, { cached: true });
      const [won] = await db.update(customEmojis).set({
        filePath: files.filePath,
        staticPath: files.staticPath,
        imageFileSize: image.original.byteLength,
        cachedAt: new Date(),
        cacheFailedAt: null,
      }).where(and(
        eq(customEmojis.id, id),
        isNull(customEmojis.filePath),
        eq(customEmojis.remoteUrl, remoteUrl),
      )).returning({ id: customEmojis.id });
      if (!won) {
        await dropLosers(ctx, [files.filePath, files.staticPath]);
        throw unavailable(`emoji ${id} (changed while fetching)`);
      }
      return `${files.filePath}\n${files.staticPath}`;
    },
    () => db.update(customEmojis).set({ cacheFailedAt: new Date() }).where(eq(customEmojis.id, id)),
  );
}
