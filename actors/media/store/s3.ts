/**
 * The S3 store: media and archives as objects of one bucket of any
 * S3-compatible service (AWS, MinIO, Garage, Cloudflare R2, Backblaze B2,
 * Wasabi…), under the same keys as the folder store. Imported only when
 * `S3_ENABLED=true` (mod.ts), so a server on the folder store never loads
 * the SDK.
 *
 * Public objects get a year's immutable `Cache-Control` (names are never
 * reused) and, when `S3_PERMISSION` is set, that ACL; archives get
 * `private, no-store` (and the `private` ACL) and are only ever read back
 * through Rookery. Bodies of unknown size, or past `S3_MULTIPART_THRESHOLD`,
 * go up as multipart uploads that are aborted on failure, so a key exists
 * only once its whole body is there. Any failure to reach or use the bucket
 * is a {@link MediaStoreUnavailable} naming the store and the S3 error, never
 * a secret.
 */
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type PutObjectCommandInput,
  S3Client,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { getLogger } from "@logtape/logtape";
import type { S3StoreConfig } from "../../../config.ts";
import { contentTypeOfKey, isMediaKey, MEDIA_FOLDERS } from "./keys.ts";
import {
  type ByteRange,
  MEDIA_URL_PREFIX,
  type MediaStore,
  MediaStoreUnavailable,
  type PutOptions,
  RangeNotSatisfiable,
  type StoredFile,
  type StoredObject,
} from "./mod.ts";

const logger = getLogger(["rookery", "media"]);

/** S3's smallest multipart part (every part but the last). */
const MIN_PART_SIZE = 5 * 1024 * 1024;
const PUBLIC_CACHE = "public, max-age=315576000, immutable";
const PRIVATE_CACHE = "private, no-store";

/** Error names that mean "no such object" rather than "the store is unavailable". */
const NOT_FOUND = new Set(["NoSuchKey", "NotFound"]);

function statusOf(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
}

function isNotFound(error: unknown): boolean {
  return NOT_FOUND.has((error as Error)?.name) || statusOf(error) === 404;
}

export class S3Store implements MediaStore {
  readonly description: string;
  readonly urlBase: string;
  readonly #client: S3Client;
  readonly #config: S3StoreConfig;

