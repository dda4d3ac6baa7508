/**
 * Copies of link card images (see cache.ts): at most 8 MiB fetched, made
 * into a preview-sized image (as an attachment's `small`), its blurhash kept
 * on the card when the page gave none.
 */
import { and, eq, isNull } from "drizzle-orm";
import { previewCards } from "../../../db/schema/mod.ts";
import { MediaRejected } from "../errors.ts";
import { processPreview } from "../images.ts";
import { newCardImageKey } from "../store/keys.ts";
import {
  type CacheContext,
  dropLosers,
  failedLately,
  fetchForCache,
  PROFILE_IMAGE_MAX_BYTES,
  recordingFailure,
  unavailable,
} from "./cache.ts";
import { RemoteMediaRefused } from "./fetch.ts";

/** The key of our copy of card `id`'s image, fetched first when needed. */
export function cachedCardImage(ctx: CacheContext, id: string): Promise<string> {
  return ctx.core.remoteMedia.once(`card:${id}`, () => copyCardImage(ctx, id));
}

async function copyCardImage(ctx: CacheContext, id: string): Promise<string> {
  const db = ctx.database.db;
  const [row] = await db.select().from(previewCards).where(eq(previewCards.id, id)).limit(1);
  if (!row || !row.imageRemoteUrl) throw unavailable(`card ${id}`);
  if (row.imageKey) return row.imageKey;
  if (failedLately(row.imageFailedAt)) throw unavailable(`card ${id}`);
  const remoteUrl = row.imageRemoteUrl;
  return await recordingFailure(
    async () => {
      const fetched = await fetchForCache(ctx, remoteUrl, {
        families: ["image"],
        maxBytes: PROFILE_IMAGE_MAX_BYTES,
      });
      let image;
      try {
        image = await processPreview(fetched.bytes);
      } catch (error) {
        if (!(error instanceof MediaRejected)) throw error;
        throw new RemoteMediaRefused("bad_type", "Not a readable image", { cause: error });
      }
      const key = newCardImageKey(id, image.extension);
      await ctx.media.put(key, image.bytes, {
        contentType: image.extension === "png" ? "image/png" : "image/jpeg",
      });
      const [won] = await db.update(previewCards).set({
        imageKey: key,
        imageFileSize: image.bytes.byteLength,
        imageCachedAt: new Date(),
        imageFailedAt: null,
        blurhash: row.blurhash ?? image.blurhash,
      }).where(and(
        eq(previewCards.id, id),
        isNull(previewCards.imageKey),
        eq(previewCards.imageRemoteUrl, remoteUrl),
      )).returning({ id: previewCards.id });
      if (!won) {
        await dropLosers(ctx, [key]);
        throw unavailable(`card ${id} (changed while fetching)`);
      }
      return key;
    },
    () => db.update(previewCards).set({ imageFailedAt: new Date() }).where(eq(previewCards.id, id)),
  );
}
