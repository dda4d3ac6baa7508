/**
 * Who may see a staff page: the browser's session (the same cookie as the
 * OAuth sign-in, api/routes/authorize_request.ts) whose user's role holds
 * the page's permission (actors/permissions.ts, the table the admin API asks
 * too). No session → the sign-in form, coming back here; a session without
 * the permission → 403. Every POST must carry the session's form token, so
 * another site cannot make a moderator's browser act.
 */
import type { Context, MiddlewareHandler } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ApiEnv } from "../../env.ts";
import { params } from "../../params.ts";
import { constantTimeEqual } from "../../../actors/oauth.ts";
import { loginRefusal } from "../../../actors/sessions.ts";
import { hasPermission, type Permission } from "../../../actors/permissions.ts";
import { currentSession, endSession } from "../authorize_request.ts";
import { ForbiddenPage, type StaffViewer } from "../../pages/admin/layout.tsx";

/** Headers of every staff page: never cached, never framed, no script, forms to us only. */
function setStaffPageHeaders(c: Context<ApiEnv>): void {
  c.header("Cache-Control", "no-store");
  c.header("X-Frame-Options", "DENY");
  c.header("Referrer-Policy", "same-origin");
  c.header("X-Content-Type-Options", "nosniff");
  c.header(
    "Content-Security-Policy",
    "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data: https:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  );
}

/** Sends a JSX page (Hono escapes every value) with the staff page headers. */
export async function sendStaffPage(
  c: Context<ApiEnv>,
  page: unknown,
  status: ContentfulStatusCode = 200,
): Promise<Response> {
  setStaffPageHeaders(c);
  const html = await (page as { toString(): string | Promise<string> }).toString();
  return c.html(`<!DOCTYPE html>${html}`, status);
}

/** The page's viewer, for the layout. */
export function staffViewer(c: Context<ApiEnv>): StaffViewer {
  const session = c.get("staff")!;
  return {
    username: session.user.username,
    role: session.user.role,
    csrfToken: session.csrfToken,
  };
}

/**
 * The signed-in staff member as the actor of a command: their account (on
 * the audit rows) and role (what they may act on), as the admin API passes.
 */
export function staffModerator(c: Context<ApiEnv>): { accountId: string; role: string } {
  const { user } = c.get("staff")!;
  return { accountId: user.accountId, role: user.role };
}

/** The session behind a staff page that needs `permission`. */
export function staffPage(permission: Permission): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    // The gate of every /admin path (mod.ts) has already checked the session and the form token.
    const known = c.get("staff");
    if (known) {
      if (!hasPermission(known.user.role, permission)) {
        return await sendStaffPage(c, forbidden(c), 403);
      }
      return await next();
    }
    let session = await currentSession(c);
    if (session && loginRefusal(session.user.state)) {
      // Suspended or disabled since signing in: the session is over.
      await endSession(c, session);
      session = null;
    }
    if (!session) {
      if (c.req.method !== "GET" && c.req.method !== "HEAD") {
        return await sendStaffPage(c, forbidden(c), 403);
      }
      const url = new URL(c.req.url);
      const back = encodeURIComponent(url.pathname + url.search);
      return c.redirect(`/auth/sign_in?redirect_to=${back}`, 303);
    }
    if (!hasPermission(session.user.role, permission)) {
      return await sendStaffPage(c, forbidden(c), 403);
    }
    if (c.req.method === "POST") {
      let presented: unknown;
      try {
        presented = (await params(c)).authenticity_token;
      } catch {
        presented = undefined;
      }
      if (typeof presented !== "string" || !constantTimeEqual(presented, session.csrfToken)) {
        return await sendStaffPage(c, forbidden(c), 403);
      }
    }
    c.set("staff", session);
    await next();
  };
}

function forbidden(c: Context<ApiEnv>) {
  return ForbiddenPage({ instanceTitle: c.get("ctx").config.instance.title });
}
