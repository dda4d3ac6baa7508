/**
 * The folder store: media under `DATA_DIR/media/<key>`, archives under
 * `DATA_DIR/archives/<name>` (where they always were, so upgrading moves
 * nothing, and the same keys work in object storage). Served by Rookery at
 * `ORIGIN/system/<key>` (api/routes/media_files.ts).
 *
 * A write goes to `<file>.tmp-<8 hex>` and is renamed into place once the
 * whole body is there, so a reader never sees half a file and a failed
 * write leaves nothing under the key (temporary names are not keys: the
 * orphan check removes strays).
 */
import { dirname, join } from "node:path";
import { getLogger } from "@logtape/logtape";
import { encodeHex } from "../../formatting/encoding.ts";
import { contentTypeOfKey, isMediaKey, MEDIA_FOLDERS } from "./keys.ts";
import {
  type ByteRange,
  MEDIA_URL_PREFIX,
  type MediaStore,
  type PutOptions,
  resolveRange,
  type StoredFile,
  type StoredObject,
} from "./mod.ts";

const logger = getLogger(["rookery", "media"]);

const SEGMENT = /^[0-9A-Za-z_-]+$/;
const CHUNK = 64 * 1024;

export class FolderStore implements MediaStore {
  readonly description: string;
  readonly urlBase: string;
  readonly #media: string;
  readonly #archives: string;

  constructor(dataDir: string, origin: string) {
    this.#media = join(dataDir, "media");
    this.#archives = join(dataDir, "archives");
    this.urlBase = `${origin}${MEDIA_URL_PREFIX}/`;
    this.description = `folder ${this.#media}`;
  }

