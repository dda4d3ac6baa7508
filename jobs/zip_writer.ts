/**
 * A zip file written as it is made, with fflate's streaming `Zip`: entries
 * one after another, each fed in pieces (a page of JSON, a chunk of a media
 * file), so an archive of any account needs only a piece at a time in
 * memory. fflate's synchronous entries hand their output to the callback
 * before `push` returns; each write here then awaits the sink (the media
 * store's upload), so output never piles up faster than the store takes it.
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
  readonly #sink: WritableStreamDefaultWriter<Uint8Array>;
  readonly #zip: Zip;
  #pending: Uint8Array[] = [];
  #error: Error | null = null;
  #bytes = 0;
  #open: ZipEntryWriter | null = null;
  readonly #encoder = new TextEncoder();
  readonly #signal: AbortSignal | undefined;

  private constructor(sink: WritableStreamDefaultWriter<Uint8Array>, signal?: AbortSignal) {
    this.#sink = sink;
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
   * Starts a zip written into `sink`. Once `signal` is aborted, every write
   * throws its reason (a worker that stops).
   */
  static create(sink: WritableStream<Uint8Array>, signal?: AbortSignal): ZipFileWriter {
    return new ZipFileWriter(sink.getWriter(), signal);
  }

  /** Bytes of zip written so far. */
  get size(): number {
    return this.#bytes;
  }

  /** Writes what fflate produced to the sink, as fast as it takes it. */
  async #flush(): Promise<void> {
    if (this.#error) throw this.#error;
    this.#signal?.throwIfAborted();
    const pieces = this.#pending;
    this.#pending = [];
    for (const piece of pieces) {
      await this.#sink.ready;
      await this.#sink.write(piece);
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
   * Adds a stored file as entry `name`, stored, read a chunk at a time;
   * false (and no entry) when there is no file (`body` null).
   */
  async addFile(
    name: string,
    body: ReadableStream<Uint8Array> | null,
    mtime?: Date,
  ): Promise<boolean> {
    if (!body) return false;
    const reader = body.getReader();
    try {
      const entry = this.entry(name, { stored: true, mtime });
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        // fflate passes a stored entry's chunk through as it is; large
        // chunks are cut so the sink's queue stays small.
        for (let offset = 0; offset < value.length; offset += CHUNK) {
          await entry.write(value.subarray(offset, offset + CHUNK));
        }
      }
      await entry.close();
    } catch (error) {
      await reader.cancel(error).catch(() => {});
      throw error;
    } finally {
      reader.releaseLock();
    }
    return true;
  }

  /** Writes the central directory and closes the sink; returns the zip's size. */
  async close(): Promise<number> {
    if (this.#open) throw new Error("an entry is still open");
    this.#zip.end();
    await this.#flush();
    await this.#sink.close();
    return this.#bytes;
  }

  /** Stops without finishing the zip: the sink is aborted (the store keeps nothing). */
  abort(reason?: unknown): void {
    this.#error ??= reason instanceof Error ? reason : new Error("archive aborted");
    try {
      this.#zip.terminate();
    } catch {
      // Nothing left to stop.
    }
    this.#sink.abort(reason).catch(() => {});
  }
}
