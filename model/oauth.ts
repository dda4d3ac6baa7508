/**
 * OAuth's words as Mastodon (Doorkeeper) says them: the error codes and
 * their descriptions, and the response modes of the code flow. Shared by
 * the API's token endpoints (api/routes/oauth.ts) and the browser's
 * authorization pages (web/routes/auth/).
 */

/** Doorkeeper's descriptions of the errors the flow can give. */
export const OAUTH_ERROR_DESCRIPTIONS = {
  invalid_request:
    "The request is missing a required parameter, includes an unsupported parameter value, or is otherwise malformed.",
  invalid_client:
    "Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.",
  invalid_redirect_uri:
    "The requested redirect uri is malformed or doesn't match client redirect URI.",
  unsupported_response_type: "The authorization server does not support this response type.",
  invalid_scope: "The requested scope is invalid, unknown, or malformed.",
  access_denied: "The resource owner or authorization server denied the request.",
  invalid_grant:
    "The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.",
  unsupported_grant_type:
    "The authorization grant type is not supported by the authorization server.",
  unauthorized_client: "You are not authorized to revoke this token",
} as const;

export type OAuthErrorCode = keyof typeof OAUTH_ERROR_DESCRIPTIONS;

/** The response modes supported for the code flow (form_post would need a script). */
export const RESPONSE_MODES = ["query", "fragment"] as const;
export type ResponseMode = typeof RESPONSE_MODES[number];
