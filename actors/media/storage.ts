/**
 * Writing the files of a media attachment into the media store, under the
 * keys of store/keys.ts:
 *
 *   media_attachments/files/<id in 3-digit groups>/<style>-<16 hex>.<ext>
 *
 * e.g. `media_attachments/files/000/113/456/789/012/345/678/small-0123456789abcdef.jpg`.
 * Every piece is made from the id, a random name and an extension of ours;
 * nothing the client sent ends up in a key. Rows store the key; the store
 * gives its URL.
 */
import { STORED_CONTENT_TYPES } from "./formats.ts";
import { contentTypeOfKey, newAttachmentKey } from "./store/keys.ts";
import type { MediaStore } from "./store/mod.ts";

/** The kinds of files an attachment has. */
export type FileStyle = "original" | "small";

/** Writes bytes (or a stream) to a new file of an attachment and returns its key. */
export async function writeAttachmentFile(
  store: MediaStore,
  id: string,
  style: FileStyle,
  extension: string,
  body: Uint8Array | Blob | ReadableStream<Uint8Array>,
  options: { size?: number; cached?: boolean } = {},
): Promise<string> {
  if (!(extension in STORED_CONTENT_TYPES)) throw new Error(`not a stored type: ${extension}`);
  const key = newAttachmentKey(id, style, extension, { cached: options.cached });
  await store.put(key, body, { contentType: contentTypeOfKey(key), size: options.size });
  return key;
}
