/**
 * The Mastodon API in authorized-fetch mode (`AUTHORIZED_FETCH=true`): only
 * signed-in users read it. Serving statuses and accounts to anyone who asks
 * would give back through the API what the ActivityPub side refuses to
 * unsigned fetchers.
 *
 * As Mastodon's `require_authenticated_user!` (Api::BaseController, when
 * unauthenticated API access is disallowed): a request without a user token
 * answers 401 `This API requires an authenticated user`, before any scope
 * check. The exceptions are Mastodon's too: what a client needs before
 * anyone signs in (the instance's description and custom emoji, registering
 * an app, checking its token, creating an account).
 */
import type { MiddlewareHandler } from "hono";
import type { ApiEnv } from "../env.ts";
import { apiError } from "../errors.ts";

export const AUTHENTICATED_USER_REQUIRED = "This API requires an authenticated user";

/** Routes that stay open to requests without a user. */
function openWithoutUser(method: string, path: string): boolean {
  const p = path.replace(/\/$/, "");
  if (/^\/api\/v[12]\/instance(\/|$)/.test(p)) return true;
  if (p === "/api/v1/custom_emojis") return true;
  // Public statuses for embedding, and the peers list's search (as /instance/peers).
  if (p === "/api/oembed" || p === "/api/v1/peers/search") return true;
  if (p === "/api/v1/apps/verify_credentials") return true;
  if (method === "POST" && (p === "/api/v1/apps" || p === "/api/v1/accounts")) return true;
  return false;
}

/** Mounted on `/api/*` after authentication; a no-op unless authorized fetch is on. */
export function requireUserInAuthorizedFetch(): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    if (!c.get("ctx").config.authorizedFetch || c.get("user")) return await next();
    if (c.req.method === "OPTIONS" || openWithoutUser(c.req.method, c.req.path)) {
      return await next();
    }
    return apiError(c, 401, AUTHENTICATED_USER_REQUIRED);
  };
}
