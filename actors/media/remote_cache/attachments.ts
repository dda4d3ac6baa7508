/**
 * Copies of remote attachments (see cache.ts): an image is processed as an
 * upload is (metadata stripped, a `small` preview, the sender's blurhash
 * kept or one made); video and audio are stored as fetched. A file of a
 * type we do not know is never fetched (Mastodon downloads only media it
 * knows): its proxy URL answers 404 and clients link `remote_url`.
 */
import { and, eq, isNull, sql } from "drizzle-orm";
import { accounts, mediaAttachments } from "../../../db/schema/mod.ts";
import { MediaRejected } from "../errors.ts";
import type { MediaFamily } from "../formats.ts";
import { processImage } from "../images.ts";
import { writeAttachmentFile } from "../storage.ts";
import { STORED_CONTENT_TYPES } from "../formats.ts";
import {
  type CacheContext,
  checkOwnerDomain,
  dropLosers,
  failedLately,
  fetchForCache,
  LARGE_MEDIA_TIMEOUT_MS,
  recordingFailure,
  unavailable,
} from "./cache.ts";
import { RemoteMediaRefused } from "./fetch.ts";

const FAMILIES: Record<string, MediaFamily> = {
  image: "image",
  gifv: "video",
  video: "video",
  audio: "audio",
};

/** Whether a remote attachment of `type` is ever copied (a type we do not know is not). */
export function copyableType(type: string): boolean {
  return Object.hasOwn(FAMILIES, type);
}

/**
 * The key of our copy of remote attachment `id`'s `variant`, fetching it
 * first when we hold none; throws {@link RemoteMediaRefused}.
 */
export function cachedAttachment(
  ctx: CacheContext,
  id: string,
  variant: "original" | "small",
): Promise<string> {
  return ctx.core.remoteMedia.once(`attachment:${id}`, () => copyAttachment(ctx, id))
    .then(async () => variantKey(await readRow(ctx, id), variant, id));
}

async function readRow(ctx: CacheContext, id: string) {
  const [row] = await ctx.database.db.select({
    id: mediaAttachments.id,
    type: mediaAttachments.type,
    filePath: mediaAttachments.filePath,
    previewPath: mediaAttachments.previewPath,
    remoteUrl: mediaAttachments.remoteUrl,
    cacheFailedAt: mediaAttachments.cacheFailedAt,
    blurhash: mediaAttachments.blurhash,
    domain: accounts.domain,
    hidden: sql<
      boolean
    >`(${accounts.suspendedAt} IS NOT NULL OR ${accounts.deletedAt} IS NOT NULL)`,
  }).from(mediaAttachments).innerJoin(accounts, eq(accounts.id, mediaAttachments.accountId))
    .where(eq(mediaAttachments.id, id)).limit(1);
  if (!row || !row.remoteUrl || row.domain == null || row.hidden) throw unavailable(`media ${id}`);
  return row;
}

/** The stored key of a variant; an image without a preview stands in for itself. */
function variantKey(row: Awaited<ReturnType<typeof readRow>>, variant: string, id: string) {
  const key = variant === "small"
    ? row.previewPath ?? (row.type === "image" ? row.filePath : null)
    : row.filePath;
  if (!key) throw unavailable(`media ${id} ${variant}`);
  return key;
}

/** Fetches and stores the files of remote attachment `id` unless we hold them. */
async function copyAttachment(ctx: CacheContext, id: string): Promise<string> {
  const row = await readRow(ctx, id);
  if (row.filePath) return row.filePath;
  const family = FAMILIES[row.type];
  if (!family || failedLately(row.cacheFailedAt)) throw unavailable(`media ${id}`);
  await checkOwnerDomain(ctx, row.domain);
  const remoteUrl = row.remoteUrl!;
  const { limits } = ctx.config;
  return await recordingFailure(
    async () => {
      const fetched = await fetchForCache(ctx, remoteUrl, {
        families: [family],
        maxBytes: family === "image" ? limits.imageSizeLimit : limits.videoSizeLimit,
        timeoutMs: family === "image" ? undefined : LARGE_MEDIA_TIMEOUT_MS,
      });
      const files = await writeFiles(ctx, id, family, fetched.bytes, fetched.format.extension);
      const [won] = await ctx.database.db.update(mediaAttachments).set({
        filePath: files.original,
        previewPath: files.small,
        fileSize: files.size,
        previewFileSize: files.smallSize,
        blurhash: row.blurhash ?? files.blurhash,
        cachedAt: new Date(),
        cacheFailedAt: null,
      }).where(and(
        eq(mediaAttachments.id, id),
        isNull(mediaAttachments.filePath),
        eq(mediaAttachments.remoteUrl, remoteUrl),
      )).returning({ id: mediaAttachments.id });
      if (!won) {
        await dropLosers(ctx, [files.original, files.small].filter((k): k is string => k != null));
        throw unavailable(`media ${id} (changed while fetching)`);
      }
      return files.original;
    },
    () =>
      ctx.database.db.update(mediaAttachments).set({ cacheFailedAt: new Date() })
        .where(eq(mediaAttachments.id, id)),
  );
}

interface WrittenFiles {
  original: string;
  small: string | null;
  size: number;
  smallSize: number | null;
  blurhash: string | null;
}

/** Writes the copy: an image processed (original + small), anything else as fetched. */
async function writeFiles(
  ctx: CacheContext,
  id: string,
  family: MediaFamily,
  bytes: Uint8Array,
  extension: string,
): Promise<WrittenFiles> {
  if (family !== "image") {
    if (!(extension in STORED_CONTENT_TYPES)) {
      throw new RemoteMediaRefused("bad_type", `Not a stored type: ${extension}`);
    }
    const original = await writeAttachmentFile(ctx.media, id, "original", extension, bytes, {
      size: bytes.byteLength,
      cached: true,
    });
    return { original, small: null, size: bytes.byteLength, smallSize: null, blurhash: null };
  }
  let image;
  try {
    image = await processImage(bytes);
  } catch (error) {
    if (error instanceof MediaRejected) {
      throw new RemoteMediaRefused("bad_type", "Not a readable image", { cause: error });
    }
    throw error;
  }
  const { original, small } = image;
  const originalKey = await writeAttachmentFile(
    ctx.media,
    id,
    "original",
    original.extension,
    original.bytes,
    { cached: true },
  );
  try {
    const smallKey = await writeAttachmentFile(
      ctx.media,
      id,
      "small",
      small.extension,
      small.bytes,
      {
        cached: true,
      },
    );
    return {
      original: originalKey,
      small: smallKey,
      size: original.bytes.byteLength,
      smallSize: small.bytes.byteLength,
      blurhash: image.blurhash,
    };
  } catch (error) {
    await ctx.media.delete([originalKey]);
    throw error;
  }
}
