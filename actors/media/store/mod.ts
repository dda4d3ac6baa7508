/**
 * The media store: the one place where media files (attachments and their
 * previews, custom emoji, avatars and headers, copies of remote media, link
 * card images) and archive exports are written, read, given a public URL,
 * deleted and listed. Everything else names a file by its key (keys.ts),
 * which is what rows keep.
 *
 * Two implementations: a folder under `DATA_DIR` (folder.ts, the default)
 * and S3-compatible object storage. Both keep the same keys, so switching
 * moves files and never rows. One instance per process, built by
 * rookery.ts ({@link createMediaStore}) and reached as `ctx.media`.
 */
import type { Config } from "../../../config.ts";
import { FolderStore } from "./folder.ts";

export {
  contentTypeOfKey,
  isMediaKey,
  isPublicKey,
  LOCAL_MEDIA_FOLDERS,
  MEDIA_FOLDERS,
  parseKey,
} from "./keys.ts";

/** URL path under which Rookery serves stored files itself. */
export const MEDIA_URL_PREFIX = "/system";

/** What {@link MediaStore.put} is told about a body. */
export interface PutOptions {
  contentType: string;
  /** Bytes, when known. */
  size?: number;
  /** Aborting it abandons the write: nothing is stored. */
  signal?: AbortSignal;
}

/** A byte range: from `start` to `end` (inclusive; default the last byte), or the last `suffix` bytes. */
export type ByteRange = { start: number; end?: number } | { suffix: number };

/** A stored file being read. */
export interface StoredFile {
  body: ReadableStream<Uint8Array>;
  /** Size of the whole object; `range` is what `body` holds when a range was asked. */
  size: number;
  range?: { start: number; end: number };
  contentType: string;
  etag?: string;
}

/** One stored file, as {@link MediaStore.list} reports it. */
export interface StoredObject {
  key: string;
  size: number;
  modifiedAt: Date;
}

/** Where media files live. */
export interface MediaStore {
  /** "folder /srv/rookery/data/media" or "s3://bucket at https://endpoint" (logs, errors). */
  readonly description: string;
  /**
   * Writes a new file. Atomic: the key exists only once the whole body is
   * written, and a failed or aborted body leaves nothing. A key is never
   * written twice (keys are random).
   */
  put(
    key: string,
    body: Uint8Array | Blob | ReadableStream<Uint8Array>,
    options: PutOptions,
  ): Promise<{ size: number }>;
  /**
   * Reads a file, or the range of it asked for (clamped to the file); null
   * when there is none. A range that starts past the end throws
   * {@link RangeNotSatisfiable}.
   */
  get(key: string, range?: ByteRange): Promise<StoredFile | null>;
  /** The size of a stored file, or null when there is none. */
  size(key: string): Promise<number | null>;
  /**
   * Deletes files; a missing file is not an error, and keys the store could
   * not have written are skipped. Resolves to the keys that could not be
   * deleted (logged), for a caller that wants to try them again.
   */
  delete(keys: Iterable<string | null | undefined>): Promise<string[]>;
  /** Every stored file under a key prefix (default: every folder), in key order. */
  list(options?: { prefix?: string; startAfter?: string }): AsyncIterable<StoredObject>;
  /** The public URL of a key (`urlBase` + key); throws for archives, which are never public. */
  url(key: string): string;
  /** What public keys are appended to: `ORIGIN/system/`, or the alias host's URL. */
  readonly urlBase: string;
  /** Folder store only: the file a program (ffmpeg) may read in place; null otherwise. */
  localPath(key: string): string | null;
  /** Whether the store answers (called at start, logged, never fatal); throws when it does not. */
  check(): Promise<void>;
  close(): Promise<void>;
}

/** The store did not answer, or refused us (down, timeout, 5xx, no bucket, bad credentials). */
export class MediaStoreUnavailable extends Error {
  constructor(
    readonly store: string,
    readonly operation: string,
    options?: { cause?: unknown; reason?: string },
  ) {
    super(
      `media storage ${store} is unavailable (${options?.reason ?? operation})`,
      { cause: options?.cause },
    );
    this.name = "MediaStoreUnavailable";
  }
}

/** A range that starts past the end of the file (HTTP 416). */
export class RangeNotSatisfiable extends Error {
  constructor(readonly size: number) {
    super(`range not satisfiable (size ${size})`);
    this.name = "RangeNotSatisfiable";
  }
}

/**
 * The store the configuration asks for. The S3 store (and with it the AWS
 * SDK, ~20 MiB) is imported only when S3_ENABLED=true.
 */
export async function createMediaStore(
  config: Pick<Config, "dataDir" | "origin" | "media">,
): Promise<MediaStore> {
  const wanted = config.media.store;
  if (wanted.kind === "folder") return new FolderStore(config.dataDir, config.origin);
  const { S3Store } = await import("./s3.ts");
  return new S3Store(wanted, config.origin);
}

/**
 * The part of a file a range asks for, clamped to the file; throws
 * {@link RangeNotSatisfiable} when it starts past the end (or the file is
 * empty).
 */
export function resolveRange(range: ByteRange, size: number): { start: number; end: number } {
  let start: number, end: number;
  if ("suffix" in range) {
    start = Math.max(0, size - range.suffix);
    end = size - 1;
  } else {
    start = range.start;
    end = Math.min(range.end ?? size - 1, size - 1);
  }
  if (!(start <= end && start < size)) throw new RangeNotSatisfiable(size);
  return { start, end };
}
