/**
 * Avatars and headers of local accounts: decoded and re-encoded with sharp
 * (which also drops EXIF, GPS and other metadata), cropped to Mastodon's
 * sizes, and kept in the media store (actors/media/store/mod.ts) under
 * `accounts/{avatars,headers}/<account id>/`. Accounts keep the key.
 *
 * Files are never overwritten: each upload gets a new random name, so a URL
 * always means the same bytes (and can be cached forever), and a failed
 * profile update can delete what it wrote without touching the old image.
 */
import { loadSharp } from "./sharp.ts";
import { newProfileImageKey, PROFILE_IMAGE_TYPES } from "./store/keys.ts";
import type { MediaStore } from "./store/mod.ts";

export type ProfileImageKind = "avatar" | "header";

/** Output sizes (Mastodon crops both to exactly these). */
export const PROFILE_IMAGE_SIZES: Record<ProfileImageKind, { width: number; height: number }> = {
  avatar: { width: 400, height: 400 },
  header: { width: 1500, height: 500 },
};

/** Decoded pixels allowed (Mastodon's image_matrix_limit): stops decompression bombs. */
export const IMAGE_MATRIX_LIMIT = 33_177_600;

/** Why an upload was refused, worded as Mastodon's validation messages. */
export class ImageRejected extends Error {
  constructor(readonly kind: ProfileImageKind, readonly reason: "type" | "size" | "corrupt") {
    super(
      reason === "type"
        ? "content type is invalid"
        : reason === "size"
        ? "file size is too large"
        : "could not be processed",
    );
  }
}

/** A processed image, ready to store. */
export interface ProcessedImage {
  kind: ProfileImageKind;
  bytes: Uint8Array;
  extension: keyof typeof PROFILE_IMAGE_TYPES;
}

/**
 * Decodes, orients, crops and re-encodes an upload. PNG and GIF (first
 * frame) become PNG, JPEG stays JPEG, WebP stays WebP. Throws
 * {@link ImageRejected} for anything that is not a readable image.
 */
export async function processProfileImage(
  kind: ProfileImageKind,
  file: Blob,
  sizeLimit: number,
): Promise<ProcessedImage> {
  if (file.size > sizeLimit) throw new ImageRejected(kind, "size");
  if (file.size === 0) throw new ImageRejected(kind, "type");
  const input = new Uint8Array(await file.arrayBuffer());
  let format: string | undefined;
  const sharp = await loadSharp();
  try {
    format = (await sharp(input, { limitInputPixels: IMAGE_MATRIX_LIMIT }).metadata()).format;
  } catch {
    throw new ImageRejected(kind, "type");
  }
  const output = format === "jpeg" ? "jpg" : format === "webp" ? "webp" : "png";
  if (!["jpeg", "png", "gif", "webp"].includes(format ?? "")) {
    throw new ImageRejected(kind, "type");
  }
  const { width, height } = PROFILE_IMAGE_SIZES[kind];
  try {
    let pipeline = sharp(input, { limitInputPixels: IMAGE_MATRIX_LIMIT, failOn: "error" })
      .rotate() // apply the EXIF orientation before the metadata goes
      .resize(width, height, { fit: "cover", position: "centre" });
    pipeline = output === "jpg"
      ? pipeline.flatten({ background: "#ffffff" }).jpeg({ quality: 90, mozjpeg: true })
      : output === "webp"
      ? pipeline.webp({ quality: 90 })
      : pipeline.png();
    const bytes = new Uint8Array(await pipeline.toBuffer());
    return { kind, bytes, extension: output };
  } catch {
    throw new ImageRejected(kind, "corrupt");
  }
}

/**
 * Writes a processed image for an account and returns its store key. The
 * name is random (16 bytes): URLs cannot be guessed from the account id.
 */
export async function storeProfileImage(
  store: MediaStore,
  accountId: string,
  image: ProcessedImage,
): Promise<{ key: string; size: number }> {
  const key = newProfileImageKey(accountId, image.kind, image.extension);
  await store.put(key, image.bytes, { contentType: PROFILE_IMAGE_TYPES[image.extension] });
  return { key, size: image.bytes.byteLength };
}
