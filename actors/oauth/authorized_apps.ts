/**
 * What a user sees and ends under /settings: the applications holding live
 * tokens for the account (with the scopes they were granted), and the
 * browser sessions signed in to it.
 *
 * Revoking an application revokes all of its tokens for this user, drops
 * their Web Push subscriptions and its unused authorization codes, in one
 * transaction, as Mastodon's OAuth::AuthorizedApplicationsController
 * (Doorkeeper's revoke_all_for plus the push subscriptions) does.
 */
import { and, desc, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Executor } from "../../db/connection.ts";
import {
  oauthAccessTokens,
  oauthApplications,
  oauthAuthorizationCodes,
  webPushSubscriptions,
  webSessions,
} from "../../db/schema/mod.ts";

/** An application with live tokens for the user. */
export interface AuthorizedApp {
  id: string;
  name: string;
  website: string | null;
  /** The union of the scopes its live tokens carry. */
  scopes: string[];
  /** When the first of its live tokens was issued. */
  authorizedAt: Date;
  lastUsedAt: Date | null;
}

/** The applications with live user tokens for `userId`, most recently authorized first. */
export async function authorizedApps(db: Executor, userId: string): Promise<AuthorizedApp[]> {
  const rows = await db.select({
    id: oauthApplications.id,
    name: oauthApplications.name,
    website: oauthApplications.website,
    scopes: oauthAccessTokens.scopes,
    createdAt: oauthAccessTokens.createdAt,
    lastUsedAt: oauthAccessTokens.lastUsedAt,
  }).from(oauthAccessTokens)
    .innerJoin(oauthApplications, eq(oauthApplications.id, oauthAccessTokens.applicationId))
    .where(and(
      eq(oauthAccessTokens.userId, userId),
      isNull(oauthAccessTokens.revokedAt),
      // Web tokens are browser sessions, listed on the sessions page.
      isNull(oauthAccessTokens.webSessionId),
    ))
    .orderBy(desc(oauthAccessTokens.createdAt));
  const apps = new Map<string, AuthorizedApp>();
  for (const row of rows) {
    const app = apps.get(row.id) ?? {
      id: row.id,
      name: row.name,
      website: row.website,
      scopes: [],
      authorizedAt: row.createdAt,
      lastUsedAt: null,
    };
    for (const scope of row.scopes) if (!app.scopes.includes(scope)) app.scopes.push(scope);
    if (row.createdAt < app.authorizedAt) app.authorizedAt = row.createdAt;
    if (row.lastUsedAt && (!app.lastUsedAt || row.lastUsedAt > app.lastUsedAt)) {
      app.lastUsedAt = row.lastUsedAt;
    }
    apps.set(row.id, app);
  }
  return [...apps.values()];
}

/**
 * Revokes everything an application holds for a user. False when it holds
 * nothing live for this user (an unknown id, or another user's app), so the
 * route can answer 404 without telling the two apart.
 */
export async function revokeAuthorizedApp(
  db: Executor,
  userId: string,
  applicationId: string,
): Promise<boolean> {
  if (!/^\d{1,19}$/.test(applicationId)) return false;
  return await db.transaction(async (tx) => {
    const revoked = await tx.update(oauthAccessTokens).set({ revokedAt: sql`now()` }).where(and(
      eq(oauthAccessTokens.userId, userId),
      eq(oauthAccessTokens.applicationId, applicationId),
      isNull(oauthAccessTokens.revokedAt),
    )).returning({ id: oauthAccessTokens.id });
    if (revoked.length === 0) return false;
    await tx.delete(webPushSubscriptions).where(
      inArray(webPushSubscriptions.accessTokenId, revoked.map((r) => r.id)),
    );
    await tx.delete(oauthAuthorizationCodes).where(and(
      eq(oauthAuthorizationCodes.userId, userId),
      eq(oauthAuthorizationCodes.applicationId, applicationId),
      isNull(oauthAuthorizationCodes.usedAt),
    ));
    return true;
  });
}

/** A browser session of the user, as the sessions page lists it. */
export interface SessionEntry {
  id: string;
  userAgent: string | null;
  ip: string | null;
  createdAt: Date;
  lastSeenAt: Date;
}

/** The user's browser sessions, most recently used first. */
export async function listSessions(db: Executor, userId: string): Promise<SessionEntry[]> {
  return await db.select({
    id: webSessions.id,
    userAgent: webSessions.userAgent,
    ip: webSessions.ip,
    createdAt: webSessions.createdAt,
    lastSeenAt: webSessions.lastSeenAt,
  }).from(webSessions).where(eq(webSessions.userId, userId))
    .orderBy(desc(webSessions.lastSeenAt));
}

/** Ends one of the user's sessions; false when it is not theirs (or unknown). */
export async function endUserSession(
  db: Executor,
  userId: string,
  sessionId: string,
): Promise<boolean> {
  if (!/^\d{1,19}$/.test(sessionId)) return false;
  const ended = await db.delete(webSessions).where(
    and(eq(webSessions.id, sessionId), eq(webSessions.userId, userId)),
  ).returning({ id: webSessions.id });
  return ended.length > 0;
}

/** Ends every session of the user but `keepId` (sign out everywhere else). */
export async function endOtherSessions(
  db: Executor,
  userId: string,
  keepId: string,
): Promise<number> {
  const ended = await db.delete(webSessions).where(
    and(eq(webSessions.userId, userId), sql`${webSessions.id} <> ${keepId}`),
  ).returning({ id: webSessions.id });
  return ended.length;
}
