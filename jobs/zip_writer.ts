/**
 * A zip file written as it is made, with fflate's streaming `Zip`: entries
 * one after another, each fed in pieces (a page of JSON, a chunk of a media
 * file), so an archive of any account needs only a piece at a time in
 * memory. fflate's synchronous entries hand their output to the callback
 * before `push` returns; each write here then awaits the file, so output
 * never piles up faster than the disk takes it.
 *
 * JSON entries are deflated; media files are stored as they are (images and
 * videos are compressed already, and deflating them costs CPU for nothing).
 * fflate writes no Zip64 records, so an archive stops at 4 GiB: past that it
 * fails (the job records the archive as failed) rather than write a zip
 * readers would misread.
 */
import { Zip, ZipDeflate, ZipPassThrough } from "fflate";

/** The most a zip without Zip64 records can hold. */
export const MAX_ZIP_BYTES = 0xffff_ffff;

/** Thrown when an archive would outgrow {@link MAX_ZIP_BYTES}. */
export class ZipTooLarge extends Error {
  constructor() {
    super("The archive would be larger than 4 GiB");
  }
}

/** One entry being written. */
export interface ZipEntryWriter {
  /** Adds a piece (text is written as UTF-8). */
  write(piece: string | Uint8Array): Promise<void>;
  /** Ends the entry. */
  close(): Promise<void>;
}

const CHUNK = 256 * 1024;

export class ZipFileWriter {
  readonly #file: Deno.FsFile;
  readonly #zip: Zip;
  #pending: Uint8Array[] = [];
  #error: Error | null = null;
  #bytes = 0;
  #open: ZipEntryWriter | null = null;
  readonly #encoder = new TextEncoder();
  readonly #signal: AbortSignal | undefined;

  private constructor(file: Deno.FsFile, signal?: AbortSignal) {
    this.#file = file;
    this.#signal = signal;
    this.#zip = new Zip((error, data) => {
      if (error) {
        this.#error ??= error;
        return;
      }
      this.#bytes += data.length;
      if (this.#bytes > MAX_ZIP_BYTES) this.#error ??= new ZipTooLarge();
      else this.#pending.push(data);
    });
  }

  /**
   * Creates (or truncates) `path` and starts a zip in it. Once `signal` is
   * aborted, every write throws its reason (a worker that stops).
   */
  static async create(path: string, signal?: AbortSignal): Promise<ZipFileWriter> {
    const file = await Deno.open(path, { write: true, create: true, truncate: true, mode: 0o600 });
    return new ZipFileWriter(file, signal);
  }

  /** Bytes of zip written so far. */
  get size(): number {
    return this.#bytes;
  }

  /** Writes what fflate produced to the file. */
  async #flush(): Promise<void> {
    if (this.#error) throw this.#error;
    this.#signal?.throwIfAborted();
    const pieces = this.#pending;
    this.#pending = [];
    for (const piece of pieces) {
      let offset = 0;
      while (offset < piece.length) offset += await this.#file.write(piece.subarray(offset));
    }
  }

  /** Starts an entry named `name`; deflated unless `stored`. One entry at a time. */
  entry(name: string, options: { stored?: boolean; mtime?: Date } = {}): ZipEntryWriter {
    if (this.#open) throw new Error("the previous entry is still open");
    const entry = options.stored ? new ZipPassThrough(name) : new ZipDeflate(name, { level: 6 });
    if (options.mtime) entry.mtime = options.mtime;
    this.#zip.add(entry);
    const writer: ZipEntryWriter = {
      write: async (piece) => {
        const bytes = typeof piece === "string" ? this.#encoder.encode(piece) : piece;
        if (bytes.length === 0) return;
        entry.push(bytes);
        await this.#flush();
      },
      close: async () => {
        entry.push(new Uint8Array(0), true);
        this.#open = null;
        await this.#flush();
      },
    };
    this.#open = writer;
    return writer;
  }

  /**
   * Adds the file at `path` as entry `name`, stored, read a chunk at a
   * time; false (and no entry) when the file is not there.
   */
  async addFile(name: string, path: string, mtime?: Date): Promise<boolean> {
    let file: Deno.FsFile;
    try {
      file = await Deno.open(path, { read: true });
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return false;
      throw error;
    }
    try {
      const entry = this.entry(name, { stored: true, mtime });
      const buffer = new Uint8Array(CHUNK);
      for (;;) {
        const n = await file.read(buffer);
        if (n === null) break;
        // A stored entry's output is the pushed chunk itself: a copy, since
        // the buffer is read into again.
        await entry.write(buffer.slice(0, n));
      }
      await entry.close();
    } finally {
      file.close();
    }
    return true;
  }

  /** Writes the central directory and closes the file; returns the zip's size. */
  async close(): Promise<number> {
    if (this.#open) throw new Error("an entry is still open");
    this.#zip.end();
    await this.#flush();
    this.#file.close();
    return this.#bytes;
  }

  /** Closes the file without finishing the zip (the caller removes it). */
  abort(): void {
    try {
      this.#zip.terminate();
    } catch {
      // Nothing left to stop.
    }
    try {
      this.#file.close();
    } catch {
      // Already closed.
    }
  }
}
