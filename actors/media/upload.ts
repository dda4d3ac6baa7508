/**
 * The media commands of a local account: upload, change (description, focus,
 * thumbnail), delete, and find one's own.
 *
 * Images are processed during the upload and stored as `processed`. Video
 * and audio are stored as uploaded, in state `processing`, and finished in
 * the background (processing.ts). Files are written before the row, and
 * removed again when the row cannot be written, so a failure leaves nothing
 * behind.
 */
import { and, eq, isNull, sql } from "drizzle-orm";
import type { AppContext } from "../../context.ts";
import { mediaAttachments } from "../../db/schema/mod.ts";
import { newId } from "../../db/ids.ts";
import { NotFoundError } from "../../model/errors.ts";
import { MediaRejected } from "./errors.ts";
import { declaredFamily, SNIFF_BYTES, type SniffedFormat, sniffFormat } from "./formats.ts";
import { type Geometry, processImage, processPreview } from "./images.ts";
import { writeAttachmentFile } from "./storage.ts";

/** A media_attachments row. */
export type MediaRow = typeof mediaAttachments.$inferSelect;

/** The focal point, each coordinate in -1..1 (Mastodon's `meta.focus`). */
export interface Focus {
  x: number;
  y: number;
}

/** What an upload carries. */
export interface UploadInput {
  file: File;
  thumbnail?: File;
  /** Alt text; blank means none. */
  description?: string;
  focus?: Focus;
}

/** What a change carries; absent members stay as they are. */
export interface MediaChange {
  thumbnail?: File;
  description?: string;
  focus?: Focus;
}

/** The attachment is attached to a status (or a scheduled one) and cannot be deleted. */
export class MediaInUse extends Error {
  constructor() {
    super("Media attachment is currently used by a status");
  }
}

/**
 * Parses Mastodon's focus parameter ("x,y", floats in -1..1); null when it
 * is not one.
 */
export function parseFocus(value: string): Focus | null {
  const parts = value.split(",");
  if (parts.length !== 2) return null;
  const [x, y] = parts.map((p) => (/^\s*[-+]?(\d+\.?\d*|\.\d+)\s*$/.test(p) ? Number(p) : NaN));
  if (![x, y].every((n) => Number.isFinite(n) && n >= -1 && n <= 1)) return null;
  return { x, y };
}

/** The format of an upload by its first bytes (the declared type only tells audio from video). */
async function sniffUpload(file: File): Promise<SniffedFormat | null> {
  const head = new Uint8Array(await file.slice(0, SNIFF_BYTES).arrayBuffer());
  return sniffFormat(head, declaredFamily(file.type));
}

async function readThumbnail(ctx: AppContext, thumbnail: File) {
  const { imageSizeLimit } = ctx.config.limits;
  if ((await sniffUpload(thumbnail))?.family !== "image") {
    throw new MediaRejected("type", "thumbnail");
  }
  if (thumbnail.size > imageSizeLimit) throw new MediaRejected("size", "thumbnail", imageSizeLimit);
  const bytes = new Uint8Array(await thumbnail.arrayBuffer());
  try {
    return await processPreview(bytes);
  } catch (error) {
    throw error instanceof MediaRejected ? error.about("thumbnail") : error;
  }
}

/**
 * Stores an upload for an account. Throws {@link MediaRejected} for a file
 * (or thumbnail) of the wrong type, too large, or unreadable.
 */
export async function uploadMedia(
  ctx: AppContext,
  accountId: string,
  input: UploadInput,
): Promise<MediaRow> {
  const { config } = ctx;
  const format = await sniffUpload(input.file);
  if (!format) throw new MediaRejected("type");
  const limit = format.family === "image"
    ? config.limits.imageSizeLimit
    : config.limits.videoSizeLimit;
  if (input.file.size > limit) throw new MediaRejected("size", "file", limit);
  const bytes = new Uint8Array(await input.file.arrayBuffer());
  const thumbnail = input.thumbnail ? await readThumbnail(ctx, input.thumbnail) : null;

  const id = newId();
  const store = ctx.media;
  const written: string[] = [];
  const write = async (style: "original" | "small", extension: string, data: Uint8Array) => {
    const path = await writeAttachmentFile(store, id, style, extension, data);
    written.push(path);
    return path;
  };
  try {
    const meta: Record<string, unknown> = {};
    let values: Partial<MediaRow>;
    if (format.family === "image") {
      const image = await processImage(bytes);
      const small = thumbnail ?? image.small;
      meta.original = image.original.geometry;
      meta.small = small.geometry;
      values = {
        type: "image",
        state: "processed",
        filePath: await write("original", image.original.extension, image.original.bytes),
        previewPath: await write("small", small.extension, small.bytes),
        contentType: contentTypeOfImage(image.original.extension),
        fileSize: image.original.bytes.byteLength,
        blurhash: thumbnail?.blurhash ?? image.blurhash,
      };
    } else {
      if (thumbnail) meta.small = thumbnail.geometry;
      values = {
        type: format.family,
        state: "processing",
        filePath: await write("original", format.extension, bytes),
        previewPath: thumbnail ? await write("small", thumbnail.extension, thumbnail.bytes) : null,
        contentType: format.contentType,
        fileSize: bytes.byteLength,
        blurhash: thumbnail?.blurhash ?? null,
      };
    }
    if (input.focus) meta.focus = input.focus;
    const [row] = await ctx.database.db.insert(mediaAttachments).values({
      ...values,
      id,
      accountId,
      meta,
      description: input.description || null,
    }).returning();
    return row;
  } catch (error) {
    await store.delete(written);
    throw error;
  }
}

