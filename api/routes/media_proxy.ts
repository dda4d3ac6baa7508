/**
 * The media proxy (Mastodon's `/media_proxy/:id/original|small`, plus the
 * account, emoji and card forms): the URL the API gives for a remote file
 * we hold no copy of (actors/media/urls.ts). It fetches the file into the
 * remote media cache (actors/media/remote_cache/) and answers 302 to our
 * copy; a client is never sent to the remote server itself.
 *
 * Every URL carries the `sig` we made for it (HMAC of kind, id and
 * variant): without it, or with another, 404, so the proxy cannot be used
 * to make us fetch anything but the rows' own remote files, and its URLs
 * are as unguessable as `/system` names. No authentication (an `<img>`
 * carries no token); requests count in the IP's rate limit as any.
 *
 * Answers: 302 to the copy (cached for an hour); 404 when there is nothing
 * to serve (unknown or local id, hidden owner, refused domain or host, a
 * file too large, of the wrong type, behind too many redirects, or a fetch
 * that failed under ten minutes ago); 502 when the remote server did not
 * answer in time or at all (Mastodon: 500); 503 when our store is down.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import { getLogger } from "@logtape/logtape";
import type { ApiEnv } from "../env.ts";
import type { ProxyTarget } from "../../actors/media/urls.ts";
import { MediaStoreUnavailable } from "../../actors/media/store/mod.ts";
import { RemoteMediaRefused } from "../../actors/media/remote_cache/fetch.ts";
import type { CacheContext } from "../../actors/media/remote_cache/cache.ts";
import { cachedAttachment } from "../../actors/media/remote_cache/attachments.ts";
import { cachedProfileImage } from "../../actors/media/remote_cache/profiles.ts";
import { cachedEmoji } from "../../actors/media/remote_cache/emoji.ts";
import { cachedCardImage } from "../../actors/media/remote_cache/cards.ts";

const logger = getLogger(["rookery", "media", "proxy"]);

const CORS = { "Access-Control-Allow-Origin": "*" };

/** Each form's path, its variants, and how its copy is had. */
const FORMS: {
  path: string;
  kind: ProxyTarget["kind"];
  variants: readonly string[];
  copy: (ctx: CacheContext, id: string, variant: string) => Promise<string>;
}[] = [
  {
    path: "/media_proxy/:id/:variant",
    kind: "attachment",
    variants: ["original", "small"],
    copy: (ctx, id, v) => cachedAttachment(ctx, id, v as "original" | "small"),
  },
  {
    path: "/media_proxy/accounts/:id/:variant",
    kind: "account",
    variants: ["avatar", "header"],
    copy: (ctx, id, v) => cachedProfileImage(ctx, id, v as "avatar" | "header"),
  },
  {
    path: "/media_proxy/emojis/:id/:variant",
    kind: "emoji",
    variants: ["original", "static"],
    copy: (ctx, id, v) => cachedEmoji(ctx, id, v as "original" | "static"),
  },
  {
    path: "/media_proxy/cards/:id/:variant",
    kind: "card",
    variants: ["image"],
    copy: (ctx, id) => cachedCardImage(ctx, id),
  },
];

function notFound(c: Context<ApiEnv>): Response {
  return c.text("Not Found", 404, CORS);
}

/** The routes, mounted at the root of the app. */
export function mediaProxyRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  for (const form of FORMS) {
    app.get(form.path, async (c) => {
      const { id, variant } = c.req.param() as { id: string; variant: string };
      const sig = c.req.query("sig") ?? "";
      const ctx = c.get("ctx");
      if (!/^\d{1,20}$/.test(id) || !form.variants.includes(variant)) return notFound(c);
      const target = { kind: form.kind, variant } as ProxyTarget;
      if (!ctx.mediaUrls.verifyProxy(target, id, sig)) return notFound(c);
      try {
        const key = await form.copy(ctx, id, variant);
        return new Response(null, {
          status: 302,
          headers: {
            ...CORS,
            "Location": ctx.mediaUrls.file(key),
            "Cache-Control": "public, max-age=3600",
          },
        });
      } catch (error) {
        return failure(c, error);
      }
    });
  }
  return app;
}

/** The answer for a copy that could not be had. */
function failure(c: Context<ApiEnv>, error: unknown): Response {
  if (error instanceof MediaStoreUnavailable) {
    return c.text("Service Unavailable", 503, { ...CORS, "Retry-After": "30" });
  }
  if (!(error instanceof RemoteMediaRefused)) throw error;
  if (error.reason !== "unavailable") {
    logger.info("Not cached ({reason}): {message}", {
      reason: error.reason,
      message: error.message,
    });
  }
  return error.transient ? c.text("Bad Gateway", 502, CORS) : notFound(c);
}
