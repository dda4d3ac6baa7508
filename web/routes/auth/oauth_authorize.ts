/**
 * The browser side of the authorization code flow:
 * - GET /oauth/authorize: validates the request, then shows the sign-in page
 *   (no session, or force_login) or the consent page.
 * - POST /oauth/authorize: the consent decision (`decision=approve|deny`,
 *   or Rails' `_method=delete` for deny), with the session's CSRF token.
 * - DELETE /oauth/authorize: deny, as Doorkeeper routes it.
 * - GET /oauth/authorize/native: shows an out-of-band code.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import type { Params } from "../../../api/params.ts";
import { formParams } from "./page.ts";
import { constantTimeEqual, issueAuthorizationCode } from "../../../actors/oauth/oauth.ts";
import { loginRefusal, type WebSession } from "../../../actors/auth/sessions.ts";
import { twoFactorSetupRedirect } from "../form_pages.ts";
import { CodePage, ConsentPage } from "../../pages/auth/oauth.tsx";
import { SignInPage } from "../../pages/auth/sign_in.tsx";
import {
  type AuthorizeRequest,
  currentSession,
  endSession,
  errorPage,
  redirectToClient,
  sendPage,
  signInCsrfToken,
  validateAuthorizeRequest,
} from "./authorize_request.ts";

/** What a sign-in form shows again after a failed attempt. */
export type SignInShown = { error?: string; login?: string; status?: 200 | 401 | 403 | 429 };

/**
 * Sends the sign-in form carrying `fields` (an authorization request's, or
 * where to go back to), naming the app an authorization request is for.
 */
export function sendSignInForm(
  c: Context<ApiEnv>,
  form: { fields: Record<string, string | undefined>; appName?: string },
  options: SignInShown = {},
): Response {
  const { config } = c.get("ctx");
  return sendPage(
    c,
    SignInPage({
      instanceTitle: config.instance.title,
      domain: config.domain,
      fields: form.fields,
      csrfToken: signInCsrfToken(c),
      appName: form.appName,
      error: options.error,
      login: options.login,
    }),
    options.status ?? 200,
  );
}

/** Shows the sign-in form for an authorization request. */
export function showSignIn(
  c: Context<ApiEnv>,
  request: AuthorizeRequest,
  options: SignInShown = {},
): Response {
  return sendSignInForm(c, { fields: request.fields, appName: request.application.name }, options);
}

/** The validated request and the browser's session, or the page that answers instead. */
async function authorizeContext(
  c: Context<ApiEnv>,
): Promise<{ p: Params; request: AuthorizeRequest; session: WebSession | null } | Response> {
  const p = await formParams(c);
  if (!p) return errorPage(c, "invalid_request");
  const validation = await validateAuthorizeRequest(c, p);
  if (!validation.ok) return validation.response;
  return { p, request: validation.request, session: await currentSession(c) };
}

/**
 * When the login was disabled (or suspended) since signing in, the session
 * ends and the sign-in form says why; null when it may go on.
 */
async function refusedLogin(
  c: Context<ApiEnv>,
  session: WebSession,
  request: AuthorizeRequest,
): Promise<Response | null> {
  const refusal = loginRefusal(session.user.state);
  if (!refusal) return null;
  await endSession(c, session);
  return showSignIn(c, request, { error: refusal, status: 403 });
}

/** GET /oauth/authorize: the sign-in page, or the consent page for a signed-in browser. */
async function showAuthorize(c: Context<ApiEnv>): Promise<Response> {
  const found = await authorizeContext(c);
  if (found instanceof Response) return found;
  const { request, session } = found;
  if (!session || request.forceLogin) return showSignIn(c, request);
  const refused = await refusedLogin(c, session, request);
  if (refused) return refused;
  // A role that requires two-factor sign-in: no app is authorized before it is set up.
  const setup = await twoFactorSetupRedirect(c, session);
  if (setup) return setup;
  const { config } = c.get("ctx");
  return sendPage(
    c,
    ConsentPage({
      instanceTitle: config.instance.title,
      appName: request.application.name,
      appWebsite: request.application.website,
      username: session.user.username,
      domain: config.domain,
      scopes: request.scopes,
      fields: request.fields,
      csrfToken: session.csrfToken,
    }),
  );
}

/** POST (or DELETE: always deny) /oauth/authorize: the consent decision. */
function decide(forceDeny: boolean) {
  return async (c: Context<ApiEnv>): Promise<Response> => {
    const found = await authorizeContext(c);
    if (found instanceof Response) return found;
    const { p, request, session } = found;
    if (!session) return showSignIn(c, request);
    const presented = typeof p.authenticity_token === "string" ? p.authenticity_token : "";
    if (!presented || !constantTimeEqual(presented, session.csrfToken)) {
      // Not from our consent page (or from a page of an older session).
      return errorPage(c, "invalid_request", 403);
    }
    const refused = await refusedLogin(c, session, request);
    if (refused) return refused;
    const deny = forceDeny || p.decision === "deny" ||
      (typeof p._method === "string" && p._method.toLowerCase() === "delete");
    if (deny) {
      return redirectToClient(c, request.redirectUri, {
        error: "access_denied",
        state: request.state,
      }, request.responseMode);
    }
    const code = await issueAuthorizationCode(c.get("ctx").database.db, {
      applicationId: request.application.id,
      userId: session.user.userId,
      redirectUri: request.redirectUri,
      scopes: request.scopes,
      codeChallenge: request.codeChallenge,
    });
    return redirectToClient(
      c,
      request.redirectUri,
      { code, state: request.state },
      request.responseMode,
    );
  };
}

/** The authorize routes, mounted at the root of the app. */
export function authorizeRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get("/oauth/authorize", showAuthorize);
  app.post("/oauth/authorize", decide(false));
  app.delete("/oauth/authorize", decide(true));
  app.get("/oauth/authorize/native", (c) => {
    const code = c.req.query("code") ?? "";
    if (!code || code.length > 200) return errorPage(c, "invalid_request");
    return sendPage(
      c,
      CodePage({ instanceTitle: c.get("ctx").config.instance.title, code }),
    );
  });
  return app;
}
