/**
 * Browser sign-in and sign-out for the OAuth flow:
 * - POST /auth/sign_in: login (e-mail address or username) and password,
 *   plus the authorization request being resumed; on success a session
 *   cookie and a redirect back to /oauth/authorize.
 * - GET /auth/sign_in?redirect_to=/path: the same form outside an OAuth
 *   request (the staff pages); success goes back to that local path.
 * - POST /auth/sign_out: ends the session and goes back to the request
 *   (or to `redirect_to`, or `/`).
 *
 * The form carries a double-submit token (cookie + field) so another site
 * cannot sign a browser into an account of its choosing. As in Mastodon,
 * attempts are limited to 25 per 5 minutes per IP (the rate-limit
 * middleware, whatever the outcome) and 25 per hour per account (here: the
 * account a login names, or the login itself when it names nobody, so that
 * spreading guesses over many addresses does not help).
 */
import { Hono } from "hono";
import { getLogger } from "@logtape/logtape";
import type { Context } from "hono";
import type { ApiEnv } from "../../../api/env.ts";
import { clientIp } from "../../../api/client_ip.ts";
import { constantTimeEqual } from "../../../actors/oauth/oauth.ts";
import {
  checkPassword,
  createWebSession,
  deleteWebSession,
  findLoginUser,
  loginRefusal,
  normalLogin,
} from "../../../actors/auth/sessions.ts";
import {
  type BucketState,
  countRequest,
  RATE_LIMITS,
  refusalHeaders,
  wantsHtml,
} from "../../../api/middleware/rate_limit.ts";
import { tooManyRequests } from "../too_many_requests.ts";
import {
  authorizeUrl,
  currentSession,
  endSession,
  errorPage,
  setSessionCookie,
  validateAuthorizeRequest,
} from "./authorize_request.ts";
import { sendSignInForm, showSignIn, type SignInShown } from "./oauth_authorize.ts";
import { formField, formParams, formTokenMatches } from "./page.ts";
import { localPath } from "../local_path.ts";
import { requiresOtp } from "../../../actors/auth/two_factor.ts";
import { startSecondFactor } from "./two_factor_sign_in.tsx";

/** Devise's words, the same for an unknown login and a wrong password. */
export const INVALID_LOGIN = "Invalid e-mail address or password.";
/** Shown when the form's token does not match the browser's cookie. */
export const EXPIRED_FORM = "Your session expired. Please sign in again to continue.";

const logger = getLogger(["rookery", "http", "rate-limit"]);

/** Shown when the account's sign-in attempts are over the limit. */
export const TOO_MANY_ATTEMPTS = "Too many sign-in attempts. Please wait and try again later.";

/**
 * Counts an attempt against the account it names; the bucket's state when
 * that account is over its limit, else null. Fails open, as the middleware does.
 */
async function overAccountLimit(c: Context<ApiEnv>, login: string): Promise<BucketState | null> {
  const { config, database } = c.get("ctx");
  if (!config.rateLimits || !normalLogin(login)) return null;
  try {
    const userId = await findLoginUser(database.db, login);
    const subject = userId ? `user:${userId}` : `login:${normalLogin(login)}`;
    const [state] = await countRequest(
      c.get("ctx"),
      [{ rule: RATE_LIMITS.signInAccount, subject }],
      c.get("ctx").core.rateLimits.clock(),
    );
    return state.count > state.rule.limit ? state : null;
  } catch (error) {
    logger.warn("Could not count a sign-in attempt: {error}", { error });
    return null;
  }
}

/** The sign-in form outside an OAuth request, going back to `redirectTo`. */
function showPlainSignIn(c: Context<ApiEnv>, redirectTo: string, options: SignInShown = {}) {
  return sendSignInForm(c, { fields: { redirect_to: redirectTo } }, options);
}

/** The sign-in routes, mounted at the root of the app. */
export function signInRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  // A sign-in that is not part of an OAuth request (the staff pages, later
  // the web pages): the form carries only where to go back to.
  app.get("/auth/sign_in", async (c) => {
    const redirectTo = localPath(c.req.query("redirect_to"));
    const session = await currentSession(c);
    if (session && !loginRefusal(session.user.state)) return c.redirect(redirectTo, 303);
    return showPlainSignIn(c, redirectTo);
  });

  app.post("/auth/sign_in", async (c) => {
    const p = await formParams(c);
    if (!p) return errorPage(c, "invalid_request");
    let show: (options: SignInShown) => Response;
    let destination: string;
    if (p.client_id === undefined) {
      destination = localPath(formField(p, "redirect_to", 2000));
      show = (options) => showPlainSignIn(c, destination, options);
    } else {
      const validation = await validateAuthorizeRequest(c, p);
      if (!validation.ok) return validation.response;
      const { request } = validation;
      destination = authorizeUrl(request.fields);
      show = (options) => showSignIn(c, request, options);
    }
    const login = formField(p, "login", 320);
    if (!formTokenMatches(c, p)) {
      return show({ error: EXPIRED_FORM, login, status: 403 });
    }
    // Counted before the password is tested, so the 26th guess tests nothing.
    const over = await overAccountLimit(c, login);
    if (over) {
      const now = c.get("ctx").core.rateLimits.clock();
      if (!wantsHtml(c)) return tooManyRequests(c, over, now);
      for (const [name, value] of Object.entries(refusalHeaders(over, now))) c.header(name, value);
      return show({ error: TOO_MANY_ATTEMPTS, login, status: 429 });
    }
    const db = c.get("ctx").database.db;
    const result = await checkPassword(db, login, formField(p, "password", 1000));
    if (!result.ok) {
      const error = result.reason === "refused" ? result.message : INVALID_LOGIN;
      return show({ error, login, status: result.reason === "refused" ? 403 : 401 });
    }
    // With two-factor sign-in on, the password alone makes no session.
    if (await requiresOtp(db, result.user.userId)) {
      return await startSecondFactor(c, result.user.userId, destination);
    }
    // A fresh session on every sign-in: an older one (another account, or a
    // value an attacker planted) is ended rather than reused.
    const previous = await currentSession(c);
    if (previous) await deleteWebSession(db, previous.id);
    const session = await createWebSession(db, c.get("ctx").core.activity, result.user.userId, {
      userAgent: c.req.header("user-agent") ?? null,
      ip: clientIp(c),
    });
    setSessionCookie(c, session.secret);
    c.header("Cache-Control", "no-store");
    return c.redirect(destination, 303);
  });

  app.post("/auth/sign_out", async (c) => {
    const p = await formParams(c);
    if (!p) return errorPage(c, "invalid_request");
    const session = await currentSession(c);
    const presented = formField(p, "authenticity_token", 200);
    if (session && !(presented && constantTimeEqual(presented, session.csrfToken))) {
      return errorPage(c, "invalid_request", 403);
    }
    await endSession(c, session);
    if (p.client_id === undefined) {
      return c.redirect(localPath(formField(p, "redirect_to", 2000)), 303);
    }
    const validation = await validateAuthorizeRequest(c, p);
    if (!validation.ok) return c.redirect("/", 303);
    return c.redirect(authorizeUrl(validation.request.fields), 303);
  });

  return app;
}
