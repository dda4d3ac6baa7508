/**
 * The image files of local custom emoji, kept in the media store
 * (actors/media/store/mod.ts) next to attachments, under keys of this shape:
 *
 *   custom_emojis/images/<id in 3-digit groups>/<original|static>-<16 hex>.<ext>
 *
 * The original is kept as uploaded (PNG, GIF or WebP, animated ones stay
 * animated, as Mastodon keeps them); the static copy is the first frame as
 * PNG, for `static_url` and clients that turn animation off. The format is
 * recognised by decoding the bytes with sharp, never from a name or a
 * client's word; the random part of a name changes with every upload, so a
 * URL always means the same bytes.
 */
import { loadSharp } from "../media/sharp.ts";
import { IMAGE_MATRIX_LIMIT } from "../media/profile_media.ts";
import { newEmojiKey } from "../media/store/keys.ts";
import type { MediaStore } from "../media/store/mod.ts";

/** Mastodon's limit on a local emoji image (MAX_EMOJI_SIZE: 256 KB). */
export const EMOJI_SIZE_LIMIT = 256 * 1024;

/** The formats an emoji may have, by sharp's name, with their extension and type. */
const FORMATS: Record<string, { extension: string; contentType: string }> = {
  png: { extension: "png", contentType: "image/png" },
  gif: { extension: "gif", contentType: "image/gif" },
  webp: { extension: "webp", contentType: "image/webp" },
};

/** Why an emoji image was refused. */
export class EmojiImageRejected extends Error {
  constructor(readonly reason: "type" | "size") {
    super(
      reason === "size"
        ? `must be smaller than ${EMOJI_SIZE_LIMIT / 1024} KB`
        : "must be a PNG, GIF or WebP image",
    );
  }
}

/** A checked emoji image, ready to store. */
export interface EmojiImage {
  original: Uint8Array;
  extension: string;
  contentType: string;
  /** The first frame as PNG. */
  still: Uint8Array;
}

/** Checks an upload and makes its still copy; throws {@link EmojiImageRejected}. */
export async function processEmojiImage(bytes: Uint8Array): Promise<EmojiImage> {
  if (bytes.length >= EMOJI_SIZE_LIMIT) throw new EmojiImageRejected("size");
  if (bytes.length === 0) throw new EmojiImageRejected("type");
  let format: string | undefined;
  const sharp = await loadSharp();
  try {
    format = (await sharp(bytes, { limitInputPixels: IMAGE_MATRIX_LIMIT }).metadata()).format;
  } catch {
    throw new EmojiImageRejected("type");
  }
  const kind = format ? FORMATS[format] : undefined;
  if (!kind) throw new EmojiImageRejected("type");
  let still: Uint8Array;
  try {
    still = new Uint8Array(
      await sharp(bytes, { limitInputPixels: IMAGE_MATRIX_LIMIT, failOn: "error", pages: 1 })
        .png().toBuffer(),
    );
  } catch {
    // Recognised by its header but not decodable: not an image we can serve.
    throw new EmojiImageRejected("type");
  }
  return { original: bytes, extension: kind.extension, contentType: kind.contentType, still };
}

/**
 * Writes both files of an emoji (`cached`: a copy of a remote emoji's);
 * returns their keys in the media store.
 */
export async function writeEmojiFiles(
  store: MediaStore,
  id: string,
  image: EmojiImage,
  options: { cached?: boolean } = {},
): Promise<{ filePath: string; staticPath: string }> {
  const filePath = newEmojiKey(id, "original", image.extension, options);
  const staticPath = newEmojiKey(id, "static", "png", options);
  await store.put(filePath, image.original, { contentType: image.contentType });
  try {
    await store.put(staticPath, image.still, { contentType: "image/png" });
  } catch (error) {
    await store.delete([filePath]);
    throw error;
  }
  return { filePath, staticPath };
}
