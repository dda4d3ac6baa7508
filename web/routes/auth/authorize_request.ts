/**
 * What the browser side of OAuth shares between GET/POST /oauth/authorize and
 * the sign-in form: validating an authorization request (Doorkeeper's rules
 * and order), answering a client by redirect, serving the HTML pages with
 * protective headers, and the two cookies (the session, and the
 * double-submit token that keeps other sites from signing a browser in).
 */
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ApiEnv } from "../../../api/env.ts";
import type { Params } from "../../../api/params.ts";
import {
  type ApplicationRow,
  findApplicationByClientId,
  OOB_REDIRECT_URI,
  requestedScopes,
} from "../../../actors/oauth/oauth.ts";
import {
  deleteWebSession,
  findWebSession,
  SESSION_IDLE_MS,
  type WebSession,
} from "../../../actors/auth/sessions.ts";
import { randomSecret } from "../../../actors/oauth/tokens.ts";
import { OAuthErrorPage } from "../../pages/auth/oauth.tsx";
import { sendHtmlPageNow } from "../page_response.ts";
import { SESSION_COOKIE } from "../session_cookie.ts";
import {
  OAUTH_ERROR_DESCRIPTIONS,
  type OAuthErrorCode,
  RESPONSE_MODES,
  type ResponseMode,
} from "../../../model/oauth.ts";

export { SESSION_COOKIE };
/** The sign-in form's double-submit token. */
export const CSRF_COOKIE = "_rookery_csrf";

/** A valid authorization request. */
export interface AuthorizeRequest {
  application: ApplicationRow;
  redirectUri: string;
  scopes: string[];
  state: string | undefined;
  codeChallenge: string | null;
  /** Where the answer goes on the redirect URI: its query (default) or its fragment. */
  responseMode: ResponseMode;
  forceLogin: boolean;
  /** The parameters to carry through the sign-in and consent forms. */
  fields: Record<string, string | undefined>;
}

/** Longest value accepted for any authorize parameter (state values can be long JWTs). */
const MAX_PARAM = 4000;
const PKCE_CHALLENGE = /^[A-Za-z0-9._~-]{43,128}$/;

