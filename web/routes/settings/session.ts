/**
 * Who may see a settings page: the browser's session of the OAuth sign-in
 * (web/routes/auth/authorize_request.ts), for any signed-in user. No session → the
 * sign-in form, coming back here; every POST must carry the session's form
 * token, so another site cannot make the user's browser act, and counts in
 * the write limits (form_pages.ts limitPageWrite). The staff
 * pages' gate (admin_web/session.ts) does the same with a permission.
 */
import type { Context, MiddlewareHandler } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import type { WebSession } from "../../../actors/auth/sessions.ts";
import { type BeforeBody, sendFormPage, setFormPageHeaders, signedInGate } from "../form_pages.ts";

/** The settings pages' headers and sender: those of every page with forms. */
export { sendFormPage as sendUserPage, setFormPageHeaders as setUserPageHeaders };

/** The signed-in user's session on a page behind {@link userPage}. */
export function settingsSession(c: Context<ApiEnv>): WebSession {
  return c.get("settingsSession")!;
}

export type { BeforeBody };

/**
 * The gate of the settings pages: a signed-in user, the limit on writes, and
 * the form token on every POST. `beforeBody` runs once the user is known and
 * before the body is read (the CSV upload refuses a file it will not take).
 */
export function userPage(options: { beforeBody?: BeforeBody } = {}): MiddlewareHandler<ApiEnv> {
  return signedInGate({ variable: "settingsSession", beforeBody: options.beforeBody });
}
