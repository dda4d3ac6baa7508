/**
 * Serves stored media attachment files:
 * GET /system/media_attachments/files/<id groups>/<style>-<hex>.<ext>.
 *
 * Only paths of the exact shape the store writes are looked up
 * (`isSafeAttachmentPath`), so no request reaches another file, whatever its
 * dots, slashes or encodings. The content type comes from the extension the
 * store chose (never from the upload), with `nosniff` and a sandboxing CSP.
 * Names are random and never reused, so answers are cached for a year.
 * Single byte ranges are answered (206), as video players and Safari need.
 * Files of suspended or deleted accounts answer 404 (one primary-key lookup).
 */
import { Hono } from "hono";
import type { ApiEnv } from "../env.ts";
import { MEDIA_URL_PREFIX } from "../../actors/media/profile_media.ts";
import {
  ATTACHMENTS_FOLDER,
  isSafeAttachmentPath,
  storedContentType,
  storedFileName,
} from "../../actors/media/storage.ts";
import { isMediaOfHiddenAccount } from "../../db/queries/visibility.ts";

const PREFIX = `${MEDIA_URL_PREFIX}/${ATTACHMENTS_FOLDER.join("/")}/`;

/** Parses a single `bytes=` range against a size; null when absent or not satisfiable. */
function parseRange(header: string | null, size: number): { start: number; end: number } | null {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header?.trim() ?? "");
  if (!match || (match[1] === "" && match[2] === "")) return null;
  let start: number, end: number;
  if (match[1] === "") {
    start = Math.max(0, size - Number(match[2]));
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === "" ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  return start <= end && start < size ? { start, end } : null;
}

/** A stream of `length` bytes of a file from where it was positioned. */
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
      const chunk = new Uint8Array(Math.min(64 * 1024, left));
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

/** The route, mounted at the root of the app. */
export function mediaFileRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get(`${PREFIX}*`, async (c) => {
    const segments = c.req.path.slice(MEDIA_URL_PREFIX.length + 1).split("/");
    if (!isSafeAttachmentPath(segments)) return c.text("Not Found", 404);
    const { config, database } = c.get("ctx");
    // The attachment id is spelt by the folder groups (actors/media/storage.ts idPartition).
    const attachmentId = BigInt(segments.slice(ATTACHMENTS_FOLDER.length, -1).join("")).toString();
    if (await isMediaOfHiddenAccount(database.db, attachmentId)) return c.text("Not Found", 404);
    const path = segments.join("/");
    let file: Deno.FsFile;
    try {
      file = await Deno.open(storedFileName(config.dataDir, path), { read: true });
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return c.text("Not Found", 404);
      throw error;
    }
    const { size } = await file.stat();
    const headers: Record<string, string> = {
      "Content-Type": storedContentType(path),
      "Cache-Control": "public, max-age=31536000, immutable",
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "default-src 'none'; sandbox",
      "Accept-Ranges": "bytes",
    };
    const rangeHeader = c.req.header("range");
    if (rangeHeader) {
      const range = parseRange(rangeHeader, size);
      if (!range) {
        file.close();
        return c.body(null, 416, { ...headers, "Content-Range": `bytes */${size}` });
      }
      await file.seek(range.start, Deno.SeekMode.Start);
      const length = range.end - range.start + 1;
      return c.body(limitedStream(file, length), 206, {
        ...headers,
        "Content-Range": `bytes ${range.start}-${range.end}/${size}`,
        "Content-Length": String(length),
      });
    }
    return c.body(limitedStream(file, size), 200, { ...headers, "Content-Length": String(size) });
  });

  return app;
}
