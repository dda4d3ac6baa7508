/**
 * The media store: the one place where media files (attachments and their
 * previews, custom emoji, avatars and headers) are written, given a public
 * URL, deleted and listed. Everything else names a file by its key, the
 * path below the store's root with `/` (e.g.
 * `media_attachments/files/000/…/small-0123456789abcdef.jpg`), which is
 * what rows keep.
 *
 * Today the store is a folder, `${dataDir}/media`, served by the app under
 * `/system` (api/routes/media_files.ts, account_media.ts, custom_emojis.ts).
 * Object storage slots in as another {@link MediaStore} chosen by
 * {@link mediaStore} from the configuration; no caller changes.
 *
 * Keys are made by their owners (storage.ts for attachments,
 * emoji/images.ts, profile_media.ts) from ids and random names, never from
 * anything a client sent. The store still refuses any key outside its
 * folders or with a segment that is not plain letters, digits, `_` and `-`,
 * so a corrupt row can never make it write or delete another file.
 */
import { dirname, join } from "node:path";
import { getLogger } from "@logtape/logtape";
import type { Config } from "../../config.ts";

const logger = getLogger(["rookery", "media"]);

/** URL path under which the folder store is served. */
export const MEDIA_URL_PREFIX = "/system";

/** The top folders of the store: the only places files are written. */
export const MEDIA_FOLDERS = ["media_attachments", "custom_emojis", "accounts"] as const;

/** One stored file, as {@link MediaStore.list} reports it. */
export interface StoredObject {
  key: string;
  size: number;
  modifiedAt: Date;
}

/** Where media files live. */
export interface MediaStore {
  /** Writes a new file; a key is never written twice. */
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /**
   * Deletes files; a missing file is not an error, and keys the store could
   * not have written are skipped. Resolves to the keys that could not be
   * deleted (logged), for a caller that wants to try them again.
   */
  delete(keys: Iterable<string | null | undefined>): Promise<string[]>;
  /** The public URL of a key. */
  url(key: string): string;
  /** The size of a stored file, or null when there is none. */
  size(key: string): Promise<number | null>;
  /** Every stored file (in no particular order), for the orphan check. */
  list(): AsyncIterable<StoredObject>;
}

const FOLDER_SET: ReadonlySet<string> = new Set(MEDIA_FOLDERS);
const SEGMENT = /^[0-9A-Za-z_-]+$/;
const FILE_NAME = /^[0-9A-Za-z_-]+\.[0-9a-z]{2,5}$/;

/** Whether a key can name a file of the store (shape only, nothing is looked up). */
export function isMediaKey(key: string): boolean {
  if (key.length > 300) return false;
  const segments = key.split("/");
  if (segments.length < 2 || !FOLDER_SET.has(segments[0])) return false;
  return segments.slice(1, -1).every((s) => SEGMENT.test(s)) && FILE_NAME.test(segments.at(-1)!);
}

/** The public URL of a key of the folder store. */
export function mediaUrl(origin: string, key: string): string {
  return `${origin}${MEDIA_URL_PREFIX}/${key}`;
}

/** The root folder of the folder store. */
export function mediaRoot(dataDir: string): string {
  return join(dataDir, "media");
}

/** The file name of a key in the folder store (for the routes that serve it and ffmpeg). */
export function localMediaFile(dataDir: string, key: string): string {
  return join(mediaRoot(dataDir), ...key.split("/"));
}

/** The store the configuration asks for. */
export function mediaStore(config: Pick<Config, "dataDir" | "origin">): MediaStore {
  return folderStore(config.dataDir, config.origin);
}

function folderStore(dataDir: string, origin: string): MediaStore {
  const fileOf = (key: string) => {
    if (!isMediaKey(key)) throw new Error(`not a media key: ${key}`);
    return localMediaFile(dataDir, key);
  };
  return {
    async put(key, bytes) {
      const file = fileOf(key);
      await Deno.mkdir(dirname(file), { recursive: true });
      await Deno.writeFile(file, bytes, { createNew: true });
    },
    async delete(keys) {
      const failed: string[] = [];
      for (const key of keys) {
        if (!key || !isMediaKey(key)) continue;
        try {
          await Deno.remove(localMediaFile(dataDir, key));
        } catch (error) {
          if (error instanceof Deno.errors.NotFound) continue;
          logger.warn("Could not delete {key}: {error}", { key, error });
          failed.push(key);
        }
      }
      return failed;
    },
    url: (key) => mediaUrl(origin, key),
    async size(key) {
      if (!isMediaKey(key)) return null;
      try {
        const info = await Deno.lstat(localMediaFile(dataDir, key));
        return info.isFile ? info.size : null;
      } catch {
        return null;
      }
    },
    async *list() {
      for (const folder of MEDIA_FOLDERS) yield* walk(mediaRoot(dataDir), [folder]);
    },
  };
}

/** The regular files below a folder of the store whose keys it could have written. */
async function* walk(root: string, segments: string[]): AsyncGenerator<StoredObject> {
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(join(root, ...segments)));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  for (const entry of entries) {
    const path = [...segments, entry.name];
    if (entry.isDirectory && SEGMENT.test(entry.name)) {
      yield* walk(root, path);
    } else if (entry.isFile && isMediaKey(path.join("/"))) {
      const info = await Deno.lstat(join(root, ...path)).catch(() => null);
      if (!info?.isFile) continue; // deleted meanwhile
      yield { key: path.join("/"), size: info.size, modifiedAt: info.mtime ?? new Date(0) };
    }
  }
}
