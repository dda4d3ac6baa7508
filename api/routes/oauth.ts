/**
 * The machine side of OAuth 2:
 * - POST /oauth/token: authorization_code (with PKCE S256) and
 *   client_credentials grants; the password grant is gone, as in Mastodon 4.4.
 * - POST /oauth/revoke: revokes a token the client owns.
 * - GET/POST /oauth/userinfo: OpenID-style claims (user token, `profile`).
 * - GET /.well-known/oauth-authorization-server: RFC 8414 metadata.
 *
 * Clients authenticate with client_id/client_secret in the body or with HTTP
 * Basic (RFC 6749 2.3.1). Errors are `{"error", "error_description"}`.
 */
import { Hono } from "hono";
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { eq } from "drizzle-orm";
import type { ApiEnv } from "../env.ts";
import { type Params, params } from "../params.ts";
import { requireUser } from "../middleware/scopes.ts";
import { tokenEntity } from "../entities/token.ts";
import { DEFAULT_AVATAR_PATH } from "./static_images.ts";
import {
  OAUTH_ERROR_DESCRIPTIONS,
  type OAuthErrorCode,
  RESPONSE_MODES,
} from "../../model/oauth.ts";
import {
  type ApplicationRow,
  authenticateClient,
  InvalidGrantError,
  issueClientCredentialsToken,
  redeemAuthorizationCode,
  requestedScopes,
  revokeToken,
} from "../../actors/oauth/oauth.ts";
import { ALL_SCOPES } from "../../model/scopes.ts";
import { accounts } from "../../db/schema/mod.ts";

/** The grants this server issues tokens for. */
export const GRANT_TYPES = ["authorization_code", "client_credentials"] as const;

function oauthError(
  c: Context<ApiEnv>,
  status: ContentfulStatusCode,
  error: OAuthErrorCode,
  description: string = OAUTH_ERROR_DESCRIPTIONS[error],
): Response {
  c.header("Cache-Control", "no-store");
  c.header("Pragma", "no-cache");
  if (status === 401) {
    c.header(
      "WWW-Authenticate",
      `Bearer realm="Doorkeeper", error="${error}", error_description="${description}"`,
    );
  }
  return c.json({ error, error_description: description }, status);
}

function str(p: Params, key: string): string | undefined {
  const value = p[key];
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** The client credentials of a request: HTTP Basic first, then the body. */
export function clientCredentials(
  authorization: string | undefined,
  p: Params,
): { clientId: string; clientSecret: string } | null {
  const basic = authorization && /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization);
  if (basic) {
    let decoded: string;
    try {
      decoded = new TextDecoder("utf-8", { fatal: true }).decode(
        Uint8Array.from(atob(basic[1]), (ch) => ch.charCodeAt(0)),
      );
    } catch {
      return null;
    }
    const colon = decoded.indexOf(":");
    if (colon < 0) return null;
    // RFC 6749 2.3.1: both parts are form-encoded before they are joined.
    const unescape = (s: string) => {
      try {
        return decodeURIComponent(s.replaceAll("+", " "));
      } catch {
        return s;
      }
    };
    return {
      clientId: unescape(decoded.slice(0, colon)),
      clientSecret: unescape(decoded.slice(colon + 1)),
    };
  }
  const clientId = str(p, "client_id");
  const clientSecret = str(p, "client_secret");
  return clientId && clientSecret ? { clientId, clientSecret } : null;
}

async function authenticatedClient(c: Context<ApiEnv>, p: Params): Promise<ApplicationRow | null> {
  const credentials = clientCredentials(c.req.header("authorization"), p);
  if (!credentials) return null;
  if (credentials.clientId.length > 200 || credentials.clientSecret.length > 200) return null;
  return await authenticateClient(
    c.get("ctx").database.db,
    credentials.clientId,
    credentials.clientSecret,
  );
}

/** The authorization_code grant: the code redeemed (with its PKCE verifier) for a token. */
async function authorizationCodeGrant(
  c: Context<ApiEnv>,
  p: Params,
  application: ApplicationRow,
): Promise<Response> {
  const code = str(p, "code");
  if (!code) return oauthError(c, 400, "invalid_request", "Missing required parameter: code.");
  const redirectUri = str(p, "redirect_uri");
  if (!redirectUri) {
    return oauthError(c, 400, "invalid_request", "Missing required parameter: redirect_uri.");
  }
  if (code.length > 200 || redirectUri.length > 4000) {
    return oauthError(c, 400, "invalid_grant");
  }
  const verifier = str(p, "code_verifier");
  if (verifier && verifier.length > 200) return oauthError(c, 400, "invalid_grant");
  try {
    const { token, row } = await redeemAuthorizationCode(c.get("ctx").database.db, {
      application,
      code,
      redirectUri,
      codeVerifier: verifier,
    });
    return c.json(tokenEntity(token, row));
  } catch (error) {
    if (error instanceof InvalidGrantError) return oauthError(c, 400, "invalid_grant");
    throw error;
  }
}