/** A string parameter, or undefined when absent, blank or not a string. */
function str(p: Params, key: string): string | undefined {
  const value = p[key];
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** Rails' truthiness for `force_login`. */
function truthy(value: string | undefined): boolean {
  return value != null && !["0", "f", "false", "off", "no"].includes(value.toLowerCase());
}

/**
 * Validates an authorization request. Problems with the client or the
 * redirect URI are shown on a page (the redirect URI cannot be trusted);
 * other problems go back to the client as `error` on its redirect URI.
 */
export async function validateAuthorizeRequest(
  c: Context<ApiEnv>,
  p: Params,
): Promise<{ ok: true; request: AuthorizeRequest } | { ok: false; response: Response }> {
  const tooLong = Object.values(p).some((v) => typeof v === "string" && v.length > MAX_PARAM);
  const clientId = str(p, "client_id");
  if (!clientId) return { ok: false, response: errorPage(c, "invalid_request") };
  const application = await findApplicationByClientId(c.get("ctx").database.db, clientId);
  if (!application) return { ok: false, response: errorPage(c, "invalid_client") };
  const redirectUri = str(p, "redirect_uri");
  if (!redirectUri || !application.redirectUris.includes(redirectUri)) {
    return { ok: false, response: errorPage(c, "invalid_redirect_uri") };
  }
  const state = str(p, "state");
  const responseMode = str(p, "response_mode") ?? "query";
  const modeKnown = (RESPONSE_MODES as readonly string[]).includes(responseMode);
  const fail = (error: OAuthErrorCode) => ({
    ok: false as const,
    response: redirectToClient(
      c,
      redirectUri,
      { error, state },
      modeKnown ? responseMode as ResponseMode : "query",
    ),
  });
  if (tooLong) return fail("invalid_request");
  if (str(p, "response_type") !== "code") {
    return fail(str(p, "response_type") ? "unsupported_response_type" : "invalid_request");
  }
  const scopes = requestedScopes(str(p, "scope"), application.scopes);
  if (!scopes) return fail("invalid_scope");
  const codeChallenge = str(p, "code_challenge") ?? null;
  const method = str(p, "code_challenge_method");
  if (codeChallenge && (method !== "S256" || !PKCE_CHALLENGE.test(codeChallenge))) {
    return fail("invalid_request");
  }
  if (!codeChallenge && method && method !== "S256") return fail("invalid_request");
  if (!modeKnown) return fail("invalid_request");
  return {
    ok: true,
    request: {
      application,
      redirectUri,
      scopes,
      state,
      codeChallenge,
      responseMode: responseMode as ResponseMode,
      forceLogin: truthy(str(p, "force_login")),
      fields: {
        client_id: clientId,
        redirect_uri: redirectUri,
        response_type: "code",
        scope: scopes.join(" "),
        state,
        code_challenge: codeChallenge ?? undefined,
        code_challenge_method: codeChallenge ? "S256" : undefined,
        response_mode: responseMode === "query" ? undefined : responseMode,
        lang: str(p, "lang"),
      },
    },
  };
}

/**
 * Serves a page of the flow: never cached, never framed, no referrer, and no
 * form-action (page_response.ts, kind `oauth`): browsers apply it to the
 * redirect that follows a form post, and the consent form must be able to
 * redirect to any client URI.
 */
export function sendPage(c: Context<ApiEnv>, page: unknown, status: ContentfulStatusCode = 200) {
  return sendHtmlPageNow(c, "oauth", page, status);
}

/** The error page (no redirect). */
export function errorPage(
  c: Context<ApiEnv>,
  error: OAuthErrorCode,
  status: ContentfulStatusCode = 400,
): Response {
  return sendPage(
    c,
    OAuthErrorPage({
      instanceTitle: c.get("ctx").config.instance.title,
      error,
      description: OAUTH_ERROR_DESCRIPTIONS[error],
    }),
    status,
  );
}

/**
 * Sends the browser back to the client with `params` added to its redirect
 * URI (302). With the out-of-band URI there is nowhere to go: a code is shown
 * on our page, an error on the error page.
 */
export function redirectToClient(
  c: Context<ApiEnv>,
  redirectUri: string,
  params: { code?: string; error?: OAuthErrorCode; state?: string },
  mode: ResponseMode = "query",
): Response {
  if (redirectUri === OOB_REDIRECT_URI) {
    if (params.error) return errorPage(c, params.error);
    return c.redirect(`/oauth/authorize/native?code=${encodeURIComponent(params.code ?? "")}`, 302);
  }
  const url = new URL(redirectUri);
  const answer = mode === "fragment" ? new URLSearchParams() : url.searchParams;
  if (params.code) answer.set("code", params.code);
  if (params.error) {
    answer.set("error", params.error);
    answer.set("error_description", OAUTH_ERROR_DESCRIPTIONS[params.error]);
  }
  if (params.state !== undefined) answer.set("state", params.state);
  if (mode === "fragment") url.hash = answer.toString();
  c.header("Cache-Control", "no-store");
  c.header("Referrer-Policy", "no-referrer");
  return c.redirect(url.href, 302);
}

/** `/oauth/authorize?…` with the carried parameters (after signing in). */
export function authorizeUrl(fields: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(fields)) if (value) query.set(key, value);
  return `/oauth/authorize?${query}`;
}

function secureCookies(c: Context<ApiEnv>): boolean {
  return c.get("ctx").config.origin.startsWith("https:");
}

/** The browser's live session, if any. */
export async function currentSession(c: Context<ApiEnv>): Promise<WebSession | null> {
  const { database, core } = c.get("ctx");
  return await findWebSession(database.db, core.activity, getCookie(c, SESSION_COOKIE));
}

/** Gives the browser its session cookie. */
export function setSessionCookie(c: Context<ApiEnv>, secret: string): void {
  setCookie(c, SESSION_COOKIE, secret, {
    path: "/",
    httpOnly: true,
    sameSite: "Lax",
    secure: secureCookies(c),
    maxAge: Math.floor(SESSION_IDLE_MS / 1000),
  });
}

/** Ends the browser's session, in the database and in the browser. */
export async function endSession(c: Context<ApiEnv>, session: WebSession | null): Promise<void> {
  if (session) await deleteWebSession(c.get("ctx").database.db, session.id);
  deleteCookie(c, SESSION_COOKIE, { path: "/", secure: secureCookies(c) });
}

/** The sign-in form's token: the one already in the browser's cookie, or a new one. */
export function signInCsrfToken(c: Context<ApiEnv>): string {
  const existing = getCookie(c, CSRF_COOKIE);
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
  const token = randomSecret();
  setCookie(c, CSRF_COOKIE, token, {
    path: "/",
    httpOnly: true,
    sameSite: "Lax",
    secure: secureCookies(c),
  });
  return token;
}

/** The sign-in form's token as the browser's cookie has it. */
export function signInCsrfCookie(c: Context<ApiEnv>): string | undefined {
  return getCookie(c, CSRF_COOKIE);
}