function contentTypeOfImage(extension: string): string {
  return extension === "jpg" ? "image/jpeg" : `image/${extension}`;
}

/**
 * An account's own attachment. Mastodon shows and changes only attachments
 * not yet attached to a status (`unattachedOnly`); deleting looks at all.
 * Throws {@link NotFoundError} otherwise, also for someone else's.
 */
export async function findOwnMedia(
  ctx: AppContext,
  accountId: string,
  id: string,
  options: { unattachedOnly: boolean },
): Promise<MediaRow> {
  const [row] = await ctx.database.db.select().from(mediaAttachments)
    .where(and(eq(mediaAttachments.id, id), eq(mediaAttachments.accountId, accountId)));
  if (!row || (options.unattachedOnly && (row.statusId || row.scheduledStatusId))) {
    throw new NotFoundError();
  }
  return row;
}

/**
 * Changes the description, focus or thumbnail of an unattached attachment
 * of the account. A replaced thumbnail's file is removed after the row
 * points at the new one.
 */
export async function updateMedia(
  ctx: AppContext,
  accountId: string,
  id: string,
  change: MediaChange,
): Promise<MediaRow> {
  const row = await findOwnMedia(ctx, accountId, id, { unattachedOnly: true });
  const thumbnail = change.thumbnail ? await readThumbnail(ctx, change.thumbnail) : null;
  const store = ctx.media;
  const values: Partial<MediaRow> = {};
  const meta: Record<string, unknown> = {};
  let newPreview: string | null = null;
  if (thumbnail) {
    newPreview = await writeAttachmentFile(
      store,
      id,
      "small",
      thumbnail.extension,
      thumbnail.bytes,
    );
    values.previewPath = newPreview;
    values.blurhash = thumbnail.blurhash;
    meta.small = thumbnail.geometry satisfies Geometry;
  }
  if (change.description !== undefined) values.description = change.description || null;
  if (change.focus) meta.focus = change.focus;
  try {
    if (Object.keys(meta).length) {
      // Merged in SQL: background processing may be writing other members of meta.
      values.meta = sql`${mediaAttachments.meta} || ${JSON.stringify(meta)}::jsonb` as never;
    }
    if (Object.keys(values).length === 0) return row;
    const [updated] = await ctx.database.db.update(mediaAttachments).set(values)
      .where(and(eq(mediaAttachments.id, id), eq(mediaAttachments.accountId, accountId)))
      .returning();
    if (!updated) throw new NotFoundError();
    // The row no longer points at the old preview (this statement committed).
    if (newPreview && row.previewPath !== newPreview) await store.delete([row.previewPath]);
    return updated;
  } catch (error) {
    if (newPreview) await store.delete([newPreview]);
    throw error;
  }
}

/**
 * Deletes an attachment of the account with its files. Throws
 * {@link MediaInUse} when it belongs to a status or a scheduled status.
 */
export async function deleteMedia(ctx: AppContext, accountId: string, id: string): Promise<void> {
  const row = await findOwnMedia(ctx, accountId, id, { unattachedOnly: false });
  if (row.statusId || row.scheduledStatusId) throw new MediaInUse();
  const [deleted] = await ctx.database.db.delete(mediaAttachments).where(and(
    eq(mediaAttachments.id, id),
    isNull(mediaAttachments.statusId),
    isNull(mediaAttachments.scheduledStatusId),
  )).returning();
  // Attached between the read and the delete: still in use.
  if (!deleted) throw new MediaInUse();
  // The delete committed (one statement): its files go now.
  await ctx.media.delete([deleted.filePath, deleted.previewPath]);
}
