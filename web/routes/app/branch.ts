/**
 * One URL, two renderings (/, /tags/:name, /@acct, /@acct/:id): a browser
 * with a live session gets the web app's page, anyone else the public page
 * mounted after the app (as Mastodon's web app lives at the same paths).
 * ActivityPub requests always go on to the public routes, which negotiate
 * the actor or the Note: a signed-in browser's cookie must never shadow
 * them. Public pages already vary by cookie, and any request carrying a
 * session cookie is answered `no-store` (page_response.ts), so caches keep
 * the two renderings apart.
 */
import type { Handler, MiddlewareHandler } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import { liveSession, twoFactorSetupRedirect } from "../form_pages.ts";
import { carriesSession } from "../session_cookie.ts";
import { prefersActivityPub } from "../public/profile_pages.ts";
import { prepareAppRequest } from "./session.tsx";

/** Runs `handler` for a live session's GET/HEAD; everything else goes on (`next`). */
export function signedInBranch(handler: Handler<ApiEnv>): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    if (c.req.method !== "GET" && c.req.method !== "HEAD") return await next();
    if (prefersActivityPub(c.req.header("accept"))) return await next();
    if (!carriesSession(c)) return await next();
    const session = await liveSession(c);
    if (!session) return await next();
    // As behind the gate: a role that requires two-factor sign-in sets it up first.
    const setup = await twoFactorSetupRedirect(c, session);
    if (setup) return setup;
    c.set("appSession", session);
    await prepareAppRequest(c);
    return await handler(c, next);
  };
}