/** POST /oauth/token. */
async function postToken(c: Context<ApiEnv>): Promise<Response> {
  const p = await params(c);
  const grantType = str(p, "grant_type");
  if (!grantType) {
    return oauthError(c, 400, "invalid_request", "Missing required parameter: grant_type.");
  }
  if (!(GRANT_TYPES as readonly string[]).includes(grantType)) {
    return oauthError(c, 400, "unsupported_grant_type");
  }
  const application = await authenticatedClient(c, p);
  if (!application) return oauthError(c, 401, "invalid_client");
  c.header("Cache-Control", "no-store");
  c.header("Pragma", "no-cache");
  if (grantType !== "client_credentials") return await authorizationCodeGrant(c, p, application);
  const scopes = requestedScopes(str(p, "scope"), application.scopes);
  if (!scopes) return oauthError(c, 400, "invalid_scope");
  const db = c.get("ctx").database.db;
  const { token, row } = await issueClientCredentialsToken(db, application, scopes);
  return c.json(tokenEntity(token, row));
}

/** POST /oauth/revoke: a token the client owns (an unknown one is revoked already). */
async function postRevoke(c: Context<ApiEnv>): Promise<Response> {
  const p = await params(c);
  const application = await authenticatedClient(c, p);
  if (!application) return oauthError(c, 401, "invalid_client");
  const token = str(p, "token");
  if (!token || token.length > 200) return oauthError(c, 403, "unauthorized_client");
  const outcome = await revokeToken(c.get("ctx").database.db, application, token);
  if (outcome === "not_owned") return oauthError(c, 403, "unauthorized_client");
  return c.json({});
}

/** GET or POST /oauth/userinfo: the token's user as OpenID claims. */
async function userinfo(c: Context<ApiEnv>): Promise<Response> {
  const { config, database } = c.get("ctx");
  const user = c.get("user")!;
  const [account] = await database.db.select({
    username: accounts.username,
    displayName: accounts.displayName,
    uri: accounts.uri,
    url: accounts.url,
    avatarUrl: accounts.avatarUrl,
  }).from(accounts).where(eq(accounts.id, user.accountId)).limit(1);
  if (!account) return c.json({ error: "Record not found" }, 404);
  c.header("Cache-Control", "no-store");
  return c.json({
    iss: `${config.origin}/`,
    sub: account.uri,
    name: account.displayName,
    preferred_username: account.username,
    profile: account.url ?? account.uri,
    picture: account.avatarUrl ?? `${config.origin}${DEFAULT_AVATAR_PATH}`,
  });
}

/** GET /.well-known/oauth-authorization-server: RFC 8414 metadata. */
function serverMetadata(c: Context<ApiEnv>): Response {
  const { origin } = c.get("ctx").config;
  c.header("Cache-Control", "public, max-age=259200");
  return c.json({
    issuer: `${origin}/`,
    service_documentation: "https://docs.joinmastodon.org/",
    authorization_endpoint: `${origin}/oauth/authorize`,
    token_endpoint: `${origin}/oauth/token`,
    app_registration_endpoint: `${origin}/api/v1/apps`,
    revocation_endpoint: `${origin}/oauth/revoke`,
    userinfo_endpoint: `${origin}/oauth/userinfo`,
    scopes_supported: ALL_SCOPES,
    response_types_supported: ["code"],
    response_modes_supported: RESPONSE_MODES,
    grant_types_supported: GRANT_TYPES,
    token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
    code_challenge_methods_supported: ["S256"],
  });
}

/** The OAuth endpoints, mounted at the root of the app. */
export function oauthRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.post("/oauth/token", postToken);
  app.post("/oauth/revoke", postRevoke);
  app.get("/oauth/userinfo", requireUser("profile"), userinfo);
  app.post("/oauth/userinfo", requireUser("profile"), userinfo);
  app.get("/.well-known/oauth-authorization-server", serverMetadata);
  return app;
}
