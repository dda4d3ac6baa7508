/**
 * The image files of local custom emoji, kept in the media store
 * (actors/media/store.ts) next to attachments, under keys of this shape:
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
import { encodeHex } from "../formatting/encoding.ts";
import { IMAGE_MATRIX_LIMIT } from "../media/profile_media.ts";
import { idPartition } from "../media/storage.ts";
import type { MediaStore } from "../media/store.ts";

/** Mastodon's limit on a local emoji image (MAX_EMOJI_SIZE: 256 KB). */
export const EMOJI_SIZE_LIMIT = 256 * 1024;

/** The folder (below the media root) of every emoji file. */
export const EMOJI_FOLDER = ["custom_emojis", "images"] as const;

/** The formats an emoji may have, by sharp's name, with their extension and type. */
const FORMATS: Record<string, { extension: string; contentType: string }> = {
  png: { extension: "png", contentType: "image/png" },
  gif: { extension: "gif", contentType: "image/gif" },
  webp: { extension: "webp", contentType: "image/webp" },
};

const ID_GROUPS = 7;

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

function newPath(id: string, style: "original" | "static", extension: string): string {
  const random = encodeHex(crypto.getRandomValues(new Uint8Array(8)));
  return [...EMOJI_FOLDER, ...idPartition(id), `${style}-${random}.${extension}`].join("/");
}

/**
 * Whether path segments (below the media root) can name an emoji file
 * written here; anything else is refused before the file system is touched.
 */
export function isSafeEmojiPath(segments: readonly string[]): boolean {
  if (segments.length !== EMOJI_FOLDER.length + ID_GROUPS + 1) return false;
  if (segments[0] !== EMOJI_FOLDER[0] || segments[1] !== EMOJI_FOLDER[1]) return false;
  for (let i = 0; i < ID_GROUPS; i++) {
    if (!/^\d{3}$/.test(segments[EMOJI_FOLDER.length + i])) return false;
  }
  const match = /^(?:original|static)-[0-9a-f]{16}\.([a-z]{3,4})$/.exec(segments.at(-1)!);
  return match != null && Object.values(FORMATS).some((f) => f.extension === match[1]);
}

/** Writes both files of an emoji; returns their keys in the media store. */
export async function writeEmojiFiles(
  store: MediaStore,
  id: string,
  image: EmojiImage,
): Promise<{ filePath: string; staticPath: string }> {
  const filePath = newPath(id, "original", image.extension);
  const staticPath = newPath(id, "static", "png");
  await store.put(filePath, image.original, image.contentType);
  try {
    await store.put(staticPath, image.still, "image/png");
  } catch (error) {
    await store.delete([filePath]);
    throw error;
  }
  return { filePath, staticPath };
}
