/**
 * Who may see a settings page: the browser's session of the OAuth sign-in
 * (api/routes/authorize_request.ts), for any signed-in user. No session → the
 * sign-in form, coming back here; every POST must carry the session's form
 * token, so another site cannot make the user's browser act. The staff
 * pages' gate (admin_web/session.ts) does the same with a permission.
 */
import type { Context, MiddlewareHandler } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ApiEnv } from "../../env.ts";
import { params } from "../../params.ts";
import { constantTimeEqual } from "../../../actors/oauth.ts";
import { loginRefusal, type WebSession } from "../../../actors/sessions.ts";
import { currentSession, endSession } from "../authorize_request.ts";

/** Headers of every settings page: never cached, never framed, no script, forms to us only. */
export function setUserPageHeaders(c: Context<ApiEnv>): void {
  c.header("Cache-Control", "no-store");
  c.header("X-Frame-Options", "DENY");
  c.header("Referrer-Policy", "same-origin");
  c.header("X-Content-Type-Options", "nosniff");
  c.header(
    "Content-Security-Policy",
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data: https:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  );
}

/** Sends a JSX page (Hono escapes every value) with the settings page headers. */
export async function sendUserPage(
  c: Context<ApiEnv>,
  page: unknown,
  status: ContentfulStatusCode = 200,
): Promise<Response> {
  setUserPageHeaders(c);
  const html = await (page as { toString(): string | Promise<string> }).toString();
  return c.html(`<!DOCTYPE html>${html}`, status);
}

/** The signed-in user's session on a page behind {@link userPage}. */
export function settingsSession(c: Context<ApiEnv>): WebSession {
  return c.get("settingsSession")!;
}

/** The gate of the settings pages: a signed-in user, and the form token on every POST. */
export function userPage(): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    if (c.get("settingsSession")) return await next();
    let session = await currentSession(c);
    if (session && loginRefusal(session.user.state)) {
      // Suspended or disabled since signing in: the session is over.
      await endSession(c, session);
      session = null;
    }
    if (!session) {
      if (c.req.method !== "GET" && c.req.method !== "HEAD") {
        setUserPageHeaders(c);
        return c.text("Sign in first.", 403);
      }
      const url = new URL(c.req.url);
      const back = encodeURIComponent(url.pathname + url.search);
      return c.redirect(`/auth/sign_in?redirect_to=${back}`, 303);
    }
    if (c.req.method === "POST") {
      let presented: unknown;
      try {
        presented = (await params(c)).authenticity_token;
      } catch {
        presented = undefined;
      }
      if (typeof presented !== "string" || !constantTimeEqual(presented, session.csrfToken)) {
        setUserPageHeaders(c);
        return c.text("The form's token is missing or wrong: reload the page and try again.", 403);
      }
    }
    c.set("settingsSession", session);
    await next();
  };
}
