/**
 * Avatars and headers of local accounts: decoded and re-encoded with sharp
 * (which also drops EXIF, GPS and other metadata), cropped to Mastodon's
 * sizes, and kept in the media store (actors/media/store.ts) under
 * `accounts/{avatars,headers}/<account id>/`. Accounts keep the URL.
 *
 * Files are never overwritten: each upload gets a new random name, so a URL
 * always means the same bytes (and can be cached forever), and a failed
 * profile update can delete what it wrote without touching the old image.
 */
import { loadSharp } from "./sharp.ts";
import { encodeHex } from "../formatting/encoding.ts";
import { MEDIA_URL_PREFIX, type MediaStore, mediaUrl } from "./store.ts";

export { MEDIA_URL_PREFIX, mediaRoot } from "./store.ts";

export type ProfileImageKind = "avatar" | "header";

/** Output sizes (Mastodon crops both to exactly these). */
export const PROFILE_IMAGE_SIZES: Record<ProfileImageKind, { width: number; height: number }> = {
  avatar: { width: 400, height: 400 },
  header: { width: 1500, height: 500 },
};

/** Decoded pixels allowed (Mastodon's image_matrix_limit): stops decompression bombs. */
export const IMAGE_MATRIX_LIMIT = 33_177_600;

/** Stored formats by extension; every stored file has one of these. */
export const STORED_IMAGE_TYPES: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  webp: "image/webp",
};

const FOLDERS: Record<ProfileImageKind, string> = { avatar: "avatars", header: "headers" };

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
  extension: keyof typeof STORED_IMAGE_TYPES;
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
 * Writes a processed image for an account and returns its public URL. The
 * name is random (16 bytes): URLs cannot be guessed from the account id.
 */
export async function storeProfileImage(
  store: MediaStore,
  accountId: string,
  image: ProcessedImage,
): Promise<string> {
  const name = `${encodeHex(crypto.getRandomValues(new Uint8Array(16)))}.${image.extension}`;
  const key = ["accounts", FOLDERS[image.kind], accountId, name].join("/");
  await store.put(key, image.bytes, STORED_IMAGE_TYPES[image.extension]);
  return store.url(key);
}

/**
 * The public URL of a stored media file: a path under the media root is
 * served at /system/…; a remote URL (media we link, not store) stays as it is.
 */
export function mediaFileUrl(origin: string, path: string | null): string | null {
  if (!path) return null;
  if (/^https?:\/\//i.test(path)) return path;
  return mediaUrl(origin, path.replace(/^\/+/, ""));
}

/** Stored file path under the media root for one of our media URLs; null when it is not one. */
export function storedPathOf(origin: string, url: string | null): string[] | null {
  if (!url?.startsWith(`${origin}${MEDIA_URL_PREFIX}/`)) return null;
  const segments = url.slice(origin.length + MEDIA_URL_PREFIX.length + 1).split("/");
  return isSafeMediaPath(segments) ? segments : null;
}

/**
 * Whether a path (as segments below the media root) can name a stored
 * profile image: `accounts/{avatars|headers}/{digits}/{hex}.{ext}`. Anything
 * else (`..`, encoded slashes, other folders) is refused before the file
 * system is touched.
 */
export function isSafeMediaPath(segments: string[]): boolean {
  if (segments.length !== 4) return false;
  const [root, folder, accountId, name] = segments;
  if (root !== "accounts" || (folder !== "avatars" && folder !== "headers")) return false;
  if (!/^\d{1,20}$/.test(accountId)) return false;
  const match = /^[0-9a-f]{32}\.([a-z]+)$/.exec(name);
  return match != null && match[1] in STORED_IMAGE_TYPES;
}

/**
 * The store key of an account's own avatar or header, from the URL the
 * account row keeps; null for a remote URL or anything else. Only a file in
 * that account's own folder can come out, whatever the URL says, so a
 * remote actor's crafted avatar URL never names a file of ours.
 */
export function profileImageKey(accountId: string, url: string | null): string | null {
  let path: string;
  try {
    path = new URL(url ?? "").pathname;
  } catch {
    return null;
  }
  if (!path.startsWith(`${MEDIA_URL_PREFIX}/`)) return null;
  const segments = path.slice(MEDIA_URL_PREFIX.length + 1).split("/");
  return isSafeMediaPath(segments) && segments[2] === accountId ? segments.join("/") : null;
}
