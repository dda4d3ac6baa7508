/**
 * The web app's streaming credential (Mastodon's session-bound token of its
 * built-in "Web" application, narrowed): one access token per browser
 * session, of the superapp created by migration 0054, with
 * `read:statuses read:notifications`, accepted on the streaming API only
 * (api/middleware/auth.ts) and deleted with its session row (cascade).
 *
 * Its value is never stored: it is an HMAC of the session's cookie secret
 * and the token's id, so only the browser holding the cookie can derive it,
 * and the page can show it without the database keeping a usable secret.
 * The row keeps its SHA-256 like any token, so the usual lookup finds it.
 */
import { createHmac } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import { newId } from "../../db/ids.ts";
import { oauthAccessTokens } from "../../db/schema/mod.ts";
import { hashSecret } from "../oauth/tokens.ts";
import type { WebSession } from "./sessions.ts";

/** What the web token may do: watch the reader's timelines and notifications. */
export const WEB_TOKEN_SCOPES = ["read:statuses", "read:notifications"];

/** The streaming paths a web token opens; everything else refuses it. */
export const WEB_TOKEN_PATH = "/api/v1/streaming";

/**
 * The token's value: HMAC-SHA256 keyed by the session's cookie secret (43
 * characters, base64url). Synchronous node:crypto, not WebCrypto: every
 * signed-in page derives it, and importing a key per page cost more than
 * the rest of the session check (profile of the web home page).
 */
export function webTokenValue(sessionSecret: string, tokenId: string): string {
  return createHmac("sha256", sessionSecret).update(`rookery-web-token:${tokenId}`)
    .digest("base64url");
}

/**
 * The session's web token (its id and the Web application's), inserting it
 * when the session has none yet (a new session, or its token was revoked by
 * a password change): one write per session lifetime. Two pages loading at
 * once race on the unique partial index; the loser reads the winner's row.
 */
export async function ensureWebToken(
  db: Executor,
  session: WebSession,
  sessionSecret: string,
): Promise<{ id: string; applicationId: string | null }> {
  if (session.webToken) return session.webToken;
  const id = newId();
  await db.insert(oauthAccessTokens).values({
    id,
    tokenHash: await hashSecret(webTokenValue(sessionSecret, id)),
    applicationId: sql`(SELECT id FROM oauth_applications WHERE superapp LIMIT 1)`,
    userId: session.user.userId,
    scopes: WEB_TOKEN_SCOPES,
    webSessionId: session.id,
  }).onConflictDoNothing();
  const [row] = await db.select({
    id: oauthAccessTokens.id,
    applicationId: oauthAccessTokens.applicationId,
  }).from(oauthAccessTokens)
    .where(
      sql`${oauthAccessTokens.webSessionId} = ${session.id} AND ${oauthAccessTokens.revokedAt} IS NULL`,
    )
    .limit(1);
  if (!row) throw new Error(`The web token of session ${session.id} vanished as it was made`);
  return row;
}
