/**
 * The one place that enforces OAuth tokens and scopes on API routes. Each
 * route declares what it needs, next to its handler:
 *
 * ```ts
 * app.get("/api/v1/accounts/verify_credentials",
 *   requireUser("read:accounts", "profile"), handler);
 * app.post("/api/v1/accounts/:id/follow", requireUser("write:follows", "follow"), handler);
 * app.get("/api/v1/apps/verify_credentials", requireApp(), handler);
 * ```
 *
 * Listing several scopes means any one of them will do; the hierarchy of
 * model/scopes.ts applies (`read` covers `read:accounts`, `follow` covers
 * `write:follows`), so routes name the narrowest scopes Mastodon names.
 *
 * The checks and their answers follow Mastodon's Api::BaseController and
 * Doorkeeper, in this order:
 * 1. no valid token (absent, unknown, revoked) → 401 "The access token is invalid"
 * 2. token without a required scope → 403 "This action is outside the authorized scopes"
 * 3. user routes: app token → 422 "This method requires an authenticated user";
 *    then the login state → 403 (unconfirmed, pending approval, disabled).
 *
 * The token itself was resolved by the authentication middleware
 * (middleware/auth.ts); this middleware only reads `c.var.token` and
 * `c.var.user`, so it costs no query.
 */
import type { Context, MiddlewareHandler } from "hono";
import type { ApiEnv } from "../env.ts";
import { scopesAllow } from "../../model/scopes.ts";
import { loginRefusal } from "../../actors/auth/sessions.ts";

/** Mastodon's error messages for the token checks. */
export const SCOPE_ERRORS = {
  invalidToken: "The access token is invalid",
  outsideScopes: "This action is outside the authorized scopes",
  userRequired: "This method requires an authenticated user",
} as const;

/** What a route needs from the request's token. */
export interface TokenRequirement {
  /**
   * `token`: any valid token; `app`: a token issued to a registered
   * application (app or user token); `user`: a user token of a usable login.
   */
  kind: "token" | "app" | "user";
  /** Any one of these scopes suffices; none listed means any scope. */
  scopes: readonly string[];
}

function challenge(error: string, description: string): string {
  // Doorkeeper's header (RFC 6750 3); clients rarely read it, but some libraries do.
  return `Bearer realm="Doorkeeper", error="${error}", error_description="${description}"`;
}

function unauthorized(c: Context<ApiEnv>): Response {
  c.header("WWW-Authenticate", challenge("invalid_token", SCOPE_ERRORS.invalidToken));
  return c.json({ error: SCOPE_ERRORS.invalidToken }, 401);
}

function forbiddenScope(c: Context<ApiEnv>, scopes: readonly string[]): Response {
  c.header(
    "WWW-Authenticate",
    challenge(
      "insufficient_scope",
      `Access to this resource requires scope \\"${scopes.join(" ")}\\".`,
    ),
  );
  return c.json({ error: SCOPE_ERRORS.outsideScopes }, 403);
}

/**
 * Checks a request against a requirement; returns the error response to
 * send, or null when the request may proceed. Exported for routes whose
 * requirement depends on the request (a timeline that is public unless the
 * server is in limited mode, say).
 */
export function checkToken(c: Context<ApiEnv>, requirement: TokenRequirement): Response | null {
  const token = c.get("token");
  if (!token) return unauthorized(c);
  if (requirement.kind === "app" && !token.applicationId) return unauthorized(c);
  if (requirement.scopes.length && !scopesAllow(token.scopes, requirement.scopes)) {
    return forbiddenScope(c, requirement.scopes);
  }
  if (requirement.kind === "user") {
    const user = c.get("user");
    if (!token.userId || !user) return c.json({ error: SCOPE_ERRORS.userRequired }, 422);
    const refusal = loginRefusal(user);
    if (refusal) return c.json({ error: refusal }, 403);
  }
  return null;
}

/** The middleware for a requirement. */
export function requireToken(requirement: TokenRequirement): MiddlewareHandler<ApiEnv> {
  const frozen: TokenRequirement = { kind: requirement.kind, scopes: [...requirement.scopes] };
  return async (c, next) => {
    const refusal = checkToken(c, frozen);
    if (refusal) return refusal;
    await next();
  };
}

/** Any valid token (app or user) holding one of `scopes` (any scope when none are given). */
export function requireScopes(...scopes: string[]): MiddlewareHandler<ApiEnv> {
  return requireToken({ kind: "token", scopes });
}

/**
 * A valid token issued to a registered application, app or user token alike
 * (app credential checks, registration through the API).
 */
export function requireApp(...scopes: string[]): MiddlewareHandler<ApiEnv> {
  return requireToken({ kind: "app", scopes });
}

/** A user token holding one of `scopes`, whose login is confirmed, approved and enabled. */
export function requireUser(...scopes: string[]): MiddlewareHandler<ApiEnv> {
  return requireToken({ kind: "user", scopes });
}
