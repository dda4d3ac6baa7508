/**
 * Where media attachment files live and how their paths are checked.
 *
 * Files are kept by the media store (store.ts), next to custom emoji and
 * profile images, under keys of this shape:
 *
 *   media_attachments/files/<id in 3-digit groups>/<style>-<16 hex>.<ext>
 *
 * e.g. `media_attachments/files/000/113/456/789/012/345/678/small-0123456789abcdef.jpg`.
 * Every piece is made here (the id, a random name, an extension of ours);
 * nothing the client sent ends up in a path. The random part keeps URLs of
 * unlisted media unguessable from the (time-ordered) id, and a replaced file
 * always gets a new name, so a URL always means the same bytes and can be
 * cached forever.
 *
 * Rows store the key; the store gives its URL.
 */
import { encodeHex } from "../formatting/encoding.ts";
import { STORED_CONTENT_TYPES } from "./formats.ts";
import { localMediaFile, type MediaStore, mediaUrl } from "./store.ts";

/** The folder (below the media root) of every attachment file. */
export const ATTACHMENTS_FOLDER = ["media_attachments", "files"] as const;

/** The kinds of files an attachment has. */
export type FileStyle = "original" | "small";

const ID_DIGITS = 21; // snowflakes have up to 19 digits; 7 groups of 3

/** The id as path segments: zero-padded and cut in groups of three digits. */
export function idPartition(id: string): string[] {
  if (!/^\d{1,21}$/.test(id)) throw new Error(`not an id: ${id}`);
  return id.padStart(ID_DIGITS, "0").match(/\d{3}/g)!;
}

/** The relative path (with `/`) a new file of an attachment gets. */
export function newAttachmentPath(id: string, style: FileStyle, extension: string): string {
  if (!(extension in STORED_CONTENT_TYPES)) throw new Error(`not a stored type: ${extension}`);
  const random = encodeHex(crypto.getRandomValues(new Uint8Array(8)));
  return [...ATTACHMENTS_FOLDER, ...idPartition(id), `${style}-${random}.${extension}`].join("/");
}

/**
 * Whether path segments (below the media root) can name an attachment file
 * written by {@link newAttachmentPath}. Anything else (`..`, encoded
 * slashes, other folders, other names) is refused before the file system is
 * touched.
 */
export function isSafeAttachmentPath(segments: readonly string[]): boolean {
  const groups = ID_DIGITS / 3;
  if (segments.length !== ATTACHMENTS_FOLDER.length + groups + 1) return false;
  if (segments[0] !== ATTACHMENTS_FOLDER[0] || segments[1] !== ATTACHMENTS_FOLDER[1]) return false;
  for (let i = 0; i < groups; i++) {
    if (!/^\d{3}$/.test(segments[ATTACHMENTS_FOLDER.length + i])) return false;
  }
  const match = /^(?:original|small)-[0-9a-f]{16}\.([0-9a-z]{2,4})$/.exec(segments.at(-1)!);
  return match != null && match[1] in STORED_CONTENT_TYPES;
}

/** The content type of a stored file, from the extension the store gave it. */
export function storedContentType(path: string): string {
  const extension = path.slice(path.lastIndexOf(".") + 1);
  return STORED_CONTENT_TYPES[extension] ?? "application/octet-stream";
}

/** The absolute file name of a stored relative path (the folder store). */
export const storedFileName = localMediaFile;

/** The public URL of a stored relative path. */
export const storedFileUrl = mediaUrl;

/** Writes bytes to a new stored file and returns its relative path. */
export async function writeAttachmentFile(
  store: MediaStore,
  id: string,
  style: FileStyle,
  extension: string,
  bytes: Uint8Array,
): Promise<string> {
  const path = newAttachmentPath(id, style, extension);
  await store.put(path, bytes, storedContentType(path));
  return path;
}