  constructor(config: S3StoreConfig, origin: string) {
    this.#config = config;
    this.description = `s3://${config.bucket}` + (config.endpoint ? ` at ${config.endpoint}` : "");
    this.urlBase = config.aliasHost
      ? `${config.protocol}://${config.aliasHost}/`
      : `${origin}${MEDIA_URL_PREFIX}/`;
    const checksums = config.checksums ? "WHEN_SUPPORTED" : "WHEN_REQUIRED";
    this.#client = new S3Client({
      region: config.region,
      endpoint: config.endpoint ?? undefined,
      // Mastodon's meaning: with an endpoint, path-style unless S3_OVERRIDE_PATH_STYLE=true.
      forcePathStyle: config.endpoint != null && !config.overridePathStyle,
      // Given explicitly: only config.ts reads the environment.
      credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey },
      // The SDK's default CRC32 headers break R2, B2, Garage and older MinIO.
      requestChecksumCalculation: checksums,
      responseChecksumValidation: checksums,
      maxAttempts: 1 + config.retryLimit,
      requestHandler: {
        connectionTimeout: config.openTimeoutMs,
        requestTimeout: config.readTimeoutMs,
      },
    });
  }

  /** What a failed call to the bucket becomes (never the credentials). */
  #unavailable(operation: string, error: unknown): MediaStoreUnavailable {
    const code = (error as { Code?: string })?.Code ?? (error as Error)?.name ?? "error";
    const status = statusOf(error);
    return new MediaStoreUnavailable(this.description, operation, {
      cause: error,
      reason: status ? `${code}, HTTP ${status}` : `${code}: ${(error as Error)?.message}`,
    });
  }

  #checked(key: string): string {
    if (!isMediaKey(key)) throw new Error(`not a media key: ${key}`);
    return key;
  }

  #headers(key: string, contentType: string): Omit<PutObjectCommandInput, "Body"> {
    const archive = key.startsWith("archives/");
    const { permission, storageClass } = this.#config;
    return {
      Bucket: this.#config.bucket,
      Key: key,
      ContentType: contentType,
      CacheControl: archive ? PRIVATE_CACHE : PUBLIC_CACHE,
      ...(permission ? { ACL: (archive ? "private" : permission) as "private" } : {}),
      ...(storageClass ? { StorageClass: storageClass as "STANDARD" } : {}),
    };
  }

  async put(
    key: string,
    body: Uint8Array | Blob | ReadableStream<Uint8Array>,
    options: PutOptions,
  ): Promise<{ size: number }> {
    try {
      this.#checked(key);
      options.signal?.throwIfAborted();
    } catch (error) {
      if (body instanceof ReadableStream && !body.locked) await body.cancel(error).catch(() => {});
      throw error;
    }
    const headers = this.#headers(key, options.contentType);
    const threshold = this.#config.multipartThreshold;
    const known = body instanceof Uint8Array
      ? body.byteLength
      : body instanceof Blob
      ? body.size
      : null;
    if (known != null && known < threshold) {
      const bytes = body instanceof Uint8Array
        ? body
        : new Uint8Array(await (body as Blob).arrayBuffer());
      try {
        await this.#client.send(
          new PutObjectCommand({ ...headers, Body: bytes, ContentLength: bytes.byteLength }),
          { abortSignal: options.signal },
        );
      } catch (error) {
        throw options.signal?.aborted ? error : this.#unavailable("PutObject", error);
      }
      return { size: bytes.byteLength };
    }
    return await this.#upload(headers, body, options.signal);
  }

  /** A multipart upload of a stream (or a large body), aborted on any failure. */
  async #upload(
    headers: Omit<PutObjectCommandInput, "Body">,
    body: Uint8Array | Blob | ReadableStream<Uint8Array>,
    signal?: AbortSignal,
  ): Promise<{ size: number }> {
    let size = 0;
    const source = body instanceof Uint8Array
      ? new Blob([body as Uint8Array<ArrayBuffer>]).stream()
      : body instanceof Blob
      ? body.stream()
      : body;
    const counted = source.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          size += chunk.byteLength;
          controller.enqueue(chunk);
        },
      }),
    );
    const upload = new Upload({
      client: this.#client,
      params: { ...headers, Body: counted },
      partSize: Math.max(MIN_PART_SIZE, Math.floor(this.#config.multipartThreshold / 2)),
      queueSize: 2,
      leavePartsOnError: false,
    });
    const abort = () => upload.abort().catch(() => {});
    signal?.addEventListener("abort", abort, { once: true });
    try {
      await upload.done();
    } catch (error) {
      await counted.cancel(error).catch(() => {});
      if (signal?.aborted) throw signal.reason ?? error;
      // A failing body is the caller's error; anything else is the bucket's.
      if (error instanceof Error && error.name === "AbortError") throw error;
      throw statusOf(error) || isSdkError(error) ? this.#unavailable("Upload", error) : error;
    } finally {
      signal?.removeEventListener("abort", abort);
    }
    return { size };
  }

  async get(key: string, range?: ByteRange): Promise<StoredFile | null> {
    if (!isMediaKey(key)) return null;
    const header = range
      ? "suffix" in range ? `bytes=-${range.suffix}` : `bytes=${range.start}-${range.end ?? ""}`
      : undefined;
    if (range && "suffix" in range && range.suffix === 0) {
      throw new RangeNotSatisfiable((await this.size(key)) ?? 0);
    }
    let answer;
    try {
      answer = await this.#client.send(
        new GetObjectCommand({ Bucket: this.#config.bucket, Key: key, Range: header }),
      );
    } catch (error) {
      if (isNotFound(error)) return null;
      if (statusOf(error) === 416) {
        const size = await this.size(key);
        if (size == null) return null;
        throw new RangeNotSatisfiable(size);
      }
      throw this.#unavailable("GetObject", error);
    }
    const body = answer.Body!.transformToWebStream() as ReadableStream<Uint8Array>;
    const total = /\/(\d+)$/.exec(answer.ContentRange ?? "");
    const size = total ? Number(total[1]) : answer.ContentLength ?? 0;
    const file: StoredFile = {
      body,
      size,
      contentType: contentTypeOfKey(key),
      ...(answer.ETag ? { etag: answer.ETag } : {}),
    };
    if (range) {
      const part = /^bytes (\d+)-(\d+)\//.exec(answer.ContentRange ?? "");
      file.range = part
        ? { start: Number(part[1]), end: Number(part[2]) }
        : { start: 0, end: size - 1 };
    }
    return file;
  }

  async size(key: string): Promise<number | null> {
    if (!isMediaKey(key)) return null;
    try {
      const head = await this.#client.send(
        new HeadObjectCommand({ Bucket: this.#config.bucket, Key: key }),
      );
      return head.ContentLength ?? null;
    } catch (error) {
      if (isNotFound(error)) return null;
      throw this.#unavailable("HeadObject", error);
    }
  }

  async delete(keys: Iterable<string | null | undefined>): Promise<string[]> {
    const wanted = [...new Set([...keys].filter((k): k is string => !!k && isMediaKey(k)))];
    const failed: string[] = [];
    const limit = this.#config.batchDeleteLimit;
    for (let i = 0; i < wanted.length; i += limit) {
      const batch = wanted.slice(i, i + limit);
      try {
        const answer = await this.#client.send(
          new DeleteObjectsCommand({
            Bucket: this.#config.bucket,
            Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
          }),
        );
        for (const error of answer.Errors ?? []) {
          if (!error.Key || error.Code === "NoSuchKey") continue;
          logger.warn("Could not delete {key}: {code}", { key: error.Key, code: error.Code });
          failed.push(error.Key);
        }
      } catch (error) {
        logger.warn("Could not delete {count} files from {store}: {error}", {
          count: batch.length,
          store: this.description,
          error,
        });
        failed.push(...batch);
      }
    }
    return failed;
  }

  async *list(options: { prefix?: string; startAfter?: string } = {}): AsyncIterable<StoredObject> {
    const prefixes = options.prefix
      ? [options.prefix]
      : [...MEDIA_FOLDERS].sort().map((folder) => `${folder}/`);
    for (const prefix of prefixes) {
      let token: string | undefined;
      do {
        let page;
        try {
          page = await this.#client.send(
            new ListObjectsV2Command({
              Bucket: this.#config.bucket,
              Prefix: prefix,
              StartAfter: token ? undefined : options.startAfter,
              ContinuationToken: token,
              MaxKeys: this.#config.listPageSize ?? 1000,
            }),
          );
        } catch (error) {
          throw this.#unavailable("ListObjectsV2", error);
        }
        for (const object of page.Contents ?? []) {
          if (!object.Key || !isMediaKey(object.Key)) continue;
          yield {
            key: object.Key,
            size: object.Size ?? 0,
            modifiedAt: object.LastModified ?? new Date(0),
          };
        }
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
    }
  }

  url(key: string): string {
    if (key.startsWith("archives/")) throw new Error(`not a public media key: ${key}`);
    return `${this.urlBase}${key}`;
  }

  localPath(): string | null {
    return null;
  }

  async check(): Promise<void> {
    try {
      await this.#client.send(new HeadBucketCommand({ Bucket: this.#config.bucket }));
    } catch (error) {
      throw this.#unavailable("HeadBucket", error);
    }
  }

  close(): Promise<void> {
    this.#client.destroy();
    return Promise.resolve();
  }
}

/** Whether an error came from the SDK or the connection rather than the caller's body. */
function isSdkError(error: unknown): boolean {
  const name = (error as Error)?.name ?? "";
  const code = (error as { code?: string })?.code ?? "";
  return "$fault" in (error as object ?? {}) || /^(E[A-Z]+|UND_ERR)/.test(code) ||
    ["TimeoutError", "NetworkingError", "RequestTimeout"].includes(name);
}