  /** The file of a key; throws for anything that is not one. */
  #file(key: string): string {
    if (!isMediaKey(key)) throw new Error(`not a media key: ${key}`);
    const segments = key.split("/");
    return segments[0] === "archives"
      ? join(this.#archives, ...segments.slice(1))
      : join(this.#media, ...segments);
  }

  async put(
    key: string,
    body: Uint8Array | Blob | ReadableStream<Uint8Array>,
    options: PutOptions,
  ): Promise<{ size: number }> {
    let temporary: string | null = null;
    try {
      const file = this.#file(key);
      options.signal?.throwIfAborted();
      await Deno.mkdir(dirname(file), { recursive: true });
      temporary = `${file}.tmp-${encodeHex(crypto.getRandomValues(new Uint8Array(4)))}`;
      // Archives are read only through their owner's download route.
      const mode = key.startsWith("archives/") ? 0o600 : 0o644;
      const out = await Deno.open(temporary, { write: true, createNew: true, mode });
      let size: number;
      try {
        size = await writeBody(out, body, options.signal);
      } finally {
        out.close();
      }
      // Keys are random and never reused: an existing file is a bug, never replaced.
      if (await Deno.lstat(file).then(() => true, () => false)) {
        throw new Deno.errors.AlreadyExists(`${key} exists`);
      }
      await Deno.rename(temporary, file);
      return { size };
    } catch (error) {
      if (temporary) await Deno.remove(temporary).catch(() => {});
      // A stream nobody read would hold its writer forever.
      if (body instanceof ReadableStream && !body.locked) await body.cancel(error).catch(() => {});
      throw error;
    }
  }

  async get(key: string, range?: ByteRange): Promise<StoredFile | null> {
    if (!isMediaKey(key)) return null;
    let file: Deno.FsFile;
    try {
      file = await Deno.open(this.#file(key), { read: true });
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return null;
      throw error;
    }
    try {
      const info = await file.stat();
      if (!info.isFile) {
        file.close();
        return null;
      }
      const size = info.size;
      const contentType = contentTypeOfKey(key);
      if (!range) return { body: limitedStream(file, size), size, contentType };
      const part = resolveRange(range, size);
      await file.seek(part.start, Deno.SeekMode.Start);
      const body = limitedStream(file, part.end - part.start + 1);
      return { body, size, range: part, contentType };
    } catch (error) {
      file.close();
      throw error;
    }
  }

  async size(key: string): Promise<number | null> {
    if (!isMediaKey(key)) return null;
    try {
      const info = await Deno.lstat(this.#file(key));
      return info.isFile ? info.size : null;
    } catch {
      return null;
    }
  }

  async delete(keys: Iterable<string | null | undefined>): Promise<string[]> {
    const failed: string[] = [];
    for (const key of keys) {
      if (!key || !isMediaKey(key)) continue;
      try {
        await Deno.remove(this.#file(key));
      } catch (error) {
        if (error instanceof Deno.errors.NotFound) continue;
        logger.warn("Could not delete {key}: {error}", { key, error });
        failed.push(key);
      }
    }
    return failed;
  }

  async *list(options: { prefix?: string; startAfter?: string } = {}): AsyncIterable<StoredObject> {
    const prefix = options.prefix ?? "";
    const startAfter = options.startAfter ?? "";
    for (const folder of [...MEDIA_FOLDERS].sort()) {
      if (!`${folder}/`.startsWith(prefix) && !prefix.startsWith(`${folder}/`)) continue;
      const root = folder === "archives" ? this.#archives : join(this.#media, folder);
      for await (const file of walk(root, folder)) {
        if (file.key.startsWith(prefix) && file.key > startAfter) yield file;
      }
    }
  }

  url(key: string): string {
    // A row's malformed key still gets a URL (which answers 404): a serializer never fails.
    if (key.startsWith("archives/")) throw new Error(`not a public media key: ${key}`);
    return `${this.urlBase}${key}`;
  }

  localPath(key: string): string | null {
    return this.#file(key);
  }

  async check(): Promise<void> {
    // The folder is made by the first write; only something else in its place is wrong.
    const info = await Deno.lstat(this.#media).catch(() => null);
    if (info && !info.isDirectory) throw new Error(`${this.#media} is not a folder`);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** Writes a body to an open file; returns its size. */
async function writeBody(
  out: Deno.FsFile,
  body: Uint8Array | Blob | ReadableStream<Uint8Array>,
  signal?: AbortSignal,
): Promise<number> {
  if (body instanceof Uint8Array) {
    await writeAll(out, body);
    return body.byteLength;
  }
  const reader = (body instanceof Blob ? body.stream() : body).getReader();
  let size = 0;
  try {
    for (;;) {
      signal?.throwIfAborted();
      const { done, value } = await reader.read();
      if (done) return size;
      await writeAll(out, value);
      size += value.byteLength;
    }
  } catch (error) {
    await reader.cancel(error).catch(() => {});
    throw error;
  } finally {
    reader.releaseLock();
  }
}

async function writeAll(out: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) offset += await out.write(bytes.subarray(offset));
}

/** A stream of `length` bytes of a file from where it was positioned; closes the file. */
function limitedStream(file: Deno.FsFile, length: number): ReadableStream<Uint8Array> {
  let left = length;
  // A reader may cancel after the last chunk was queued (the file is closed
  // then, with chunks still unread): the file is closed once.
  let open = true;
  const close = () => {
    if (open) file.close();
    open = false;
  };
  return new ReadableStream({
    async pull(controller) {
      const chunk = new Uint8Array(Math.min(CHUNK, left));
      const read = chunk.length ? await file.read(chunk) : null;
      if (read == null || read === 0) {
        close();
        controller.close();
        return;
      }
      left -= read;
      controller.enqueue(chunk.subarray(0, read));
      if (left <= 0) {
        close();
        controller.close();
      }
    },
    cancel() {
      close();
    },
  });
}

/** The files below `dir` whose keys (`keyPrefix/…`) the store could have written, in key order. */
async function* walk(dir: string, keyPrefix: string): AsyncGenerator<StoredObject> {
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(dir));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  entries.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  for (const entry of entries) {
    const key = `${keyPrefix}/${entry.name}`;
    if (entry.isDirectory && SEGMENT.test(entry.name)) {
      yield* walk(join(dir, entry.name), key);
    } else if (entry.isFile && isMediaKey(key)) {
      const info = await Deno.lstat(join(dir, entry.name)).catch(() => null);
      if (!info?.isFile) continue; // deleted meanwhile
      yield { key, size: info.size, modifiedAt: info.mtime ?? new Date(0) };
    }
  }
}
