/**
 * Who may see a staff page: the browser's session (the same cookie as the
 * OAuth sign-in, web/routes/auth/authorize_request.ts) whose user's role holds
 * the page's permission (model/permissions.ts, the table the admin API asks
 * too). No session → the sign-in form, coming back here; a session without
 * the permission → 403. Every POST must carry the session's form token, so
 * another site cannot make a moderator's browser act, and counts in the write
 * limits (form_pages.ts limitPageWrite).
 */
import type { Context, MiddlewareHandler } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import { hasPermission, type Permission } from "../../../model/permissions.ts";
import {
  formTokenValid,
  limitPageWrite,
  liveSession,
  maySignInFirst,
  redirectToSignIn,
  sendFormPage,
  twoFactorSetupRedirect,
} from "../form_pages.ts";
import { ForbiddenPage, type StaffViewer } from "../../pages/admin/layout.tsx";

/** Sends a staff page (doctype, strict headers). */
export const sendStaffPage = sendFormPage;

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
    const session = await liveSession(c);
    const limited = await limitPageWrite(c, session);
    if (limited) return limited;
    if (!session) {
      return maySignInFirst(c) ? redirectToSignIn(c) : await sendStaffPage(c, forbidden(c), 403);
    }
    const setup = await twoFactorSetupRedirect(c, session);
    if (setup) return setup;
    if (!hasPermission(session.user.role, permission) || !(await formTokenValid(c, session))) {
      return await sendStaffPage(c, forbidden(c), 403);
    }
    c.set("staff", session);
    await next();
  };
}

function forbidden(c: Context<ApiEnv>) {
  return ForbiddenPage({ instanceTitle: c.get("ctx").config.instance.title });
}
