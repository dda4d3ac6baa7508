/**
 * The name of the browser session's cookie, apart from the session code
 * (authorize_request.ts) so that the page headers (page_response.ts), which
 * that code uses, can ask whether a request carries one.
 */
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import type { ApiEnv } from "../../api/env.ts";

/** The session cookie (HttpOnly, SameSite=Lax, Secure on https origins). */
export const SESSION_COOKIE = "_rookery_session";

/**
 * Whether the request carries a session cookie, live or not: a page
 * answering it may have been rendered for a signed-in user (their name, a
 * form token), so it must not be stored for anyone else.
 */
export function carriesSession(c: Context<ApiEnv>): boolean {
  return !!getCookie(c, SESSION_COOKIE);
}
