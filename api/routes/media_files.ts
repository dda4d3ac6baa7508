/**
 * Serves the media store's public files: `GET|HEAD /system/<key>`, for every
 * store (the folder store's files, and a bucket's objects when no alias
 * host serves them directly).
 *
 * Only keys of the exact shape the store writes are looked up
 * (actors/media/store/keys.ts), never archives, so no request reaches
 * another file, whatever its dots, slashes or encodings. The content type
 * comes from the extension the store chose (never from an upload), with
 * `nosniff` and a sandboxing CSP. Names are random and never reused, so
 * answers are cached for a year. Single byte ranges are answered (206), as
 * video players and Safari need. Files of suspended or deleted accounts
 * answer 404 (one primary-key lookup). A copy of remote media that was
 * pruned answers 302 to the media proxy, which fetches it again. Web clients served from other
 * origins read avatars and media across origins: `Access-Control-Allow-Origin: *`.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { ApiEnv } from "../env.ts";
import {
  type ByteRange,
  MEDIA_URL_PREFIX,
  MediaStoreUnavailable,
  parseKey,
  RangeNotSatisfiable,
  type StoredFile,
} from "../../actors/media/store/mod.ts";
import type { ParsedKey } from "../../actors/media/store/keys.ts";
import type { ProxyTarget } from "../../actors/media/urls.ts";
import { isHiddenAccount, isMediaOfHiddenAccount } from "../../db/queries/visibility.ts";
import type { Executor } from "../../db/connection.ts";

/** Headers of every file answer. */
const FILE_HEADERS = {
  "Cache-Control": "public, max-age=31536000, immutable",
  "X-Content-Type-Options": "nosniff",
  "Content-Security-Policy": "default-src 'none'; sandbox",
  "Access-Control-Allow-Origin": "*",
  "Accept-Ranges": "bytes",
};

/** Parses a single `bytes=` range; null when absent or not one range. */
function parseRange(header: string | undefined): ByteRange | null {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header?.trim() ?? "");
  if (!match || (match[1] === "" && match[2] === "")) return null;
  if (match[1] === "") return { suffix: Number(match[2]) };
  const start = Number(match[1]);
  const end = match[2] === "" ? undefined : Number(match[2]);
  // A range that ends before it starts is not a range: the whole file (RFC 9110).
  return end !== undefined && end < start ? null : { start, end };
}

/** Whether the file's owner is hidden (suspended or deleted account). */
async function ownerHidden(db: Executor, parsed: ParsedKey): Promise<boolean> {
  if (parsed.kind === "attachment") return await isMediaOfHiddenAccount(db, parsed.id);
  if (parsed.kind === "avatar" || parsed.kind === "header") {
    return await isHiddenAccount(db, parsed.id);
  }
  return false;
}

function notFound(c: Context<ApiEnv>): Response {
  return c.text("Not Found", 404);
}

/** The answer of a file read from the store. */
function fileResponse(c: Context<ApiEnv>, file: StoredFile): Response {
  const headers: Record<string, string> = { ...FILE_HEADERS, "Content-Type": file.contentType };
  if (file.etag) headers.ETag = file.etag;
  if (!file.range) {
    return c.body(file.body, 200, { ...headers, "Content-Length": String(file.size) });
  }
  const { start, end } = file.range;
  return c.body(file.body, 206, {
    ...headers,
    "Content-Range": `bytes ${start}-${end}/${file.size}`,
    "Content-Length": String(end - start + 1),
  });
}

/**
 * A pruned copy of remote media: a client still holding its URL (a JSON
 * from before the prune) goes to the media proxy, which fetches it again
 * (and answers 404 when the row has no remote file).
 */
function toProxy(c: Context<ApiEnv>, parsed: ParsedKey): Response {
  const urls = c.get("ctx").mediaUrls;
  const target: ProxyTarget | null = parsed.kind === "attachment"
    ? { kind: "attachment", variant: parsed.variant }
    : parsed.kind === "emoji"
    ? { kind: "emoji", variant: parsed.variant }
    : parsed.kind === "avatar" || parsed.kind === "header"
    ? { kind: "account", variant: parsed.kind }
    : parsed.kind === "card"
    ? { kind: "card", variant: "image" }
    : null;
  if (!target || !parsed.id) return notFound(c);
  return c.redirect(urls.proxy(target, parsed.id), 302);
}

/** The route, mounted at the root of the app. */
export function mediaFileRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get(`${MEDIA_URL_PREFIX}/*`, async (c) => {
    const key = c.req.path.slice(MEDIA_URL_PREFIX.length + 1);
    const parsed = parseKey(key);
    if (!parsed || parsed.kind === "archive") return notFound(c);
    const { database, media, config } = c.get("ctx");
    if (await ownerHidden(database.db, parsed)) return notFound(c);
    // Served from elsewhere (an alias host in front of a bucket): old links follow.
    const url = media.url(key);
    if (url !== `${config.origin}${MEDIA_URL_PREFIX}/${key}`) return c.redirect(url, 301);
    let file: StoredFile | null;
    try {
      file = await media.get(key, parseRange(c.req.header("range")) ?? undefined);
    } catch (error) {
      if (error instanceof RangeNotSatisfiable) {
        return c.body(null, 416, { ...FILE_HEADERS, "Content-Range": `bytes */${error.size}` });
      }
      if (error instanceof MediaStoreUnavailable) {
        return c.text("Service Unavailable", 503, { "Retry-After": "30" });
      }
      throw error;
    }
    if (!file) return parsed.cached ? toProxy(c, parsed) : notFound(c);
    // HEAD: the same headers, no body (Hono answers HEAD with this GET handler).
    if (c.req.method === "HEAD") await file.body.cancel();
    return fileResponse(c, file);
  });

  return app;
}
