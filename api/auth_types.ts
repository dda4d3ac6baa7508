/**
 * What a request's credentials resolve to. Apart from the middleware that
 * resolves them (api/middleware/auth.ts) because the entity cache, which the
 * middleware uses, keeps them too: types shared by both live below both.
 */

/** The valid access token of a request. */
export interface AuthToken {
  id: string;
  applicationId: string | null;
  /** Null for app (client credentials) tokens. */
  userId: string | null;
  scopes: string[];
  /** A browser session's web token (actors/auth/web_tokens.ts): good on the streaming API only. */
  webSession?: boolean;
}

/** The user a token belongs to. */
export interface AuthUser {
  id: string;
  accountId: string;
  /** owner, admin, moderator or user. */
  role: string;
  disabled: boolean;
  approved: boolean;
  confirmed: boolean;
}
