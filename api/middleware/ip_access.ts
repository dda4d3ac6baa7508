/**
 * Refuses every request from an address under a live `no_access` IP block
 * (Mastodon's Rack::Attack blocklist): the API, OAuth and sign-in, pages and
 * federation alike, with 403. The client address is the one the rate
 * limiter counts (api/client_ip.ts, so TRUST_PROXY applies); the blocks come
 * from the per-process cache (actors/access_blocks/ip_block_cache.ts), so a
 * request costs no query.
 */
import type { MiddlewareHandler } from "hono";
import { getLogger } from "@logtape/logtape";
import type { ApiEnv } from "../env.ts";
import { clientIp } from "../client_ip.ts";
import { isNoAccess } from "../../actors/access_blocks/ip_block_cache.ts";

const logger = getLogger(["rookery", "http", "ip-access"]);

/** What a refused client is told (Mastodon's forbidden wording). */
export const ACCESS_REFUSED = "This action is not allowed";

/** The middleware; mount it before authentication so a refused request costs nothing more. */
export function ipAccess(): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    let refused = false;
    try {
      refused = await isNoAccess(c.get("ctx"), clientIp(c));
    } catch (error) {
      // Fail open: a database hiccup must not take every request down with it.
      logger.warn("Could not read the IP blocks: {error}", { error });
    }
    if (!refused) return await next();
    c.header("Cache-Control", "no-store");
    const path = c.req.path;
    if (path.startsWith("/api/") || path.startsWith("/oauth/")) {
      return c.json({ error: ACCESS_REFUSED }, 403);
    }
    return c.text("Forbidden", 403);
  };
}
